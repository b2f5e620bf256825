import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { PROGRESS_PREFIX, ProgressView, newWorkDoneToken, parseProgressValue, withWorkDoneToken, type ProgressSink, type Timers } from '../src/progress';

/** A sink that records its calls, and timers that run when told to. */
function harness() {
  const calls: string[] = [];
  const sink: ProgressSink = {
    start: (title) => calls.push(`start ${title}`),
    report: (message, increment) => calls.push(`report ${message ?? '-'} ${increment ?? '-'}`),
    stop: () => calls.push('stop'),
  };
  const pending = new Map<number, () => void>();
  let next = 0;
  const timers: Timers = {
    set: (fn) => {
      pending.set(++next, fn);
      return next;
    },
    clear: (h) => pending.delete(h as number),
  };
  const elapse = () => {
    const fns = [...pending.values()];
    pending.clear();
    for (const f of fns) f();
  };
  return { calls, sink, timers, elapse, pending };
}

test('tokens are unique and ride on the parameters', () => {
  const a = newWorkDoneToken();
  const b = newWorkDoneToken();
  assert.notEqual(a, b);
  assert.match(a, /^isamap\//);
  const params = { textDocument: { uri: 'file:///g.isam' } };
  assert.deepEqual(withWorkDoneToken(params, a), { textDocument: { uri: 'file:///g.isam' }, workDoneToken: a });
  assert.equal((params as Record<string, unknown>).workDoneToken, undefined);
});

test('$/progress values are validated', () => {
  assert.deepEqual(parseProgressValue({ kind: 'begin', title: 'Scheduling gemm' }), { kind: 'begin', title: 'Scheduling gemm' });
  assert.deepEqual(parseProgressValue({ kind: 'report', percentage: 150, message: 'x' }), { kind: 'report', message: 'x', percentage: 100 });
  assert.equal(parseProgressValue({ kind: 'middle' }), undefined);
  assert.equal(parseProgressValue(null), undefined);
});

test('server work that lasts shows in the status bar, from begin to end', () => {
  const h = harness();
  const seen: string[] = [];
  const v = new ProgressView(h.sink, { observe: (t) => seen.push(t) }, h.timers);
  v.onValue({ kind: 'begin', title: 'Scheduling gemm' });
  assert.deepEqual(h.calls, []);
  assert.deepEqual(seen, ['Scheduling gemm']);
  h.elapse();
  assert.deepEqual(h.calls, [`start ${PROGRESS_PREFIX}Scheduling gemm`]);
  v.onValue({ kind: 'report', message: '3 of 20 kernels', percentage: 15 });
  v.onValue({ kind: 'report', percentage: 40 });
  v.onValue({ kind: 'end' });
  v.done();
  v.onValue({ kind: 'report', message: 'late' });
  assert.deepEqual(h.calls, [`start ${PROGRESS_PREFIX}Scheduling gemm`, 'report 3 of 20 kernels 15', 'report 3 of 20 kernels 25', 'stop']);
  assert.deepEqual(seen, ['Scheduling gemm', 'Scheduling gemm: 3 of 20 kernels']);
});

test('quick work shows nothing (no flicker as the panel follows the cursor)', () => {
  const h = harness();
  const v = new ProgressView(h.sink, {}, h.timers);
  v.onValue({ kind: 'begin', title: 'Scheduling gemm' });
  v.onValue({ kind: 'end' });
  h.elapse();
  assert.deepEqual(h.calls, []);
  assert.equal(h.pending.size, 0);
});

test('a request that settles without end (cancelled, failed) stops the progress', () => {
  const h = harness();
  const v = new ProgressView(h.sink, {}, h.timers);
  v.onValue({ kind: 'begin', title: 'Compiling gemm' });
  h.elapse();
  v.done();
  v.done();
  assert.deepEqual(h.calls, [`start ${PROGRESS_PREFIX}Compiling gemm`, 'stop']);
});

test('a title shows at once; the server title becomes its message', () => {
  const h = harness();
  const v = new ProgressView(h.sink, { title: 'isamap: mapping…' }, h.timers);
  assert.deepEqual(h.calls, ['start isamap: mapping…']);
  v.onValue({ kind: 'begin', title: 'Scheduling gemm' });
  v.onValue({ kind: 'report', message: 'half', percentage: 50 });
  v.done();
  assert.deepEqual(h.calls, ['start isamap: mapping…', 'report Scheduling gemm -', 'report Scheduling gemm: half 50', 'stop']);
  // A server that reports nothing (isamap/mappings): the title alone, then stop.
  const q = harness();
  new ProgressView(q.sink, { title: 't' }, q.timers).done();
  assert.deepEqual(q.calls, ['start t', 'stop']);
});

test('a report before begin waits for it; a second begin and garbage are ignored', () => {
  const h = harness();
  const v = new ProgressView(h.sink, {}, h.timers);
  v.onValue({ kind: 'report', message: 'early' });
  v.onValue('junk');
  assert.equal(h.pending.size, 0);
  v.onValue({ kind: 'begin', title: 'A' });
  v.onValue({ kind: 'begin', title: 'B' });
  h.elapse();
  v.done();
  assert.deepEqual(h.calls, [`start ${PROGRESS_PREFIX}A`, 'report early -', 'stop']);
});
