#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test (unit, CLI, end-to-end).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
./scripts/build.sh
# The LSP client the language server's tests drive, from the lockfile.
(cd tests/lsp && npm ci --no-audit --no-fund --loglevel=error)
# The VS Code extension, built and packaged (its unit tests and the end-to-end test in
# code-server run under ctest).
(cd editor-extension && npm ci --no-audit --no-fund --loglevel=error && npm run build &&
  npm run package)
ctest --test-dir build --output-on-failure -j2 --timeout 600
