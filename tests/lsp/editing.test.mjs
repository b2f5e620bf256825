// What helps write a file: completion, signature help, semantic tokens (full and delta),
// formatting, folding ranges, inlay hints, code lenses and code actions (quick fixes from
// diagnostics' fix-its, and "Pin this schedule").
import test from 'node:test';
import assert from 'node:assert/strict';
import {
  withServer, sampleUri, sampleText, positionOf, positionAt, textOf, applyTextEdits,
  decodeTokens, applyTokenEdits,
} from './client.mjs';
import { miniTarget } from './fixtures.mjs';

const gemmUri = sampleUri('gemm.isam');
const gemm = sampleText('gemm.isam');
const statement = 'C[m, n] += A[m, k] * B[k, n];';
const SeverityError = 1;
const errors = (p) => p.diagnostics.filter((d) => d.severity === SeverityError);

const kernelWithPin = (items) => `kernel gemm<M, N, K>(A: f32[M, K], B: f32[K, N]) -> (C: f32[M, N]) {
  C[m, n] += A[m, k] * B[k, n];
  schedule { ${items} }
}
instance g = gemm<64, 64, 64>;
`;

async function completionLabels(server, uri, position) {
  const result = await server.request('textDocument/completion', { textDocument: { uri }, position });
  assert.equal(result.isIncomplete, false);
  return new Map(result.items.map((i) => [i.label, i]));
}

test('completion: names in scope in a kernel, schedule items with the target\'s memories and instructions, keywords at top level', async () => {
  await withServer(async (server) => {
    await server.open(gemmUri, gemm);
    const inKernel = await completionLabels(server, gemmUri, positionOf(gemm, statement, { delta: statement.indexOf('A[') }));
    for (const [label, kind] of [['A', 6], ['B', 6], ['C', 6], ['M', 21], ['K', 21], ['exp', 3], ['relu', 3], ['f32', 25], ['where', 14], ['local', 14]])
      assert.equal(inKernel.get(label)?.kind, kind, label);
    assert.equal(inKernel.get('A').detail, 'f32[M, K]');
    for (const label of ['kernel', 'instance', 'import', 'map', 'fma16', 'gemm_small'])
      assert.ok(!inKernel.has(label), label);

    const top = await completionLabels(server, gemmUri, positionOf(gemm, '\ninstance gemm_small', { delta: 1 }));
    for (const label of ['import', 'kernel', 'instance', 'target', 'system'])
      assert.equal(top.get(label)?.kind, 14, label);
    for (const label of ['gemm', 'gemm_tn', 'gemm_nt', 'gemm_bf16'])
      assert.equal(top.get(label)?.kind, 3, label);
    assert.ok(!top.has('A') && !top.has('exp'));

    const uri = 'untitled:complete-schedule.isam';
    const text = kernelWithPin('map fma16; ');
    await server.open(uri, text);
    const inBlock = await completionLabels(server, uri, positionOf(text, 'map fma16; ', { delta: 11 }));
    for (const key of ['map', 'tile', 'order', 'parallel'])
      assert.equal(inBlock.get(key)?.kind, 14, key);
    for (const memory of ['DRAM', 'L3', 'L2', 'L1', 'ZMM']) {
      assert.equal(inBlock.get(memory)?.kind, 22, memory);
      assert.equal(inBlock.get(memory).detail, 'memory of x86_avx512');
    }
    for (const instruction of ['fma16', 'fma16_mem', 'add16'])
      assert.equal(inBlock.get(instruction)?.detail, 'instruction of x86_avx512', instruction);
    assert.equal(inBlock.get('load16')?.detail, 'move of x86_avx512');
    // The pinned statement's indices, which tiles and orders name.
    for (const index of ['m', 'n', 'k'])
      assert.ok(inBlock.has(index), index);
    assert.ok(!inBlock.has('exp') && !inBlock.has('kernel'));

    const hw = 'untitled:complete-target.isam';
    await server.open(hw, miniTarget);
    const inTarget = await completionLabels(server, hw, positionOf(miniTarget, '  unit dma'));
    for (const label of ['memory', 'instr', 'move', 'cost', 'unit'])
      assert.equal(inTarget.get(label)?.kind, 14, label);
    for (const label of ['clock', 'bandwidth', 'latency'])
      assert.equal(inTarget.get(label)?.kind, 10, label);
    for (const label of ['DRAM', 'SPAD', 'ACC'])
      assert.ok(inTarget.has(label), label);
  });
});

