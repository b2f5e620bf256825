#!/usr/bin/env bash
# Proves that every toolchain isamap's build and tests use works, rather than that its packages
# are listed as installed: each probe in scripts/probes/ is compiled, linked and run the way the
# build or a test uses it (the cross programs under qemu-user, LLVM through its JIT, ANTLR from
# a grammar). A failing step prints what is missing and the Debian package that provides it,
#   install-deps: the aarch64 C library is missing: install libc6-dev-arm64-cross
# followed by the tool's last lines; every probe runs (in parallel, each in its own directory),
# then the script exits 1 if one failed. Called by install-deps.sh; takes about 25 s of CPU.
set -uo pipefail
probes="$(cd "$(dirname "$0")/probes" && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/isamap-probes.XXXXXX")"
trap 'rm -rf "$work"' EXIT

# step WHAT PACKAGES COMMAND...: runs COMMAND (output to a log); when it fails, says that WHAT
# and names PACKAGES.
step() {
  local what=$1 packages=$2
  shift 2
  if "$@" >log 2>&1; then
    return 0
  fi
  echo "install-deps: $what: install $packages" >&2
  tail -n 4 log | sed 's/^/    /' >&2
  return 1
}
# A program's output must be exactly "ok".
prints_ok() { [ "$("$@")" = ok ]; }

probe_host_cxx() {
  step "the host C++ compiler does not work" "build-essential" \
    g++ -std=c++20 -pthread -o host "$probes/host.cpp" &&
    step "the host C++ program does not run" "build-essential" prints_ok ./host
}

# cross ARCH GNU_TRIPLE DEBIAN_ARCH QEMU [QEMU_ARGS...]: the driver isamap links for
# `run --target` on another architecture (backends/llvm/Cross.cpp), built and run the same way.
cross() {
  local arch=$1 gnu=$2 deb=$3 qemu=$4
  shift 4
  step "the $arch cross compiler is missing" "gcc-$gnu" command -v "$gnu-gcc" &&
    step "the $arch C library is missing" "libc6-dev-$deb-cross" \
      "$gnu-gcc" -O2 -fopenmp -c -o "$arch.o" "$probes/cross-openmp.c" &&
    step "the $arch C library or OpenMP runtime does not link" \
      "libc6-dev-$deb-cross libgomp1-$deb-cross" "$gnu-gcc" -fopenmp -o "$arch" "$arch.o" -lm &&
    step "qemu-user is missing" "qemu-user" command -v "$qemu" &&
    step "the $arch program does not run under $qemu" "libgomp1-$deb-cross qemu-user" \
      prints_ok "$qemu" -L "/usr/$gnu" "$@" "./$arch"
}
probe_aarch64() { cross aarch64 aarch64-linux-gnu arm64 qemu-aarch64; }
probe_riscv64() {
  cross riscv64 riscv64-linux-gnu riscv64 qemu-riscv64 \
    -cpu rv64,v=true,vlen=256,elen=64,vext_spec=v1.0
}

probe_llvm16() {
  step "LLVM 16 is missing" "llvm-16-dev" command -v llvm-config-16 &&
    step "a program does not build against LLVM 16" "llvm-16-dev" \
      sh -c "g++ \$(llvm-config-16 --cxxflags) -o llvm '$probes/llvm.cpp' \
             \$(llvm-config-16 --ldflags --link-shared --libs core orcjit native)" &&
    step "a program built against LLVM 16 does not run" "llvm-16-dev" \
      prints_ok env LD_LIBRARY_PATH="$(llvm-config-16 --libdir)" ./llvm
}

probe_antlr() {
  step "the ANTLR generator does not run" "antlr4" \
    antlr4 -Dlanguage=Cpp -no-visitor -no-listener -o gen "$probes/Probe.g4" &&
    step "the ANTLR C++ runtime does not link" "libantlr4-runtime-dev" \
      g++ -std=c++17 -fno-char8_t -w -I gen -I /usr/include/antlr4-runtime -o antlr \
      "$probes/antlr.cpp" gen/ProbeLexer.cpp gen/ProbeParser.cpp -lantlr4-runtime &&
    step "the ANTLR probe does not parse" "libantlr4-runtime-dev" prints_ok ./antlr
}

probe_graphviz() {
  step "Graphviz's libgvc does not link" "libgraphviz-dev" \
    sh -c "gcc -o graphviz '$probes/graphviz.c' \$(pkg-config --cflags --libs libgvc libcgraph)" &&
    step "Graphviz does not render SVG (its dot plugin)" "graphviz libgraphviz-dev" \
      prints_ok ./graphviz
}

