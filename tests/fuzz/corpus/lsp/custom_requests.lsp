Content-Length: 148

{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":null,"capabilities":{},"initializationOptions":{"debounceMs":0}}}Content-Length: 52

{"jsonrpc":"2.0","method":"initialized","params":{}}Content-Length: 292

{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///fuzz/k.isam","languageId":"isam","version":1,"text":"kernel gemm<M, N, K>(A: f32[M, K], B: f32[K, N]) -> (C: f32[M, N]) {\n  C[m, n] += A[m, k] * B[k, n];\n}\ninstance gemm_small = gemm<7, 5, 13>;\n"}}}Content-Length: 163

{"jsonrpc":"2.0","id":2,"method":"isamap/mappings","params":{"textDocument":{"uri":"file:///fuzz/k.isam"},"position":{"line":1,"character":4},"target":"x86_avx2"}}Content-Length: 177

{"jsonrpc":"2.0","id":3,"method":"isamap/schedule","params":{"textDocument":{"uri":"file:///fuzz/k.isam"},"position":{"line":1,"character":4},"target":"systolic16","mapping":0}}Content-Length: 158

{"jsonrpc":"2.0","id":4,"method":"isamap/diagram","params":{"textDocument":{"uri":"file:///fuzz/k.isam"},"position":{"line":1,"character":4},"kind":"kernel"}}Content-Length: 178

{"jsonrpc":"2.0","id":5,"method":"isamap/targetCode","params":{"textDocument":{"uri":"file:///fuzz/k.isam"},"position":{"line":1,"character":4},"target":"x86_avx2","kind":"asm"}}Content-Length: 113

{"jsonrpc":"2.0","id":6,"method":"textDocument/codeLens","params":{"textDocument":{"uri":"file:///fuzz/k.isam"}}}Content-Length: 218

{"jsonrpc":"2.0","id":7,"method":"textDocument/codeAction","params":{"textDocument":{"uri":"file:///fuzz/k.isam"},"range":{"start":{"line":1,"character":0},"end":{"line":1,"character":5}},"context":{"diagnostics":[]}}}Content-Length: 106

{"jsonrpc":"2.0","method":"textDocument/didClose","params":{"textDocument":{"uri":"file:///fuzz/k.isam"}}}Content-Length: 58

{"jsonrpc":"2.0","id":8,"method":"shutdown","params":null}Content-Length: 47

{"jsonrpc":"2.0","method":"exit","params":null}