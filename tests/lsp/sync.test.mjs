// Text synchronisation and diagnostics: full and incremental changes (several in one
// notification, non-ASCII text counted in UTF-16 code units), versions, diagnostics that follow
// the text and its version, mapping diagnostics, and didClose.
import test from 'node:test';
import assert from 'node:assert/strict';
import { WorkDoneProgress } from 'vscode-languageserver-protocol/node.js';
import {
  withServer, positionOf, positionAt, applyChanges, decodeTokens, textOf, sleep,
} from './client.mjs';

const SeverityError = 1, SeverityInformation = 3;

const base = `// sync test
kernel vadd<N>(X: f32[N], W: f32[N]) -> (Y: f32[N]) {
  Y[i] = X[i] /*𝛼*/ + W[i];
}
instance v = vadd<64>;
`;

const errors = (p) => p.diagnostics.filter((d) => d.severity === SeverityError);

test('full changes with versions that jump (1, 7, 42): diagnostics carry each version', async () => {
  await withServer(async (server) => {
    const uri = 'untitled:sync-full.isam';
    await server.open(uri, base, 1);
    const first = await server.settled(uri, (p) => p.version === 1);
    assert.deepEqual(first.diagnostics, []);

    const broken = base + 'kernel bad( {\n';
    const seven = server.diagnostics(uri, (p) => p.version === 7);
    await server.change(uri, 7, [{ text: broken }]);
    const d7 = await seven;
    assert.equal(errors(d7).length, 1, JSON.stringify(d7));
    const e = errors(d7)[0];
    assert.equal(e.code, 'E0101');
    assert.equal(e.source, 'isamap');
    assert.match(e.message, /unexpected '\{'/);
    const brace = positionOf(broken, 'bad( {', { delta: 5 });
    assert.deepEqual(e.range, { start: brace, end: { line: brace.line, character: brace.character + 1 } });

    const fixed = server.diagnostics(uri, (p) => p.version === 42);
    await server.change(uri, 42, [{ text: base }]);
    assert.deepEqual((await fixed).diagnostics, []);
    const last = await server.settled(uri, () => true);
    assert.equal(last.version, 42);
    for (const p of server.publishedFor(uri))
      assert.ok([1, 7, 42].includes(p.version), `published for version ${p.version}`);
  });
});

test('a syntax error after non-ASCII text is placed in UTF-16 code units; fixing it clears it', async () => {
  await withServer(async (server) => {
    const uri = 'untitled:sync-utf16.isam';
    const line = '/* é → 𝛼 */ kernel bad( {';
    const text = base + line + '\n';
    const diags = server.diagnostics(uri, (p) => p.version === 1);
    await server.open(uri, text, 1);
    const d = await diags;
    assert.equal(errors(d).length, 1, JSON.stringify(d));
    const e = errors(d)[0];
    assert.equal(e.code, 'E0101');
    // The column counts 𝛼 as two units (UTF-16), not one (code points) or four (bytes).
    const column = line.indexOf('{');
    assert.equal(column, 25);
    assert.deepEqual(e.range.start, { line: 5, character: column });
    assert.deepEqual(e.range.end, { line: 5, character: column + 1 });

    // Fix it by deleting `bad( {` with a range that starts right after the astral character.
    const afterAlpha = line.indexOf('𝛼') + 2;
    const change = {
      range: { start: { line: 5, character: afterAlpha }, end: { line: 5, character: line.length } },
      text: ' */',
    };
    const fixedText = applyChanges(text, [change]);
    assert.ok(fixedText.includes('/* é → 𝛼 */\n'));
    const cleared = server.diagnostics(uri, (p) => p.version === 2);
    await server.change(uri, 2, [change]);
    assert.deepEqual(errors(await cleared), []);
  });
});

