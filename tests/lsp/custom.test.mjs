// isamap's own requests (isamap/mappings, isamap/schedule, isamap/diagram, isamap/targetCode),
// their {message} answers and parameter errors; cancellation, and work-done progress.
import test from 'node:test';
import assert from 'node:assert/strict';
import { CancellationTokenSource, WorkDoneProgress } from 'vscode-languageserver-protocol/node.js';
import { withServer, sampleUri, sampleText, positionOf, sleep } from './client.mjs';

const InvalidParams = -32602, RequestCancelled = -32800, ContentModified = -32801;
const gemmUri = sampleUri('gemm.isam');
const gemm = sampleText('gemm.isam');
const statement = 'C[m, n] += A[m, k] * B[k, n];';
const td = { textDocument: { uri: gemmUri } };

async function withGemm(fn) {
  await withServer(async (server) => {
    await server.open(gemmUri, gemm);
    await fn(server);
  });
}

// An SVG document as Graphviz writes it: one <svg> element, closed, its groups balanced.
function assertSvg(svg, title) {
  assert.equal(typeof svg, 'string');
  const open = svg.indexOf('<svg');
  assert.ok(open >= 0, 'an <svg> element');
  assert.match(svg.slice(open), /^<svg[^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
  assert.match(svg, /<\/svg>\s*$/);
  assert.equal(svg.split('<svg').length, 2);
  assert.equal(svg.match(/<g[\s>]/g).length, svg.match(/<\/g>/g).length);
  if (title)
    assert.ok(svg.includes(`<title>${title}</title>`), `titled ${title}`);
}

test('isamap/mappings: the candidates and rejections of the statement under the cursor', async () => {
  await withGemm(async (server) => {
    const at = positionOf(gemm, statement, { delta: 2 });
    const r = await server.request('isamap/mappings', { ...td, position: at });
    assert.equal(r.kernel, 'gemm');
    assert.equal(r.instance, 'gemm_1760x16x1760');
    assert.equal(r.target, 'x86_avx512');
    assert.equal(r.statement, 0);
    assert.equal(r.statements.length, 1);
    const [s] = r.statements;
    assert.equal(s.index, 0);
    assert.equal(s.target, 'x86_avx512');
    const instructions = s.mappings.map((m) => m.instruction);
    assert.ok(instructions.includes('fma16'), instructions.join());
    for (const m of s.mappings) {
      assert.ok(m.estimate.cycles > 0);
      assert.ok(m.estimate.utilization > 0 && m.estimate.utilization <= 1);
      assert.ok(Object.keys(m.operands).length > 0);
    }
    const rejected = new Map(s.rejected.map((x) => [x.instruction, x.reason]));
    assert.ok(rejected.has('add16'));
    assert.match(rejected.get('add16'), /add16/);
    // Every instruction of x86_avx512 is a candidate or rejected.
    assert.deepEqual([...new Set([...instructions, ...rejected.keys()])].sort(),
      ['add16', 'addacc16', 'bcast16', 'div16', 'fma16', 'fma16_mem', 'fma16v', 'hmax16', 'hsum16',
        'load16', 'max16', 'maxacc16', 'min16', 'mul16', 'relu16', 'selle16', 'sellt16', 'store16',
        'sub16']);

    // An instance and a target asked for.
    const systolic = await server.request('isamap/mappings', { ...td, position: at, instance: 'gemm_small', target: 'systolic16' });
    assert.equal(systolic.instance, 'gemm_small');
    assert.equal(systolic.target, 'systolic16');
    assert.equal(systolic.statement, 0, 'the position picks the statement of the instance asked for');
    assert.equal(systolic.statements.length, 1);
    assert.ok(systolic.statements[0].mappings.some((m) => m.instruction === 'mma'));

    // Without a position: every statement of the first kernel's instance.
    const all = await server.request('isamap/mappings', td);
    assert.equal(all.statement, null);
    assert.equal(all.kernel, 'gemm');
    assert.equal(all.statements.length, 1);
  });

  await withServer(async (server) => {
    const uri = 'untitled:scalar.isam';
    const text = `kernel act<N>(X: f32[N]) -> (Y: f32[N]) {\n  Y[i] = exp(X[i]);\n}\ninstance a = act<100>;\n`;
    await server.open(uri, text);
    const r = await server.request('isamap/mappings', { textDocument: { uri }, position: positionOf(text, 'exp') });
    assert.deepEqual(r.statements[0].mappings, []);
    assert.ok(r.statements[0].rejected.length > 0);
    for (const x of r.statements[0].rejected)
      assert.match(x.reason, /exp\(X\[i\]\)/);
  });
});

test('isamap/schedule: the schedule as text and as JSON', async () => {
  await withGemm(async (server) => {
    const r = await server.request('isamap/schedule', { ...td, instance: 'gemm_small' });
    assert.equal(r.instance, 'gemm_small');
    assert.equal(r.target, 'x86_avx512');
    assert.match(r.text, /^schedule of gemm_small on x86_avx512/);
    assert.match(r.text, /s0: C\[m, n\] \+= A\[m, k\] \* B\[k, n\] +for m < 7, n < 5; sum over k < 13/);
    const s = r.schedule;
    assert.equal(s.instance, 'gemm_small');
    assert.ok(s.cycles > 0);
    assert.equal(s.statements.length, 1);
    const s0 = s.statements[0];
    assert.ok(r.text.includes(`mapping: ${s0.mapping}`), 'the text and the JSON agree');
    for (const level of ['L1', 'ZMM'])
      assert.ok(s0.tiles[level], level);
    assert.equal(s0.tiles.DRAM.m, 7);

    // The statement under the cursor is named; the default instance is the kernel's first.
    const at = await server.request('isamap/schedule', { ...td, position: positionOf(gemm, statement) });
    assert.equal(at.statement, 0);
    assert.equal(at.instance, 'gemm_1760x16x1760');
  });
});

test('isamap/diagram: an SVG for each view, which follows edits of the kernel', async () => {
  await withGemm(async (server) => {
    const params = { ...td, instance: 'gemm_small', position: positionOf(gemm, statement) };
    const titles = { kernel: 'kernel gemm_small', hardware: 'target x86_avx512', mapping: 'mapping gemm_small s0', schedule: 'schedule gemm_small' };
    for (const [view, title] of Object.entries(titles)) {
      const r = await server.request('isamap/diagram', { ...params, view });
      assert.equal(r.view, view);
      assertSvg(r.svg, title);
      if (view !== 'hardware') {
        assert.equal(r.instance, 'gemm_small');
        assert.equal(r.statement, 0);
      }
    }
    const dot = await server.request('isamap/diagram', { ...params, view: 'kernel', format: 'dot' });
    assert.match(dot.dot, /^digraph/);
    const second = await server.request('isamap/diagram', { ...params, view: 'mapping', mapping: 1 });
    assertSvg(second.svg);
    assert.match(second.svg, /mapping #2 of/);

    for (const bad of [{ view: 'nope' }, { view: 'kernel', format: 'png' }, { view: 'mapping', mapping: 99 }, { view: 'mapping', mapping: -1 }, { view: 7 }]) {
      const e = await server.requestError('isamap/diagram', { ...params, ...bad });
      assert.equal(e.code, InvalidParams, JSON.stringify(bad));
    }
  });

  await withServer(async (server) => {
    const uri = 'untitled:diagram-edit.isam';
    const text = `kernel scale<N>(X: f32[N], W: f32[N]) -> (Y: f32[N]) {\n  Y[i] = X[i] * W[i];\n}\ninstance s = scale<32>;\n`;
    await server.open(uri, text, 1);
    const before = await server.request('isamap/diagram', { textDocument: { uri }, view: 'kernel' });
    assertSvg(before.svg, 'kernel s');
    assert.ok(!before.svg.includes('Bias'));
    const edited = text.replace('W: f32[N])', 'W: f32[N], Bias: f32[N])').replace('X[i] * W[i];', 'X[i] * W[i] + Bias[i];');
    await server.change(uri, 2, [{ text: edited }]);
    const after = await server.request('isamap/diagram', { textDocument: { uri }, view: 'kernel' });
    assertSvg(after.svg, 'kernel s');
    assert.notEqual(after.svg, before.svg);
    assert.ok(after.svg.includes('Bias'));
  });
});

test('isamap/targetCode: assembly and LLVM IR for x86_avx512', async () => {
  await withGemm(async (server) => {
    const asm = await server.request('isamap/targetCode', { ...td, instance: 'gemm_small', kind: 'asm' });
    assert.equal(asm.kind, 'asm');
    assert.equal(asm.target, 'x86_avx512');
    assert.match(asm.text, /^gemm_small:$/m);
    assert.match(asm.text, /\bvfmadd\w*ps\b/);
    assert.ok(asm.text.includes('zmm'));
    for (const stage of ['generate', 'optimize', 'machineCode'])
      assert.equal(typeof asm.compileMs[stage], 'number');
    const llvm = await server.request('isamap/targetCode', { ...td, instance: 'gemm_small', kind: 'llvm' });
    assert.equal(llvm.kind, 'llvm');
    assert.match(llvm.text, /^define void @gemm_small\(/m);
    assert.match(llvm.text, /target triple = "x86_64-unknown-linux-gnu"/);
    // Default kind: assembly.
    const plain = await server.request('isamap/targetCode', { ...td, instance: 'gemm_unit' });
    assert.equal(plain.kind, 'asm');

    // An accelerator's code is its instruction stream, listed from the description's templates.
    const stream = await server.request('isamap/targetCode', { ...td, instance: 'gemm_small', target: 'systolic16' });
    assert.equal(stream.kind, 'asm');
    assert.match(stream.text, /^ {2}matmul ACC\[0x0, 7x5\], SPAD\[/m);
    assert.equal(typeof stream.compileMs.emit, 'number');
    const none = await server.request('isamap/targetCode', { ...td, instance: 'gemm_small', target: 'systolic16', kind: 'llvm' });
    assert.deepEqual(Object.keys(none), ['message']);
    assert.match(none.message, /names no LLVM triple/);
    const e = await server.requestError('isamap/targetCode', { ...td, kind: 'wasm' });
    assert.equal(e.code, InvalidParams);
  });
});

test('custom requests answer {message} when there is nothing to show, and -32602 for bad parameters', async () => {
  await withServer(async (server) => {
    const methods = ['isamap/mappings', 'isamap/schedule', 'isamap/diagram', 'isamap/targetCode'];
    const noInstance = 'untitled:no-instance.isam';
    await server.open(noInstance, 'kernel k<N>(A: f32[N]) -> (B: f32[N]) {\n  B[i] = A[i];\n}\n');
    const noKernel = 'untitled:no-kernel.isam';
    await server.open(noKernel, '// nothing here yet\n');
    await server.open(gemmUri, gemm);
    for (const method of methods) {
      const a = await server.request(method, { textDocument: { uri: noInstance } });
      assert.deepEqual(Object.keys(a), ['message'], method);
      assert.match(a.message, /declare an instance of 'k' \(instance NAME = k<sizes>;\)/, method);
      const b = await server.request(method, { textDocument: { uri: noKernel } });
      assert.deepEqual(b, { message: 'the document declares no kernel' }, method);
      const c = await server.request(method, { ...td, instance: 'no_such_instance' });
      assert.deepEqual(c, { message: 'no instance named \'no_such_instance\'' }, method);
      const d = await server.request(method, { ...td, instance: 'gemm_small', target: 'no_such_target' });
      assert.match(d.message, /unknown target 'no_such_target'/, method);

      for (const bad of [
        {},
        { textDocument: { uri: 42 } },
        { textDocument: { uri: 'untitled:not-open.isam' } },
        { ...td, position: 'line 3' },
        { ...td, position: { line: -1, character: 0 } },
        { ...td, instance: 7 },
        { ...td, target: ['x86_avx512'] },
      ]) {
        const e = await server.requestError(method, bad);
        assert.equal(e.code, InvalidParams, `${method} ${JSON.stringify(bad)}`);
      }
    }
  });
});

test('cancellation: a cancelled request is answered with its result or -32800, and the server goes on', async () => {
  await withServer(async (server) => {
    const uri = sampleUri('attention.isam');
    const text = sampleText('attention.isam');
    await server.open(uri, text);
    const slow = (instance, token) => server.request('isamap/targetCode', { textDocument: { uri }, instance, target: 'x86_avx512', kind: 'asm' }, token)
      .then((result) => ({ result }), (error) => ({ error }));
    const instances = [...text.matchAll(/^instance (\w+)/gm)].map((m) => m[1]);
    assert.ok(instances.length >= 2);

    // Cancelled at once: either outcome, but an answer.
    const first = new CancellationTokenSource();
    const a = slow(instances[0], first.token);
    first.cancel();
    // Queued or running beside it, then cancelled at once: answered -32800 then and there.
    const b = slow(instances[1], undefined);
    const third = new CancellationTokenSource();
    const c = slow(instances[0], third.token);
    third.cancel();
    const [ra, rb, rc] = await Promise.all([a, b, c]);
    if (ra.error)
      assert.equal(ra.error.code, RequestCancelled);
    else
      assert.match(ra.result.text, /vfmadd|vmulps|vaddps/);
    assert.ok(rb.result, JSON.stringify(rb.error));
    assert.equal(rb.result.instance, instances[1]);
    assert.equal(rc.error?.code, RequestCancelled, JSON.stringify(rc).slice(0, 200));

    // Cancelling what has been answered, or an unknown id, is harmless.
    await server.connection.sendNotification('$/cancelRequest', { id: 123456 });
    await server.connection.sendNotification('$/cancelRequest', { id: 'nope' });
    await server.connection.sendNotification('$/cancelRequest', {});
    const hover = await server.request('textDocument/hover', { textDocument: { uri }, position: positionOf(text, 'kernel', { delta: 8 }) });
    assert.ok(hover);
    const again = await slow(instances[1]);
    assert.equal(again.result.instance, instances[1]);
  });
});

test('work-done progress: begin and end on the client\'s token', async () => {
  await withGemm(async (server) => {
    for (const [method, title, token] of [
      ['isamap/schedule', 'Scheduling gemm', 'schedule-progress'],
      ['isamap/targetCode', 'Compiling gemm', 77],
      ['isamap/diagram', 'Scheduling gemm', 'diagram-progress'],
    ]) {
      const values = [];
      const listening = server.connection.onProgress(WorkDoneProgress.type, token, (v) => values.push(v));
      const result = await server.request(method, { ...td, instance: 'gemm_small', workDoneToken: token });
      assert.ok(!result.message, JSON.stringify(result).slice(0, 200));
      await sleep(100); // notifications sent before the response are handled by now; be generous
      listening.dispose();
      assert.deepEqual(values.map((v) => v.kind), ['begin', 'end'], method);
      assert.equal(values[0].title, title);
    }
    // No token, no progress: nothing arrives on a token the request did not give.
    const stray = [];
    const listening = server.connection.onProgress(WorkDoneProgress.type, 'unused', (v) => stray.push(v));
    await server.request('isamap/schedule', { ...td, instance: 'gemm_unit' });
    listening.dispose();
    assert.deepEqual(stray, []);

    // Whether or not a cancelled request got to begin its progress, whatever began has ended
    // once it is answered.
    const values = [];
    const token = 'cancelled-progress';
    const listening2 = server.connection.onProgress(WorkDoneProgress.type, token, (v) => values.push(v));
    const source = new CancellationTokenSource();
    const answer = server.request('isamap/targetCode', { ...td, instance: 'gemm_1760x128x1760', workDoneToken: token }, source.token)
      .catch((e) => e);
    await sleep(5);
    source.cancel();
    await answer;
    await sleep(100);
    listening2.dispose();
    assert.equal(values.filter((v) => v.kind === 'begin').length, values.filter((v) => v.kind === 'end').length, JSON.stringify(values));
  });
});

// Starts isamap/targetCode of a large instance with a progress token; resolves once its progress
// has begun (the request is running), with its answer (result or error) as `answer`.
async function runningTargetCode(server, token, cancel) {
  const values = [];
  let began;
  const running = new Promise((resolve) => { began = resolve; });
  const listening = server.connection.onProgress(WorkDoneProgress.type, token, (v) => {
    values.push(v);
    if (v.kind === 'begin') began();
  });
  const answer = server.request('isamap/targetCode', { ...td, instance: 'gemm_1760x128x1760', workDoneToken: token }, cancel)
    .then((result) => ({ result }), (error) => ({ error }));
  await running;
  return { values, listening, answer };
}

test('cancellation: a running request is answered -32800 at once, its progress ended first and never reported again', async () => {
  await withGemm(async (server) => {
    // Another document, analysed already: a hover there waits for nothing of gemm's.
    const other = sampleUri('maxpool.isam');
    await server.open(other, sampleText('maxpool.isam'));
    const otherHover = () => server.request('textDocument/hover', { textDocument: { uri: other }, position: { line: 0, character: 0 } });
    await otherHover();
    const source = new CancellationTokenSource();
    const run = await runningTargetCode(server, 'running-cancelled', source.token);
    source.cancel();
    // The reading thread answers the cancellation before it reads the next message: the answer
    // comes before that of a hover sent right after, while the compile still runs.
    const order = [];
    const hover = otherHover().then(() => order.push('hover'));
    const answered = await run.answer;
    order.push('cancelled');
    await hover;
    assert.deepEqual(order, ['cancelled', 'hover']);
    assert.equal(answered.error?.code, RequestCancelled, JSON.stringify(answered).slice(0, 200));
    // The compile goes on to its next check; nothing of it reaches the client any more.
    await sleep(1500);
    run.listening.dispose();
    assert.deepEqual(run.values.map((v) => v.kind), ['begin', 'end']);
    const again = await server.request('isamap/targetCode', { ...td, instance: 'gemm_small' });
    assert.match(again.text, /vfmadd|vmulps|vaddps|fma/);
  });
});

test('an edit answers the document\'s running requests with -32801 (ContentModified); later ones are answered', async () => {
  await withGemm(async (server) => {
    const run = await runningTargetCode(server, 'running-modified');
    server.change(gemmUri, 2, [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, text: '// edited\n' }]);
    const answered = await run.answer;
    assert.equal(answered.error?.code, ContentModified, JSON.stringify(answered).slice(0, 200));
    run.listening.dispose();
    assert.deepEqual(run.values.map((v) => v.kind), ['begin', 'end']);
    const after = await server.request('isamap/targetCode', { ...td, instance: 'gemm_small' });
    assert.equal(after.instance, 'gemm_small');
  });
});
