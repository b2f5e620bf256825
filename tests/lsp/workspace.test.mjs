// Workspace-wide requests over files nobody opened: the background index (with its progress),
// workspace symbols, references, rename (and what it refuses) and the call hierarchy, and the
// index following changes on disk.
import test from 'node:test';
import assert from 'node:assert/strict';
import { pathToFileURL } from 'node:url';
import fs from 'node:fs';
import { WorkDoneProgress } from 'vscode-languageserver-protocol/node.js';
import { withServer, tempDir, positionOf, textOf, applyTextEdits, sleep } from './client.mjs';
import { miniTarget } from './fixtures.mjs';

// a.isam (opened): a GEMM whose schedule block names mini's `mma`; b.isam: another kernel that
// pins `mma`; c.isam: instances of a's kernel; d/e.isam: a kernel no open file imports;
// board.isam: a target found by its name in the workspace folder.
const files = {
  'hw/mini.isam': miniTarget,
  'a.isam': `import "hw/mini.isam";

kernel gemm<M, N, K>(A: f32[M, K], B: f32[K, N]) -> (C: f32[M, N]) {
  C[m, n] += A[m, k] * B[k, n];
  schedule { map mma; tile SPAD: m 16, n 16, k 16; }
}
instance g = gemm<64, 64, 64>;
`,
  'b.isam': `import "hw/mini.isam";

kernel bmm<M, N, K>(A: f32[M, K], B: f32[K, N]) -> (C: f32[M, N]) {
  C[m, n] += A[m, k] * B[k, n];
  schedule { map mma; }
}
instance b1 = bmm<32, 32, 32>;
`,
  'c.isam': `import "a.isam";

kernel other<N>(X: f32[N]) -> (Y: f32[N]) {
  Y[i] = X[i] * 2.0;
}
instance big = gemm<128, 128, 128>;
instance small = gemm<16, 16, 16>;
`,
  'board.isam': miniTarget.replace('mini: a 16 x 16', 'board: our board, a 16 x 16').replace('target mini', 'target board'),
  'd/e.isam': `kernel lstmcell<N>(X: f32[N]) -> (Y: f32[N]) {
  Y[i] = tanh(X[i]);
}
`,
};

async function withWorkspace(fn) {
  const ws = tempDir();
  const uris = {};
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(`${ws.dir}/${name}`.replace(/\/[^/]*$/, ''), { recursive: true });
    uris[name] = ws.write(name, text).uri;
  }
  // A build tree and a hidden folder are not indexed.
  fs.mkdirSync(`${ws.dir}/build`);
  fs.writeFileSync(`${ws.dir}/build/CMakeCache.txt`, '');
  ws.write('build/copy.isam', files['d/e.isam'].replace('lstmcell', 'lstmcopy'));
  fs.mkdirSync(`${ws.dir}/.git`);
  ws.write('.git/hidden.isam', files['d/e.isam'].replace('lstmcell', 'lstmhidden'));
  try {
    await withServer({ initialize: false }, async (server) => {
      const progress = [];
      server.connection.onRequest('window/workDoneProgress/create', (params) => {
        server.connection.onProgress(WorkDoneProgress.type, params.token,
          (v) => progress.push({ token: params.token, ...v }));
        return null;
      });
      await server.initialize({ target: 'mini' }, {
        rootUri: pathToFileURL(ws.dir).href,
        workspaceFolders: [{ uri: pathToFileURL(ws.dir).href, name: 'ws' }],
        capabilities: { window: { workDoneProgress: true } },
      });
      await server.open(uris['a.isam'], files['a.isam']);
      await fn(server, { ws, uris, progress });
    });
  } finally {
    ws.cleanup();
  }
}

// Locations as "file:line:character" sorted, with the workspace's directory left out.
const where = (ws, locations) =>
  locations.map((l) => `${l.uri.slice(pathToFileURL(ws.dir).href.length + 1)}:${l.range.start.line}:${l.range.start.character}`).sort();

test('the workspace is indexed in the background, with progress, and workspace symbols find unopened files', async () => {
  await withWorkspace(async (server, { ws, uris, progress }) => {
    const symbols = await server.request('workspace/symbol', { query: 'lstm' });
    assert.deepEqual(symbols.map((s) => s.name), ['lstmcell']);
    assert.equal(symbols[0].location.uri, uris['d/e.isam']);
    assert.equal(symbols[0].kind, 12 /* Function */);
    // Instances of an unopened file, once each though a.isam's analysis also loads c? (it does not)
    const instances = await server.request('workspace/symbol', { query: 'small' });
    assert.deepEqual(where(ws, instances.map((s) => s.location)), ['c.isam:6:9']);
    // The index's progress: begin with a title, then end.
    for (let i = 0; i < 100 && !progress.some((p) => p.kind === 'end'); ++i)
      await sleep(50);
    const indexing = progress.filter((p) => p.token.startsWith('isamap/index/'));
    assert.equal(indexing[0]?.kind, 'begin', JSON.stringify(progress));
    assert.equal(indexing[0].title, 'Indexing the workspace');
    assert.equal(indexing.at(-1).kind, 'end');
  });
});

