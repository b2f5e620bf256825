// The protocol's lifecycle: initialize and its capabilities, shutdown and exit and their exit
// codes, and what the server answers outside a session.
import test from 'node:test';
import assert from 'node:assert/strict';
import { startServer, withServer, sampleUri, sampleText, positionOf } from './client.mjs';

const MethodNotFound = -32601;

test('initialize advertises each provider, and each advertised request is answered', async () => {
  await withServer(async (server) => {
    const { capabilities, serverInfo } = server.initializeResult;
    assert.equal(serverInfo.name, 'isamap');
    assert.match(serverInfo.version, /^\d+\.\d+\.\d+/);
    assert.equal(capabilities.positionEncoding, 'utf-16');
    assert.deepEqual(capabilities.textDocumentSync.openClose, true);
    assert.equal(capabilities.textDocumentSync.change, 2, 'incremental sync');
    for (const p of ['hoverProvider', 'definitionProvider', 'declarationProvider', 'referencesProvider',
      'documentHighlightProvider', 'documentSymbolProvider', 'workspaceSymbolProvider',
      'documentFormattingProvider', 'documentRangeFormattingProvider', 'foldingRangeProvider',
      'inlayHintProvider', 'selectionRangeProvider', 'callHierarchyProvider'])
      assert.equal(capabilities[p], true, p);
    assert.equal(capabilities.renameProvider.prepareProvider, true);
    assert.ok(capabilities.completionProvider.triggerCharacters.includes('<'));
    assert.ok(capabilities.signatureHelpProvider.triggerCharacters.includes(','));
    assert.deepEqual(capabilities.codeActionProvider.codeActionKinds.sort(), ['quickfix', 'refactor.rewrite']);
    assert.ok(capabilities.codeLensProvider);
    const tokens = capabilities.semanticTokensProvider;
    assert.equal(tokens.full.delta, true);
    assert.equal(tokens.range, true);
    assert.equal(capabilities.documentLinkProvider.resolveProvider, false);
    for (const t of ['keyword', 'variable', 'type', 'comment', 'function', 'number'])
      assert.ok(tokens.legend.tokenTypes.includes(t), t);
    assert.ok(tokens.legend.tokenModifiers.includes('declaration'));
    const custom = capabilities.experimental.isamap.requests;
    assert.deepEqual([...custom].sort(),
      ['isamap/diagram', 'isamap/mappings', 'isamap/schedule', 'isamap/targetCode', 'isamap/targets']);

    // Every advertised request has a handler: none is answered MethodNotFound.
    const uri = sampleUri('gemm.isam');
    const text = sampleText('gemm.isam');
    await server.open(uri, text);
    const td = { textDocument: { uri } };
    const at = { ...td, position: positionOf(text, 'A[m, k] * B[k, n]') };
    const everything = { start: { line: 0, character: 0 }, end: { line: 60, character: 0 } };
    const requests = {
      'textDocument/hover': at,
      'textDocument/completion': at,
      'textDocument/signatureHelp': at,
      'textDocument/definition': at,
      'textDocument/declaration': at,
      'textDocument/references': { ...at, context: { includeDeclaration: true } },
      'textDocument/documentHighlight': at,
      'textDocument/documentSymbol': td,
      'workspace/symbol': { query: 'gemm' },
      'textDocument/codeAction': { ...td, range: everything, context: { diagnostics: [] } },
      'textDocument/codeLens': td,
      'textDocument/formatting': { ...td, options: { tabSize: 2, insertSpaces: true } },
      'textDocument/prepareRename': at,
      'textDocument/rename': { ...at, newName: 'Z' },
      'textDocument/foldingRange': td,
      'textDocument/semanticTokens/full': td,
      'textDocument/semanticTokens/full/delta': { ...td, previousResultId: 'none' },
      'textDocument/inlayHint': { ...td, range: everything },
      'textDocument/semanticTokens/range': { ...td, range: everything },
      'textDocument/documentLink': td,
      'textDocument/selectionRange': { ...td, positions: [at.position] },
      'textDocument/rangeFormatting': { ...td, range: everything, options: { tabSize: 2, insertSpaces: true } },
      'textDocument/prepareCallHierarchy': at,
      // Advertised to clients that pull (lifecycle of pulling: sync.test.mjs); answered to all.
      'textDocument/diagnostic': td,
    };
    for (const m of custom)
      requests[m] = { ...td, instance: 'gemm_small' };
    for (const [method, params] of Object.entries(requests)) {
      try {
        await server.request(method, params);
      } catch (e) {
        assert.notEqual(e.code, MethodNotFound, `${method}: ${e.message}`);
      }
    }
    // And what is not advertised is not answered.
    for (const method of ['textDocument/implementation', 'textDocument/typeDefinition']) {
      const e = await server.requestError(method, at);
      assert.equal(e.code, MethodNotFound, method);
    }
  });
});

