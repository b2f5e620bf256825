import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { FOCUS_MARGIN_PX, READABLE_TEXT_PX, focusTitles, openingTransform, pictureKey, readableScale } from '../src/diagramZoom';
import { MIN_SCALE, fitTransform, type ViewTransform } from '../src/protocol';

const PT = 4 / 3; // CSS pixels per point: Graphviz sizes its SVG in points

/** The viewport box that a picture box lands on under t. */
const onScreen = (t: ViewTransform, b: { x: number; y: number; width: number; height: number }) => ({
  left: t.x + b.x * t.scale,
  top: t.y + b.y * t.scale,
  right: t.x + (b.x + b.width) * t.scale,
  bottom: t.y + (b.y + b.height) * t.scale,
});

test('readable scale: the median font renders at the readable size', () => {
  // viz/Style.cpp: nodes at 10 pt, edges at 9, the title at 12.
  const s = readableScale([10, 10, 9, 12, 10], PT);
  assert.ok(Math.abs(10 * PT * s - READABLE_TEXT_PX) < 1e-9);
  assert.equal(readableScale([], PT), 1);
  assert.equal(readableScale([NaN, -1], PT), 1);
  assert.equal(readableScale([10], 0), 1);
  assert.equal(readableScale([1e9], 1), MIN_SCALE);
});

test('statement titles (viz/Style.cpp statementName; clusters are cluster_ + id)', () => {
  assert.deepEqual(focusTitles('schedule', 3), ['cluster_s3', 's3']);
  assert.deepEqual(focusTitles('kernel', 0), ['cluster_s0', 's0']);
  assert.deepEqual(focusTitles('schedule', undefined), []);
  assert.deepEqual(focusTitles('hardware', 1), []);
});

test('picture identity: a refresh of the same picture keeps the zoom, another one does not', () => {
  const a = pictureKey('schedule', 'kernel gemm · target host · statement 1', 0, 0);
  assert.equal(a, pictureKey('schedule', 'kernel gemm · target host · statement 1', 0, 3));
  assert.notEqual(a, pictureKey('schedule', 'kernel gemm · target host · statement 2', 1, 0));
  assert.notEqual(a, pictureKey('kernel', 'kernel gemm · target host · statement 1', 0, 0));
  assert.notEqual(pictureKey('mapping', 'c', 0, 0), pictureKey('mapping', 'c', 0, 1));
});

test('a picture readable when fitted is fitted', () => {
  const t = openingTransform({ width: 800, height: 300 }, { width: 1000, height: 600 }, 0.9);
  assert.deepEqual(t, fitTransform(800, 300, 1000, 600));
  const shrunk = openingTransform({ width: 1100, height: 300 }, { width: 1000, height: 600 }, 0.9);
  assert.equal(shrunk.scale, 1000 / 1100);
});

test('a wide picture opens readable on the statement in focus, not shrunk to fit', () => {
  // A real kernel's schedule: 6000 x 1500 px in a 900 x 700 panel (fit would be 0.15).
  const picture = { width: 6000, height: 1500 };
  const viewport = { width: 900, height: 700 };
  const readable = 0.9;
  const focus = { x: 4000, y: 200, width: 500, height: 300 };
  const t = openingTransform(picture, viewport, readable, focus);
  assert.ok(t.scale >= readable && t.scale <= 1, String(t.scale));
  const f = onScreen(t, focus);
  // Whole and centred.
  assert.ok(f.left >= FOCUS_MARGIN_PX - 1e-9 && f.right <= viewport.width - FOCUS_MARGIN_PX + 1e-9, JSON.stringify(f));
  assert.ok(Math.abs((f.left + f.right) / 2 - viewport.width / 2) < 1e-9);
  assert.ok(Math.abs((f.top + f.bottom) / 2 - viewport.height / 2) < 1e-9);
  // The picture still covers the panel (no empty band where it could be).
  const p = onScreen(t, { x: 0, y: 0, ...picture });
  assert.ok(p.left <= 0 && p.right >= viewport.width && p.top <= 0 && p.bottom >= viewport.height);
});

test('a small focus opens at 1:1 at most; a huge one from its top left (its label), at the readable scale', () => {
  const picture = { width: 6000, height: 3000 };
  const viewport = { width: 900, height: 700 };
  const node = { x: 3000, y: 1000, width: 80, height: 40 };
  assert.equal(openingTransform(picture, viewport, 0.9, node).scale, 1);
  const cluster = { x: 1000, y: 500, width: 4000, height: 2000 };
  const t = openingTransform(picture, viewport, 0.9, cluster);
  assert.equal(t.scale, 0.9);
  const f = onScreen(t, cluster);
  assert.ok(Math.abs(f.top - FOCUS_MARGIN_PX) < 1e-9, JSON.stringify(f));
  assert.ok(Math.abs(f.left - FOCUS_MARGIN_PX) < 1e-9, JSON.stringify(f));
  // Wide but not tall: from its left, centred down.
  const band = { x: 1000, y: 500, width: 4000, height: 300 };
  const b = onScreen(openingTransform(picture, viewport, 0.9, band), band);
  assert.ok(Math.abs(b.left - FOCUS_MARGIN_PX) < 1e-9 && Math.abs((b.top + b.bottom) / 2 - viewport.height / 2) < 1e-9, JSON.stringify(b));
});

test('a focus at the picture edge: the picture is not pulled off the panel', () => {
  const picture = { width: 6000, height: 1500 };
  const viewport = { width: 900, height: 700 };
  const t = openingTransform(picture, viewport, 0.9, { x: 0, y: 0, width: 100, height: 50 });
  assert.equal(t.x, 0);
  assert.equal(t.y, 0);
});

test('no focus: the readable scale, from the top left (the title)', () => {
  const picture = { width: 6000, height: 400 };
  const viewport = { width: 900, height: 700 };
  const t = openingTransform(picture, viewport, 0.9);
  assert.equal(t.scale, 0.9);
  assert.equal(t.x, 0);
  // The picture is less tall than the panel at that scale: centred down.
  assert.equal(t.y, (700 - 400 * 0.9) / 2);
  const tall = openingTransform({ width: 6000, height: 4000 }, viewport, 0.9);
  assert.deepEqual([tall.x, tall.y], [0, 0]);
});

test('a panel without a size (hidden) leaves the picture as it is', () => {
  assert.deepEqual(openingTransform({ width: 100, height: 100 }, { width: 0, height: 0 }, 1), { scale: 1, x: 0, y: 0 });
});