test('several incremental edits in one notification, with astral-plane text, give the text a fresh open gives', async () => {
  await withServer(async (server) => {
    const { legend } = server.initializeResult.capabilities.semanticTokensProvider;
    const uri = 'untitled:sync-incremental.isam';
    await server.open(uri, base, 1);
    await server.settled(uri, (p) => p.version === 1);

    // Each change's range refers to the text the previous ones left.
    const changes = [];
    let text = base;
    const push = (change) => {
      changes.push(change);
      text = applyChanges(text, [change]);
    };
    // 1. A new first line with non-ASCII text.
    push({ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, text: '// é → 𝛼\n' });
    // 2. Right after the 𝛼 in the statement's comment (now on line 3): two units into it.
    const alpha = positionOf(text, '𝛼*/', { delta: 2 });
    push({ range: { start: alpha, end: alpha }, text: 'é' });
    // 3. Replace `W[i]` after the comment with a product.
    const w = positionOf(text, 'W[i];');
    push({ range: { start: w, end: { line: w.line, character: w.character + 4 } }, text: 'W[i] * X[i]' });
    // 4. A deletion spanning lines: the first comment line's tail and the line break.
    const tail = positionOf(text, ' sync test');
    push({ range: { start: tail, end: { line: tail.line + 1, character: 0 } }, text: ' synced\n' });
    assert.ok(text.includes('Y[i] = X[i] /*𝛼é*/ + W[i] * X[i];'), text);

    const v2 = server.diagnostics(uri, (p) => p.version === 2);
    await server.change(uri, 2, changes);
    assert.deepEqual(errors(await v2), [], 'the edited text has no errors');

    // The statement's text, as the outline shows it, is the one computed here.
    const symbols = await server.request('textDocument/documentSymbol', { textDocument: { uri } });
    const kernel = symbols.find((s) => s.name === 'vadd');
    const statement = kernel.children.find((c) => c.name.startsWith('s0: '));
    assert.equal(statement.name, 's0: Y[i] = X[i] /*𝛼é*/ + W[i] * X[i];');
    assert.equal(textOf(text, statement.range), 'Y[i] = X[i] /*𝛼é*/ + W[i] * X[i];');

    // Positions after the astral character: the hover on W and the comment's token.
    const wAt = positionOf(text, 'W[i] * X');
    const hover = await server.request('textDocument/hover', { textDocument: { uri }, position: wAt });
    assert.deepEqual(hover.range.start, wAt);
    assert.match(hover.contents.value, /tensor W: f32\[N\]/);
    const full = await server.request('textDocument/semanticTokens/full', { textDocument: { uri } });
    const tokens = decodeTokens(full.data, legend, text);
    const comment = tokens.find((t) => t.type === 'comment' && t.text.startsWith('/*'));
    assert.equal(comment.text, '/*𝛼é*/');
    assert.equal(comment.length, 7, 'UTF-16 units');

    // Everything matches the same text opened fresh.
    const fresh = 'untitled:sync-fresh.isam';
    await server.open(fresh, text, 1);
    const again = await server.request('textDocument/semanticTokens/full', { textDocument: { uri: fresh } });
    assert.deepEqual(again.data, full.data);
    const freshSymbols = await server.request('textDocument/documentSymbol', { textDocument: { uri: fresh } });
    assert.deepEqual(freshSymbols, symbols);
    const folds = await server.request('textDocument/foldingRange', { textDocument: { uri } });
    assert.deepEqual(await server.request('textDocument/foldingRange', { textDocument: { uri: fresh } }), folds);
  });
});

test('rapid edits: diagnostics only for versions sent, never going back, and the last for the last version', async () => {
  await withServer(async (server) => {
    const uri = 'untitled:sync-rapid.isam';
    let text = base + '// end\n';
    await server.open(uri, text, 1);
    await server.settled(uri, (p) => p.version === 1);
    const lastLine = 5;
    // Odd versions after the first end in a syntax error whose column depends on the version;
    // the others have none.
    const lineFor = (v) => (v % 2 ? `${' '.repeat(v % 10)}kernel bad( {` : `// ok ${v}`);
    const errorColumn = (v) => (v % 10) + 'kernel bad( '.length;
    const sent = [1];
    for (let v = 2; v <= 41; ++v) {
      const old = text.split('\n')[lastLine];
      const change = { range: { start: { line: lastLine, character: 0 }, end: { line: lastLine, character: old.length } }, text: lineFor(v) };
      text = applyChanges(text, [change]);
      sent.push(v);
      await server.change(uri, v, [change]);
    }
    const last = await server.settled(uri, (p) => p.version === 41);
    assert.equal(errors(last).length, 1);
    assert.deepEqual(errors(last)[0].range.start, { line: lastLine, character: errorColumn(41) });

    let previous = 0;
    for (const p of server.publishedFor(uri)) {
      assert.ok(sent.includes(p.version), `published for version ${p.version}, which was never sent`);
      assert.ok(p.version >= previous, `version ${p.version} published after ${previous}`);
      previous = p.version;
      // The diagnostics are those of that version's text.
      const e = errors(p);
      if (p.version > 1 && p.version % 2) {
        assert.equal(e.length, 1, `version ${p.version}: ${JSON.stringify(p.diagnostics)}`);
        assert.deepEqual(e[0].range.start, { line: lastLine, character: errorColumn(p.version) });
      } else {
        assert.deepEqual(e, [], `version ${p.version}`);
      }
    }
    assert.equal(server.publishedFor(uri).at(-1).version, 41);
  });
});

