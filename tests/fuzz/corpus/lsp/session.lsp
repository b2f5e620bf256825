Content-Length: 148

{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":null,"capabilities":{},"initializationOptions":{"debounceMs":0}}}Content-Length: 52

{"jsonrpc":"2.0","method":"initialized","params":{}}Content-Length: 292

{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///fuzz/k.isam","languageId":"isam","version":1,"text":"kernel gemm<M, N, K>(A: f32[M, K], B: f32[K, N]) -> (C: f32[M, N]) {\n  C[m, n] += A[m, k] * B[k, n];\n}\ninstance gemm_small = gemm<7, 5, 13>;\n"}}}Content-Length: 146

{"jsonrpc":"2.0","id":2,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///fuzz/k.isam"},"position":{"line":1,"character":4}}}Content-Length: 151

{"jsonrpc":"2.0","id":3,"method":"textDocument/completion","params":{"textDocument":{"uri":"file:///fuzz/k.isam"},"position":{"line":1,"character":4}}}Content-Length: 151

{"jsonrpc":"2.0","id":4,"method":"textDocument/definition","params":{"textDocument":{"uri":"file:///fuzz/k.isam"},"position":{"line":1,"character":4}}}Content-Length: 189

{"jsonrpc":"2.0","id":5,"method":"textDocument/references","params":{"textDocument":{"uri":"file:///fuzz/k.isam"},"position":{"line":1,"character":4},"context":{"includeDeclaration":true}}}Content-Length: 124

{"jsonrpc":"2.0","id":6,"method":"textDocument/semanticTokens/full","params":{"textDocument":{"uri":"file:///fuzz/k.isam"}}}Content-Length: 119

{"jsonrpc":"2.0","id":7,"method":"textDocument/documentSymbol","params":{"textDocument":{"uri":"file:///fuzz/k.isam"}}}Content-Length: 159

{"jsonrpc":"2.0","id":8,"method":"textDocument/formatting","params":{"textDocument":{"uri":"file:///fuzz/k.isam"},"options":{"tabSize":2,"insertSpaces":true}}}Content-Length: 225

{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///fuzz/k.isam","version":2},"contentChanges":[{"range":{"start":{"line":1,"character":2},"end":{"line":1,"character":3}},"text":"D"}]}}Content-Length: 161

{"jsonrpc":"2.0","id":9,"method":"textDocument/rename","params":{"textDocument":{"uri":"file:///fuzz/k.isam"},"position":{"line":1,"character":4},"newName":"X"}}Content-Length: 118

{"jsonrpc":"2.0","id":10,"method":"textDocument/foldingRange","params":{"textDocument":{"uri":"file:///fuzz/k.isam"}}}Content-Length: 189

{"jsonrpc":"2.0","id":11,"method":"textDocument/inlayHint","params":{"textDocument":{"uri":"file:///fuzz/k.isam"},"range":{"start":{"line":0,"character":0},"end":{"line":3,"character":0}}}}Content-Length: 62

{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":9}}Content-Length: 59

{"jsonrpc":"2.0","id":12,"method":"shutdown","params":null}Content-Length: 47

{"jsonrpc":"2.0","method":"exit","params":null}