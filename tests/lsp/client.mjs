// A real LSP client (vscode-languageserver-protocol, the library VS Code's own client is built
// on) connected to a real `isamap lsp` process, for the tests in this folder; and a raw client
// that writes bytes of its own, for the tests of bad input.
import { spawn } from 'node:child_process';
import { pathToFileURL, fileURLToPath } from 'node:url';
import path from 'node:path';
import fs from 'node:fs';
import os from 'node:os';
import assert from 'node:assert/strict';
import {
  createProtocolConnection,
  StreamMessageReader,
  StreamMessageWriter,
} from 'vscode-languageserver-protocol/node.js';

// Relative to this folder (not the working directory), so that tests run from anywhere.
const here = path.dirname(fileURLToPath(import.meta.url));
export const binary = process.env.ISAMAP_BINARY ?? path.resolve(here, '../../build/cli/isamap');
export const sourceDir = process.env.ISAMAP_SOURCE_DIR ?? path.resolve(here, '../..');

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export function sampleUri(name) {
  return pathToFileURL(path.join(sourceDir, 'samples', name)).href;
}
export function sampleText(name) {
  return fs.readFileSync(path.join(sourceDir, 'samples', name), 'utf8');
}
export function hwdescText(name) {
  return fs.readFileSync(path.join(sourceDir, 'hwdesc', name), 'utf8');
}

// A fresh directory under the system's temporary one; `cleanup()` removes it.
export function tempDir() {
  // Canonical (the server names files by their canonical paths).
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'isamap-lsp-')));
  return {
    dir,
    write(name, text) {
      const file = path.join(dir, name);
      fs.writeFileSync(file, text);
      return { path: file, uri: pathToFileURL(file).href };
    },
    uri(name) {
      return pathToFileURL(path.join(dir, name)).href;
    },
    cleanup() {
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

// Spawns the server; `exited` resolves with {code, signal} however the process ends.
function spawnServer(args) {
  const proc = spawn(binary, args, { stdio: ['pipe', 'pipe', 'pipe'] });
  const exited = new Promise((resolve) => {
    proc.on('exit', (code, signal) => resolve({ code, signal }));
    proc.on('error', (error) => resolve({ code: null, signal: null, error }));
  });
  // Writing to a server that has exited is some tests' point: not an error of the test.
  proc.stdin.on('error', () => {});
  let stderr = '';
  proc.stderr.on('data', (d) => { stderr += d; });
  return { proc, exited, stderr: () => stderr };
}

function withTimeout(promise, ms, what) {
  let timer;
  return Promise.race([
    promise,
    new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`${what}: no answer in ${ms} ms`)), ms); }),
  ]).finally(() => clearTimeout(timer));
}