test('mapping diagnostics: an I0301 information for the statement no instruction of the target runs', async () => {
  await withServer(async (server) => {
    const uri = 'untitled:sync-mapping.isam';
    const text = `kernel act<N>(X: f32[N]) -> (Y: f32[N], Z: f32[N]) {
  Y[i] = exp(X[i]);
  Z[i] = X[i] + X[i];
}
instance a = act<100>;
`;
    await server.open(uri, text, 1);
    const d = await server.diagnostics(uri, (p) => p.diagnostics.some((x) => x.code === 'I0301'));
    assert.equal(d.version, 1);
    assert.equal(d.diagnostics.length, 1, JSON.stringify(d.diagnostics));
    const info = d.diagnostics[0];
    assert.equal(info.severity, SeverityInformation);
    assert.match(info.message, /^no instruction of x86_avx512 runs this statement; it will run as scalar code/);
    assert.match(info.message, /fma16: .*no part of `exp\(X\[i\]\)` has that form/);
    assert.equal(textOf(text, info.range), 'Y[i] = exp(X[i]);');

    // Without an instance nothing is mapped, so there is nothing to say.
    const noInstance = text.replace(/instance.*\n/, '');
    const v2 = server.diagnostics(uri, (p) => p.version === 2);
    await server.change(uri, 2, [{ text: noInstance }]);
    await v2;
    const settled = await server.settled(uri, (p) => p.version === 2);
    assert.deepEqual(settled.diagnostics, []);
  });
});

test('didClose publishes empty diagnostics, and nothing follows for the closed document', async () => {
  await withServer(async (server) => {
    const uri = 'untitled:sync-close.isam';
    const text = base + 'kernel bad( {\n';
    await server.open(uri, text, 3);
    const d = await server.diagnostics(uri, (p) => p.version === 3);
    assert.equal(errors(d).length, 1);
    const cleared = server.diagnostics(uri, (p) => p.diagnostics.length === 0);
    await server.close(uri);
    const c = await cleared;
    assert.equal(c.version, undefined);
    const count = server.publishedFor(uri).length;
    await sleep(700);
    assert.equal(server.publishedFor(uri).length, count, 'diagnostics came after didClose');
    // The document is gone: requests on it are refused.
    const e = await server.requestError('textDocument/hover', { textDocument: { uri }, position: positionAt(text, 10) });
    assert.equal(e.code, -32602);
  });
});

