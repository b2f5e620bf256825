// Documents that import others: a kernel file importing a hardware file, both on disk and open.
// Editing the hardware document re-analyses the kernel document (which the client never
// touches), an open document's text overrides its file for the documents importing it, and
// navigation crosses the import.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { withServer, tempDir, positionOf, textOf, applyChanges, applyTextEdits } from './client.mjs';
import { miniTarget, miniKernel } from './fixtures.mjs';

const SeverityError = 1;
const codes = (p) => p.diagnostics.map((d) => d.code).sort();

async function withFiles(fn) {
  const dir = tempDir();
  try {
    const hw = dir.write('mini.isam', miniTarget);
    const kernel = dir.write('gemm.isam', miniKernel);
    await withServer({ initializationOptions: { target: 'mini' } }, (server) => fn(server, hw, kernel));
  } finally {
    dir.cleanup();
  }
}

test('editing the imported hardware document re-publishes the kernel document\'s diagnostics', async () => {
  await withFiles(async (server, hw, kernel) => {
    await server.open(hw.uri, miniTarget, 1);
    await server.open(kernel.uri, miniKernel, 1);
    assert.deepEqual((await server.settled(kernel.uri)).diagnostics, []);
    assert.deepEqual((await server.settled(hw.uri)).diagnostics, []);
    const before = server.publishedFor(kernel.uri).length;

    // 1. Rename the memory the kernel's schedule block tiles (everywhere in the hardware file,
    //    which stays valid): the pin now names no memory of the target.
    const renamed = miniTarget.replaceAll('SPAD', 'SCRATCH');
    const pinBroken = server.diagnostics(kernel.uri, (p) => p.diagnostics.some((d) => d.code === 'E0702'));
    await server.change(hw.uri, 2, [{ text: renamed }]);
    const d1 = await pinBroken;
    assert.equal(d1.version, 1, 'the kernel document itself did not change');
    const e = d1.diagnostics.find((d) => d.code === 'E0702');
    assert.equal(e.severity, SeverityError);
    assert.match(e.message, /'SPAD' is not a memory level/);
    assert.equal(textOf(miniKernel, e.range), 'schedule { map mma; tile SPAD: m 16, n 16, k 16; }');
    assert.deepEqual((await server.settled(hw.uri, (p) => p.version === 2)).diagnostics, []);

    // 2. Restore it: the kernel's problems go away.
    const restored = server.diagnostics(kernel.uri, (p) => p.diagnostics.length === 0);
    await server.change(hw.uri, 3, [{ text: miniTarget }]);
    assert.equal((await restored).version, 1);
    assert.deepEqual((await server.settled(kernel.uri)).diagnostics, []);

    // 3. Remove the instruction (an incremental change deleting its lines): the statement runs
    //    on no instruction, and the pin names an instruction that cannot run it.
    const start = positionOf(miniTarget, '  // mma begins');
    const end = positionOf(miniTarget, '  // mma ends');
    const removal = { range: { start, end: { line: end.line + 1, character: 0 } }, text: '' };
    assert.doesNotMatch(applyChanges(miniTarget, [removal]), /instr mma/);
    const noInstruction = server.diagnostics(kernel.uri, (p) => p.diagnostics.some((d) => d.code === 'E0701'));
    await server.change(hw.uri, 4, [removal]);
    const d3 = await noInstruction;
    assert.equal(d3.version, 1);
    assert.deepEqual(codes(d3), ['E0701', 'I0301']);
    const unmapped = d3.diagnostics.find((d) => d.code === 'I0301');
    assert.match(unmapped.message, /no instruction of mini runs this statement/);
    assert.equal(textOf(miniKernel, unmapped.range), 'C[m, n] += A[m, k] * B[k, n];');
    assert.match(d3.diagnostics.find((d) => d.code === 'E0701').message, /'mma'/);

    assert.ok(server.publishedFor(kernel.uri).length > before);
    for (const p of server.publishedFor(kernel.uri))
      assert.equal(p.version, 1);
  });
});

