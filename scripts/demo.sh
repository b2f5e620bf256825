#!/usr/bin/env bash
# The main job on the shipped samples: install what is missing, build, then check every sample
# and hardware description and print the IR of one.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
./scripts/build.sh
./build/cli/isamap check samples/*.isam hwdesc/*.isam
./build/cli/isamap dump-ir samples/gemm.isam --instance gemm_small
