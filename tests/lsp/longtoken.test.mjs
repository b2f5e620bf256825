// A token of hundreds of thousands of characters at a syntax error (the syntax-error listener's
// std::regex once recursed per character and crashed the server), and names as long in semantic
// errors: the server publishes diagnostics that quote a bounded prefix, and keeps serving.
import test from 'node:test';
import assert from 'node:assert/strict';
import { withServer, positionAt } from './client.mjs';

test('a syntax error at a very long token gives short diagnostics, and the server lives', async () => {
  await withServer(async (server) => {
    const big = 'x'.repeat(200000);
    const texts = {
      identifier: `kernel k<N>(A: f32[N]) -> (B: f32[N]) { B[i] = A[i] ${big}; }\n`,
      string: `kernel k<N>(A: f32[N]) -> (B: f32[N]) { B[i] = A[i]; }\n"${big}";\n`,
      number: `kernel k<N>(A: f32[N]) -> (B: f32[N]) { B[i] = A[i] ${'7'.repeat(200000)}; }\n`,
      'unknown name': `kernel k<N>(A: f32[N]) -> (B: f32[N]) { B[i] = ${big}[i]; }\ninstance ${big} = ${big}<4>;\n`,
    };
    for (const [name, text] of Object.entries(texts)) {
      const uri = `untitled:long-${name.replace(/\W+/g, '-')}.isam`;
      const diagnosed = server.diagnostics(uri, (p) => p.version === 1, 60000);
      await server.open(uri, text, 1);
      const d = await diagnosed;
      assert.ok(d.diagnostics.length > 0, name);
      for (const diagnostic of d.diagnostics) {
        assert.ok(diagnostic.message.length < 400, `${name}: ${diagnostic.message.slice(0, 400)}`);
        for (const related of diagnostic.relatedInformation ?? [])
          assert.ok(related.message.length < 400, name);
      }
      // Features over the long token answer too.
      const position = positionAt(text, text.indexOf('xxxx') + 100);
      await server.request('textDocument/hover', { textDocument: { uri }, position });
      assert.ok(server.alive, `${name}: the server ended: ${server.stderr}`);
    }
  });
});