test('the server talks over stdio with --stdio and without it', async () => {
  for (const args of [['lsp', '--stdio'], ['lsp']]) {
    const server = await startServer({ args });
    try {
      assert.equal(server.initializeResult.serverInfo.name, 'isamap', args.join(' '));
      assert.equal(await server.stop(), 0, args.join(' '));
    } finally {
      server.kill();
    }
  }
});

test('shutdown then exit: shutdown answers null and the process exits with 0', async () => {
  const server = await startServer();
  try {
    const uri = sampleUri('gemm.isam');
    const diags = server.diagnostics(uri);
    await server.open(uri, sampleText('gemm.isam'));
    await diags;
    assert.equal(await server.request('shutdown'), null);
    await server.connection.sendNotification('exit');
    const { code, signal } = await server.exited;
    assert.equal(signal, null);
    assert.equal(code, 0);
  } finally {
    server.kill();
  }
});

test('exit without shutdown, or the end of the input without exit: exit code 1', async () => {
  const a = await startServer();
  try {
    await a.connection.sendNotification('exit');
    assert.equal((await a.exited).code, 1);
  } finally {
    a.kill();
  }
  const b = await startServer();
  try {
    b.proc.stdin.end();
    assert.equal((await b.exited).code, 1);
  } finally {
    b.kill();
  }
  // Exit before initialize too.
  const c = await startServer({ initialize: false });
  try {
    await c.connection.sendNotification('exit');
    assert.equal((await c.exited).code, 1);
  } finally {
    c.kill();
  }
});

test('before initialize: requests get -32002 and notifications are dropped', async () => {
  await withServer({ initialize: false }, async (server) => {
    const uri = sampleUri('gemm.isam');
    const text = sampleText('gemm.isam');
    for (const [method, params] of [
      ['textDocument/hover', { textDocument: { uri }, position: { line: 8, character: 2 } }],
      ['shutdown', undefined],
      ['isamap/schedule', { textDocument: { uri } }],
      ['no/such/method', {}],
    ]) {
      const e = await server.requestError(method, params);
      assert.equal(e.code, -32002, method);
    }
    // A didOpen before initialize is dropped: the document is not open afterwards.
    await server.open(uri, text);
    await server.initialize();
    const e = await server.requestError('textDocument/hover', { textDocument: { uri }, position: { line: 8, character: 2 } });
    assert.equal(e.code, -32602);
    assert.match(e.message, /not open/);
    assert.equal(server.publishedFor(uri).length, 0);
    assert.equal(await server.stop(), 0);
  });
});

test('a second initialize is an error and the session goes on', async () => {
  await withServer(async (server) => {
    const e = await server.requestError('initialize', { processId: null, rootUri: null, capabilities: {} });
    assert.equal(e.code, -32600);
    assert.match(e.message, /already/);
    const uri = sampleUri('dwsep.isam');
    const diags = server.diagnostics(uri);
    await server.open(uri, sampleText('dwsep.isam'));
    assert.equal((await diags).version, 1);
    assert.equal(await server.stop(), 0);
  });
});

test('after shutdown: requests get -32600, and exit still gives 0', async () => {
  await withServer(async (server) => {
    const uri = sampleUri('gemm.isam');
    await server.open(uri, sampleText('gemm.isam'));
    assert.equal(await server.request('shutdown'), null);
    for (const [method, params] of [
      ['textDocument/hover', { textDocument: { uri }, position: { line: 8, character: 2 } }],
      ['shutdown', undefined],
      ['initialize', { processId: null, rootUri: null, capabilities: {} }],
      ['no/such/method', {}],
    ]) {
      const e = await server.requestError(method, params);
      assert.equal(e.code, -32600, method);
    }
    await server.connection.sendNotification('exit');
    assert.equal((await server.exited).code, 0);
  });
});