test('an open document overrides its file on disk for the documents importing it, until closed', async () => {
  await withFiles(async (server, hw, kernel) => {
    // Only the kernel is open: the hardware file is read from disk.
    await server.open(kernel.uri, miniKernel, 1);
    assert.deepEqual((await server.settled(kernel.uri)).diagnostics, []);
    // Open the hardware file with different text (unsaved): the kernel sees that text.
    const withoutMma = miniTarget.replace(/ {2}\/\/ mma begins[\s\S]*\/\/ mma ends\n/, '');
    const overridden = server.diagnostics(kernel.uri, (p) => p.diagnostics.some((d) => d.code === 'E0701'));
    await server.open(hw.uri, withoutMma, 1);
    assert.equal((await overridden).version, 1);
    // Closing it brings the file on disk back.
    const back = server.diagnostics(kernel.uri, (p) => p.diagnostics.length === 0);
    await server.close(hw.uri);
    await back;
    assert.deepEqual((await server.settled(kernel.uri)).diagnostics, []);

    // The file changes on disk (another program wrote it): the client says so, and the kernel
    // is analysed again against it.
    fs.writeFileSync(hw.path, withoutMma);
    const changedOnDisk = server.diagnostics(kernel.uri, (p) => p.diagnostics.some((d) => d.code === 'E0701'));
    await server.connection.sendNotification('workspace/didChangeWatchedFiles', { changes: [{ uri: hw.uri, type: 2 }] });
    assert.equal((await changedOnDisk).version, 1);
  });
});

test('a client that can watch files is asked to watch the .isam files; one that cannot is not', async () => {
  for (const dynamicRegistration of [true, false]) {
    await withServer({ initialize: false }, async (server) => {
      const asked = [];
      server.connection.onRequest('client/registerCapability', (params) => {
        asked.push(params);
        return null;
      });
      await server.initialize(undefined, { capabilities: { workspace: { didChangeWatchedFiles: { dynamicRegistration } } } });
      // Anything the server sends after `initialized` arrives before this answer.
      await server.request('workspace/symbol', { query: 'x' });
      if (!dynamicRegistration) {
        assert.deepEqual(asked, []);
        return;
      }
      assert.equal(asked.length, 1);
      const [registration] = asked[0].registrations;
      assert.equal(registration.method, 'workspace/didChangeWatchedFiles');
      assert.deepEqual(registration.registerOptions.watchers, [{ globPattern: '**/*.isam' }]);
      assert.ok(server.alive);
    });
  }
});

test('an import\'s path is a link to the file it resolved to, and its definition', async () => {
  await withFiles(async (server, hw, kernel) => {
    await server.open(kernel.uri, miniKernel, 1);
    const td = { textDocument: { uri: kernel.uri } };
    const links = await server.request('textDocument/documentLink', td);
    assert.equal(links.length, 1);
    assert.equal(links[0].target, hw.uri);
    assert.equal(textOf(miniKernel, links[0].range), '"mini.isam"');
    const definition = await server.request('textDocument/definition', { ...td, position: positionOf(miniKernel, 'mini.isam') });
    assert.equal(definition.uri, hw.uri);
    assert.deepEqual(definition.range.start, { line: 0, character: 0 });
  });
});

