// Pure: where the diagram panel opens a picture. A real kernel's picture is much wider than the
// panel, and fitting it shrinks its text below reading size; so a new picture opens at the scale
// at which its text is readable, on the part of it that is about the statement in focus (the
// Graphviz group titled `cluster_sN` or `sN`, the names viz/Style.cpp gives statements), and the
// user pans from there. A picture small enough to be readable when fitted is fitted. Geometry
// only (boxes in the picture's CSS pixels at scale 1); the webview measures. No `vscode`, no DOM.
import { MAX_SCALE, MIN_SCALE, fitTransform, type View, type ViewTransform } from './protocol';

export interface Size {
  width: number;
  height: number;
}

export interface Box extends Size {
  x: number;
  y: number;
}

/** The size, in CSS pixels, at which the picture's usual text is read comfortably. */
export const READABLE_TEXT_PX = 12;
/** Room kept around the statement in focus. */
export const FOCUS_MARGIN_PX = 24;

/**
 * The scale at which the picture's usual (median) font size renders at `textPx`: `fontSizes`
 * in SVG user units (Graphviz's `font-size` attributes), `pxPerUnit` the CSS pixels of one
 * unit at scale 1 (Graphviz sizes its SVG in points: 4/3). 1 when there is no text.
 */
export function readableScale(fontSizes: readonly number[], pxPerUnit: number, textPx = READABLE_TEXT_PX): number {
  const sizes = fontSizes.filter((s) => Number.isFinite(s) && s > 0).sort((a, b) => a - b);
  if (sizes.length === 0 || !(pxPerUnit > 0)) return 1;
  const median = sizes[Math.floor(sizes.length / 2)];
  return clampScale(textPx / (median * pxPerUnit));
}

/** The titles of the SVG groups that stand for statement `statement`, the best first. */
export function focusTitles(view: View, statement: number | undefined): string[] {
  if (statement === undefined || view === 'hardware') return [];
  return [`cluster_s${statement}`, `s${statement}`];
}

/**
 * What makes two answers "the same diagram", whose refresh keeps the user's zoom and pan: the
 * view, the mapping candidate, and what the caption names (kernel, instance, target, statement).
 */
export function pictureKey(view: View, caption: string, statement: number | undefined, mapping: number): string {
  return [view, view === 'mapping' ? String(mapping) : '', caption, statement ?? ''].join('|');
}

function clampScale(s: number): number {
  return Math.min(MAX_SCALE, Math.max(MIN_SCALE, s));
}

/** One axis: a picture narrower than the viewport is centred; a wider one covers it. */
function clampAxis(offset: number, size: number, viewport: number): number {
  if (size <= viewport) return (viewport - size) / 2;
  return Math.min(0, Math.max(viewport - size, offset));
}

/**
 * The transform a picture opens with, in a viewport, given the scale at which its text is
 * readable and the box of the statement in focus (if the picture has one). Never smaller than
 * readable unless the whole picture fits larger; the focus box is shown whole when it fits at a
 * readable scale (up to 1:1), centred; along an axis where it does not fit, from its start:
 * the top left, where isamap's pictures put the labels (labeljust=l, labelloc=t in
 * viz/Style.cpp) that say what a cluster is.
 */
export function openingTransform(picture: Size, viewport: Size, readable: number, focus?: Box): ViewTransform {
  const fit = fitTransform(picture.width, picture.height, viewport.width, viewport.height);
  if (!(picture.width > 0 && picture.height > 0 && viewport.width > 0 && viewport.height > 0)) return fit;
  const least = clampScale(readable);
  if (fit.scale >= least) return fit;
  const box = focus && focus.width > 0 && focus.height > 0 ? focus : undefined;
  let scale = least;
  if (box) {
    const m = 2 * FOCUS_MARGIN_PX;
    const whole = Math.min((viewport.width - m) / box.width, (viewport.height - m) / box.height);
    scale = Math.min(Math.max(whole, least), Math.max(least, 1));
  }
  const target: Box = box ?? { x: 0, y: 0, width: picture.width, height: picture.height };
  const margin = box ? FOCUS_MARGIN_PX : 0;
  const place = (start: number, size: number, room: number) =>
    size * scale + 2 * margin <= room ? room / 2 - (start + size / 2) * scale : margin - start * scale;
  return {
    scale,
    x: clampAxis(place(target.x, target.width, viewport.width), picture.width * scale, viewport.width),
    y: clampAxis(place(target.y, target.height, viewport.height), picture.height * scale, viewport.height),
  };
}