test('signature help: the size parameters of an instance\'s kernel and the arguments of functions', async () => {
  await withServer(async (server) => {
    const uri = 'untitled:signature.isam';
    const text = `kernel gemm<M, N, K>(A: f32[M, K], B: f32[K, N]) -> (C: f32[M, N]) {
  C[m, n] += max(A[m, k], B[k, n]);
}
instance x = gemm<7, `;
    await server.open(uri, text);
    const at = async (position) => server.request('textDocument/signatureHelp', { textDocument: { uri }, position });
    const sizes = await at(positionAt(text, text.length));
    assert.equal(sizes.activeSignature, 0);
    assert.equal(sizes.activeParameter, 1);
    const [signature] = sizes.signatures;
    assert.equal(signature.label, 'gemm<M, N, K>');
    assert.deepEqual(signature.parameters.map((p) => signature.label.slice(...p.label)), ['M', 'N', 'K']);
    const first = await at(positionOf(text, 'gemm<7', { delta: 5 }));
    assert.equal(first.activeParameter, 0);

    const max = await at(positionOf(text, 'B[k, n]);'));
    assert.equal(max.signatures[0].label, 'max(x, y)');
    assert.equal(max.activeParameter, 1);
    const maxFirst = await at(positionOf(text, 'A[m, k], B'));
    assert.equal(maxFirst.activeParameter, 0, 'the comma inside A[m, k] is not max\'s');
    // Outside any call: nothing.
    assert.equal(await at(positionOf(text, 'C[m, n]')), null);
  });
});

