// Bad input: bytes no well-behaved client sends (written raw to the server's stdin), JSON-RPC
// messages that break the rules, parameters of the wrong types, and documents full of garbage.
// The server answers what it can with the right error and keeps serving.
import test from 'node:test';
import assert from 'node:assert/strict';
import {
  startRaw, frame, withServer, tempDir, positionAt, textOf, decodeTokens, sleep,
} from './client.mjs';

const ParseError = -32700, InvalidRequest = -32600, MethodNotFound = -32601, InvalidParams = -32602;

async function withRaw(fn) {
  const raw = startRaw();
  try {
    await raw.initialize();
    await fn(raw);
    assert.ok(raw.alive, `the server ended: ${raw.stderr}`);
    // And it still shuts down cleanly.
    await raw.send({ jsonrpc: '2.0', id: 'bye', method: 'shutdown' });
    await raw.response('bye');
    await raw.send({ jsonrpc: '2.0', method: 'exit' });
    assert.equal((await raw.exited).code, 0);
  } finally {
    raw.kill();
  }
}

// A request anyone can answer, to see that the server is serving.
const ping = (id) => ({ jsonrpc: '2.0', id, method: 'workspace/symbol', params: { query: 'zz' } });
const errorsWithNullId = (raw) => raw.messages.filter((m) => m.id === null && m.error);

test('a header without a usable Content-Length is answered with -32700, and the next message read', async () => {
  await withRaw(async (raw) => {
    const bad = [
      'Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n',
      'Content-Length: twelve\r\n\r\n',
      'Content-Length: -4\r\n\r\n',
      'this is not a header\r\n\r\n',
      'Content-Length: 2\r\nContent-Length: 2\r\n\r\n{}',
    ];
    for (const [i, header] of bad.entries()) {
      const before = errorsWithNullId(raw).length;
      await raw.write(Buffer.from(header));
      await raw.send(ping(`after-${i}`));
      const r = await raw.response(`after-${i}`);
      assert.deepEqual(r.result, [], header);
      const errors = errorsWithNullId(raw).slice(before);
      assert.equal(errors.length, 1, header);
      assert.equal(errors[0].error.code, ParseError, header);
    }
    assert.ok(raw.messages.some((m) => m.method === 'window/logMessage' && /Content-Length/.test(m.params.message)));
  });
});

test('a Content-Length larger than the body: the next message is lost, and the server is back in step after it', async () => {
  await withRaw(async (raw) => {
    const body = Buffer.from(JSON.stringify(ping('too-long')));
    const wrong = Buffer.concat([Buffer.from(`Content-Length: ${body.length + 30}\r\n\r\n`), body]);
    // All at once, as a client's writes reach the server.
    await raw.write(Buffer.concat([wrong, frame(ping('swallowed')), frame(ping('next')), frame(ping('then'))]));
    assert.deepEqual((await raw.response('next')).result, []);
    assert.deepEqual((await raw.response('then')).result, []);
    // The one with the wrong length was not JSON once 30 more bytes were taken; what was left of
    // the swallowed one was no header.
    assert.ok(!raw.messages.some((m) => m.id === 'too-long' || m.id === 'swallowed'));
    const errors = errorsWithNullId(raw);
    assert.deepEqual(errors.map((m) => m.error.code), [ParseError, ParseError]);
    assert.match(errors[1].error.message, /Content-Length/);

    // Also when the next messages come later, one by one.
    await raw.write(Buffer.concat([Buffer.from(`Content-Length: ${body.length + 500}\r\n\r\n`), body]));
    for (const id of ['late-1', 'late-2', 'late-3', 'late-4', 'late-5', 'late-6']) {
      await sleep(20);
      await raw.send(ping(id));
    }
    assert.deepEqual((await raw.response('late-6')).result, []);
  });
});

test('a Content-Length smaller than the body costs only that message', async () => {
  await withRaw(async (raw) => {
    const body = Buffer.from(JSON.stringify(ping('too-short')));
    await raw.write(Buffer.concat([Buffer.from(`Content-Length: ${body.length - 6}\r\n\r\n`), body, frame(ping('next'))]));
    assert.deepEqual((await raw.response('next')).result, []);
    assert.ok(!raw.messages.some((m) => m.id === 'too-short'));
    assert.equal(errorsWithNullId(raw)[0].error.code, ParseError);
  });
});

