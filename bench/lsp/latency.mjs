// The language server's speed, measured through a real LSP client on the real binary:
//  - edit-to-diagnostics latency (p50, p99) on a 2,000-line file under bursts of rapid edits:
//    from the last edit of a burst to the diagnostics of that version, less the debounce;
//  - the time to answer isamap/diagram, per sample and view (each first request computes the
//    mapping or schedule it draws);
//  - edit-to-code-lenses latency (p50, p99) on the 2,000-line file, for an edit in a comment and
//    one in an instance's sizes: the lens request and the resolution of the visible lines' lenses
//    sent unresolved, as VS Code does;
//  - hover, completion and code actions on the 2,000-line file while slow requests (lenses, target
//    code) run, and a hover just after an edit's debounce (p50, p99);
//  - the time from $/cancelRequest to the answer of a running isamap/targetCode (p50, p99);
//  - the server's resident memory across 10,000 edits;
//  - the resident memory of the server and of its render workers across 10,000 schedule and
//    kernel diagrams (Graphviz leaks in every render; the workers are retired to bound it).
// Usage: node bench/lsp/latency.mjs [--binary build/cli/isamap] [--bursts 200] [--edits 10000]
//        [--renders 10000] [--lens-rounds 100] [--stall-rounds 50] [--cancel-rounds 20]
//        [--target x86_avx512] [--debounce-ms 150]
//        [--only edit|lenses|stall|cancel|diagram|memory|renders] [--json]
import { createRequire } from 'node:module';
import { spawn } from 'node:child_process';
import { pathToFileURL, fileURLToPath } from 'node:url';
import path from 'node:path';
import fs from 'node:fs';
import os from 'node:os';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
// The client library the LSP tests install (scripts/test.sh runs npm ci there).
const require = createRequire(path.join(root, 'tests/lsp/package.json'));
const rpc = require('vscode-languageserver-protocol/node.js');

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const binary = path.resolve(option('--binary', path.join(root, 'build/cli/isamap')));
const bursts = Number(option('--bursts', 200));
const memoryEdits = Number(option('--edits', 10000));
const renderCount = Number(option('--renders', 10000));
const lensRounds = Number(option('--lens-rounds', 100));
const stallRounds = Number(option('--stall-rounds', 50));
const cancelRounds = Number(option('--cancel-rounds', 20));
const target = option('--target', 'x86_avx512');
const debounceMs = Number(option('--debounce-ms', 150));
const asJson = args.includes('--json');

function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

function rssKiB(pid) {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)[1]);
}

// The resident memory of a process's descendants (the server's render workers).
function childrenRssKiB(pid) {
  let total = 0;
  for (const task of fs.readdirSync(`/proc/${pid}/task`)) {
    let children = '';
    try {
      children = fs.readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8');
    } catch {
      continue;
    }
    for (const child of children.trim().split(/\s+/).filter(Boolean)) {
      try {
        total += rssKiB(Number(child)) + childrenRssKiB(Number(child));
      } catch {
        // ended meanwhile
      }
    }
  }
  return total;
}