test('references and rename reach files nobody opened, and follow changes on disk', async () => {
  await withWorkspace(async (server, { ws, uris }) => {
    const a = files['a.isam'];
    const td = { textDocument: { uri: uris['a.isam'] } };
    const onMma = positionOf(a, 'map mma', { delta: 5 });
    const refs = await server.request('textDocument/references', {
      ...td, position: onMma, context: { includeDeclaration: true },
    });
    const mmaDecl = positionOf(miniTarget, 'instr mma', { delta: 6 });
    assert.deepEqual(where(ws, refs), [
      `a.isam:${onMma.line}:${onMma.character - 1}`, 'b.isam:4:17',
      `hw/mini.isam:${mmaDecl.line}:${mmaDecl.character}`,
    ].sort());
    // The declaration comes first.
    assert.ok(refs[0].uri.endsWith('hw/mini.isam'));

    // Renaming edits every file, opened or not; applied, each names the new instruction.
    const edit = await server.request('textDocument/rename', { ...td, position: onMma, newName: 'matmul' });
    assert.deepEqual(Object.keys(edit.changes).map((u) => u.slice(pathToFileURL(ws.dir).href.length + 1)).sort(),
      ['a.isam', 'b.isam', 'hw/mini.isam']);
    for (const [name, text] of [['a.isam', a], ['b.isam', files['b.isam']], ['hw/mini.isam', miniTarget]]) {
      const after = applyTextEdits(text, edit.changes[uris[name]]);
      assert.doesNotMatch(after.replace(/\/\/.*$/gm, ''), /\bmma\b/, name); // comments keep it
      assert.match(after, /\bmatmul\b/, name);
    }

    // A kernel renamed to a name a file using it already declares for a kernel is refused.
    const onGemm = positionOf(a, 'gemm<M', { delta: 1 });
    const refused = await server.requestError('textDocument/rename', { ...td, position: onGemm, newName: 'other' });
    assert.match(refused.message, /'other' is already declared as a kernel in .*c\.isam/);

    // An unopened file changed on disk: the index reads it again (didChangeWatchedFiles).
    const b2 = `// moved down two lines\n\n${files['b.isam']}`;
    fs.writeFileSync(`${ws.dir}/b.isam`, b2);
    await server.connection.sendNotification('workspace/didChangeWatchedFiles', {
      changes: [{ uri: uris['b.isam'], type: 2 }],
    });
    const again = await server.request('textDocument/references', {
      ...td, position: onMma, context: { includeDeclaration: false },
    });
    const inB = again.filter((l) => l.uri === uris['b.isam']);
    assert.equal(inB.length, 1);
    assert.equal(textOf(b2, inB[0].range), 'mma');
    assert.equal(inB[0].range.start.line, 6);
  });
});

test('renaming in an open hardware description edits the open and unopened files that use it', async () => {
  await withWorkspace(async (server, { ws, uris }) => {
    await server.open(uris['hw/mini.isam'], miniTarget);
    const position = positionOf(miniTarget, 'instr mma', { delta: 6 });
    const edit = await server.request('textDocument/rename', {
      textDocument: { uri: uris['hw/mini.isam'] }, position, newName: 'gemm16',
    });
    assert.deepEqual(Object.keys(edit.changes).map((u) => u.slice(pathToFileURL(ws.dir).href.length + 1)).sort(),
      ['a.isam', 'b.isam', 'hw/mini.isam']);
    // Each edit once, though a.isam's analysis and the open description's both know a.isam's use.
    assert.equal(edit.changes[uris['a.isam']].length, 1);
    assert.equal(edit.changes[uris['hw/mini.isam']].length, 1);
  });
});

