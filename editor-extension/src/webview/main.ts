// The diagram panel's script (runs in the webview, bundled to dist/webview.js). It shows the
// server's SVG inline (parsed with DOMParser as an SVG document, sanitised, imported into
// #diagram), zooms with the wheel and buttons, pans by dragging, and sends the chosen view.
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

function apply(): void {
  diagram.style.transform = transformCss(transform);
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

function showSvg(svgText: string, captionText: string): void {
  const doc = new DOMParser().parseFromString(svgText, 'image/svg+xml');
  const svg = doc.documentElement;
  if (svg.localName !== 'svg' || doc.getElementsByTagName('parsererror').length) {
    showMessage('The server sent a picture that is not valid SVG.');
    return;
  }
  sanitize(svg);
  const imported = document.importNode(svg, true);
  // The user's zoom and pan survive a refresh of the same picture; a picture of another size
  // (another statement, view or schedule) is fitted again.
  const previous = diagram.querySelector('svg');
  const size = (el: Element | null) => (el ? `${el.getAttribute('width')}x${el.getAttribute('height')}` : '');
  const firstTime = !previous || size(previous) !== size(imported as Element);
  diagram.replaceChildren(imported);
  message.hidden = true;
  message.textContent = '';
  caption.textContent = captionText;
  diagram.dataset.view = currentView;
  if (firstTime) fit();
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
  if (m.type === 'svg') showSvg(m.svg, m.caption);
  else if (m.type === 'message') {
    diagram.replaceChildren();
    caption.textContent = '';
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
});

const saved = vscode.getState() as { view?: unknown; mapping?: unknown } | undefined;
if (saved && isView(saved.view)) setView(saved.view, false);
apply();
post({ type: 'ready' });