test('a Content-Length 5 bytes short of a body that ends in a line break costs only that message', async () => {
  await withRaw(async (raw) => {
    // What is left of the body comes where a header should, ending in a line break: the header
    // part after it used to take it for a bad header line and skip the next message as its body.
    for (const ending of ['\r\n', '\n', '\r\n\r\n']) {
      const before = errorsWithNullId(raw).length;
      const body = Buffer.from(JSON.stringify(ping('short')) + ending);
      await raw.write(Buffer.concat([Buffer.from(`Content-Length: ${body.length - 5}\r\n\r\n`), body,
        frame(ping(`next${ending.length}`)), frame(ping(`then${ending.length}`))]));
      assert.deepEqual((await raw.response(`next${ending.length}`)).result, [], JSON.stringify(ending));
      assert.deepEqual((await raw.response(`then${ending.length}`)).result, [], JSON.stringify(ending));
      // One error for the cut body (not JSON), one for the bytes skipped before the next header.
      const errors = errorsWithNullId(raw).slice(before);
      assert.deepEqual(errors.map((m) => m.error.code), [ParseError, ParseError], JSON.stringify(errors));
      assert.match(errors[1].error.message, /not a message header/);
    }
    assert.ok(!raw.messages.some((m) => m.id === 'short'));
  });
});

test('a message nesting 200,000 arrays is answered with -32700 naming the limit; the server keeps serving', async () => {
  await withRaw(async (raw) => {
    const deep = '['.repeat(200000) + ']'.repeat(200000);
    const request = `{"jsonrpc": "2.0", "id": "deep", "method": "workspace/symbol", "params": {"query": "", "x": ${deep}}}`;
    await raw.write(frame(request));
    await raw.send(ping('after-deep'));
    assert.deepEqual((await raw.response('after-deep')).result, []);
    const [error] = errorsWithNullId(raw);
    assert.equal(error.error.code, ParseError);
    assert.match(error.error.message, /more than 256 levels deep/);
    // As a notification, in settings, and unbalanced: the same, and nothing else is affected.
    await raw.write(frame(`{"jsonrpc": "2.0", "method": "workspace/didChangeConfiguration", "params": {"settings": ${deep}}}`));
    await raw.write(frame('{"jsonrpc": "2.0", "id": "open", "method": "workspace/symbol", "params": ' + '{"a":'.repeat(100000)));
    await raw.send(ping('after-more'));
    assert.deepEqual((await raw.response('after-more')).result, []);
    assert.equal(errorsWithNullId(raw).length, 3);
    // Nesting up to the limit is served.
    const fine = '['.repeat(250) + ']'.repeat(250);
    await raw.send({ jsonrpc: '2.0', id: 'fine', method: 'workspace/symbol', params: { query: 'zz', x: JSON.parse(fine) } });
    assert.deepEqual((await raw.response('fine')).result, []);
  });
});

test('JSON-RPC errors: invalid JSON, batches and non-objects, no "jsonrpc", unknown methods', async () => {
  await withRaw(async (raw) => {
    const cases = [
      ['{"jsonrpc": "2.0", "id": 1, "method": ', null, ParseError],
      ['not json at all', null, ParseError],
      ['{"jsonrpc": "2.0", "id": 1, "method": "shutdown"} trailing', null, ParseError],
      ['[{"jsonrpc": "2.0", "id": 2, "method": "shutdown"}]', null, InvalidRequest],
      ['[]', null, InvalidRequest],
      ['42', null, InvalidRequest],
      ['"a string"', null, InvalidRequest],
      ['null', null, InvalidRequest],
      ['{"id": 3, "method": "workspace/symbol", "params": {"query": ""}}', 3, InvalidRequest],
      ['{"jsonrpc": "1.0", "id": 4, "method": "workspace/symbol", "params": {"query": ""}}', 4, InvalidRequest],
      ['{"jsonrpc": "2.0", "id": 5, "method": 17}', 5, InvalidRequest],
      ['{"jsonrpc": "2.0", "id": {"no": 1}, "method": "workspace/symbol"}', null, InvalidRequest],
      ['{"jsonrpc": "2.0", "id": 6.5, "method": "workspace/symbol"}', null, InvalidRequest],
      ['{"jsonrpc": "2.0", "id": 7}', 7, InvalidRequest],
      ['{"jsonrpc": "2.0", "id": 8, "method": "no/such/method", "params": {}}', 8, MethodNotFound],
      ['{"jsonrpc": "2.0", "id": "nine", "method": "$/unknownRequest"}', 'nine', MethodNotFound],
      ['{"jsonrpc": "2.0", "id": 10, "method": "workspace/symbol", "params": "query"}', 10, InvalidParams],
      ['{"jsonrpc": "2.0", "id": 11, "method": "workspace/symbol", "params": 3}', 11, InvalidParams],
    ];
    for (const [i, [body, id, code]] of cases.entries()) {
      const before = raw.messages.length;
      await raw.write(frame(body));
      await raw.send(ping(`ping-${i}`));
      await raw.response(`ping-${i}`);
      const answers = raw.messages.slice(before).filter((m) => 'error' in m || ('result' in m && m.id !== `ping-${i}`));
      assert.equal(answers.length, 1, `${body}: ${JSON.stringify(answers)}`);
      assert.equal(answers[0].id, id, body);
      assert.equal(answers[0].error?.code, code, body);
      assert.equal(answers[0].jsonrpc, '2.0');
    }
    // Notifications that are wrong have no answer (they are logged), nor do unknown ones.
    const before = raw.messages.length;
    await raw.write(frame('{"method": "initialized", "params": {}}'));
    await raw.write(frame('{"jsonrpc": "2.0", "method": "no/such/notification", "params": {}}'));
    await raw.write(frame('{"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": 5}}'));
    await raw.write(frame('{"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {"textDocument": {"uri": "untitled:x", "version": 1}, "contentChanges": []}}'));
    await raw.send(ping('after-notifications'));
    await raw.response('after-notifications');
    const after = raw.messages.slice(before);
    assert.ok(!after.some((m) => 'error' in m));
    assert.equal(after.filter((m) => m.method === 'window/logMessage').length, 3, JSON.stringify(after));
  });
});

