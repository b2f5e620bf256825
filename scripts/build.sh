#!/usr/bin/env bash
# Configures and builds isamap into build/ (Release, Ninja), with assertions and the IR
# verifiers on (-DISAMAP_ENABLE_ASSERTIONS=ON: build/ is the tree the tests run in, as LLVM's
# "Release+Asserts"; README "Build options"). Extra arguments go to CMake, after these, so
# benchmarks without the verifiers' overhead build with
#   ./scripts/build.sh -DISAMAP_ENABLE_ASSERTIONS=OFF
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DISAMAP_ENABLE_ASSERTIONS=ON "$@" \
  >/dev/null
cmake --build build