// Starts the server and a client connection to it (over stdio, or over `streams` when given:
// {reader, writer} Node streams, e.g. a socket). `diagnostics(uri)` resolves with the next
// publishDiagnostics for `uri` that satisfies `accept`; `settled(uri, accept)` with the last one
// once it satisfies `accept` and none has followed for `quietMs`.
export async function startServer({
  args = ['lsp', '--stdio'],
  initializationOptions = { target: 'x86_avx512' },
  initialize = true,
  spawned = null, // an already spawned server (spawnServer's result), e.g. for TCP
  streams = null,
} = {}) {
  const { proc, exited, stderr } = spawned ?? spawnServer(args);
  // Rejects when the process ends, so that waiting for an answer fails at once on a crash.
  const died = exited.then(({ code, signal }) => {
    throw new Error(`the server exited (code ${code}, signal ${signal})`);
  });
  died.catch(() => {});
  const connection = createProtocolConnection(
    new StreamMessageReader(streams ? streams.reader : proc.stdout),
    new StreamMessageWriter(streams ? streams.writer : proc.stdin),
  );
  connection.onError(() => {}); // a server that exits on purpose closes the stream
  const published = [];
  const lastPublish = new Map(); // uri -> time of its last publishDiagnostics
  const waiters = [];
  connection.onNotification('textDocument/publishDiagnostics', (params) => {
    published.push(params);
    lastPublish.set(params.uri, Date.now());
    for (const w of [...waiters])
      if (w.uri === params.uri && w.accept(params)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(params);
      }
  });
  const logs = [];
  connection.onNotification('window/logMessage', (p) => logs.push(p));
  connection.onNotification('window/showMessage', (p) => logs.push({ ...p, shown: true }));
  connection.listen();
  const server = {
    proc, connection, published, logs, exited,
    get stderr() { return stderr(); },
    get alive() { return proc.exitCode === null && proc.signalCode === null; },
    request(method, params, token) {
      // (vscode-jsonrpc takes every argument after the method for a parameter but a token)
      const sent = token ? connection.sendRequest(method, params, token)
        : params === undefined ? connection.sendRequest(method) : connection.sendRequest(method, params);
      return withTimeout(Promise.race([sent, died]), 60000, method);
    },
    // The error a request is answered with (fails if it is answered with a result).
    async requestError(method, params) {
      try {
        const result = await this.request(method, params);
        throw Object.assign(new Error(`${method} answered ${JSON.stringify(result)?.slice(0, 200)}`), { unexpected: true });
      } catch (e) {
        if (e.unexpected)
          throw e;
        return e;
      }
    },
    diagnostics(uri, accept = () => true, timeoutMs = 30000) {
      const next = new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no matching diagnostics for ${uri} in ${timeoutMs} ms`)), timeoutMs);
        waiters.push({ uri, accept, resolve: (p) => { clearTimeout(timer); resolve(p); } });
      });
      return Promise.race([next, died]);
    },
    // The document's code lenses as an editor shows them: textDocument/codeLens, then
    // codeLens/resolve for each lens sent unresolved.
    async lenses(uri) {
      const lenses = await this.request('textDocument/codeLens', { textDocument: { uri } });
      return Promise.all(lenses.map((l) => (l.command ? l : this.request('codeLens/resolve', l))));
    },
    publishedFor(uri) {
      return published.filter((p) => p.uri === uri);
    },
    async settled(uri, accept = () => true, { quietMs = 700, timeoutMs = 30000 } = {}) {
      const start = Date.now();
      for (;;) {
        const last = this.publishedFor(uri).at(-1);
        if (last && accept(last) && Date.now() - lastPublish.get(uri) >= quietMs)
          return last;
        if (Date.now() - start > timeoutMs)
          throw new Error(`diagnostics for ${uri} did not settle in ${timeoutMs} ms; last: ${JSON.stringify(last)?.slice(0, 500)}`);
        if (!this.alive)
          await died;
        await sleep(50);
      }
    },
    open(uri, text, version = 1, languageId = 'isam') {
      return connection.sendNotification('textDocument/didOpen', {
        textDocument: { uri, languageId, version, text },
      });
    },
    change(uri, version, contentChanges) {
      return connection.sendNotification('textDocument/didChange', {
        textDocument: { uri, version }, contentChanges,
      });
    },
    close(uri) {
      return connection.sendNotification('textDocument/didClose', { textDocument: { uri } });
    },
    // Shutdown and exit; the process's exit code.
    async stop() {
      try {
        await withTimeout(connection.sendRequest('shutdown'), 20000, 'shutdown');
        await connection.sendNotification('exit');
      } catch { /* already gone */ }
      const { code } = await withTimeout(exited, 20000, 'exit');
      connection.dispose();
      return code;
    },
    // initialize and initialized, as a client starts a session; initialize's result.
    async initialize(options = initializationOptions, extra = {}) {
      const result = await this.request('initialize', {
        processId: process.pid,
        rootUri: pathToFileURL(sourceDir).href,
        capabilities: {},
        initializationOptions: options,
        ...extra,
      });
      await connection.sendNotification('initialized', {});
      return result;
    },
    // Ends the process whatever state it is in (tests call it in `finally`).
    kill() {
      if (this.alive)
        proc.kill('SIGKILL');
      connection.dispose();
    },
  };
  if (initialize) {
    try {
      server.initializeResult = await server.initialize(initializationOptions);
    } catch (e) {
      server.kill();
      throw e;
    }
  }
  return server;
}

// Runs `fn(server)` with a started server and always ends the process. A server killed by a
// signal (a crash) fails the test, even when `fn` did not notice.
export async function withServer(options, fn) {
  if (typeof options === 'function')
    [options, fn] = [{}, options];
  const server = await startServer(options);
  try {
    const result = await fn(server);
    assert.equal(server.proc.signalCode, null, `the server crashed; its stderr:\n${server.stderr}`);
    return result;
  } finally {
    server.kill();
  }
}

export { spawnServer };

// ---- positions, edits and tokens, computed the protocol's way --------------------------------

// The LSP position (UTF-16 code units, which JavaScript strings index) of `text`'s `index`.
export function positionAt(text, index) {
  const before = text.slice(0, index);
  const line = before.split('\n').length - 1;
  return { line, character: index - (before.lastIndexOf('\n') + 1) };
}

// The position of the `nth` occurrence of `needle` (plus `delta` characters into it).
export function positionOf(text, needle, { nth = 0, delta = 0 } = {}) {
  let at = -1;
  for (let i = 0; i <= nth; ++i) {
    at = text.indexOf(needle, at + 1);
    if (at < 0)
      throw new Error(`'${needle}' occurs fewer than ${nth + 1} times`);
  }
  return positionAt(text, at + delta);
}

export function offsetAt(text, { line, character }) {
  let start = 0;
  for (let l = 0; l < line; ++l) {
    const nl = text.indexOf('\n', start);
    if (nl < 0)
      return text.length;
    start = nl + 1;
  }
  let end = text.indexOf('\n', start);
  if (end < 0)
    end = text.length;
  if (end > start && text[end - 1] === '\r')
    --end;
  return Math.min(start + character, end);
}

// The text a range covers.
export function textOf(text, range) {
  return text.slice(offsetAt(text, range.start), offsetAt(text, range.end));
}

// didChange's contentChanges applied in order, as the specification says.
export function applyChanges(text, changes) {
  for (const c of changes) {
    if (!c.range) {
      text = c.text;
      continue;
    }
    const a = offsetAt(text, c.range.start), b = offsetAt(text, c.range.end);
    text = text.slice(0, a) + c.text + text.slice(b);
  }
  return text;
}

// TextEdits (which do not overlap) applied at once: from the last to the first.
export function applyTextEdits(text, edits) {
  const sorted = [...edits].sort((x, y) => offsetAt(text, y.range.start) - offsetAt(text, x.range.start));
  for (const e of sorted)
    text = text.slice(0, offsetAt(text, e.range.start)) + e.newText + text.slice(offsetAt(text, e.range.end));
  return text;
}

// Semantic tokens' relative encoding decoded with the legend: [{line, character, length, type,
// modifiers: [..], text}].
export function decodeTokens(data, legend, text) {
  const out = [];
  let line = 0, character = 0;
  for (let i = 0; i < data.length; i += 5) {
    const [dl, dc, length, type, mods] = data.slice(i, i + 5);
    line += dl;
    character = dl === 0 ? character + dc : dc;
    const modifiers = legend.tokenModifiers.filter((_, bit) => mods & (1 << bit));
    const token = { line, character, length, type: legend.tokenTypes[type], modifiers };
    if (text !== undefined) {
      const start = offsetAt(text, { line, character });
      token.text = text.slice(start, start + length);
    }
    out.push(token);
  }
  return out;
}

// SemanticTokensEdits applied to the previous data (edits refer to the previous array).
export function applyTokenEdits(data, edits) {
  const out = [...data];
  for (const e of [...edits].sort((a, b) => b.start - a.start))
    out.splice(e.start, e.deleteCount, ...(e.data ?? []));
  return out;
}

// ---- a raw client, for bytes no real client would send ----------------------------------------

export function frame(body) {
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
  return Buffer.concat([Buffer.from(`Content-Length: ${bytes.length}\r\n\r\n`), bytes]);
}

// The server with its stdin and stdout as bytes: `write(bytes)` (waits for the pipe to drain)
// and the messages it sent so far, parsed, in `messages`; `response(id)` waits for one.
export function startRaw(args = ['lsp']) {
  const { proc, exited, stderr } = spawnServer(args);
  const reader = new StreamMessageReader(proc.stdout);
  const messages = [];
  const waiters = [];
  reader.listen((m) => {
    messages.push(m);
    for (const w of [...waiters])
      if (w.accept(m)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(m);
      }
  });
  const raw = {
    proc, exited, messages,
    get stderr() { return stderr(); },
    get alive() { return proc.exitCode === null && proc.signalCode === null; },
    write(bytes) {
      return new Promise((resolve) => {
        if (proc.stdin.write(bytes))
          resolve();
        else
          proc.stdin.once('drain', resolve);
      });
    },
    send(message) {
      return this.write(frame(message));
    },
    // The first message (already received or still to come) that satisfies `accept`.
    message(accept, timeoutMs = 30000) {
      const seen = messages.find(accept);
      if (seen)
        return Promise.resolve(seen);
      return withTimeout(new Promise((resolve) => waiters.push({ accept, resolve })), timeoutMs, 'a message');
    },
    response(id, timeoutMs) {
      return this.message((m) => m.id === id && ('result' in m || 'error' in m), timeoutMs);
    },
    async initialize() {
      await this.send({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { capabilities: {}, initializationOptions: { target: 'x86_avx512' } } });
      const r = await this.response('init');
      await this.send({ jsonrpc: '2.0', method: 'initialized', params: {} });
      return r;
    },
    kill() {
      if (this.alive)
        proc.kill('SIGKILL');
      reader.dispose();
    },
  };
  return raw;
}
