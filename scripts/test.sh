#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test (unit, CLI, end-to-end).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
./scripts/build.sh
# The LSP client the language server's tests drive, from the lockfile.
(cd tests/lsp && npm ci --no-audit --no-fund --loglevel=error)
ctest --test-dir build --output-on-failure -j2 --timeout 600