probe_blas() {
  local lib=/usr/lib/x86_64-linux-gnu
  [ -d "$lib" ] || lib="/usr/lib/$(gcc -print-multiarch)"
  step "OpenBLAS does not link" "libopenblas-dev" \
    gcc -o openblas "$probes/cblas.c" "$lib/libopenblas.so" &&
    step "OpenBLAS's sgemm does not run" "libopenblas-dev" prints_ok ./openblas &&
    step "BLIS does not link" "libblis-dev" gcc -o blis "$probes/cblas.c" "$lib/libblis.so" &&
    step "BLIS's sgemm does not run" "libblis-dev" prints_ok ./blis &&
    step "oneDNN does not link" "libdnnl-dev" gcc -o onednn "$probes/onednn.c" -ldnnl &&
    step "oneDNN's sgemm does not run" "libdnnl-dev" prints_ok ./onednn
}

probe_gtest() {
  step "GoogleTest or GoogleMock does not link" "libgtest-dev libgmock-dev" \
    g++ -std=c++20 -pthread -o gtest "$probes/gtest.cpp" -lgmock -lgtest_main -lgtest &&
    step "the GoogleTest probe fails" "libgtest-dev libgmock-dev" ./gtest
}

probe_headers() {
  step "nlohmann_json, Boost.Asio or CLI11 does not compile" \
    "nlohmann-json3-dev libboost-dev libcli11-dev" \
    g++ -std=c++20 -pthread -o headers "$probes/headers.cpp" &&
    step "the header-only libraries' probe fails" "nlohmann-json3-dev libboost-dev libcli11-dev" \
      prints_ok ./headers -n 7
}

probe_node() {
  step "Node.js does not run" "nodejs" node -e 'process.exit(0)' &&
    step "npm does not run" "npm" npm --version
}

# The fuzz targets (scripts/fuzz.sh): clang 16 with the ANTLR headers, libFuzzer and ASan.
probe_clang16() {
  step "clang 16 is missing" "clang-16" command -v clang++-16 &&
    step "clang 16 does not link a libFuzzer target" "libclang-rt-16-dev" \
      clang++-16 -std=c++17 -fsanitize=fuzzer,address -I /usr/include/antlr4-runtime \
      -o fuzzer "$probes/fuzzer.cpp" -lantlr4-runtime &&
    step "the libFuzzer probe does not run" "libclang-rt-16-dev" ./fuzzer -runs=100
}

# The format_check test (scripts/check-format.sh) and scripts/tidy.sh: clang-format with the
# repository's style, and clang-tidy on a C++20 file with the standard library.
probe_clang_tools() {
  local style="file:$probes/../../.clang-format"
  step "clang-format is missing" "clang-format" command -v clang-format &&
    step "clang-format does not format with .clang-format" "clang-format" sh -c \
      "clang-format --style='$style' --assume-filename=x.cpp <'$probes/unformatted.cpp' |
         diff -q - '$probes/formatted.cpp'" &&
    step "clang-format --dry-run -Werror passes an unformatted file" "clang-format" sh -c \
      "! clang-format --style='$style' --dry-run -Werror '$probes/unformatted.cpp'" &&
    step "clang-tidy is missing" "clang-tidy" command -v clang-tidy &&
    step "run-clang-tidy is missing" "clang-tidy" command -v run-clang-tidy &&
    step "clang-tidy does not find a use after move" "clang-tidy" sh -c \
      "clang-tidy --checks='-*,bugprone-use-after-move' '$probes/formatted.cpp' -- -std=c++20 |
         grep -q 'bugprone-use-after-move'"
}

# The source-file tests (tests/lit): lit runs a test whose RUN line pipes into FileCheck.
probe_lit() {
  mkdir -p lit && printf '%s\n' "config.name = 'probe'" "import lit.formats" \
    "config.test_format = lit.formats.ShTest(True)" "config.suffixes = ['.txt']" >lit/lit.cfg.py &&
    printf '%s\n' 'RUN: echo ok | /usr/lib/llvm-16/bin/FileCheck %s' 'CHECK: ok' >lit/probe.txt &&
    step "lit or FileCheck do not run" "llvm-16-tools python3" \
      python3 /usr/lib/llvm-16/build/utils/lit/lit.py -q lit
}

# What the build runs and what `isamap_add_kernels` asks of a consumer's build (the
# consumer_project test): CMake configuring a C project for Ninja, which links libgomp and libm.
probe_cmake_ninja() {
  mkdir -p cm &&
    cp "$probes/cross-openmp.c" cm/probe.c &&
    printf '%s\n' 'cmake_minimum_required(VERSION 3.25)' 'project(probe LANGUAGES C)' \
      'add_executable(probe probe.c)' 'target_compile_options(probe PRIVATE -fopenmp)' \
      'target_link_libraries(probe PRIVATE gomp m)' >cm/CMakeLists.txt &&
    step "CMake does not configure a Ninja build" "cmake ninja-build" \
      cmake -S cm -B cm/build -G Ninja &&
    step "Ninja does not build the CMake project" "ninja-build build-essential" \
      cmake --build cm/build &&
    step "the CMake-built program does not run" "build-essential" prints_ok cm/build/probe
}

