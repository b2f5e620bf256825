#!/usr/bin/env bash
# Installs what is missing (proving each toolchain works), builds, and runs every test (unit,
# CLI, fuzz-corpus replay, language server, end-to-end); then the unit, CLI and fuzz-replay
# tests again under AddressSanitizer and UndefinedBehaviorSanitizer (scripts/sanitize.sh).
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
./scripts/sanitize.sh