test('semantic tokens: classes decoded with the legend, and a delta that reproduces a fresh full result', async () => {
  await withServer(async (server) => {
    const { legend } = server.initializeResult.capabilities.semanticTokensProvider;
    const uri = 'untitled:tokens.isam';
    const text = `// a comment
kernel vadd<N>(X: f32[N], W: f32[N]) -> (Y: f32[N]) {
  Y[i] = X[i] + exp(W[i]);   /* block */
}
instance v = vadd<64>;
`;
    await server.open(uri, text, 1);
    const full = await server.request('textDocument/semanticTokens/full', { textDocument: { uri } });
    assert.equal(typeof full.resultId, 'string');
    assert.equal(full.data.length % 5, 0);
    const tokens = decodeTokens(full.data, legend, text);
    const find = (tokenText, nth = 0) => tokens.filter((t) => t.text === tokenText)[nth];
    assert.deepEqual([find('// a comment').type, find('/* block */').type], ['comment', 'comment']);
    assert.equal(find('kernel').type, 'keyword');
    assert.equal(find('instance').type, 'keyword');
    assert.deepEqual([find('vadd').type, find('vadd').modifiers], ['function', ['declaration']]);
    assert.equal(find('vadd', 1).type, 'function');
    assert.deepEqual([find('X').type, find('X').modifiers], ['variable', ['declaration', 'readonly']]);
    assert.deepEqual([find('Y').type, find('Y').modifiers], ['variable', ['declaration', 'modification']]);
    assert.deepEqual([find('Y', 1).type, find('Y', 1).modifiers], ['variable', ['modification']]);
    assert.deepEqual([find('f32').type, find('f32').modifiers], ['type', ['defaultLibrary']]);
    assert.deepEqual([find('exp').type, find('exp').modifiers], ['function', ['defaultLibrary']]);
    assert.equal(find('N').type, 'typeParameter');
    assert.equal(find('i').type, 'parameter');
    assert.equal(find('64').type, 'number');
    assert.equal(find('+').type, 'operator');
    assert.equal(find('v').type, 'variable');
    // A range: the full result's tokens on lines 2 and 3, no result id.
    const part = await server.request('textDocument/semanticTokens/range',
      { textDocument: { uri }, range: { start: { line: 2, character: 0 }, end: { line: 4, character: 0 } } });
    assert.equal(part.resultId, undefined);
    assert.deepEqual(decodeTokens(part.data, legend, text), tokens.filter((t) => t.line === 2 || t.line === 3));
    // The same in samples/gemm.isam.
    await server.open(gemmUri, gemm);
    const sample = decodeTokens((await server.request('textDocument/semanticTokens/full', { textDocument: { uri: gemmUri } })).data, legend, gemm);
    const at = (needle, delta = 0) => {
      const p = positionOf(gemm, needle, { delta });
      return sample.find((t) => t.line === p.line && t.character === p.character);
    };
    assert.equal(at('kernel gemm<').type, 'keyword');
    assert.equal(at('A: f32[M, K]').type, 'variable');
    assert.equal(at('A[m, k] * B[k, n];').type, 'variable');
    assert.equal(at('A: f32[M, K]', 3).type, 'type');
    assert.equal(at('// GEMM in the three').type, 'comment');
    assert.equal(at('// GEMM in the three').length, gemm.split('\n')[0].length);
    assert.equal(at('1760, 16, 1760>').type, 'number');
    // Tokens are in order, do not overlap, and stay on their line.
    for (let t = 1; t < tokens.length; ++t) {
      const [a, b] = [tokens[t - 1], tokens[t]];
      assert.ok(b.line > a.line || b.character >= a.character + a.length, JSON.stringify([a, b]));
    }

    // An edit, then a delta against the first result: applied, it is the fresh full result.
    const edited = text.replace('X[i] + exp(W[i])', 'X[i] * W[i] + exp(W[i])');
    await server.change(uri, 2, [{ text: edited }]);
    const delta = await server.request('textDocument/semanticTokens/full/delta', { textDocument: { uri }, previousResultId: full.resultId });
    assert.ok(Array.isArray(delta.edits), JSON.stringify(delta).slice(0, 200));
    assert.ok(delta.edits.length > 0);
    assert.notEqual(delta.resultId, full.resultId);
    const patched = applyTokenEdits(full.data, delta.edits);
    const fresh = await server.request('textDocument/semanticTokens/full', { textDocument: { uri } });
    assert.deepEqual(patched, fresh.data);
    assert.ok(decodeTokens(patched, legend, edited).some((t) => t.text === '*' && t.type === 'operator'));

    // No change: an empty delta. An unknown previous result: the full data instead.
    const same = await server.request('textDocument/semanticTokens/full/delta', { textDocument: { uri }, previousResultId: fresh.resultId });
    assert.deepEqual(same.edits, []);
    const unknown = await server.request('textDocument/semanticTokens/full/delta', { textDocument: { uri }, previousResultId: 'no-such-result' });
    assert.deepEqual(unknown.data, fresh.data);
  });
});