test('call hierarchy: instance -> kernel -> instruction, and back, across files', async () => {
  await withWorkspace(async (server, { ws, uris }) => {
    const a = files['a.isam'];
    const td = { textDocument: { uri: uris['a.isam'] } };
    const [instance] = await server.request('textDocument/prepareCallHierarchy', {
      ...td, position: positionOf(a, 'instance g', { delta: 9 }),
    });
    assert.equal(instance.name, 'g');
    assert.equal(instance.data.role, 'instance');
    const toKernel = await server.request('callHierarchy/outgoingCalls', { item: instance });
    assert.deepEqual(toKernel.map((c) => c.to.name), ['gemm']);
    assert.equal(textOf(a, toKernel[0].fromRanges[0]), 'gemm');
    const kernel = toKernel[0].to;

    // The kernel runs on mini's mma (its schedule's pick), from its statement.
    const toInstr = await server.request('callHierarchy/outgoingCalls', { item: kernel });
    assert.deepEqual(toInstr.map((c) => c.to.name), ['mma']);
    assert.equal(textOf(a, toInstr[0].fromRanges[0]), 'C[m, n] += A[m, k] * B[k, n];');
    assert.match(toInstr[0].to.detail, /^mini: /);
    assert.ok(toInstr[0].to.uri.endsWith('hw/mini.isam'));

    // Who instantiates gemm: g here, and big and small in c.isam, which is not open.
    const instances = await server.request('callHierarchy/incomingCalls', { item: kernel });
    assert.deepEqual(instances.map((c) => c.from.name).sort(), ['big', 'g', 'small']);
    const big = instances.find((c) => c.from.name === 'big');
    assert.equal(big.from.uri, uris['c.isam']);
    assert.equal(textOf(files['c.isam'], big.fromRanges[0]), 'gemm');

    // Who runs mma: the kernels of the open documents.
    const runners = await server.request('callHierarchy/incomingCalls', { item: toInstr[0].to });
    assert.deepEqual(runners.map((c) => c.from.name), ['gemm']);

    // Nothing to prepare on a tensor; a malformed item is refused.
    assert.equal(await server.request('textDocument/prepareCallHierarchy', {
      ...td, position: positionOf(a, 'A: f32'),
    }), null);
    const bad = await server.requestError('callHierarchy/outgoingCalls', { item: { name: 'x', uri: uris['a.isam'] } });
    assert.equal(bad.code, -32602);
    assert.ok(ws.dir);
  });
});

test('isamap/targets: host, the document\'s targets, the workspace\'s and the shipped ones, each once', async () => {
  await withWorkspace(async (server, { ws, uris }) => {
    const { targets } = await server.request('isamap/targets', { textDocument: { uri: uris['a.isam'] } });
    const names = targets.map((t) => t.name);
    assert.equal(new Set(names).size, names.length);
    assert.deepEqual(targets[0], { ...targets[0], name: 'host', origin: 'host', kind: 'target' });
    const mini = targets.find((t) => t.name === 'mini');
    assert.deepEqual(mini, {
      name: 'mini', kind: 'target', origin: 'document', path: `${ws.dir}/hw/mini.isam`,
      description: 'a 16 x 16 systolic array, for the tests.',
    });
    const board = targets.find((t) => t.name === 'board');
    assert.equal(board.origin, 'workspace');
    assert.equal(board.description, 'our board, a 16 x 16 systolic array, for the tests.');
    const soc = targets.find((t) => t.name === 'soc');
    assert.equal(soc.kind, 'system');
    assert.equal(soc.origin, 'shipped');
    assert.ok(names.includes('x86_avx512') && names.includes('systolic16'));
    // In resolution order: the document's before the workspace's before the shipped ones.
    assert.ok(names.indexOf('mini') < names.indexOf('board'));
    assert.ok(names.indexOf('board') < names.indexOf('x86_avx512'));
    // Without a document, nothing a document declares.
    const alone = await server.request('isamap/targets', {});
    assert.ok(!alone.targets.some((t) => t.name === 'mini'));
    assert.ok(alone.targets.some((t) => t.name === 'board'));
  });
});

test('a file open under a second name (a symbolic link) is edited once by a rename', async () => {
  await withWorkspace(async (server, { ws, uris }) => {
    fs.symlinkSync(ws.dir, `${ws.dir}/link`);
    const linked = pathToFileURL(`${ws.dir}/link/hw/mini.isam`).href;
    await server.open(linked, miniTarget);
    const a = files['a.isam'];
    const edit = await server.request('textDocument/rename', {
      textDocument: { uri: uris['a.isam'] }, position: positionOf(a, 'map mma', { delta: 5 }), newName: 'mm16',
    });
    // The description's declaration is renamed once, under one of its two names.
    const declarations = Object.entries(edit.changes)
      .filter(([uri]) => uri.endsWith('hw/mini.isam'))
      .flatMap(([, edits]) => edits);
    assert.equal(declarations.length, 1, JSON.stringify(edit.changes));
  });
});