async function start() {
  const proc = spawn(binary, ['lsp', '--stdio'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const connection = rpc.createProtocolConnection(
    new rpc.StreamMessageReader(proc.stdout), new rpc.StreamMessageWriter(proc.stdin));
  const waiters = new Map();
  connection.onNotification('textDocument/publishDiagnostics', (p) => {
    const w = waiters.get(`${p.uri}@${p.version}`);
    if (w) {
      waiters.delete(`${p.uri}@${p.version}`);
      w(performance.now());
    }
  });
  connection.listen();
  await connection.sendRequest('initialize', {
    processId: process.pid, rootUri: null, capabilities: {},
    initializationOptions: { target, debounceMs },
  });
  await connection.sendNotification('initialized', {});
  const published = (uri, version) => new Promise((resolve) => waiters.set(`${uri}@${version}`, resolve));
  return { proc, connection, published };
}

// A 2,000-line file: kernels of the samples' kinds, each with an instance, and comments.
// `tag` makes the kernels' names (and so their texts) differ from another call's.
function bigFile(tag = '') {
  const lines = [];
  for (let i = 0; lines.length + 9 <= 2000; ++i) {
    lines.push(`// Kernel ${i}: a GEMM with a bias and a ReLU, and a row-wise softmax-like pass.`);
    lines.push(`kernel layer${tag}${i}<M, N, K>(A: f32[M, K], W: f32[K, N], b: f32[N]) -> (Y: f32[M, N], S: f32[M]) {`);
    lines.push('  local T: f32[M, N];');
    lines.push('  T[m, n] += A[m, k] * W[k, n];');
    lines.push('  Y[m, n] = relu(T[m, n] + b[n]);');
    lines.push('  S[m] += exp(Y[m, n]);');
    lines.push('}');
    lines.push(`instance layer${tag}${i}_small = layer${tag}${i}<${8 + (i % 5)}, ${16 + (i % 7)}, ${32 + (i % 3)}>;`);
    lines.push('');
  }
  while (lines.length < 2000) lines.push('// padding');
  return lines.join('\n') + '\n';
}

async function editLatency() {
  const server = await start();
  const uri = pathToFileURL(path.join(os.tmpdir(), 'isamap-bench-big.isam')).href;
  const text = bigFile();
  let version = 1;
  const opened = server.published(uri, version);
  await server.connection.sendNotification('textDocument/didOpen', {
    textDocument: { uri, languageId: 'isam', version, text },
  });
  await opened;
  const latencies = [];
  // Each burst types five characters into a comment in the middle of the file, 10 ms apart
  // (faster than the debounce, as a person types), then waits for that version's diagnostics.
  const line = 1000;
  let column = 0;
  const t0 = performance.now();
  for (let b = 0; b < bursts; ++b) {
    let sent = 0;
    for (let e = 0; e < 5; ++e) {
      ++version;
      const edit = { range: { start: { line, character: column }, end: { line, character: column } }, text: 'x' };
      ++column;
      if (e === 4) {
        const done = server.published(uri, version);
        sent = performance.now();
        await server.connection.sendNotification('textDocument/didChange', {
          textDocument: { uri, version }, contentChanges: [edit],
        });
        latencies.push((await done) - sent - debounceMs);
      } else {
        await server.connection.sendNotification('textDocument/didChange', {
          textDocument: { uri, version }, contentChanges: [edit],
        });
        await new Promise((r) => setTimeout(r, 10));
      }
    }
  }
  const elapsed = performance.now() - t0;
  server.proc.kill();
  return { lines: 2000, bursts, p50: percentile(latencies, 50), p99: percentile(latencies, 99),
           max: Math.max(...latencies), elapsedMs: elapsed };
}

// The lenses of the first `visibleLines` lines as an editor shows them: textDocument/codeLens,
// then codeLens/resolve for each lens of those lines sent unresolved (VS Code resolves the
// visible ones). Resolves the rest too when `all`.
const visibleLines = 60;
async function visibleLenses(server, uri, all = false) {
  const lenses = await server.connection.sendRequest('textDocument/codeLens', { textDocument: { uri } });
  await Promise.all(lenses.map((l) => (l.command || (!all && l.range.start.line >= visibleLines)
    ? l : server.connection.sendRequest('codeLens/resolve', l))));
  return lenses.length;
}

// Edit -> code lenses: each round makes one edit to the 2,000-line file, alternately in a comment
// (no kernel changes) and in an instance's sizes (one kernel's statements must be scheduled
// again), then asks for the lenses and resolves those of the visible lines, and times that.
async function lensLatency() {
  const server = await start();
  const uri = pathToFileURL(path.join(os.tmpdir(), 'isamap-bench-lens.isam')).href;
  const text = bigFile();
  const lines = text.split('\n');
  let version = 1;
  const opened = server.published(uri, version);
  await server.connection.sendNotification('textDocument/didOpen', {
    textDocument: { uri, languageId: 'isam', version, text },
  });
  await opened;
  let t = performance.now();
  const count = await visibleLenses(server, uri);
  const firstVisibleMs = performance.now() - t;
  t = performance.now();
  await visibleLenses(server, uri, true);
  const firstAllMs = performance.now() - t;
  const comment = [], instance = [];
  for (let round = 0; round < lensRounds; ++round) {
    ++version;
    let change;
    if (round % 2 === 0) {
      const line = 1000 - (1000 % 9); // a kernel's comment line
      change = { range: { start: { line, character: 3 }, end: { line, character: 3 } }, text: 'x' };
    } else {
      // An instance's first size: `layerI<8 + I % 5, ...>` becomes another number.
      const line = 9 * ((round * 7) % 200) + 7;
      const at = lines[line].indexOf('<') + 1;
      const now = lines[line].slice(at).match(/^\d+/)[0];
      const next = String(Number(now) + 1);
      lines[line] = lines[line].slice(0, at) + next + lines[line].slice(at + now.length);
      change = { range: { start: { line, character: at }, end: { line, character: at + now.length } }, text: next };
    }
    await server.connection.sendNotification('textDocument/didChange', {
      textDocument: { uri, version }, contentChanges: [change],
    });
    t = performance.now();
    const n = await visibleLenses(server, uri);
    if (n !== count) throw new Error(`lenses: ${n} after an edit, ${count} before`);
    (round % 2 === 0 ? comment : instance).push(performance.now() - t);
  }
  server.proc.kill();
  const stats = (v) => ({ p50: percentile(v, 50), p99: percentile(v, 99), max: Math.max(...v) });
  return { lenses: count, firstVisibleMs, firstAllMs, comment: stats(comment), instance: stats(instance) };
}

// Quick requests under load: on the 2,000-line file, each round makes an edit, then asks for a
// hover just after the debounce (while the document is analysed), then starts the lenses and the
// target code of a kernel (slow requests) and, while they run, asks for a hover, a completion
// and the code actions of a statement, as VS Code does when the cursor moves.
async function stallLatency() {
  const server = await start();
  const uri = pathToFileURL(path.join(os.tmpdir(), 'isamap-bench-stall.isam')).href;
  let version = 1;
  const opened = server.published(uri, version);
  await server.connection.sendNotification('textDocument/didOpen', {
    textDocument: { uri, languageId: 'isam', version, text: bigFile() },
  });
  await opened;
  const timed = async (method, params) => {
    const t = performance.now();
    await server.connection.sendRequest(method, { textDocument: { uri }, ...params });
    return performance.now() - t;
  };
  // Line 9 i + 3 is kernel i's first statement (bigFile).
  const statement = (i) => ({ line: 9 * (i % 200) + 3, character: 6 });
  const r = { afterEdit: [], hover: [], completion: [], codeAction: [] };
  for (let round = 0; round < stallRounds; ++round) {
    ++version;
    await server.connection.sendNotification('textDocument/didChange', {
      textDocument: { uri, version },
      contentChanges: [{ range: { start: { line: 999, character: 3 }, end: { line: 999, character: 3 } }, text: 'x' }],
    });
    await new Promise((done) => setTimeout(done, debounceMs + 20 + (round % 5) * 20));
    r.afterEdit.push(await timed('textDocument/hover', { position: statement(round) }));
    const slow = [
      visibleLenses(server, uri),
      server.connection.sendRequest('isamap/targetCode', { textDocument: { uri }, position: statement(round * 13) }),
    ];
    await new Promise((done) => setTimeout(done, 5));
    r.hover.push(await timed('textDocument/hover', { position: statement(round * 7) }));
    r.completion.push(await timed('textDocument/completion', { position: statement(round * 11) }));
    const at = statement(round * 17);
    r.codeAction.push(await timed('textDocument/codeAction', {
      range: { start: at, end: at }, context: { diagnostics: [] },
    }));
    await Promise.all(slow);
  }
  server.proc.kill();
  const stats = (v) => ({ p50: percentile(v, 50), p99: percentile(v, 99), max: Math.max(...v) });
  return Object.fromEntries(Object.entries(r).map(([k, v]) => [k, stats(v)]));
}

// Cancellation: each round opens a 2,000-line file of kernels not seen before, asks for the
// target code of one of its kernels (scheduled and compiled), cancels the request after 10 ms and
// times the answer from the cancellation.
async function cancelLatency() {
  const server = await start();
  const times = [];
  let cancelledAnswers = 0;
  for (let round = 0; round < cancelRounds; ++round) {
    const uri = pathToFileURL(path.join(os.tmpdir(), `isamap-bench-cancel-${round}.isam`)).href;
    const opened = server.published(uri, 1);
    await server.connection.sendNotification('textDocument/didOpen', {
      textDocument: { uri, languageId: 'isam', version: 1, text: bigFile(`r${round}_`) },
    });
    await opened;
    const source = new rpc.CancellationTokenSource();
    const answer = server.connection.sendRequest('isamap/targetCode',
      { textDocument: { uri }, position: { line: 9 * 100 + 3, character: 6 } }, source.token)
      .then(() => 'result', (e) => e.code);
    await new Promise((done) => setTimeout(done, 10));
    const t = performance.now();
    source.cancel();
    if ((await answer) === -32800) ++cancelledAnswers;
    times.push(performance.now() - t);
    await server.connection.sendNotification('textDocument/didClose', { textDocument: { uri } });
  }
  server.proc.kill();
  return { p50: percentile(times, 50), p99: percentile(times, 99), max: Math.max(...times), cancelledAnswers };
}

async function memory() {
  const server = await start();
  const uri = pathToFileURL(path.join(os.tmpdir(), 'isamap-bench-mem.isam')).href;
  const text = bigFile();
  let version = 1;
  await server.connection.sendNotification('textDocument/didOpen', {
    textDocument: { uri, languageId: 'isam', version, text },
  });
  const samples = [];
  for (let e = 1; e <= memoryEdits; ++e) {
    ++version;
    // Insert then delete, alternately, so the text stays the same size.
    const insert = e % 2 === 1;
    const change = insert
      ? { range: { start: { line: 3, character: 0 }, end: { line: 3, character: 0 } }, text: 'y' }
      : { range: { start: { line: 3, character: 0 }, end: { line: 3, character: 1 } }, text: '' };
    await server.connection.sendNotification('textDocument/didChange', {
      textDocument: { uri, version }, contentChanges: [change],
    });
    if (e % 1000 === 0) {
      // Let the server catch up (the last version's diagnostics), then read its memory.
      const done = server.published(uri, ++version);
      await server.connection.sendNotification('textDocument/didChange', {
        textDocument: { uri, version },
        contentChanges: [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, text: '' }],
      });
      await done;
      samples.push({ edits: e, rssKiB: rssKiB(server.proc.pid) });
    }
  }
  server.proc.kill();
  return samples;
}

// Opens a sample and waits for its diagnostics; returns its uri and the position of the first
// statement of its first kernel.
async function openSample(server, name) {
  const file = path.join(root, 'samples', name);
  const uri = pathToFileURL(file).href;
  const text = fs.readFileSync(file, 'utf8');
  const opened = server.published(uri, 1);
  await server.connection.sendNotification('textDocument/didOpen', {
    textDocument: { uri, languageId: 'isam', version: 1, text },
  });
  await opened;
  const lines = text.split('\n');
  let line = lines.findIndex((l) => l.startsWith('kernel ')) + 1;
  while (/^\s*(local|\/\/)/.test(lines[line])) ++line;
  return { uri, position: { line, character: 4 } };
}

async function diagrams() {
  const out = [];
  for (const name of fs.readdirSync(path.join(root, 'samples')).filter((f) => f.endsWith('.isam')).sort()) {
    const server = await start();
    const { uri, position } = await openSample(server, name);
    const row = { sample: name };
    for (const view of ['kernel', 'hardware', 'mapping', 'schedule']) {
      const t = performance.now();
      const r = await server.connection.sendRequest('isamap/diagram', { textDocument: { uri }, position, view });
      row[view] = performance.now() - t;
      if (!r.svg) row[view + 'Message'] = r.message;
    }
    out.push(row);
    server.proc.kill();
  }
  return out;
}

async function renders() {
  const server = await start();
  const { uri, position } = await openSample(server, 'gemm.isam');
  const samples = [];
  let workerMax = 0;
  const t0 = performance.now();
  for (let i = 1; i <= renderCount; ++i) {
    // Schedule diagrams (HTML labels, the worst leak) and kernel diagrams, alternately.
    const r = await server.connection.sendRequest('isamap/diagram', {
      textDocument: { uri }, position, view: i % 2 ? 'schedule' : 'kernel',
    });
    if (!r.svg) throw new Error(`diagram ${i}: ${r.message}`);
    if (i % 100 === 0) workerMax = Math.max(workerMax, childrenRssKiB(server.proc.pid));
    if (i % 1000 === 0)
      samples.push({ renders: i, rssKiB: rssKiB(server.proc.pid), workersKiB: childrenRssKiB(server.proc.pid) });
  }
  const msPerRender = (performance.now() - t0) / renderCount;
  server.proc.kill();
  return { samples, workerMaxKiB: workerMax, msPerRender };
}

const only = option('--only', '');
const result = { target, debounceMs,
  edit: !only || only === 'edit' ? await editLatency() : null,
  lenses: !only || only === 'lenses' ? await lensLatency() : null,
  stall: !only || only === 'stall' ? await stallLatency() : null,
  cancel: !only || only === 'cancel' ? await cancelLatency() : null,
  diagrams: !only || only === 'diagram' ? await diagrams() : [],
  memory: !only || only === 'memory' ? await memory() : [],
  renders: !only || only === 'renders' ? await renders() : null };
if (asJson) {
  console.log(JSON.stringify(result, null, 2));
} else {
  const f = (x) => x.toFixed(1);
  console.log(`edit-to-diagnostics after the ${debounceMs} ms debounce, 2,000-line file, ${bursts} bursts of 5 edits:`);
  if (result.edit)
    console.log(`  p50 ${f(result.edit.p50)} ms   p99 ${f(result.edit.p99)} ms   max ${f(result.edit.max)} ms`);
  if (result.lenses) {
    const l = result.lenses;
    console.log(`edit-to-code-lenses of the first ${visibleLines} lines (codeLens, then codeLens/resolve of those sent unresolved), 2,000-line file, ${l.lenses} lenses, ${lensRounds} edits:`);
    console.log(`  on opening: the visible ones ${f(l.firstVisibleMs)} ms, then all the others ${f(l.firstAllMs)} ms`);
    console.log(`  in a comment:          p50 ${f(l.comment.p50)} ms   p99 ${f(l.comment.p99)} ms   max ${f(l.comment.max)} ms`);
    console.log(`  in an instance's sizes: p50 ${f(l.instance.p50)} ms   p99 ${f(l.instance.p99)} ms   max ${f(l.instance.max)} ms`);
  }
  if (result.stall) {
    const row = (name, v) => console.log(`  ${name.padEnd(36)} p50 ${f(v.p50)} ms   p99 ${f(v.p99)} ms   max ${f(v.max)} ms`);
    console.log(`quick requests on the 2,000-line file, ${stallRounds} rounds:`);
    row('hover just after an edit\'s debounce:', result.stall.afterEdit);
    row('hover while lenses + target code run:', result.stall.hover);
    row('completion, the same:', result.stall.completion);
    row('code actions, the same:', result.stall.codeAction);
  }
  if (result.cancel) {
    const c = result.cancel;
    console.log(`$/cancelRequest of running isamap/targetCode on a new 2,000-line file, ${cancelRounds} rounds (answered -32800: ${c.cancelledAnswers}):`);
    console.log(`  cancel to answer: p50 ${f(c.p50)} ms   p99 ${f(c.p99)} ms   max ${f(c.max)} ms`);
  }
  console.log('isamap/diagram (ms; first request per view, including the mapping or schedule drawn):');
  console.log('  sample               kernel  hardware  mapping  schedule');
  for (const r of result.diagrams)
    console.log(`  ${r.sample.padEnd(20)} ${f(r.kernel).padStart(6)} ${f(r.hardware).padStart(9)} ${f(r.mapping).padStart(8)} ${f(r.schedule).padStart(9)}` +
      ['kernel', 'hardware', 'mapping', 'schedule'].filter((v) => r[v + 'Message']).map((v) => `  (${v}: ${r[v + 'Message']})`).join(''));
  console.log(`resident memory across ${memoryEdits} edits (KiB):`);
  console.log('  ' + result.memory.map((s) => `${s.edits}: ${s.rssKiB}`).join('  '));
  if (result.renders) {
    console.log(`resident memory across ${renderCount} diagrams (KiB; server, then its render workers),` +
      ` ${f(result.renders.msPerRender)} ms per diagram:`);
    console.log('  ' + result.renders.samples.map((s) => `${s.renders}: ${s.rssKiB} + ${s.workersKiB}`).join('  '));
    console.log(`  render workers at most ${result.renders.workerMaxKiB} KiB (sampled every 100 diagrams)`);
  }
}
process.exit(0);