# The .npz archives of `run --inputs/--outputs` (zlib: inflate and CRC-32), and the tests'
# round trips through Debian's NumPy (/usr/bin/python3, whatever python3 comes first in PATH).
probe_zlib() {
  printf '%s\n' '#include <stdio.h>' '#include <zlib.h>' \
    'int main(void) { return crc32(0L, (const Bytef *)"ok", 2) ? (puts("ok"), 0) : 1; }' >z.c &&
    step "zlib does not link" "zlib1g-dev" cc -o z z.c -lz &&
    step "the zlib probe fails" "zlib1g-dev" prints_ok ./z
}
# Every number the commands print (core/source/Quantities.cpp).
probe_fmt() {
  printf '%s\n' '#include <fmt/format.h>' \
    'int main() { fmt::print("{}\n", fmt::format("{}{}", "o", "k")); }' >f.cpp &&
    step "libfmt does not link" "libfmt-dev" c++ -std=c++17 -o f f.cpp -lfmt &&
    step "the libfmt probe fails" "libfmt-dev" prints_ok ./f
}
probe_jsonschema() {
  step "jsonschema does not validate" "python3-jsonschema" prints_ok /usr/bin/python3 -c \
    "import jsonschema as j; j.validate({'version': 1}, {'properties': {'version': {'const': 1}}}); print('ok')"
}
# tests/schemas/sarif.py reads the SARIF 2.1.0 object model that quicktype generated from the
# published schema (Go structs; no Go toolchain is needed to read them).
probe_sarif_model() {
  step "the SARIF object model is missing" "golang-github-haya14busa-go-sarif-dev" prints_ok \
    /usr/bin/python3 -c "import re; t = open('/usr/share/gocode/src/github.com/haya14busa/go-sarif/sarif/sarif.go').read(); print('ok' if re.search(r'^type Result struct', t, re.M) else 'no')"
}
probe_zsh() {
  step "zsh does not run" "zsh" prints_ok zsh -c 'autoload -U compinit && print ok'
}
probe_numpy() {
  step "NumPy does not save and load an .npz archive" "python3-numpy" prints_ok /usr/bin/python3 -c \
    "import io, numpy as np; b = io.BytesIO(); np.savez(b, a=np.arange(3)); b.seek(0); print('ok' if np.load(b)['a'].sum() == 3 else 'no')"
}

# What the editor extension's end-to-end test drives.
probe_chromium() {
  step "Chromium does not run" "chromium" chromium --version
}

probes_run=(
  "host C++:probe_host_cxx" "CMake, Ninja:probe_cmake_ninja" "aarch64:probe_aarch64" "riscv64:probe_riscv64" "LLVM 16:probe_llvm16"
  "lit, FileCheck:probe_lit"
  "ANTLR:probe_antlr" "Graphviz:probe_graphviz" "OpenBLAS, BLIS, oneDNN:probe_blas"
  "GoogleTest:probe_gtest" "nlohmann_json, Boost.Asio, CLI11:probe_headers"
  "Node.js, npm:probe_node" "clang 16 (libFuzzer):probe_clang16" "Chromium:probe_chromium"
  "clang-format, clang-tidy:probe_clang_tools" "zlib:probe_zlib" "libfmt:probe_fmt" "NumPy:probe_numpy" "jsonschema:probe_jsonschema" "SARIF model:probe_sarif_model" "zsh:probe_zsh"
)
start=$SECONDS
pids=()
for entry in "${probes_run[@]}"; do
  function=${entry##*:}
  mkdir "$work/$function"
  (cd "$work/$function" && "$function") 2>"$work/$function/messages" &
  pids+=($!)
done
passed=()
failed=()
for i in "${!probes_run[@]}"; do
  entry=${probes_run[$i]}
  if wait "${pids[$i]}"; then
    passed+=("${entry%:*}")
  else
    failed+=("${entry%:*}")
    cat "$work/${entry##*:}/messages" >&2
  fi
done

# join ITEM...: the items separated by "; ".
join() {
  local out=$1
  shift
  for item in "$@"; do out+="; $item"; done
  echo "$out"
}
if [ ${#failed[@]} -ne 0 ]; then
  echo "install-deps: ${#failed[@]} toolchain(s) do not work: $(join "${failed[@]}")" >&2
  exit 1
fi
echo "install-deps: every toolchain works ($(join "${passed[@]}"); $((SECONDS - start)) s)"
