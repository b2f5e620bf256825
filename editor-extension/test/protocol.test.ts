import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import {
  IDENTITY,
  MAX_SCALE,
  MIN_SCALE,
  Sequencer,
  VIEWS,
  captionOf,
  diagramMessage,
  diagramParams,
  fitTransform,
  isUnsafeAttribute,
  panBy,
  parseFromWebview,
  parseToWebview,
  transformCss,
  wheelFactor,
  zoomAt,
} from '../src/protocol';
import { PANEL_TITLE, contentSecurityPolicy, makeNonce, panelHtml } from '../src/panelHtml';

test('webview -> extension: valid messages pass, the rest is dropped', () => {
  assert.deepEqual(parseFromWebview({ type: 'ready' }), { type: 'ready' });
  assert.deepEqual(parseFromWebview({ type: 'refresh', extra: 1 }), { type: 'refresh' });
  for (const v of VIEWS) assert.deepEqual(parseFromWebview({ type: 'setView', view: v }), { type: 'setView', view: v });
  assert.equal(parseFromWebview({ type: 'setView', view: 'dot' }), undefined);
  assert.deepEqual(parseFromWebview({ type: 'setMapping', mapping: 2 }), { type: 'setMapping', mapping: 2 });
  assert.equal(parseFromWebview({ type: 'setMapping', mapping: -1 }), undefined);
  assert.equal(parseFromWebview({ type: 'setMapping', mapping: 1.5 }), undefined);
  assert.equal(parseFromWebview({ type: 'setMapping', mapping: '1' }), undefined);
  assert.equal(parseFromWebview({ type: 'eval', code: 'x' }), undefined);
  assert.equal(parseFromWebview(null), undefined);
  assert.equal(parseFromWebview('ready'), undefined);
});

test('extension -> webview: messages round-trip through validation', () => {
  const svg = { type: 'svg', seq: 3, view: 'kernel', svg: '<svg/>', caption: 'c' } as const;
  assert.deepEqual(parseToWebview(JSON.parse(JSON.stringify(svg))), svg);
  assert.deepEqual(parseToWebview({ type: 'message', seq: 1, view: 'schedule', text: 'why' }), { type: 'message', seq: 1, view: 'schedule', text: 'why' });
  assert.deepEqual(parseToWebview({ type: 'state', view: 'mapping', mapping: 2 }), { type: 'state', view: 'mapping', mapping: 2 });
  assert.deepEqual(parseToWebview({ type: 'loading', seq: 4, view: 'hardware' }), { type: 'loading', seq: 4, view: 'hardware' });
  assert.deepEqual(parseToWebview({ type: 'loading', seq: 4, view: 'schedule', text: 'Scheduling gemm' }), { type: 'loading', seq: 4, view: 'schedule', text: 'Scheduling gemm' });
  assert.deepEqual(parseToWebview({ ...svg, statement: 2 }), { ...svg, statement: 2 });
  assert.deepEqual(parseToWebview({ ...svg, statement: -1 }), svg);
  assert.deepEqual(parseToWebview({ ...svg, statement: '2' }), svg);
  assert.equal(parseToWebview({ type: 'svg', seq: 1, view: 'kernel' }), undefined);
  assert.equal(parseToWebview({ type: 'svg', seq: 1, view: 'nope', svg: '<svg/>' }), undefined);
});

test('isamap/diagram parameters', () => {
  const pos = { line: 8, character: 2 };
  assert.deepEqual(diagramParams('file:///g.isam', pos, 'schedule'), { textDocument: { uri: 'file:///g.isam' }, position: pos, view: 'schedule', format: 'svg' });
  assert.deepEqual(diagramParams('file:///g.isam', pos, 'mapping', 2), { textDocument: { uri: 'file:///g.isam' }, position: pos, view: 'mapping', format: 'svg', mapping: 2 });
});