test('formatting: a messy kernel comes back formatted, a formatted sample gives no edits', async () => {
  await withServer(async (server) => {
    const uri = 'untitled:messy.isam';
    const messy = `kernel   k<N>( A :f32[N] )->( B: f32[ N ] ){
B[i]=A[i]   ;
    schedule {   parallel : i ; }
}
instance   x=k< 4 >;`;
    await server.open(uri, messy);
    const options = { tabSize: 2, insertSpaces: true };
    const edits = await server.request('textDocument/formatting', { textDocument: { uri }, options });
    assert.equal(edits.length, 1);
    const formatted = applyTextEdits(messy, edits);
    assert.equal(formatted, `kernel k<N>(A: f32[N]) -> (B: f32[N]) {
  B[i] = A[i];
  schedule { parallel: i; }
}
instance x = k<4>;
`);
    // Formatting is idempotent.
    await server.change(uri, 2, [{ text: formatted }]);
    assert.deepEqual(await server.request('textDocument/formatting', { textDocument: { uri }, options }), []);
    // The editor's indentation is honoured.
    await server.change(uri, 3, [{ text: messy }]);
    const wide = applyTextEdits(messy, await server.request('textDocument/formatting', { textDocument: { uri }, options: { tabSize: 4, insertSpaces: true } }));
    assert.match(wide, /\n {4}B\[i\] = A\[i\];\n/);

    for (const sample of ['gemm.isam', 'mlp.isam', 'conv2d.isam']) {
      const sampleUriOf = sampleUri(sample);
      await server.open(sampleUriOf, sampleText(sample));
      assert.deepEqual(await server.request('textDocument/formatting', { textDocument: { uri: sampleUriOf }, options }), [], sample);
    }

    // The formatter works on tokens: a file that does not parse is formatted too, its tokens
    // unchanged.
    const broken = 'untitled:broken-format.isam';
    await server.open(broken, 'kernel   k( {\n  B[i]=\n');
    const brokenEdits = await server.request('textDocument/formatting', { textDocument: { uri: broken }, options });
    assert.equal(applyTextEdits('kernel   k( {\n  B[i]=\n', brokenEdits), 'kernel k({\n  B[i] =\n');
  });
});

test('folding ranges: blocks keep their closing line visible; runs of comments fold', async () => {
  await withServer(async (server) => {
    await server.open(gemmUri, gemm);
    const folds = await server.request('textDocument/foldingRange', { textDocument: { uri: gemmUri } });
    const kernelLine = positionOf(gemm, 'kernel gemm<').line;
    assert.ok(folds.some((f) => f.startLine === kernelLine && f.endLine === kernelLine + 1 && !f.kind), JSON.stringify(folds));
    assert.ok(folds.some((f) => f.startLine === 0 && f.endLine === 4 && f.kind === 'comment'), 'the header comment');
    for (const f of folds)
      assert.ok(f.endLine > f.startLine);

    const uri = 'untitled:fold-target.isam';
    await server.open(uri, miniTarget);
    const targetFolds = await server.request('textDocument/foldingRange', { textDocument: { uri } });
    const lines = miniTarget.split('\n');
    const target = positionOf(miniTarget, 'target mini').line;
    assert.ok(targetFolds.some((f) => f.startLine === target && f.endLine === lines.length - 3));
    const mma = positionOf(miniTarget, 'instr mma').line;
    assert.ok(targetFolds.some((f) => f.startLine === mma && lines[f.endLine + 1].includes('} cost')), JSON.stringify(targetFolds));
  });
});

test('inlay hints: each statement\'s index ranges in the instance, and inferred shapes of implicit locals', async () => {
  await withServer(async (server) => {
    await server.open(gemmUri, gemm);
    const all = await server.request('textDocument/inlayHint', {
      textDocument: { uri: gemmUri }, range: { start: { line: 0, character: 0 }, end: positionAt(gemm, gemm.length) },
    });
    assert.equal(all.length, 4);
    const first = all[0];
    assert.equal(first.label, 'gemm_1760x16x1760: m < 1760 n < 16 k Σ < 1760');
    assert.deepEqual(first.position, positionOf(gemm, statement, { delta: statement.length }));
    assert.equal(first.paddingLeft, true);
    // Only the statements in the range.
    const tnLine = positionOf(gemm, 'C[m, n] += A[k, m] * B[k, n];').line;
    const some = await server.request('textDocument/inlayHint', {
      textDocument: { uri: gemmUri }, range: { start: { line: tnLine, character: 0 }, end: { line: tnLine + 1, character: 0 } },
    });
    assert.deepEqual(some.map((h) => h.label), ['gemm_tn_2560x64x2560: m < 2560 n < 64 k Σ < 2560']);

    const dwsepUri = sampleUri('dwsep.isam');
    const dwsep = sampleText('dwsep.isam');
    await server.open(dwsepUri, dwsep);
    const hints = await server.request('textDocument/inlayHint', {
      textDocument: { uri: dwsepUri }, range: { start: { line: 0, character: 0 }, end: positionAt(dwsep, dwsep.length) },
    });
    const shape = hints.find((h) => h.kind === 1);
    assert.equal(shape.label, ': f32[32, 112, 112]');
    assert.deepEqual(shape.position, positionOf(dwsep, 'T[c, h, w] +=', { delta: 1 }));
  });
});

