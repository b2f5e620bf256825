#!/usr/bin/env bash
# A long differential-testing campaign: COUNT random kernels (default 10000) from SEED, run on
# every executor and target this machine has (qemu targets on every 25th kernel), compared with
# the reference interpreter. Failing kernels are minimised and written to
# build/difftest-SEED/, one .isam file each with a header saying what differed. Every generator
# feature is on; extra arguments go to isamap_difftest (e.g. --no-partial-writes, --targets
# host,systolic16, --cross-every 0). Exit status: 0 no findings, 1 findings, 2 usage.
set -euo pipefail
if [ $# -lt 1 ] || ! [[ "$1" =~ ^[0-9]+$ ]]; then
  echo "usage: scripts/difftest.sh SEED [COUNT] [isamap_difftest options...]" >&2
  exit 2
fi
seed=$1
count=10000
shift
if [ $# -ge 1 ] && [[ "$1" =~ ^[0-9]+$ ]]; then
  count=$1
  shift
fi
cd "$(dirname "$0")/.."
if [ ! -d build ]; then
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake --build build --target isamap_difftest >/dev/null
out=build/difftest-$seed
echo "difftest: $count kernels from seed $seed; findings in $out/"
exec build/tests/difftest/isamap_difftest --seed "$seed" --count "$count" --minimize \
  --out "$out" "$@"