test('the server answer becomes an svg or a message, never a blank panel', () => {
  const svg = '<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg"><g/></svg>';
  const ok = diagramMessage(5, 'kernel', { kernel: 'gemm', instance: 'gemm_small', target: 'host', statement: 0, view: 'kernel', svg });
  assert.deepEqual(ok, { type: 'svg', seq: 5, view: 'kernel', svg, caption: 'kernel gemm · instance gemm_small · target host · statement 1', statement: 0 });
  // No statement in focus (the cursor on the kernel's name): none is sent.
  assert.equal((diagramMessage(5, 'kernel', { kernel: 'gemm', svg }) as { statement?: number }).statement, undefined);
  assert.deepEqual(diagramMessage(6, 'schedule', { message: 'the document declares no kernel' }), {
    type: 'message',
    seq: 6,
    view: 'schedule',
    text: 'the document declares no kernel',
  });
  const err = diagramMessage(7, 'mapping', undefined, { code: -32602, message: 'mapping 9 does not exist' });
  assert.equal(err.type, 'message');
  assert.match((err as { text: string }).text, /mapping 9 does not exist/);
  assert.equal(diagramMessage(8, 'kernel', null).type, 'message');
  assert.equal(diagramMessage(8, 'kernel', { svg: 'not a picture' }).type, 'message');
  assert.equal(captionOf({ target: 'x86_avx512' }), 'target x86_avx512');
});

test('Sequencer drops answers older than the last one shown', () => {
  const s = new Sequencer();
  const a = s.next();
  const b = s.next();
  assert.equal(s.accept(b), true);
  assert.equal(s.accept(a), false);
  const c = s.next();
  assert.equal(s.accept(c), true);
  assert.equal(s.accept(99), false);
});

test('svg sanitising: event handlers, styles and foreign links go', () => {
  assert.equal(isUnsafeAttribute('onload', 'x()'), true);
  assert.equal(isUnsafeAttribute('onClick', 'x()'), true);
  assert.equal(isUnsafeAttribute('style', 'fill:red'), true);
  assert.equal(isUnsafeAttribute('xlink:href', 'javascript:alert(1)'), true);
  assert.equal(isUnsafeAttribute('href', 'https://example.com'), true);
  assert.equal(isUnsafeAttribute('href', '#node1'), false);
  assert.equal(isUnsafeAttribute('fill', 'white'), false);
  assert.equal(isUnsafeAttribute('transform', 'scale(1)'), false);
});

test('zoom keeps the point under the cursor; pan; clamps', () => {
  const t = zoomAt(IDENTITY, 2, 100, 50);
  assert.deepEqual(t, { scale: 2, x: -100, y: -50 });
  // The picture point under (100, 50) is still (100, 50).
  assert.equal((100 - t.x) / t.scale, 100);
  assert.deepEqual(panBy(t, 10, -5), { scale: 2, x: -90, y: -55 });
  assert.equal(zoomAt(IDENTITY, 1e9, 0, 0).scale, MAX_SCALE);
  assert.equal(zoomAt(IDENTITY, 1e-9, 0, 0).scale, MIN_SCALE);
  assert.ok(wheelFactor(-100) > 1 && wheelFactor(100) < 1);
  assert.equal(transformCss({ scale: 1.5, x: 2, y: 3 }), 'translate(2px, 3px) scale(1.5)');
  const fit = fitTransform(1000, 500, 500, 500);
  assert.equal(fit.scale, 0.5);
  assert.equal(fit.x, 0);
  assert.deepEqual(fitTransform(0, 0, 10, 10), IDENTITY);
  assert.equal(fitTransform(100, 100, 1000, 1000).scale, 1);
});

test('panel html: strict CSP with a nonce, the title and the #diagram element', () => {
  const nonce = makeNonce((n) => new Uint8Array(n).fill(7));
  assert.match(nonce, /^[A-Za-z0-9]{8,}$/);
  const csp = contentSecurityPolicy('https://x.vscode-cdn.net', nonce);
  assert.equal(csp, `default-src 'none'; img-src data: https://x.vscode-cdn.net; style-src https://x.vscode-cdn.net 'nonce-${nonce}'; script-src 'nonce-${nonce}'`);
  assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
  const html = panelHtml({ cspSource: 'https://x.vscode-cdn.net', nonce, scriptUri: 'https://x/dist/webview.js', styleUri: 'https://x/dist/diagram.css' });
  assert.ok(html.includes(`<title>${PANEL_TITLE}</title>`));
  assert.equal(PANEL_TITLE, 'isamap diagram');
  assert.ok(html.includes('id="diagram"'));
  assert.ok(html.includes(`<script nonce="${nonce}" src="https://x/dist/webview.js"></script>`));
  // No inline script or style content, no inline handlers.
  assert.doesNotMatch(html, /<script[^>]*>[^<]+<\/script>/);
  assert.doesNotMatch(html, /<style/);
  assert.doesNotMatch(html, /\son[a-z]+=/);
  assert.doesNotMatch(html, /\sstyle=/);
});
