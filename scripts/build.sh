#!/usr/bin/env bash
# Configures and builds isamap into build/ (Release, Ninja). Extra arguments go to CMake.
# build/ is the tree the tests run in, so the stage verifiers are on
# (ISAMAP_ENABLE_ASSERTIONS); benchmarks without their overhead:
#   ./scripts/build.sh -DISAMAP_ENABLE_ASSERTIONS=OFF
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DISAMAP_ENABLE_ASSERTIONS=ON "$@" >/dev/null
cmake --build build
