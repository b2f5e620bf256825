#!/usr/bin/env bash
# The main job on the shipped samples: install what is missing, build, check every sample and
# hardware description, then compile GEMMs for this machine, check a small one against the
# reference interpreter, time a DeepBench one, and write that as a shared library and C header;
# then the same small GEMM as systolic16's instruction stream, run and checked on the simulator.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
./scripts/build.sh
./build/cli/isamap check samples/*.isam hwdesc/*.isam hwdesc/variants/*.isam
./build/cli/isamap schedule samples/gemm.isam --target host --instance gemm_small
./build/cli/isamap run samples/gemm.isam --target host --instance gemm_small --check
./build/cli/isamap run samples/gemm.isam --target host --instance gemm_1760x128x1760 --repeat 20 --show 0
mkdir -p build/demo
./build/cli/isamap compile samples/gemm.isam --target host --instance gemm_1760x128x1760 --emit=shared -o build/demo/libgemm.so
./build/cli/isamap compile samples/gemm.isam --target host --instance gemm_1760x128x1760 --emit=header -o build/demo/gemm.h
./build/cli/isamap compile samples/gemm.isam --target systolic16 --instance gemm_small -o build/demo/gemm_small.systolic16.s
./build/cli/isamap run samples/gemm.isam --target systolic16 --kernel gemm -D M=256 -D N=256 -D K=256 --check --show 0 --trace build/demo/gemm.systolic16.trace.json
