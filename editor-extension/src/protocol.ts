// Pure: the messages between the extension and the diagram panel's webview, the parameters of
// the server's isamap/diagram request, and how its answer becomes a message. Shared by the
// extension (Node) and the webview script (browser); no `vscode`, no DOM.

export const VIEWS = ['kernel', 'hardware', 'mapping', 'schedule'] as const;
export type View = (typeof VIEWS)[number];
export const DEFAULT_VIEW: View = 'schedule';

export function isView(v: unknown): v is View {
  return typeof v === 'string' && (VIEWS as readonly string[]).includes(v);
}

/**
 * Extension -> webview. An svg's `statement` is the statement in focus (0-based, as the
 * server's answer names it), which the panel opens the picture on; a loading's `text` is the
 * server's progress ("Scheduling gemm").
 */
export type ToWebview =
  | { type: 'svg'; seq: number; view: View; svg: string; caption: string; statement?: number }
  | { type: 'message'; seq: number; view: View; text: string }
  | { type: 'loading'; seq: number; view: View; text?: string }
  | { type: 'state'; view: View; mapping: number };

/** Webview -> extension. */
export type FromWebview =
  | { type: 'ready' }
  | { type: 'setView'; view: View }
  | { type: 'setMapping'; mapping: number }
  | { type: 'refresh' };

/** Validates a message from the webview (which is untrusted input). */
export function parseFromWebview(x: unknown): FromWebview | undefined {
  if (typeof x !== 'object' || x === null) return undefined;
  const m = x as Record<string, unknown>;
  switch (m.type) {
    case 'ready':
      return { type: 'ready' };
    case 'refresh':
      return { type: 'refresh' };
    case 'setView':
      return isView(m.view) ? { type: 'setView', view: m.view } : undefined;
    case 'setMapping':
      return typeof m.mapping === 'number' && Number.isInteger(m.mapping) && m.mapping >= 0 && m.mapping < 10000
        ? { type: 'setMapping', mapping: m.mapping }
        : undefined;
    default:
      return undefined;
  }
}

/** Validates a message from the extension (in the webview). */
export function parseToWebview(x: unknown): ToWebview | undefined {
  if (typeof x !== 'object' || x === null) return undefined;
  const m = x as Record<string, unknown>;
  if (!isView(m.view)) return undefined;
  const seq = typeof m.seq === 'number' ? m.seq : -1;
  switch (m.type) {
    case 'svg': {
      if (typeof m.svg !== 'string') return undefined;
      const out: ToWebview = { type: 'svg', seq, view: m.view, svg: m.svg, caption: typeof m.caption === 'string' ? m.caption : '' };
      if (isStatementIndex(m.statement)) out.statement = m.statement;
      return out;
    }
    case 'message':
      return typeof m.text === 'string' ? { type: 'message', seq, view: m.view, text: m.text } : undefined;
    case 'loading':
      return typeof m.text === 'string' ? { type: 'loading', seq, view: m.view, text: m.text } : { type: 'loading', seq, view: m.view };
    case 'state':
      return typeof m.mapping === 'number' ? { type: 'state', view: m.view, mapping: m.mapping } : undefined;
    default:
      return undefined;
  }
}

function isStatementIndex(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0;
}

export interface LspPosition {
  line: number;
  character: number;
}

export interface DiagramParams {
  textDocument: { uri: string };
  position: LspPosition;
  view: View;
  format: 'svg';
  mapping?: number;
}

export function diagramParams(uri: string, position: LspPosition, view: View, mapping = 0): DiagramParams {
  const p: DiagramParams = { textDocument: { uri }, position, view, format: 'svg' };
  if (view === 'mapping') p.mapping = mapping;
  return p;
}

/** "gemm · instance gemm_small · target host · statement 1": what a custom answer is of. */
export function captionOf(answer: Record<string, unknown>): string {
  const parts: string[] = [];
  if (typeof answer.kernel === 'string' && answer.kernel) parts.push(`kernel ${answer.kernel}`);
  if (typeof answer.instance === 'string' && answer.instance) parts.push(`instance ${answer.instance}`);
  if (typeof answer.target === 'string' && answer.target) parts.push(`target ${answer.target}`);
  if (typeof answer.statement === 'number') parts.push(`statement ${answer.statement + 1}`);
  return parts.join(' · ');
}

