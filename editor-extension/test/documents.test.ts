import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { CODE_SCHEME, SCHEDULE_SCHEME, decodeRef, encodeRef, requestParams, scheduleText, targetCodeText, virtualPath } from '../src/documents';
import { CONTENT_MODIFIED, defaultViewFor, refreshDelay, retryOnContentModified } from '../src/util';

test('virtual document names', () => {
  assert.equal(virtualPath(CODE_SCHEME, { source: 'file:///w/samples/gemm.isam' }), '/gemm.isam.s');
  assert.equal(virtualPath(CODE_SCHEME, { source: 'file:///w/gemm.isam', kind: 'llvm' }), '/gemm.isam.ll');
  assert.equal(virtualPath(SCHEDULE_SCHEME, { source: 'file:///w/my%20k.isam' }), '/my k.isam.schedule');
});

test('virtual document references round-trip', () => {
  const ref = { source: 'file:///w/gemm.isam', position: { line: 3, character: 4 }, kind: 'asm' as const };
  assert.deepEqual(decodeRef(encodeRef(ref)), ref);
  assert.deepEqual(decodeRef(encodeRef({ source: 'untitled:Untitled-1' })), { source: 'untitled:Untitled-1' });
  assert.equal(decodeRef('not json'), undefined);
  assert.equal(decodeRef('{"x":1}'), undefined);
  assert.deepEqual(requestParams(ref), { textDocument: { uri: ref.source }, position: ref.position, kind: 'asm' });
});

test('target code text', () => {
  const t = targetCodeText({ kernel: 'gemm', instance: 'gemm_small', target: 'host', statement: 0, kind: 'asm', text: 'gemm_small:\n\tvfmadd231ps zmm0, zmm1, zmm2\n', compileMs: { generate: 1, optimize: 2.25, machineCode: 3 } });
  assert.match(t, /^# isamap target code \(asm\): kernel gemm · instance gemm_small · target host/);
  assert.match(t, /optimize 2\.3 ms/);
  assert.match(t, /vfmadd231ps/);
  assert.equal(targetCodeText({ message: "target 'systolic16' names no LLVM triple" }), "# isamap: target 'systolic16' names no LLVM triple\n");
  assert.match(targetCodeText(undefined, 'llvm', new Error('boom')), /^; isamap: the server could not compile: boom/);
});

test('schedule text', () => {
  assert.match(scheduleText({ kernel: 'gemm', instance: 'g', target: 'host', text: 'for m ...' }), /^\/\/ isamap schedule: kernel gemm · instance g · target host\n\nfor m/);
  assert.equal(scheduleText({ message: 'no instance' }), '// isamap: no instance\n');
});

test('a new diagram panel shows hardware for a hardware file', () => {
  assert.equal(defaultViewFor('// kernel in a comment\ntarget t { clock 1 GHz; }'), 'hardware');
  assert.equal(defaultViewFor('kernel g<M>(A: f32[M]) -> (C: f32[M]) { C[m] = A[m]; }'), 'schedule');
  assert.equal(defaultViewFor('import "x86_avx512.isam";\nkernel k<M>(A: f32[M]) -> (B: f32[M]) { B[i] = A[i]; }'), 'schedule');
  assert.equal(refreshDelay(150), 250);
});

test('a request answered ContentModified is sent again, at most three times; other errors pass through', async () => {
  const answers = (outcomes: unknown[]) => {
    let calls = 0;
    const send = async () => {
      const o = outcomes[calls++];
      if (o instanceof Error) throw o;
      return o;
    };
    return { send, calls: () => calls };
  };
  const modified = () => Object.assign(new Error('the document changed'), { code: CONTENT_MODIFIED });
  const once = answers([modified(), 'svg']);
  assert.equal(await retryOnContentModified(once.send), 'svg');
  assert.equal(once.calls(), 2);
  const always = answers([modified(), modified(), modified(), 'never']);
  await assert.rejects(retryOnContentModified(always.send), /the document changed/);
  assert.equal(always.calls(), 3);
  const cancelled = answers([Object.assign(new Error('cancelled'), { code: -32800 }), 'never']);
  await assert.rejects(retryOnContentModified(cancelled.send), /cancelled/);
  assert.equal(cancelled.calls(), 1);
});