test('code lenses: how each statement of samples/gemm.isam maps, and why a kernel has none', async () => {
  await withServer(async (server) => {
    await server.open(gemmUri, gemm);
    const lenses = await server.lenses(gemmUri);
    const statements = gemm.split('\n').filter((l) => /^\s+C\[m, n\] \+=/.test(l)).length;
    assert.equal(statements, 4);
    assert.equal(lenses.length, 2 * statements);
    const titles = lenses.filter((l) => l.command.command === 'isamap.showMappings');
    assert.equal(titles.length, statements);
    for (const l of titles) {
      assert.match(l.command.title, /^(maps to \w+ × [\d,]+|scalar code \(no instruction runs it\)) \| est\. \d{1,3}% of peak$/);
      assert.equal(l.command.arguments[0], gemmUri);
      assert.deepEqual(l.command.arguments[1], l.range.start);
      assert.match(textOf(gemm, l.range), /^C\[m, n\] \+= .*;$/);
    }
    assert.match(titles[0].command.title, /^maps to fma16/);
    // The bf16 GEMM converts its operands in its packs and runs on the FMA too.
    assert.match(titles[3].command.title, /^maps to fma16/, 'the bf16 conversions are packed');
    assert.equal(lenses.filter((l) => l.command.command === 'isamap.showSchedule').length, statements);

    const uri = 'untitled:no-instance.isam';
    await server.open(uri, 'kernel k<N>(A: f32[N]) -> (B: f32[N]) {\n  B[i] = A[i];\n}\n');
    const why = await server.lenses(uri);
    assert.equal(why.length, 1);
    assert.match(why[0].command.title, /declare an instance of 'k'/);
  });
});

test('code lenses: those not known from before are sent unresolved and resolved on request', async () => {
  await withServer(async (server) => {
    const uri = 'untitled:many-lenses.isam';
    const text = Array.from({ length: 60 }, (_, i) =>
      `kernel k${i}<M, N, K>(A: f32[M, K], B: f32[K, N]) -> (C: f32[M, N]) {\n  C[m, n] += A[m, k] * B[k, n];\n}\n` +
      `instance k${i}_i = k${i}<${40 + i}, ${24 + i}, ${100 + i}>;\n`).join('');
    await server.open(uri, text, 1);
    const lenses = await server.request('textDocument/codeLens', { textDocument: { uri } });
    assert.equal(lenses.length, 120);
    const unresolved = lenses.filter((l) => !l.command);
    // Nothing is known of sixty new kernels: every lens comes unresolved, at once.
    assert.equal(unresolved.length, 120);
    for (const l of unresolved) {
      assert.equal(l.data.uri, uri);
      assert.equal(l.data.version, 1);
      assert.deepEqual(l.data.statement, l.range.start);
    }
    const resolved = await Promise.all(unresolved.map((l) => server.request('codeLens/resolve', l)));
    for (const [i, l] of resolved.entries()) {
      assert.deepEqual(l.range, unresolved[i].range);
      assert.match(l.command.title, unresolved[i].data.lens === 'schedule' ? /^show schedule$/ : /^maps to fma16\S* × [\d,]+ \| est\. \d+% of peak$/);
    }
    // Now known, all are sent whole.
    const again = await server.request('textDocument/codeLens', { textDocument: { uri } });
    assert.ok(again.every((l) => l.command), JSON.stringify(again.find((l) => !l.command)));
    // A lens of an older version is refused as ContentModified.
    server.change(uri, 2, [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, text: ' ' }]);
    const stale = await server.requestError('codeLens/resolve', unresolved[0]);
    assert.equal(stale.code, -32801);
  });
});

