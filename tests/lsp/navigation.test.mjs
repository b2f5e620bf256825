// Names: hover, definition, references, highlights, rename (and what it refuses), the outline
// and workspace symbols, on the shipped samples and a hardware description.
import test from 'node:test';
import assert from 'node:assert/strict';
import {
  withServer, sampleUri, sampleText, positionOf, textOf, applyTextEdits,
} from './client.mjs';
import { miniTarget } from './fixtures.mjs';

const RequestFailed = -32803;
const gemmUri = sampleUri('gemm.isam');
const gemm = sampleText('gemm.isam');
// gemm's statement, and the position of a name in it.
const statement = 'C[m, n] += A[m, k] * B[k, n];';
const inStatement = (name) => positionOf(gemm, statement, { delta: statement.indexOf(name) });
const gemmHeader = 'kernel gemm<M, N, K>(A: f32[M, K], B: f32[K, N]) -> (C: f32[M, N]) {';
const inHeader = (fragment, nth = 0) => {
  let at = -1;
  for (let i = 0; i <= nth; ++i)
    at = gemmHeader.indexOf(fragment, at + 1);
  return positionOf(gemm, gemmHeader, { delta: at });
};

async function withGemm(fn) {
  await withServer(async (server) => {
    await server.open(gemmUri, gemm);
    await fn(server, { textDocument: { uri: gemmUri } });
  });
}

const one = (p) => ({ start: p, end: { line: p.line, character: p.character + 1 } });

