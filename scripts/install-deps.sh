#!/usr/bin/env bash
# Installs, from Debian 12's packages, whatever isamap's build and tests need and the machine
# lacks, then proves that each toolchain works (scripts/check-toolchains.sh compiles, links and
# runs a tiny program with each) and exits 1 naming the package when one does not.
# Idempotent: packages already present are skipped, so a second run only checks.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"

packages=(
  build-essential cmake ninja-build pkg-config git
  llvm-16-dev                                   # LLVM, pinned to 16
  llvm-16-tools                                 # lit and FileCheck (tests/lit)
  libzstd-dev zlib1g-dev libedit-dev libxml2-dev libcurl4-openssl-dev  # what LLVM's CMake package links
  antlr4 libantlr4-runtime-dev                  # parser generator (4.7.2) and C++ runtime (4.9)
  nlohmann-json3-dev libboost-dev libcli11-dev libfmt-dev
  graphviz libgraphviz-dev
  libgtest-dev libgmock-dev
  python3-numpy python3-jsonschema              # tests/cli: .npy round trips, docs/schemas
  golang-github-haya14busa-go-sarif-dev         # tests/schemas/sarif.py: the SARIF 2.1.0 object model
  zsh                                           # tests/cli: the generated zsh completion parses
  clang-format clang-tidy                       # format_check, scripts/tidy.sh
  clang-16 libclang-rt-16-dev                   # the libFuzzer targets (scripts/fuzz.sh)
  libopenblas-dev libblis-dev libdnnl-dev       # bench/: the reference BLAS libraries
  # The editor extension's end-to-end test: a browser (driven by playwright-core), fonts for it,
  # and what code-server's native modules build with (node-gyp: python3; kerberos: libkrb5).
  chromium fonts-liberation libkrb5-dev python3
  # Running AArch64 and RISC-V code (isamap run --target arm_neon|riscv_rvv): cross compilers,
  # their C libraries (only *recommended* by the compilers, so named here) and OpenMP runtimes,
  # and qemu-user.
  gcc-aarch64-linux-gnu gcc-riscv64-linux-gnu libc6-dev-arm64-cross libc6-dev-riscv64-cross
  libgomp1-arm64-cross libgomp1-riscv64-cross qemu-user
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Node.js and npm run the language server's client tests; a machine that has them (from any
# source) keeps its own, one that lacks them gets Debian's.
command -v node >/dev/null || missing+=(nodejs)
command -v npm >/dev/null || missing+=(npm)

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: every package is installed"
else
  echo "install-deps: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# Listed is not working: a package can be installed and its toolchain still broken (a cross
# compiler without its C library). Prove each one.
"$here/check-toolchains.sh"