test('diagnostics: a schedule block\'s own problems are published with the first diagnostics, instance or not', async () => {
  await withServer(async (server) => {
    const uri = 'untitled:noinstance.isam';
    const text = 'kernel k<N>(A: f32[N]) -> (B: f32[N]) {\n  B[i] = A[i];\n  schedule { tyle L1: j 4; }\n}\n';
    await server.open(uri, text, 1);
    const first = await server.diagnostics(uri);
    assert.deepEqual(first.diagnostics.map((d) => d.code), ['E0704']);
    assert.equal(textOf(text, first.diagnostics[0].range), 'tyle L1: j 4;');
    assert.match(first.diagnostics[0].message, /did you mean 'tile'/);
    const fixedKey = text.replace('tyle', 'tile');
    const second = server.diagnostics(uri, (p) => p.version === 2);
    await server.change(uri, 2, [{ text: fixedKey }]);
    const d = await second;
    assert.deepEqual(d.diagnostics.map((x) => x.code), ['E0705']);
    assert.equal(textOf(fixedKey, d.diagnostics[0].range), 'j');
  });
});

test('code actions: a quick fix from a diagnostic\'s fix-it', async () => {
  await withServer(async (server) => {
    // A misspelt schedule item is an error of the schedule block (found by the full check).
    // `mpa` is two edits from `map`, too far for a suggestion for a word of three letters;
    // `mapp` is one.
    const misspelt = 'untitled:misspelt.isam';
    const mpa = kernelWithPin('mpa fma16;');
    await server.open(misspelt, mpa, 1);
    const unknown = await server.diagnostics(misspelt, (p) => p.diagnostics.some((x) => x.code === 'E0704'));
    assert.equal(textOf(mpa, unknown.diagnostics.find((x) => x.code === 'E0704').range), 'mpa fma16;');
    const schedule = await server.request('isamap/schedule', { textDocument: { uri: misspelt } });
    assert.match(schedule.message, /schedule pins cannot be met/);

    const uri = 'untitled:quickfix.isam';
    const text = kernelWithPin('mapp fma16;');
    await server.open(uri, text, 1);
    const d = await server.diagnostics(uri, (p) => p.diagnostics.some((x) => x.code === 'E0704'));
    const problem = d.diagnostics.find((x) => x.code === 'E0704');
    assert.equal(problem.severity, SeverityError);
    assert.equal(textOf(text, problem.range), 'mapp fma16;');
    assert.match(problem.message, /unknown schedule item/);

    const actions = await server.request('textDocument/codeAction', {
      textDocument: { uri }, range: problem.range, context: { diagnostics: [problem] },
    });
    const fix = actions.find((a) => a.kind === 'quickfix');
    assert.ok(fix, JSON.stringify(actions));
    assert.equal(fix.title, 'Change to \'map\'');
    assert.equal(fix.isPreferred, true);
    assert.equal(fix.diagnostics[0].code, 'E0704');
    const fixed = applyTextEdits(text, fix.edit.changes[uri]);
    assert.equal(fixed, kernelWithPin('map fma16;'));
    const v2 = server.diagnostics(uri, (p) => p.version === 2);
    await server.change(uri, 2, [{ text: fixed }]);
    await v2;
    assert.deepEqual(errors(await server.settled(uri, (p) => p.version === 2)), []);

    // Nowhere near a problem: no quick fix.
    const elsewhere = await server.request('textDocument/codeAction', {
      textDocument: { uri }, range: { start: { line: 4, character: 0 }, end: { line: 4, character: 1 } }, context: { diagnostics: [] },
    });
    assert.ok(!elsewhere.some((a) => a.kind === 'quickfix'));
  });
});

