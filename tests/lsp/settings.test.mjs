// Settings: initializationOptions, workspace/didChangeConfiguration (which re-analyses the open
// documents with the new settings), and settings of the wrong type (a warning, not a crash).
import test from 'node:test';
import assert from 'node:assert/strict';
import { withServer, sampleUri, sampleText, positionOf, sleep, tempDir } from './client.mjs';
import { pathToFileURL } from 'node:url';
import { miniTarget } from './fixtures.mjs';

const gemmUri = sampleUri('gemm.isam');
const gemm = sampleText('gemm.isam');
const td = { textDocument: { uri: gemmUri } };
const Warning = 2;

const firstLens = async (server) => {
  const lenses = await server.lenses(gemmUri);
  return lenses[0].command.title;
};
const configure = (server, isamap) =>
  server.connection.sendNotification('workspace/didChangeConfiguration', { settings: { isamap } });
// The target the document's mapping diagnostics name (gemm_bf16's statement maps fully on no
// target, so there is always one).
const diagnosedTarget = (p) => p.diagnostics.map((d) => d.message.match(/no instruction of (\w+) runs/)?.[1]).find(Boolean);

test('initializationOptions choose the target', async () => {
  await withServer({ initializationOptions: { target: 'x86_avx2' } }, async (server) => {
    const diagnosed = server.diagnostics(gemmUri, (p) => diagnosedTarget(p) !== undefined);
    await server.open(gemmUri, gemm);
    assert.match(await firstLens(server), /^maps to fma8\b/);
    const m = await server.request('isamap/mappings', td);
    assert.equal(m.target, 'x86_avx2');
    assert.equal(diagnosedTarget(await diagnosed), 'x86_avx2');
  });
});

test('didChangeConfiguration changes what lenses, custom requests and diagnostics report', async () => {
  await withServer(async (server) => {
    const diagnosed = server.diagnostics(gemmUri, (p) => diagnosedTarget(p));
    await server.open(gemmUri, gemm);
    assert.equal(diagnosedTarget(await diagnosed), 'x86_avx512');
    assert.match(await firstLens(server), /^maps to fma16/);

    const republished = server.diagnostics(gemmUri, (p) => diagnosedTarget(p) === 'x86_avx2');
    await configure(server, { target: 'x86_avx2' });
    assert.match(await firstLens(server), /^maps to fma8\b/);
    assert.equal((await server.request('isamap/schedule', td)).target, 'x86_avx2');
    const hover = await server.request('textDocument/hover', { ...td, position: positionOf(gemm, '+= A[m, k]') });
    assert.match(hover.contents.value, /on `x86_avx2`: maps to fma8/);
    assert.equal((await republished).version, 1);
    // A request's own target still wins over the setting.
    assert.equal((await server.request('isamap/mappings', { ...td, target: 'x86_avx512' })).target, 'x86_avx512');

    // The section may also come without the `isamap` wrapper.
    await server.connection.sendNotification('workspace/didChangeConfiguration', { settings: { target: 'systolic16' } });
    assert.match(await firstLens(server), /^maps to mma/);
    // Turning mapping diagnostics off clears them.
    const quiet = server.diagnostics(gemmUri, (p) => p.diagnostics.length === 0);
    await configure(server, { mappingDiagnostics: false });
    await quiet;
    assert.deepEqual((await server.settled(gemmUri)).diagnostics, []);
  });
});

test('settings changed just after an open are the ones the results use', async () => {
  // The open's analysis may still be running when the settings change: what it made with the
  // old settings must not be kept, returned or published.
  for (const delay of [0, 2, 10]) {
    await withServer(async (server) => {
      await server.open(gemmUri, gemm);
      await sleep(delay);
      await configure(server, { target: 'x86_avx2' });
      assert.match(await firstLens(server), /^maps to fma8\b/, `after ${delay} ms`);
      const settled = await server.settled(gemmUri, (p) => diagnosedTarget(p) !== undefined);
      assert.equal(diagnosedTarget(settled), 'x86_avx2', `after ${delay} ms`);
    });
  }
});

