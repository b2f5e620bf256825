// `isamap lsp --listen [ADDRESS:]PORT`: loopback by default, other addresses only with
// --allow-remote (and a warning), any number of independent clients at once until SIGTERM,
// imports confined to each client's workspace, and the usage errors.
import test from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { pathToFileURL } from 'node:url';
import { spawnServer, startServer, sampleUri, sampleText, positionOf, sleep, tempDir, textOf, frame } from './client.mjs';

// Spawns `isamap lsp --listen VALUE` and resolves with the port it printed.
async function listening(value = '127.0.0.1:0', extra = [], shown = '127\\.0\\.0\\.1') {
  const spawned = spawnServer(['lsp', '--listen', value, ...extra]);
  let stdout = '';
  spawned.proc.stdout.on('data', (d) => { stdout += d; });
  const started = Date.now();
  for (;;) {
    const m = spawned.stderr().match(new RegExp(`^isamap lsp: listening on ${shown}:(\\d+)$`, 'm'));
    if (m)
      return { spawned, port: Number(m[1]), stdout: () => stdout };
    if (spawned.proc.exitCode !== null || Date.now() - started > 20000) {
      spawned.proc.kill('SIGKILL');
      throw new Error(`the server did not listen: ${spawned.stderr()}`);
    }
    await sleep(20);
  }
}

function connect(port, host = '127.0.0.1') {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host, port }, () => resolve(socket));
    socket.once('error', reject);
  });
}

// A client over a new connection to the running server `spawned`.
async function client(spawned, port, options = {}) {
  const socket = await connect(port);
  const server = await startServer({ spawned, streams: { reader: socket, writer: socket }, ...options });
  return { socket, server };
}

// Ends the listening server with SIGTERM; its exit code.
async function terminate(spawned) {
  spawned.proc.kill('SIGTERM');
  const timer = setTimeout(() => spawned.proc.kill('SIGKILL'), 20000);
  const { code, signal } = await spawned.exited;
  clearTimeout(timer);
  assert.equal(signal, null, `the server did not end by itself: ${spawned.stderr()}`);
  return code;
}

test('--listen 127.0.0.1:0 prints its port, serves a session, and goes on listening after it', async () => {
  const { spawned, port, stdout } = await listening();
  let socket;
  try {
    assert.ok(port > 0 && port < 65536);
    let server;
    ({ socket, server } = await client(spawned, port));
    assert.equal(server.initializeResult.serverInfo.name, 'isamap');
    const uri = sampleUri('gemm.isam');
    const text = sampleText('gemm.isam');
    const diagnostics = server.diagnostics(uri, (p) => p.version === 1);
    await server.open(uri, text, 1);
    assert.equal((await diagnostics).uri, uri);
    const broken = server.diagnostics(uri, (p) => p.version === 2);
    await server.change(uri, 2, [{ text: text + 'kernel bad( {\n' }]);
    assert.equal((await broken).diagnostics.filter((d) => d.code === 'E0101').length, 1);
    const hover = await server.request('textDocument/hover', { textDocument: { uri }, position: positionOf(text, 'C[m, n] +=') });
    assert.match(hover.contents.value, /tensor C/);
    // shutdown and exit end this client's session, not the server.
    await server.request('shutdown');
    await server.connection.sendNotification('exit');
    await new Promise((resolve) => socket.once('close', resolve));
    const again = await client(spawned, port);
    assert.ok(again.server.initializeResult.capabilities);
    again.socket.destroy();
    assert.equal(stdout(), '', 'nothing of the protocol on stdout');
    assert.equal(await terminate(spawned), 0);
    await assert.rejects(connect(port));
  } finally {
    socket?.destroy();
    if (spawned.proc.exitCode === null)
      spawned.proc.kill('SIGKILL');
  }
});