test('hover, definition, references and rename cross the import', async () => {
  await withFiles(async (server, hw, kernel) => {
    await server.open(kernel.uri, miniKernel, 1);
    await server.settled(kernel.uri);
    const td = { textDocument: { uri: kernel.uri } };
    const mma = positionOf(miniKernel, 'mma;');

    // The instruction's hover is its declaration: operands, semantics and cost.
    const hover = await server.request('textDocument/hover', { ...td, position: mma });
    assert.match(hover.contents.value, /instr mma\(acc: inout f32\[16, 16\] in ACC/);
    assert.match(hover.contents.value, /acc\[i, j\] \+= a\[i, k\] \* b\[k, j\];/);
    assert.match(hover.contents.value, /cost \{ latency 48; per_cycle 1\/16; \}/);
    assert.deepEqual(hover.range, { start: mma, end: { line: mma.line, character: mma.character + 3 } });

    const declared = positionOf(miniTarget, 'mma(');
    const definition = await server.request('textDocument/definition', { ...td, position: mma });
    assert.equal(definition.uri, hw.uri);
    assert.deepEqual(definition.range, { start: declared, end: { line: declared.line, character: declared.character + 3 } });

    // A memory named in the schedule block resolves into the hardware file too.
    const spad = await server.request('textDocument/definition', { ...td, position: positionOf(miniKernel, 'SPAD') });
    assert.equal(spad.uri, hw.uri);
    assert.equal(textOf(miniTarget, spad.range), 'SPAD');
    assert.deepEqual(spad.range.start, positionOf(miniTarget, 'SPAD :'));

    const refs = await server.request('textDocument/references', { ...td, position: mma, context: { includeDeclaration: true } });
    assert.deepEqual(refs.map((r) => r.uri).sort(), [kernel.uri, hw.uri].sort());

    const rename = await server.request('textDocument/rename', { ...td, position: mma, newName: 'matmul16' });
    assert.deepEqual(Object.keys(rename.changes).sort(), [kernel.uri, hw.uri].sort());
    for (const [uri, edits] of Object.entries(rename.changes)) {
      const original = uri === hw.uri ? miniTarget : miniKernel;
      for (const e of edits) {
        assert.equal(textOf(original, e.range), 'mma');
        assert.equal(e.newText, 'matmul16');
      }
    }
    // Applied to both (the hardware file as an unsaved open document), the kernel still maps.
    const renamedTarget = applyTextEdits(miniTarget, rename.changes[hw.uri]);
    const renamedKernel = applyTextEdits(miniKernel, rename.changes[kernel.uri]);
    assert.match(renamedKernel, /map matmul16;/);
    await server.open(hw.uri, renamedTarget, 1);
    const v2 = server.diagnostics(kernel.uri, (p) => p.version === 2);
    await server.change(kernel.uri, 2, [{ text: renamedKernel }]);
    await v2;
    assert.deepEqual((await server.settled(kernel.uri, (p) => p.version === 2)).diagnostics, []);
    const schedule = await server.request('isamap/schedule', td);
    assert.equal(schedule.schedule.mapping, 'matmul16');
  });
});

test('an import of a file that is not an isam file is one diagnostic that never quotes it', async () => {
  const dir = tempDir();
  try {
    const secret = 'root:$6$SECRETHASH:19000:0:99999:7:::\ndaemon:*:19000:0:99999:7:::\n';
    const shadow = dir.write('shadow', secret);
    dir.write('shadow.isam', secret);
    const text = `import "${shadow.path}";\nimport "shadow.isam";\nimport "/etc/shadow";\nkernel k<N>(A: f32[N]) -> (B: f32[N]) {\n  B[i] = A[i];\n}\n`;
    const main = dir.write('main.isam', text);
    await withServer(async (server) => {
      const d = server.diagnostics(main.uri, (p) => p.version === 1);
      await server.open(main.uri, text, 1);
      const diagnostics = (await d).diagnostics;
      assert.deepEqual(diagnostics.map((x) => [x.code, textOf(text, x.range)]), [
        ['E0605', `"${shadow.path}"`], ['E0605', '"shadow.isam"'], ['E0605', '"/etc/shadow"']]);
      assert.match(diagnostics[0].message, /is not an isam file: an import names a file ending in \.isam/);
      assert.match(diagnostics[1].message, /'shadow.isam' is not an isam file: it does not begin with a declaration/);
      for (const leak of ['root', 'SECRET', 'daemon'])
        assert.ok(!JSON.stringify(server.published).includes(leak), leak);
      const hover = await server.request('textDocument/hover', { textDocument: { uri: main.uri }, position: positionOf(text, 'shadow.isam') });
      assert.ok(!JSON.stringify(hover ?? {}).includes('root'));
    });
  } finally {
    dir.cleanup();
  }
});
