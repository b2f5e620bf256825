import test from 'node:test';
import assert from 'node:assert/strict';
import { withServer, sampleUri, sampleText } from './client.mjs';

test('initialize, open a sample, get its diagnostics, shut down cleanly', async () => {
  await withServer(async (server) => {
    assert.equal(server.initializeResult.serverInfo.name, 'isamap');
    const uri = sampleUri('gemm.isam');
    const diags = server.diagnostics(uri);
    await server.open(uri, sampleText('gemm.isam'));
    const d = await diags;
    assert.equal(d.version, 1);
    assert.equal(await server.stop(), 0);
  });
});