test('clients at the same time are independent, and one going away leaves the others be', async () => {
  const { spawned, port } = await listening('0');
  const sockets = [];
  try {
    const a = await client(spawned, port);
    const b = await client(spawned, port);
    sockets.push(a.socket, b.socket);
    // The same URI with different texts: each client sees its own document.
    const uri = 'untitled:shared.isam';
    const good = 'kernel k<N>(A: f32[N]) -> (B: f32[N]) {\n  B[i] = A[i];\n}\ninstance x = k<4>;\n';
    const bad = 'kernel k<N>(A: f32[N]) -> (B: f32[N]) {\n  B[i] = C[i];\n}\n';
    const da = a.server.diagnostics(uri, (p) => p.version === 1);
    const db = b.server.diagnostics(uri, (p) => p.version === 1);
    await a.server.open(uri, good, 1);
    await b.server.open(uri, bad, 1);
    assert.deepEqual((await da).diagnostics, []);
    assert.ok((await db).diagnostics.some((d) => /'C'/.test(d.message)), JSON.stringify((await db).diagnostics));
    // Settings are per client too.
    await a.server.connection.sendNotification('workspace/didChangeConfiguration', { settings: { isamap: { target: 'arm_neon' } } });
    // A goes away without shutdown; B keeps being served.
    a.socket.destroy();
    await sleep(200);
    const hover = await b.server.request('textDocument/hover', { textDocument: { uri }, position: positionOf(bad, 'B[i] =') });
    assert.match(hover.contents.value, /tensor B/);
    assert.ok(b.server.alive);
    // And a new client is served beside it.
    const c = await client(spawned, port);
    sockets.push(c.socket);
    assert.deepEqual(await c.server.request('workspace/symbol', { query: 'zz' }), []);
    assert.equal(await terminate(spawned), 0);
    assert.match(spawned.stderr(), /client 127\.0\.0\.1:\d+ disconnected/);
  } finally {
    for (const s of sockets)
      s.destroy();
    if (spawned.proc.exitCode === null)
      spawned.proc.kill('SIGKILL');
  }
});

test('one client more than the limit is answered with an error and closed', async () => {
  const { spawned, port } = await listening();
  const sockets = [];
  try {
    for (let i = 0; i < 16; ++i)
      sockets.push(await connect(port));
    // The 16 are being served (each answers a request before the 17th connects).
    for (const [i, s] of sockets.entries()) {
      const answered = new Promise((resolve) => s.once('data', resolve));
      s.write(frame({ jsonrpc: '2.0', id: i, method: 'shutdown' }));
      assert.match(String(await answered), /"error"/); // not initialized
    }
    const extra = await connect(port);
    let data = '';
    extra.on('data', (d) => { data += d; });
    await new Promise((resolve) => extra.once('close', resolve));
    assert.match(data, /serves at most 16 clients at a time/);
    // Once one leaves, there is room again.
    sockets[0].destroy();
    for (let tries = 0; ; ++tries) {
      await sleep(100);
      const next = await connect(port);
      const reply = await new Promise((resolve) => {
        let got = '';
        next.on('data', (d) => { got += d; if (/not been initialized|serves at most/.test(got)) { next.destroy(); resolve(got); } });
        next.once('close', () => resolve(got));
        next.write(frame({ jsonrpc: '2.0', id: 'x', method: 'shutdown' }));
        setTimeout(() => { next.destroy(); resolve(got); }, 2000);
      });
      if (/not been initialized/.test(reply))
        break;
      assert.ok(tries < 50, reply);
    }
  } finally {
    for (const s of sockets)
      s.destroy();
    if (spawned.proc.exitCode === null)
      spawned.proc.kill('SIGKILL');
  }
});

test('over TCP, imports resolve only inside the workspace, the include directories and hwdesc/', async () => {
  const ws = tempDir(), outside = tempDir();
  const { spawned, port } = await listening();
  let socket;
  try {
    const kernel = 'kernel k<N>(A: f32[N]) -> (B: f32[N]) {\n  B[i] = A[i];\n}\n';
    ws.write('lib.isam', kernel);
    const secret = outside.write('secret.isam', kernel.replaceAll('k<', 'secret<'));
    const name = secret.path.split('/').at(-2);
    const text = `import "lib.isam";\nimport "x86_avx2.isam";\nimport "${secret.path}";\nimport "../${name}/secret.isam";\ninstance x = k<4>;\n`;
    const main = ws.write('main.isam', text);
    let server;
    ({ socket, server } = await client(spawned, port, { initialize: false }));
    await server.initialize({ target: 'x86_avx2' }, { rootUri: pathToFileURL(ws.dir).href });
    const d = server.diagnostics(main.uri, (p) => p.version === 1);
    await server.open(main.uri, text, 1);
    const diagnostics = (await d).diagnostics;
    const refused = diagnostics.filter((x) => x.code === 'E0604');
    assert.equal(refused.length, 2, JSON.stringify(diagnostics));
    assert.equal(textOf(text, refused[0].range), `"${secret.path}"`);
    assert.equal(textOf(text, refused[1].range), `"../${name}/secret.isam"`);
    assert.match(refused[0].message, /is outside the directories imports may read/);
    assert.match(JSON.stringify(refused[0]), /over a network connection/);
    assert.deepEqual(diagnostics.filter((x) => x.code !== 'E0604'), []);
    // The kernel from inside the workspace resolves; the one outside does not exist for it.
    const symbols = await server.request('workspace/symbol', { query: 'secret' });
    assert.deepEqual(symbols.filter((s) => s.name === 'secret'), []);

    // Include directories (the client's isamap.includeDirs) are allowed too.
    await server.connection.sendNotification('workspace/didChangeConfiguration', { settings: { isamap: { includeDirs: [outside.dir] } } });
    const allowed = await server.settled(main.uri, (p) => !p.diagnostics.some((x) => x.code === 'E0604'));
    assert.deepEqual(allowed.diagnostics, []);
  } finally {
    socket?.destroy();
    if (spawned.proc.exitCode === null)
      spawned.proc.kill('SIGKILL');
    ws.cleanup();
    outside.cleanup();
  }
});