test('hover: shapes and ranges in the instance, element types, sizes, kernels, statements', async () => {
  await withGemm(async (server, td) => {
    const hover = async (position) => {
      const h = await server.request('textDocument/hover', { ...td, position });
      return h && { value: h.contents.value, range: h.range, kind: h.contents.kind };
    };
    // A tensor: its declared type and its shape in the kernel's first instance.
    const a = await hover(inHeader('A'));
    assert.equal(a.kind, 'markdown');
    assert.match(a.value, /tensor A: f32\[M, K\]/);
    assert.match(a.value, /In instance `gemm_1760x16x1760`: `f32\[1760, 1760\]`/);
    assert.deepEqual(a.range, one(inHeader('A')));
    const c = await hover(inHeader('C'));
    assert.match(c.value, /`f32\[1760, 16\]`/);

    // An index: its range in this statement of the instance, and the statement's mapping.
    const k = await hover(inStatement('k'));
    assert.match(k.value, /index k/);
    assert.match(k.value, /`k in 0\.\.1760` \(reduction: summed over\)/);
    assert.match(k.value, /\*\*s0\*\* of `gemm_1760x16x1760` on `x86_avx512`: maps to fma16\S* × [\d,]+ \| est\. \d+% of peak, ~\d+ cycles, bound by /);
    const n = await hover(inStatement('n'));
    assert.match(n.value, /`n in 0\.\.16`(?! \(reduction)/);

    // Between names: the statement's summary, over the statement, with no empty section above it.
    const op = await hover(inStatement('+='));
    assert.match(op.value, /^\*\*s0\*\* of `gemm_1760x16x1760` on `x86_avx512`: maps to fma16/);
    assert.equal(textOf(gemm, op.range), statement);

    const f32 = await hover(inHeader('f32'));
    assert.match(f32.value, /type f32/);
    assert.match(f32.value, /4-byte floating-point element/);
    const size = await hover(inHeader('M'));
    assert.match(size.value, /`M = 1760`/);

    // The kernel named in an instance: that instance's sizes and work.
    const small = positionOf(gemm, 'instance gemm_small = gemm<', { delta: 'instance gemm_small = '.length });
    const kernel = await hover(small);
    assert.match(kernel.value, /kernel gemm/);
    assert.match(kernel.value, /In instance `gemm_small`: `gemm<7, 5, 13>`, 910 floating-point operations/);

    // Nothing to say inside a comment at the top.
    assert.equal(await hover({ line: 0, character: 5 }), null);
  });
});

test('definition, references with and without the declaration, and highlights', async () => {
  await withGemm(async (server, td) => {
    const a = inStatement('A');
    const decl = inHeader('A');
    assert.deepEqual(await server.request('textDocument/definition', { ...td, position: a }),
      { uri: gemmUri, range: one(decl) });
    assert.deepEqual(await server.request('textDocument/declaration', { ...td, position: a }),
      { uri: gemmUri, range: one(decl) });

    const withDecl = await server.request('textDocument/references', { ...td, position: a, context: { includeDeclaration: true } });
    assert.deepEqual(withDecl.map((r) => r.range).sort((x, y) => x.start.line - y.start.line), [one(decl), one(a)]);
    for (const r of withDecl) {
      assert.equal(r.uri, gemmUri);
      assert.equal(textOf(gemm, r.range), 'A');
    }
    const withoutDecl = await server.request('textDocument/references', { ...td, position: decl, context: { includeDeclaration: false } });
    assert.deepEqual(withoutDecl, [{ uri: gemmUri, range: one(a) }]);

    // The index k of the statement: every use, and no other kernel's k.
    const k = await server.request('textDocument/references', { ...td, position: inStatement('k'), context: { includeDeclaration: true } });
    assert.equal(k.length, 2);
    for (const r of k)
      assert.equal(r.range.start.line, a.line);

    const highlights = await server.request('textDocument/documentHighlight', { ...td, position: a });
    assert.deepEqual(highlights.map((h) => [h.range, h.kind]).sort((x, y) => x[0].start.line - y[0].start.line),
      [[one(decl), 3], [one(a), 2]]);

    // Nothing to go to from a keyword or a comment.
    assert.equal(await server.request('textDocument/definition', { ...td, position: inHeader('kernel') }), null);
    assert.equal(await server.request('textDocument/references', { ...td, position: { line: 0, character: 4 }, context: { includeDeclaration: true } }), null);
  });
});

test('rename: a tensor, an index in one statement only, a size parameter', async () => {
  await withGemm(async (server, td) => {
    const prepared = await server.request('textDocument/prepareRename', { ...td, position: inStatement('A') });
    assert.deepEqual(prepared, { range: one(inStatement('A')), placeholder: 'A' });

    const tensor = await server.request('textDocument/rename', { ...td, position: inStatement('A'), newName: 'Left' });
    assert.deepEqual(Object.keys(tensor.changes), [gemmUri]);
    const edits = tensor.changes[gemmUri];
    assert.equal(edits.length, 2);
    const renamed = applyTextEdits(gemm, edits);
    assert.ok(renamed.includes('kernel gemm<M, N, K>(Left: f32[M, K], B: f32[K, N]) -> (C: f32[M, N]) {\n  C[m, n] += Left[m, k] * B[k, n];'));
    // gemm_tn's A is another tensor.
    assert.ok(renamed.includes('kernel gemm_tn<M, N, K>(A: f32[K, M]'));
    // The renamed text is still a valid file.
    await server.change(gemmUri, 2, [{ text: renamed }]);
    assert.deepEqual((await server.settled(gemmUri, (p) => p.version === 2)).diagnostics.filter((d) => d.severity === 1), []);
    await server.change(gemmUri, 3, [{ text: gemm }]);

    const size = await server.request('textDocument/rename', { ...td, position: inHeader('K'), newName: 'Depth' });
    const sizeEdits = size.changes[gemmUri];
    assert.equal(sizeEdits.length, 3);
    for (const e of sizeEdits) {
      assert.equal(e.range.start.line, inHeader('K').line);
      assert.equal(textOf(gemm, e.range), 'K');
    }
  });

  // An index is a name of one statement: renaming j in mlp2's second statement leaves the
  // other statements' j alone.
  await withServer(async (server) => {
    const uri = sampleUri('mlp.isam');
    const mlp = sampleText('mlp.isam');
    await server.open(uri, mlp);
    const second = 'Z1[b, j] += X[b, i] * W1[i, j];';
    const j = positionOf(mlp, second, { delta: second.indexOf('j') });
    const result = await server.request('textDocument/rename', { textDocument: { uri }, position: j, newName: 'h' });
    const edits = result.changes[uri];
    assert.equal(edits.length, 2);
    for (const e of edits)
      assert.equal(e.range.start.line, j.line);
    const renamed = applyTextEdits(mlp, edits);
    assert.ok(renamed.includes('Z1[b, h] += X[b, i] * W1[i, h];'));
    assert.ok(renamed.includes('Z1[b, j] = B1[j];'));
    assert.ok(renamed.includes('A1[b, j] = relu(Z1[b, j]);'));
  });
});

test('rename refuses keywords, clashing names, and names of the shipped descriptions', async () => {
  await withGemm(async (server, td) => {
    const a = inStatement('A');
    for (const [newName, why] of [
      ['kernel', /'kernel' is a keyword/], ['f32', /element type/], ['exp', /function/],
      ['2x', /not an identifier/], ['a b', /not an identifier/],
      ['B', /'B' is already the name of a tensor in gemm/], ['C', /already/]]) {
      const e = await server.requestError('textDocument/rename', { ...td, position: a, newName });
      assert.equal(e.code, RequestFailed, newName);
      assert.match(e.message, why);
    }
    const index = await server.requestError('textDocument/rename', { ...td, position: inStatement('m'), newName: 'k' });
    assert.equal(index.code, RequestFailed);
    const nothing = await server.requestError('textDocument/prepareRename', { ...td, position: inHeader('kernel') });
    assert.equal(nothing.code, RequestFailed);
    assert.match(nothing.message, /no name to rename/);
  });

  await withServer(async (server) => {
    const uri = 'untitled:uses-avx512.isam';
    const text = `import "x86_avx512.isam";
kernel gemm<M, N, K>(A: f32[M, K], B: f32[K, N]) -> (C: f32[M, N]) {
  C[m, n] += A[m, k] * B[k, n];
  schedule { map fma16; tile L1: m 16; }
}
instance g = gemm<32, 32, 32>;
`;
    await server.open(uri, text);
    for (const name of ['fma16', 'L1']) {
      const position = positionOf(text, name + (name === 'L1' ? ':' : ';'));
      const definition = await server.request('textDocument/definition', { textDocument: { uri }, position });
      assert.match(definition.uri, /hwdesc\/x86_avx512\.isam$/, name);
      for (const method of ['textDocument/prepareRename', 'textDocument/rename']) {
        const e = await server.requestError(method, { textDocument: { uri }, position, newName: 'mine' });
        assert.equal(e.code, RequestFailed, `${method} ${name}`);
        assert.match(e.message, new RegExp(`'${name}' is declared in a shipped description`));
      }
    }
  });
});

test('document symbols: kernels with their tensors and statements, targets with memories and instructions', async () => {
  await withServer(async (server) => {
    await server.open(gemmUri, gemm);
    const symbols = await server.request('textDocument/documentSymbol', { textDocument: { uri: gemmUri } });
    const kernels = symbols.filter((s) => s.kind === 12);
    assert.deepEqual(kernels.map((s) => s.name), ['gemm', 'gemm_tn', 'gemm_nt', 'gemm_bf16']);
    const instances = symbols.filter((s) => s.kind === 14);
    assert.equal(instances.length, (gemm.match(/^instance /gm) ?? []).length);
    assert.ok(instances.some((s) => s.name === 'gemm_small'));
    const g = kernels[0];
    assert.equal(textOf(gemm, g.selectionRange), 'gemm');
    assert.ok(textOf(gemm, g.range).startsWith('kernel gemm<M, N, K>'));
    assert.ok(textOf(gemm, g.range).endsWith('}'));
    assert.deepEqual(g.children.map((c) => [c.name, c.kind]),
      [['A', 18], ['B', 18], ['C', 18], [`s0: ${statement}`, 25]]);
    assert.equal(textOf(gemm, g.children[3].range), statement);
    assert.equal(g.children[0].detail, 'f32[M, K]');

    const uri = 'untitled:mini.isam';
    await server.open(uri, miniTarget);
    const [target] = await server.request('textDocument/documentSymbol', { textDocument: { uri } });
    assert.equal(target.name, 'mini');
    assert.equal(target.kind, 2);
    const byKind = (kind) => target.children.filter((c) => c.kind === kind).map((c) => c.name);
    assert.deepEqual(byKind(23), ['DRAM', 'SPAD', 'ACC']);
    assert.deepEqual(byKind(5), ['dma', 'array']);
    assert.deepEqual(byKind(6), ['mvin', 'mvin_acc', 'mvout', 'mma']);
    const mma = target.children.find((c) => c.name === 'mma');
    assert.ok(textOf(miniTarget, mma.range).startsWith('instr mma('));
  });
});

test('workspace symbols across the open documents (and the workspace, here the repository)', async () => {
  await withServer(async (server) => {
    await server.open(gemmUri, gemm);
    const mini = 'untitled:mini-symbols.isam';
    await server.open(mini, miniTarget);
    const small = await server.request('workspace/symbol', { query: 'gemm_sm' });
    assert.ok(small.length >= 1);
    // A subsequence, anywhere in the name (the repository's bgemm_small matches too).
    for (const s of small)
      assert.match(s.name, /g.*e.*m.*m.*_.*s.*m/i);
    const gs = small.find((s) => s.name === 'gemm_small');
    assert.equal(gs.kind, 14);
    assert.equal(gs.location.uri, gemmUri);
    assert.equal(textOf(gemm, gs.location.range), 'gemm_small');

    const spad = await server.request('workspace/symbol', { query: 'SPAD' });
    const memory = spad.find((s) => s.name === 'SPAD');
    assert.equal(memory.kind, 23);
    assert.equal(memory.containerName, 'mini');
    assert.equal(memory.location.uri, mini);

    const all = await server.request('workspace/symbol', { query: '' });
    for (const name of ['gemm', 'gemm_tn', 'mini', 'mma', 'gemm_bf16_small'])
      assert.ok(all.some((s) => s.name === name), name);
    // Listed once each, though two documents' analyses know them.
    const keys = all.map((s) => `${s.location.uri}:${s.location.range.start.line}:${s.location.range.start.character}`);
    assert.equal(new Set(keys).size, keys.length);
    assert.deepEqual(await server.request('workspace/symbol', { query: 'zzqqx' }), []);
  });
});
