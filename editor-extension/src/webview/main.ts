// The diagram panel's script (runs in the webview, bundled to dist/webview.js). It shows the
// server's SVG inline (parsed with DOMParser as an SVG document, sanitised, imported into
// #diagram), opens a new picture at a readable zoom on the statement in focus (diagramZoom.ts),
// zooms with the wheel and buttons, pans by dragging, and sends the chosen view.
import { focusTitles, openingTransform, pictureKey, readableScale, type Box } from '../diagramZoom';
import {
  FORBIDDEN_SVG_ELEMENTS,
  IDENTITY,
  ViewTransform,
  VIEWS,
  fitTransform,
  isUnsafeAttribute,
  isView,
  panBy,
  parseToWebview,
  transformCss,
  wheelFactor,
  zoomAt,
  type FromWebview,
  type View,
} from '../protocol';

interface VsCodeApi {
  postMessage(m: unknown): void;
  getState(): unknown;
  setState(s: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const vscode = acquireVsCodeApi();
const post = (m: FromWebview) => vscode.postMessage(m);

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const viewport = $('viewport');
const diagram = $('diagram');
const message = $('message');
const caption = $('caption');
const viewSelect = $<HTMLSelectElement>('view');
const mappingInput = $<HTMLInputElement>('mapping');
const mappingLabel = $('mapping-label');

let transform: ViewTransform = IDENTITY;
let lastSeq = -1;
let currentView: View = 'schedule';
/** The picture shown (pictureKey): a refresh of the same one keeps the user's zoom and pan. */
let shownKey: string | undefined;
/** The statement in focus of the picture shown. */
let shownStatement: number | undefined;
/** Set while a new picture waits for the panel to have a size (it opened hidden). */
let placePending = false;

function apply(): void {
  diagram.style.transform = transformCss(transform);
  // Read by the end-to-end test.
  diagram.dataset.scale = transform.scale.toFixed(3);
}

function sanitize(root: Element): void {
  const walker: Element[] = [root];
  while (walker.length) {
    const el = walker.pop()!;
    for (const child of Array.from(el.children)) {
      if (FORBIDDEN_SVG_ELEMENTS.includes(child.localName.toLowerCase())) child.remove();
      else walker.push(child);
    }
    for (const attr of Array.from(el.attributes))
      if (isUnsafeAttribute(attr.name, attr.value)) el.removeAttribute(attr.name);
  }
}

function showMessage(text: string): void {
  message.textContent = text;
  message.hidden = false;
}

function showSvg(svgText: string, captionText: string, statement: number | undefined): void {
  const doc = new DOMParser().parseFromString(svgText, 'image/svg+xml');
  const svg = doc.documentElement;
  if (svg.localName !== 'svg' || doc.getElementsByTagName('parsererror').length) {
    showMessage('The server sent a picture that is not valid SVG.');
    return;
  }
  sanitize(svg);
  const imported = document.importNode(svg, true);
  // The user's zoom and pan survive a refresh of the same picture (an edit); another picture
  // (another statement, view, candidate or target) opens anew.
  const key = pictureKey(currentView, captionText, statement, Number(mappingInput.value) - 1);
  const firstTime = key !== shownKey;
  shownKey = key;
  shownStatement = statement;
  diagram.replaceChildren(imported);
  message.hidden = true;
  message.textContent = '';
  caption.textContent = captionText;
  diagram.dataset.view = currentView;
  if (firstTime) place();
}

/** The box of `el` in the picture's pixels at scale 1 (whatever the transform now is). */
function pictureBox(el: Element): Box {
  const d = diagram.getBoundingClientRect();
  const r = el.getBoundingClientRect();
  const k = transform.scale;
  return { x: (r.left - d.left) / k, y: (r.top - d.top) / k, width: r.width / k, height: r.height / k };
}

/** The SVG group for the statement in focus: the first title of focusTitles that is drawn. */
function focusElement(svg: SVGSVGElement): Element | undefined {
  const titles = Array.from(svg.querySelectorAll('g > title'));
  for (const want of focusTitles(currentView, shownStatement)) {
    const t = titles.find((x) => x.textContent?.trim() === want);
    if (t?.parentElement) return t.parentElement;
  }
  return undefined;
}

/** Opens the picture shown at a readable zoom on the statement in focus. */
function place(): void {
  const svg = diagram.querySelector('svg');
  if (!svg) return;
  if (viewport.clientWidth === 0 || viewport.clientHeight === 0) {
    placePending = true;
    return;
  }
  placePending = false;
  const whole = pictureBox(svg);
  const units = svg.viewBox.baseVal?.width || whole.width;
  const fontSizes = Array.from(svg.querySelectorAll('text')).map((t) => parseFloat(t.getAttribute('font-size') ?? ''));
  const readable = readableScale(fontSizes, whole.width / units);
  const focus = focusElement(svg);
  diagram.dataset.focus = focus?.querySelector('title')?.textContent?.trim() ?? '';
  transform = openingTransform(whole, { width: viewport.clientWidth, height: viewport.clientHeight }, readable, focus ? pictureBox(focus) : undefined);
  apply();
}

function fit(): void {
  const svg = diagram.querySelector('svg');
  if (!svg) return;
  const box = svg.getBoundingClientRect();
  const w = box.width / transform.scale;
  const h = box.height / transform.scale;
  transform = fitTransform(w, h, viewport.clientWidth, viewport.clientHeight);
  apply();
}

function setView(view: View, notify: boolean): void {
  currentView = view;
  viewSelect.value = view;
  const mapping = view === 'mapping';
  mappingInput.hidden = !mapping;
  mappingLabel.hidden = !mapping;
  vscode.setState({ view, mapping: Number(mappingInput.value) || 0 });
  if (notify) post({ type: 'setView', view });
}

// ---- extension -> webview --------------------------------------------------------------------
window.addEventListener('message', (event: MessageEvent) => {
  const m = parseToWebview(event.data);
  if (!m) return;
  if (m.type === 'state') {
    mappingInput.value = String(m.mapping + 1);
    setView(m.view, false);
    return;
  }
  if (m.seq < lastSeq) return;
  lastSeq = m.seq;
  document.body.classList.toggle('loading', m.type === 'loading');
  if (m.type === 'svg') showSvg(m.svg, m.caption, m.statement);
  else if (m.type === 'loading' && m.text) {
    // The server's progress: over the picture being replaced, or instead of the waiting text.
    if (diagram.querySelector('svg')) caption.textContent = `${m.text}…`;
    else showMessage(`${m.text}…`);
  } else if (m.type === 'message') {
    diagram.replaceChildren();
    caption.textContent = '';
    shownKey = undefined;
    showMessage(m.text);
  }
});

// ---- controls --------------------------------------------------------------------------------
for (const v of VIEWS) {
  const o = document.createElement('option');
  o.value = v;
  o.textContent = v;
  viewSelect.append(o);
}
viewSelect.addEventListener('change', () => {
  if (isView(viewSelect.value)) setView(viewSelect.value, true);
});
mappingInput.addEventListener('change', () => {
  const n = Math.max(1, Math.floor(Number(mappingInput.value) || 1));
  mappingInput.value = String(n);
  post({ type: 'setMapping', mapping: n - 1 });
});

const centre = () => [viewport.clientWidth / 2, viewport.clientHeight / 2] as const;
$('zoom-in').addEventListener('click', () => {
  transform = zoomAt(transform, 1.25, ...centre());
  apply();
});
$('zoom-out').addEventListener('click', () => {
  transform = zoomAt(transform, 0.8, ...centre());
  apply();
});
$('zoom-reset').addEventListener('click', () => {
  transform = IDENTITY;
  apply();
});
$('zoom-fit').addEventListener('click', fit);
$('zoom-focus').addEventListener('click', place);
$('refresh').addEventListener('click', () => post({ type: 'refresh' }));

viewport.addEventListener(
  'wheel',
  (e: WheelEvent) => {
    e.preventDefault();
    const r = viewport.getBoundingClientRect();
    transform = zoomAt(transform, wheelFactor(e.deltaY), e.clientX - r.left, e.clientY - r.top);
    apply();
  },
  { passive: false },
);

let drag: { x: number; y: number } | undefined;
viewport.addEventListener('pointerdown', (e: PointerEvent) => {
  if (e.button !== 0) return;
  drag = { x: e.clientX, y: e.clientY };
  viewport.setPointerCapture(e.pointerId);
  viewport.classList.add('dragging');
});
viewport.addEventListener('pointermove', (e: PointerEvent) => {
  if (!drag) return;
  transform = panBy(transform, e.clientX - drag.x, e.clientY - drag.y);
  drag = { x: e.clientX, y: e.clientY };
  apply();
});
const endDrag = (e: PointerEvent) => {
  drag = undefined;
  viewport.classList.remove('dragging');
  if (viewport.hasPointerCapture(e.pointerId)) viewport.releasePointerCapture(e.pointerId);
};
viewport.addEventListener('pointerup', endDrag);
viewport.addEventListener('pointercancel', endDrag);

window.addEventListener('keydown', (e: KeyboardEvent) => {
  if (e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement) return;
  if (e.key === '+' || e.key === '=') $('zoom-in').click();
  else if (e.key === '-') $('zoom-out').click();
  else if (e.key === '0') $('zoom-reset').click();
  else if (e.key === 'f') $('zoom-fit').click();
  else if (e.key === 'r') $('zoom-focus').click();
});

// A picture that arrived while the panel was hidden (no size) is placed once it is shown.
new ResizeObserver(() => {
  if (placePending) place();
}).observe(viewport);

const saved = vscode.getState() as { view?: unknown; mapping?: unknown } | undefined;
if (saved && isView(saved.view)) setView(saved.view, false);
apply();
post({ type: 'ready' });