async function run(args) {
  const spawned = spawnServer(args);
  spawned.proc.stdin.end();
  const timer = setTimeout(() => spawned.proc.kill('SIGKILL'), 20000);
  const { code } = await spawned.exited;
  clearTimeout(timer);
  return { code, stderr: spawned.stderr() };
}

test('--listen on an address other machines can reach is refused without --allow-remote', async () => {
  for (const value of ['0.0.0.0:0', '[::]:0', '192.0.2.1:0', '[::ffff:0.0.0.0]:0']) {
    const { code, stderr } = await run(['lsp', '--listen', value]);
    assert.equal(code, 2, value);
    assert.match(stderr, /would accept connections from other machines.*pass --allow-remote/, value);
  }
  // Loopback in every spelling is fine.
  for (const [value, shown] of [['0', '127\\.0\\.0\\.1'], ['localhost:0', '127\\.0\\.0\\.1'], ['127.0.0.2:0', '127\\.0\\.0\\.2'], ['[::1]:0', '\\[::1\\]']]) {
    let spawned;
    try {
      ({ spawned } = await listening(value, [], shown));
      assert.doesNotMatch(spawned.stderr(), /warning/);
      assert.equal(await terminate(spawned), 0);
    } catch (e) {
      if (value === '[::1]:0' && /cannot listen/.test(String(e)))
        continue; // no IPv6 on this machine
      throw e;
    } finally {
      if (spawned && spawned.proc.exitCode === null)
        spawned.proc.kill('SIGKILL');
    }
  }
});

test('--allow-remote listens on every interface with a warning', async () => {
  const { spawned, port } = await listening('0.0.0.0:0', ['--allow-remote'], '0\\.0\\.0\\.0');
  try {
    assert.match(spawned.stderr(), /warning: listening on 0\.0\.0\.0, which other machines can reach/);
    const { socket, server } = await client(spawned, port);
    assert.deepEqual(await server.request('workspace/symbol', { query: 'zz' }), []);
    socket.destroy();
    assert.equal(await terminate(spawned), 0);
  } finally {
    if (spawned.proc.exitCode === null)
      spawned.proc.kill('SIGKILL');
  }
});

test('--listen with a bad value is a usage error (exit 2); a port in use exits 1', async () => {
  for (const [value, message] of [
    ['nonsense', /--listen expects PORT or ADDRESS:PORT with a port from 0 to 65535, not 'nonsense'/],
    ['127.0.0.1:99999', /--listen expects PORT or ADDRESS:PORT with a port from 0 to 65535, not '127\.0\.0\.1:99999'/],
    ['127.0.0.1:-1', /--listen expects PORT or ADDRESS:PORT/],
    ['127.0.0.1:', /--listen expects PORT or ADDRESS:PORT/],
    ['not-an-address:0', /'not-an-address' is not an IP address/],
    ['::1:0', /an IPv6 address takes brackets/],
  ]) {
    const { code, stderr } = await run(['lsp', '--listen', value]);
    assert.equal(code, 2, value);
    assert.match(stderr, message, value);
  }
  const busy = net.createServer();
  await new Promise((resolve) => busy.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = busy.address();
    const { code, stderr } = await run(['lsp', '--listen', `127.0.0.1:${port}`]);
    assert.equal(code, 1);
    assert.match(stderr, new RegExp(`isamap lsp: cannot listen on 127\\.0\\.0\\.1:${port}: `));
  } finally {
    busy.close();
  }
});

test('--stdio with --listen, and --allow-remote without --listen, are usage errors (exit 2)', async () => {
  let { code, stderr } = await run(['lsp', '--stdio', '--listen', '127.0.0.1:0']);
  assert.equal(code, 2);
  assert.match(stderr, /--stdio excludes --listen|--listen excludes --stdio/);
  ({ code, stderr } = await run(['lsp', '--allow-remote']));
  assert.equal(code, 2);
  assert.match(stderr, /--allow-remote requires --listen/);
});