test('parameters of the wrong types are answered with -32602', async () => {
  await withServer(async (server) => {
    const uri = 'untitled:types.isam';
    await server.open(uri, 'kernel k<N>(A: f32[N]) -> (B: f32[N]) {\n  B[i] = A[i];\n}\ninstance x = k<4>;\n');
    const td = { textDocument: { uri } };
    const cases = [
      ['textDocument/hover', { ...td, position: 'line 1, character 3' }],
      ['textDocument/hover', { ...td, position: { line: '1', character: 3 } }],
      ['textDocument/hover', { ...td, position: { line: 1.5, character: 3 } }],
      ['textDocument/hover', { ...td, position: { line: -1, character: 3 } }],
      ['textDocument/hover', { ...td, position: { line: 1 } }],
      ['textDocument/hover', { textDocument: { uri: 12 }, position: { line: 1, character: 3 } }],
      ['textDocument/hover', { textDocument: uri, position: { line: 1, character: 3 } }],
      ['textDocument/hover', { position: { line: 1, character: 3 } }],
      ['textDocument/definition', { ...td, position: null }],
      ['textDocument/rename', { ...td, position: { line: 1, character: 2 }, newName: 5 }],
      ['textDocument/references', { ...td, position: { line: 1, character: 2 }, context: { includeDeclaration: 'yes' } }],
      ['textDocument/semanticTokens/full/delta', { ...td, previousResultId: 3 }],
      ['textDocument/inlayHint', { ...td, range: 'all' }],
      ['textDocument/codeAction', { ...td, range: { start: 0, end: 1 }, context: { diagnostics: [] } }],
      ['workspace/symbol', { query: 42 }],
      ['isamap/diagram', { ...td, view: 'kernel', mapping: 'first' }],
    ];
    for (const [method, params] of cases) {
      const e = await server.requestError(method, params);
      assert.equal(e.code, InvalidParams, `${method} ${JSON.stringify(params)}: ${e.message}`);
    }
    // The document is still there and fine.
    const hover = await server.request('textDocument/hover', { ...td, position: { line: 1, character: 2 } });
    assert.match(hover.contents.value, /tensor B/);
  });
});

test('a message over the 64 MiB cap is refused, and the server keeps serving', async () => {
  await withRaw(async (raw) => {
    const size = 100 * 1024 * 1024;
    await raw.write(Buffer.from(`Content-Length: ${size}\r\n\r\n`));
    const chunk = Buffer.alloc(1 << 20, 0x20);
    for (let i = 0; i < 100; ++i)
      await raw.write(chunk);
    await raw.send(ping('after-the-big-one'));
    assert.deepEqual((await raw.response('after-the-big-one', 60000)).result, []);
    const [refused] = errorsWithNullId(raw);
    assert.equal(refused.error.code, InvalidRequest);
    assert.match(refused.error.message, /104857600 bytes is over the 67108864-byte limit/);
  });
});