test('a large document\'s analysis shows work-done progress to a client that can show it', async () => {
  const kernels = (n) => Array.from({ length: n }, (_, i) =>
    `kernel k${i}<N>(X: f32[N]) -> (Y: f32[N]) {\n  Y[i] = X[i] * 2.0;\n}\ninstance k${i}_small = k${i}<${16 + i}>;\n`).join('');
  for (const canShow of [true, false]) {
    await withServer({ initialize: false }, async (server) => {
      const created = [];
      const values = [];
      server.connection.onRequest('window/workDoneProgress/create', (params) => {
        // The workspace index (isamap/index/...) reports progress of its own.
        if (!String(params.token).startsWith('isamap/analysis/'))
          return null;
        created.push(params.token);
        server.connection.onProgress(WorkDoneProgress.type, params.token, (v) => values.push(v));
        return null;
      });
      await server.initialize(undefined, { capabilities: { window: { workDoneProgress: canShow } } });
      // 25 kernels: over the threshold (20); 3: under it.
      await server.open('untitled:large.isam', kernels(25), 1);
      await server.open('untitled:small.isam', kernels(3), 1);
      await server.settled('untitled:large.isam');
      await server.settled('untitled:small.isam');
      if (!canShow) {
        assert.deepEqual(created, []);
        return;
      }
      assert.equal(created.length, 1, JSON.stringify(created));
      const kinds = values.map((v) => v.kind);
      assert.equal(kinds[0], 'begin');
      assert.equal(kinds.at(-1), 'end');
      // Reports come only once the client has answered the creation; quick work may end first.
      assert.ok(kinds.slice(1, -1).every((k) => k === 'report'), JSON.stringify(kinds));
      assert.equal(values[0].title, 'Mapping large.isam');
      const percentages = values.filter((v) => v.kind === 'report').map((v) => v.percentage);
      assert.deepEqual(percentages, [...percentages].sort((x, y) => x - y));
    });
  }
});

test('pull diagnostics: a client that pulls gets them answered, none pushed, and is asked to pull again when they change', async () => {
  await withServer({ initialize: false }, async (server) => {
    let refreshes = 0;
    server.connection.onRequest('workspace/diagnostic/refresh', () => { ++refreshes; return null; });
    const init = await server.initialize(undefined, {
      capabilities: {
        textDocument: { diagnostic: { dynamicRegistration: false } },
        workspace: { diagnostics: { refreshSupport: true } },
      },
    });
    assert.deepEqual(init.capabilities.diagnosticProvider,
      { identifier: 'isamap', interFileDependencies: true, workspaceDiagnostics: false });
    const uri = 'untitled:pull.isam';
    const text = `kernel act<N>(X: f32[N]) -> (Y: f32[N], Z: f32[N]) {
  Y[i] = exp(X[i]);
  Z[i] = X[i] + X[i];
}
instance a = act<100>;
`;
    await server.open(uri, text, 1);
    const pull = (previousResultId) => server.request('textDocument/diagnostic', {
      textDocument: { uri }, ...(previousResultId ? { previousResultId } : {}),
    });
    // The mapping information comes once the analysis thread has mapped; a pull before that has
    // the rest, and a refresh follows.
    let first = await pull();
    assert.equal(first.kind, 'full');
    const complete = first.items.some((d) => d.code === 'I0301');
    for (let i = 0; i < 200 && !first.items.some((d) => d.code === 'I0301'); ++i) {
      await sleep(50);
      if (refreshes > 0 || i > 100)
        first = await pull();
    }
    assert.deepEqual(first.items.map((d) => d.code), ['I0301']);
    assert.ok(complete || refreshes > 0, 'the first pull lacked the mapping information, and no refresh came');
    const again = await pull(first.resultId);
    assert.deepEqual(again, { kind: 'unchanged', resultId: first.resultId });

    // An edit: the next pull is about the new text at once, whatever the debounce.
    const broken = text.replace('X[i] + X[i]', 'X[i] + ');
    server.change(uri, 2, [{ text: broken }]);
    const after = await pull(first.resultId);
    assert.equal(after.kind, 'full');
    assert.ok(after.items.some((d) => d.severity === SeverityError), JSON.stringify(after.items));
    await sleep(700);
    assert.deepEqual(server.publishedFor(uri), [], 'diagnostics were pushed to a client that pulls');
    // A document that is not open is refused.
    const e = await server.requestError('textDocument/diagnostic', { textDocument: { uri: 'untitled:nope.isam' } });
    assert.equal(e.code, -32602);
  });
});

test('a client that does not pull is not offered pull diagnostics, and gets them pushed', async () => {
  await withServer({ initialize: false }, async (server) => {
    const init = await server.initialize(undefined, { capabilities: {} });
    assert.equal(init.capabilities.diagnosticProvider, undefined);
    await server.open('untitled:push.isam', 'kernel k<N>(X: f32[N]) -> (Y: f32[N]) { Y[i] = X[i] + ; }\n', 1);
    const d = await server.diagnostics('untitled:push.isam');
    assert.ok(d.diagnostics.some((x) => x.severity === SeverityError));
  });
});
