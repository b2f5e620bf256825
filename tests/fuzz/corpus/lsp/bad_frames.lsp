Content-Length: 148

{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":null,"capabilities":{},"initializationOptions":{"debounceMs":0}}}Content-Length: 99999999999999999999

{}Content-Type: application/vscode-jsonrpc

Content-Length: 10

{"jsonrpc"Content-Length: 9

[1, 2, 3]Content-Length: 43

{"jsonrpc":"2.0","id":{"a":1},"method":"x"}Content-Length: 65

{"jsonrpc":"2.0","id":3,"method":"textDocument/hover","params":7}Content-Length: 40

{"jsonrpc":"2.0","id":4,"method":"nope"}Content-Length: 11

not json ÿþContent-Length: 20

{"jsonrpc":"2.0Content-Length: 58

{"jsonrpc":"2.0","id":5,"method":"initialize","params":{}}Content-Length: 47

{"jsonrpc":"2.0","method":"exit","params":null}