test('a setting of the wrong type is a warning, and the others still apply', async () => {
  await withServer({ initializationOptions: { target: 'x86_avx512', debounceMs: 'soon' } }, async (server) => {
    await sleep(100);
    assert.ok(server.logs.some((l) => l.shown && l.type === Warning && /isamap\.debounceMs has the wrong type/.test(l.message)),
      JSON.stringify(server.logs));
    await server.open(gemmUri, gemm);
    assert.match(await firstLens(server), /^maps to fma16/);

    await configure(server, { target: 42, includeDirs: 'hwdesc', scheduleCandidates: -3, mappingDiagnostics: 'yes' });
    await configure(server, 'x86_avx2');
    await server.connection.sendNotification('workspace/didChangeConfiguration', {});
    await sleep(200);
    const shown = server.logs.filter((l) => l.shown).map((l) => l.message);
    for (const key of ['target', 'includeDirs', 'scheduleCandidates', 'mappingDiagnostics'])
      assert.ok(shown.some((m) => m === `isamap: isamap.${key} has the wrong type or value`), key);
    assert.ok(shown.includes('isamap: isamap settings must be an object'));
    // Nothing changed: still x86_avx512, still serving.
    assert.match(await firstLens(server), /^maps to fma16/);
    assert.ok(server.alive);

    // An unknown target is the settings' problem, not the document's: lenses say it, a warning
    // is shown once (not once per document or edit), and no diagnostic is published about it.
    await configure(server, { target: 'no_such_target' });
    const lenses = await server.lenses(gemmUri);
    assert.match(lenses[0].command.title, /unknown target 'no_such_target'/);
    assert.deepEqual((await server.settled(gemmUri)).diagnostics, []);
    server.change(gemmUri, 2, [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, text: ' ' }]);
    await server.settled(gemmUri);
    const unknown = server.logs.filter((l) => l.shown && /target setting 'no_such_target' cannot be used: .*unknown target 'no_such_target'/.test(l.message));
    assert.equal(unknown.length, 1, JSON.stringify(server.logs));
    assert.equal(unknown[0].type, Warning);
    assert.equal(await server.stop(), 0);
  });
});

test('workspace folders and include directories are searched for imports', async () => {
  const lib = tempDir();
  const more = tempDir();
  try {
    lib.write('mini.isam', miniTarget);
    more.write('extra.isam', 'kernel twice<N>(A: f32[N]) -> (B: f32[N]) {\n  B[i] = A[i] + A[i];\n}\n');
    await withServer({ initializationOptions: { target: 'x86_avx512' } }, async (server) => {
      const uri = 'untitled:imports-from-folders.isam';
      const text = 'import "mini.isam";\nimport "extra.isam";\ninstance t = twice<16>;\n';
      const missing = (p, name) => p.diagnostics.some((d) => d.message.includes(`cannot find the imported file '${name}'`));
      const first = server.diagnostics(uri, (p) => p.version === 1);
      await server.open(uri, text, 1);
      const d1 = await first;
      assert.ok(missing(d1, 'mini.isam') && missing(d1, 'extra.isam'), JSON.stringify(d1.diagnostics));

      const folderAdded = server.diagnostics(uri, (p) => !missing(p, 'mini.isam') && missing(p, 'extra.isam'));
      await server.connection.sendNotification('workspace/didChangeWorkspaceFolders', {
        event: { added: [{ uri: pathToFileURL(lib.dir).href, name: 'lib' }], removed: [] },
      });
      assert.equal((await folderAdded).version, 1);

      const included = server.diagnostics(uri, (p) => p.diagnostics.length === 0);
      await configure(server, { includeDirs: [more.dir] });
      await included;
      const symbols = await server.request('workspace/symbol', { query: 'twice' });
      assert.equal(symbols[0].location.uri, more.uri('extra.isam'));

      const folderRemoved = server.diagnostics(uri, (p) => missing(p, 'mini.isam'));
      await server.connection.sendNotification('workspace/didChangeWorkspaceFolders', {
        event: { added: [], removed: [{ uri: pathToFileURL(lib.dir).href, name: 'lib' }] },
      });
      await folderRemoved;
    });
  } finally {
    lib.cleanup();
    more.cleanup();
  }
});