test('code actions: "Pin this schedule" writes the chosen schedule, which then stays chosen', async () => {
  await withServer(async (server) => {
    const uri = 'untitled:pin.isam';
    const text = `kernel gemm<M, N, K>(A: f32[M, K], B: f32[K, N]) -> (C: f32[M, N]) {
  C[m, n] += A[m, k] * B[k, n];
}
instance g = gemm<96, 80, 64>;
`;
    await server.open(uri, text, 1);
    await server.settled(uri, (p) => p.version === 1);
    const before = await server.request('isamap/schedule', { textDocument: { uri } });
    const at = positionOf(text, statement, { delta: 3 });
    const actions = await server.request('textDocument/codeAction', {
      textDocument: { uri }, range: { start: at, end: at }, context: { diagnostics: [] },
    });
    const pin = actions.find((a) => a.kind === 'refactor.rewrite');
    assert.equal(pin.title, 'Pin this schedule (x86_avx512, instance g)');
    const pinned = applyTextEdits(text, pin.edit.changes[uri]);
    assert.match(pinned, new RegExp(`\\n  schedule \\{\\n    map ${before.schedule.mapping};\\n`));
    assert.match(pinned, /\n {4}parallel: \w+;\n {2}\}\n\}\n/);

    const v2 = server.diagnostics(uri, (p) => p.version === 2);
    await server.change(uri, 2, [{ text: pinned }]);
    await v2;
    assert.deepEqual((await server.settled(uri, (p) => p.version === 2)).diagnostics, []);
    const after = await server.request('isamap/schedule', { textDocument: { uri } });
    for (const key of ['mapping', 'tiles', 'order', 'parallel'])
      assert.deepEqual(after.schedule.statements[0][key], before.schedule.statements[0][key], key);
    assert.equal(after.schedule.cycles, before.schedule.cycles);

    // Pinning again replaces the block with the same one.
    const again = await server.request('textDocument/codeAction', {
      textDocument: { uri }, range: { start: at, end: at }, context: { diagnostics: [] },
    });
    const repin = again.find((a) => a.kind === 'refactor.rewrite');
    assert.equal(applyTextEdits(pinned, repin.edit.changes[uri]), pinned);
  });
});

test('selection ranges: from the word under the cursor out to the document, each holding the last', async () => {
  await withServer(async (server) => {
    const uri = 'untitled:selection.isam';
    const text = 'kernel k<N>(X: f32[N]) -> (Y: f32[N]) {\n  Y[i] = exp(X[i]);\n}\n';
    await server.open(uri, text, 1);
    const [chain] = await server.request('textDocument/selectionRange',
      { textDocument: { uri }, positions: [positionOf(text, 'exp', { delta: 1 })] });
    const texts = [];
    for (let r = chain; r; r = r.parent)
      texts.push(textOf(text, r.range));
    assert.deepEqual(texts, ['exp', 'Y[i] = exp(X[i]);', text.trimEnd(), text]);
  });
});

test('range formatting: the formatter\'s changes to the lines of the range only', async () => {
  await withServer(async (server) => {
    const uri = 'untitled:range-format.isam';
    const text = 'kernel   a<N>( A :f32[N] )->( B: f32[ N ] ){\nB[i]=A[i]   ;\n}\nkernel   b<N>( A :f32[N] )->( B: f32[ N ] ){\nB[i]=A[i]   ;\n}\n';
    await server.open(uri, text, 1);
    const edits = await server.request('textDocument/rangeFormatting', {
      textDocument: { uri }, options: { tabSize: 2, insertSpaces: true },
      range: { start: { line: 4, character: 0 }, end: { line: 4, character: 5 } },
    });
    assert.equal(applyTextEdits(text, edits),
      'kernel   a<N>( A :f32[N] )->( B: f32[ N ] ){\nB[i]=A[i]   ;\n}\nkernel   b<N>( A :f32[N] )->( B: f32[ N ] ){\n  B[i] = A[i];\n}\n');
  });
});
