#!/usr/bin/env bash
# A libFuzzer campaign: scripts/fuzz.sh [parse|lsp] [SECONDS] [LIBFUZZER_OPTION...]
#   parse  the front end on any text: lexer, parser, every semantic check, index, formatter
#   lsp    the language server on any byte stream: framing, JSON-RPC, lifecycle, features
# (tests/fuzz/*Fuzzer.cpp). Defaults: parse, 600 seconds.
#
# Builds the target with clang 16 into build-fuzz/ (-DISAMAP_FUZZ=ON: AddressSanitizer,
# UndefinedBehaviorSanitizer and libFuzzer's coverage on all of isamap), then fuzzes from the
# seed corpus tests/fuzz/corpus/TARGET (and, for parse, the samples and descriptions) with the
# target's dictionary. What the campaign learns is kept in build-fuzz/corpus/TARGET for the
# next run; a crash is written to build-fuzz/crashes/TARGET/ and ends the run (exit 1).
# Reproduce one with `build-fuzz/tests/isamap_TARGET_fuzzer FILE` or, in the normal build,
# `build/tests/isamap_TARGET_replay FILE`; add it to tests/fuzz/corpus/TARGET once fixed.
set -euo pipefail
cd "$(dirname "$0")/.."
target=${1:-parse}
seconds=${2:-600}
shift $(($# < 2 ? $# : 2))
case $target in
parse | lsp) ;;
*)
  echo "usage: scripts/fuzz.sh [parse|lsp] [SECONDS] [LIBFUZZER_OPTION...]" >&2
  exit 2
  ;;
esac
CC=clang-16 CXX=clang++-16 cmake -S . -B build-fuzz -G Ninja -DISAMAP_FUZZ=ON \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build-fuzz --target "isamap_${target}_fuzzer"

corpus=build-fuzz/corpus/$target crashes=build-fuzz/crashes/$target
mkdir -p "$corpus" "$crashes"
seeds=("tests/fuzz/corpus/$target")
[ "$target" = parse ] && seeds+=(samples hwdesc)
# Inputs stay small (the parser's known limits on long tokens and deep nesting are tested
# apart); an input that runs over 60 s counts as a hang. Leaks are reported, and findings
# inside Graphviz and its font libraries suppressed, as for scripts/sanitize.sh.
supp="$PWD/scripts/sanitizers"
export ASAN_OPTIONS="detect_leaks=1:suppressions=$supp/asan.supp:${ASAN_OPTIONS:-}"
export LSAN_OPTIONS="suppressions=$supp/lsan.supp:print_suppressions=0:${LSAN_OPTIONS:-}"
exec "build-fuzz/tests/isamap_${target}_fuzzer" "$corpus" "${seeds[@]}" \
  -dict="tests/fuzz/$target.dict" -max_total_time="$seconds" -max_len=4096 -timeout=60 \
  -artifact_prefix="$crashes/" -print_final_stats=1 "$@"
