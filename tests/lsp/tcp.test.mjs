// `isamap lsp --listen ADDRESS:PORT`: one session over a TCP connection, and the usage errors.
import test from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { spawnServer, startServer, sampleUri, sampleText, positionOf, sleep } from './client.mjs';

// Spawns `isamap lsp --listen 127.0.0.1:0` and resolves with the port it printed.
async function listening() {
  const spawned = spawnServer(['lsp', '--listen', '127.0.0.1:0']);
  let stdout = '';
  spawned.proc.stdout.on('data', (d) => { stdout += d; });
  const started = Date.now();
  for (;;) {
    const m = spawned.stderr().match(/^isamap lsp: listening on 127\.0\.0\.1:(\d+)$/m);
    if (m)
      return { spawned, port: Number(m[1]), stdout: () => stdout };
    if (spawned.proc.exitCode !== null || Date.now() - started > 20000) {
      spawned.proc.kill('SIGKILL');
      throw new Error(`the server did not listen: ${spawned.stderr()}`);
    }
    await sleep(20);
  }
}

function connect(port) {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port }, () => resolve(socket));
    socket.once('error', reject);
  });
}

test('--listen 127.0.0.1:0 prints its port and serves a whole session over the socket', async () => {
  const { spawned, port, stdout } = await listening();
  let socket;
  try {
    assert.ok(port > 0 && port < 65536);
    socket = await connect(port);
    const server = await startServer({ spawned, streams: { reader: socket, writer: socket } });
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
    assert.equal(await server.stop(), 0);
    assert.equal(stdout(), '', 'nothing of the protocol on stdout');
    // It served its one connection: the port is closed now.
    await assert.rejects(connect(port));
  } finally {
    socket?.destroy();
    if (spawned.proc.exitCode === null)
      spawned.proc.kill('SIGKILL');
  }
});

test('a TCP client that goes away without exit: the server ends with 1', async () => {
  const { spawned, port } = await listening();
  try {
    const socket = await connect(port);
    const server = await startServer({ spawned, streams: { reader: socket, writer: socket } });
    await server.open(sampleUri('mlp.isam'), sampleText('mlp.isam'));
    socket.destroy();
    assert.equal((await spawned.exited).code, 1);
  } finally {
    if (spawned.proc.exitCode === null)
      spawned.proc.kill('SIGKILL');
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

test('--listen with a bad address or port, or a port in use, exits 1 with a clear message', async () => {
  for (const [value, message] of [
    ['nonsense', /--listen expects ADDRESS:PORT with a port from 0 to 65535, not 'nonsense'/],
    ['127.0.0.1:99999', /--listen expects ADDRESS:PORT with a port from 0 to 65535, not '127\.0\.0\.1:99999'/],
    ['127.0.0.1:-1', /--listen expects ADDRESS:PORT/],
    ['127.0.0.1:', /--listen expects ADDRESS:PORT/],
    ['not-an-address:0', /'not-an-address' is not an IP address/],
  ]) {
    const { code, stderr } = await run(['lsp', '--listen', value]);
    assert.equal(code, 1, value);
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

test('--stdio with --listen is a usage error (exit 2)', async () => {
  const { code, stderr } = await run(['lsp', '--stdio', '--listen', '127.0.0.1:0']);
  assert.equal(code, 2);
  assert.match(stderr, /--stdio excludes --listen|--listen excludes --stdio/);
});
