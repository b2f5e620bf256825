#!/usr/bin/env bash
# The main job on the shipped samples: install what is missing, build, check every sample and
# hardware description, then compile GEMMs for this machine, check a small one against the
# reference interpreter, time a DeepBench one, and write that as a shared library and C header.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
./scripts/build.sh
./build/cli/isamap check samples/*.isam hwdesc/*.isam
./build/cli/isamap schedule samples/gemm.isam --target host --instance gemm_small
./build/cli/isamap run samples/gemm.isam --target host --instance gemm_small --check
./build/cli/isamap run samples/gemm.isam --target host --instance gemm_1760x128x1760 --repeat 20 --show 0
mkdir -p build/demo
./build/cli/isamap compile samples/gemm.isam --target host --instance gemm_1760x128x1760 --emit=shared -o build/demo/libgemm.so
./build/cli/isamap compile samples/gemm.isam --target host --instance gemm_1760x128x1760 --emit=header -o build/demo/gemm.h