test('bytes that are not UTF-8 inside a message are a parse error; the server keeps serving', async () => {
  await withRaw(async (raw) => {
    const open = (text) => Buffer.concat([
      Buffer.from('{"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {"uri": "untitled:raw.isam", "languageId": "isam", "version": 1, "text": "'),
      text,
      Buffer.from('"}}}'),
    ]);
    await raw.write(frame(open(Buffer.from([0x6b, 0xff, 0xfe, 0xc3, 0x28, 0xe2, 0x82, 0x00]))));
    await raw.send(ping('after-bad-utf8'));
    await raw.response('after-bad-utf8');
    assert.equal(errorsWithNullId(raw)[0]?.error.code, ParseError);
    // A lone surrogate escaped in JSON is not Unicode text either.
    await raw.write(frame(open(Buffer.from('kernel \\ud800 k'))));
    await raw.send(ping('after-surrogate'));
    await raw.response('after-surrogate');
    assert.equal(errorsWithNullId(raw).length, 2);
  });
});

// A deterministic pseudo-random generator (mulberry32).
function random(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function garbageTexts() {
  const next = random(42);
  const bytes = (n) => Buffer.from(Array.from({ length: n }, () => Math.floor(next() * 256)));
  const tokens = ['kernel', 'instance', 'target', 'schedule', 'map', 'tile', '{', '}', '(', ')', '[', ']',
    '<', '>', ';', ',', ':', '=', '+=', 'max=', '..', 'f32', 'A', 'i', '1', '2.5', '"s"', '//', '/*', '*/',
    'import', 'memory', 'instr', 'cost', '𝛼', 'é', '\u0000', '\n', ' ', '\t', '\r\n',
    '*=', '?', '<=', '>=', '==', '!=', '&&', '||', '!', 'pad', 'inf', '%'];
  const soup = (n) => Array.from({ length: n }, () => tokens[Math.floor(next() * tokens.length)]).join(' ');
  const kernel = 'kernel k<N>(A: f32[N]) -> (B: f32[N]) {\n  B[i] = A[i];\n}\ninstance x = k<8>;\n';
  const lines = [];
  for (let i = 0; i < 2000; ++i)
    lines.push(i % 50 === 0 ? kernel.replaceAll('k<', `k${i}<`).replaceAll('instance x', `instance x${i}`) : soup(8));
  return {
    // Random bytes read as Latin-1 (every byte a character, NULs and controls included).
    'random bytes': bytes(20000).toString('latin1'),
    // Random bytes read as UTF-8: invalid sequences become U+FFFD.
    'invalid UTF-8': bytes(20000).toString('utf8'),
    'NULs': `kernel\u0000k<N>(A: f32[N]) -> (B: f32[N]) {\u0000\n  B[i] = A[i];\u0000\n}\n`.repeat(50),
    'deep brackets': `kernel k<N>(A: f32[N]) -> (B: f32[N]) {\n  B[i] = ${'('.repeat(50000)}A[i]${')'.repeat(50000)};\n}\n${'['.repeat(50000)}\n${'{'.repeat(50000)}`,
    'deep unary': `kernel k<N>(A: f32[N]) -> (B: f32[N]) {\n  B[i] = ${'-'.repeat(100000)}A[i];\n}\ninstance x = k<${'-'.repeat(100000)}1>;\n`,
    'a 2,000-line file': lines.join('\n'),
    'token soup': soup(30000),
    'unterminated': '/* never closed\nkernel k<N>(A: f32[N]) -> (B: f32[N]) {\n "a string never closed\n',
    'huge numbers': 'kernel k<N>(A: f32[N]) -> (B: f32[N]) {\n  B[i] = A[i];\n}\ninstance x = k<99999999999999999999999999>;\ninstance y = k<1e308>;\ninstance z = k<0>;\n',
    'long line': `// ${'x'.repeat(200000)}\nkernel k<N>(A: f32[N]) -> (B: f32[N]) { B[i] = A[i]; }\n`,
  };
}

test('documents full of garbage never bring the server down', async () => {
  await withServer(async (server) => {
    const texts = garbageTexts();
    const { legend } = server.initializeResult.capabilities.semanticTokensProvider;
    for (const [name, text] of Object.entries(texts)) {
      const uri = `untitled:garbage-${name.replace(/\W+/g, '-')}.isam`;
      const diagnosed = server.diagnostics(uri, (p) => p.version === 1, 60000);
      await server.open(uri, text, 1);
      const d = await diagnosed;
      assert.ok(Array.isArray(d.diagnostics), name);
      const td = { textDocument: { uri } };
      const positions = [0, 1, Math.floor(text.length / 3), Math.floor(text.length / 2), text.length - 1, text.length]
        .map((i) => positionAt(text, Math.max(0, i)));
      positions.push({ line: 1e6, character: 1e6 }, { line: 0, character: 1e6 });
      const everything = { start: { line: 0, character: 0 }, end: { line: 1e6, character: 0 } };
      // (A line of 100,000 tokens once took seconds: positions were found from the line's start.)
      const tokens = await server.request('textDocument/semanticTokens/full', td);
      assert.equal(tokens.data.length % 5, 0, name);
      const lines = text.split('\n');
      for (const t of decodeTokens(tokens.data, legend)) {
        assert.ok(t.line < lines.length && t.length > 0, `${name}: ${JSON.stringify(t)}`);
        assert.ok(t.character + t.length <= lines[t.line].length, `${name}: ${JSON.stringify(t)} past its line's end`);
      }
      for (const position of positions) {
        for (const method of ['textDocument/hover', 'textDocument/completion', 'textDocument/signatureHelp',
          'textDocument/definition', 'textDocument/documentHighlight'])
          await server.request(method, { ...td, position }).catch((e) => assert.notEqual(e.code, -32603, `${name} ${method}: ${e.message}`));
      }
      for (const [method, params] of [
        ['textDocument/documentSymbol', td], ['textDocument/foldingRange', td],
        ['textDocument/inlayHint', { ...td, range: everything }], ['textDocument/codeLens', td],
        ['textDocument/codeAction', { ...td, range: everything, context: { diagnostics: [] } }],
        ['textDocument/formatting', { ...td, options: { tabSize: 2, insertSpaces: true } }],
        ['isamap/mappings', td], ['isamap/diagram', { ...td, view: 'kernel' }],
      ])
        await server.request(method, params).catch((e) => assert.notEqual(e.code, -32603, `${name} ${method}: ${e.message}`));
      // Edits with positions past the end are clamped.
      await server.change(uri, 2, [
        { range: { start: { line: 1e6, character: 0 }, end: { line: 1e6, character: 5 } }, text: '\n// appended' },
        { range: { start: { line: 0, character: 1e6 }, end: { line: 0, character: 0 } }, text: '' },
      ]);
      await server.request('textDocument/semanticTokens/full', td);
      await server.close(uri);
      assert.ok(server.alive, `${name}: ${server.stderr}`);
    }
    // A lone surrogate (which JSON.stringify escapes as \ud800) makes the message unreadable:
    // the document is not opened, and the server goes on.
    await server.open('untitled:surrogate.isam', 'kernel \ud800 k');
    const e = await server.requestError('textDocument/hover', { textDocument: { uri: 'untitled:surrogate.isam' }, position: { line: 0, character: 0 } });
    assert.equal(e.code, InvalidParams);
  });
});

test('an imported file with bytes that are not UTF-8 is one diagnostic at the import, not fatal', async () => {
  const dir = tempDir();
  try {
    dir.write('junk.isam', Buffer.concat([Buffer.from('target junk {\n  clock 1 GHz;\n  memory M\xff\xfe { size 1 KiB; }\n', 'latin1'),
      Buffer.from([0x00, 0xc3, 0x28, 0x0a, 0xe2, 0x82, 0x0a])]));
    const main = dir.write('main.isam', 'import "junk.isam";\nkernel k<N>(A: f32[N]) -> (B: f32[N]) {\n  B[i] = A[i];\n}\ninstance x = k<4>;\n');
    await withServer(async (server) => {
      const text = 'import "junk.isam";\nkernel k<N>(A: f32[N]) -> (B: f32[N]) {\n  B[i] = A[i];\n}\ninstance x = k<4>;\n';
      const d = server.diagnostics(main.uri, (p) => p.version === 1);
      await server.open(main.uri, text, 1);
      const diagnostics = (await d).diagnostics;
      // It is not an isam file: not parsed, so nothing of it is quoted.
      assert.equal(diagnostics.length, 1, JSON.stringify(diagnostics));
      assert.equal(diagnostics[0].code, 'E0605');
      assert.equal(diagnostics[0].message, "'junk.isam' is not an isam file: it holds NUL bytes");
      assert.equal(textOf(text, diagnostics[0].range), '"junk.isam"');
      await server.request('textDocument/semanticTokens/full', { textDocument: { uri: main.uri } });
      await server.request('workspace/symbol', { query: '' });
      await server.request('textDocument/documentSymbol', { textDocument: { uri: main.uri } });
      await server.request('textDocument/hover', { textDocument: { uri: main.uri }, position: { line: 0, character: 9 } });
      assert.ok(server.alive);
    });
  } finally {
    dir.cleanup();
  }
});