/** The server's answer to isamap/diagram (or the error it threw) as a message for the panel. */
export function diagramMessage(seq: number, view: View, answer: unknown, error?: unknown): ToWebview {
  if (error !== undefined) {
    const text = error instanceof Error ? error.message : typeof error === 'object' && error && 'message' in error
      ? String((error as { message: unknown }).message) : String(error);
    return { type: 'message', seq, view, text: `The server could not draw the ${view} diagram: ${text}` };
  }
  if (typeof answer !== 'object' || answer === null)
    return { type: 'message', seq, view, text: 'The server gave no answer.' };
  const a = answer as Record<string, unknown>;
  if (typeof a.svg === 'string' && a.svg.includes('<svg')) {
    const m: ToWebview = { type: 'svg', seq, view, svg: a.svg, caption: captionOf(a) };
    if (isStatementIndex(a.statement)) m.statement = a.statement;
    return m;
  }
  if (typeof a.message === 'string') return { type: 'message', seq, view, text: a.message };
  return { type: 'message', seq, view, text: 'The server answered without a picture.' };
}

/** Answers older than the last request shown are dropped (edits and cursor moves race). */
export class Sequencer {
  private last = 0;
  private shown = 0;
  next(): number {
    return ++this.last;
  }
  /** True if the answer to request `seq` should be shown (it is the newest so far). */
  accept(seq: number): boolean {
    if (seq < this.shown || seq > this.last) return false;
    this.shown = seq;
    return true;
  }
}

// ---- SVG safety (used by the webview before it puts the picture in the DOM) ------------------

/** Elements never copied from the server's SVG. */
export const FORBIDDEN_SVG_ELEMENTS: readonly string[] = ['script', 'foreignobject', 'iframe', 'object', 'embed', 'use', 'animate', 'set', 'handler', 'style', 'image'];

/** True for an attribute that must be removed: event handlers and non-local links. */
export function isUnsafeAttribute(name: string, value: string): boolean {
  const n = name.toLowerCase();
  if (n.startsWith('on')) return true;
  if (n === 'style') return true; // the CSP forbids inline styles anyway
  if (n === 'href' || n === 'xlink:href' || n.endsWith(':href') || n === 'src') {
    const v = value.trim().toLowerCase();
    return !v.startsWith('#');
  }
  return false;
}

// ---- Zoom and pan (pure geometry for the webview) -------------------------------------------

export interface ViewTransform {
  scale: number;
  x: number;
  y: number;
}

export const MIN_SCALE = 0.05;
export const MAX_SCALE = 20;
export const IDENTITY: ViewTransform = { scale: 1, x: 0, y: 0 };

/** Zooms by `factor` keeping the point (cx, cy) of the viewport where it is. */
export function zoomAt(t: ViewTransform, factor: number, cx: number, cy: number): ViewTransform {
  const scale = Math.min(MAX_SCALE, Math.max(MIN_SCALE, t.scale * factor));
  const k = scale / t.scale;
  return { scale, x: cx - (cx - t.x) * k, y: cy - (cy - t.y) * k };
}

export function panBy(t: ViewTransform, dx: number, dy: number): ViewTransform {
  return { scale: t.scale, x: t.x + dx, y: t.y + dy };
}

/** The transform that fits a w x h picture in a vw x vh viewport (never enlarging), centred. */
export function fitTransform(w: number, h: number, vw: number, vh: number): ViewTransform {
  if (!(w > 0 && h > 0 && vw > 0 && vh > 0)) return IDENTITY;
  const scale = Math.min(1, vw / w, vh / h);
  return { scale, x: (vw - w * scale) / 2, y: Math.max(0, (vh - h * scale) / 2) };
}

export function transformCss(t: ViewTransform): string {
  return `translate(${t.x}px, ${t.y}px) scale(${t.scale})`;
}

/** A wheel event's zoom factor (deltaY < 0 zooms in). */
export function wheelFactor(deltaY: number): number {
  return Math.exp(-Math.max(-500, Math.min(500, deltaY)) * 0.0015);
}
