#!/usr/bin/env bash
# Runs clang-tidy with the repository's .clang-tidy over isamap's own sources, as compiled in
# build/compile_commands.json (scripts/build.sh writes it; the generated parser is left out).
# Not part of the test command: it takes about 40 CPU-minutes. Prints each finding once
# (a header's finding is reported by every file that includes it) and their number by check;
# exits 1 when there is any.
#   scripts/tidy.sh [FILE_REGEX]      e.g. scripts/tidy.sh 'core/sema/'
#   BUILD_DIR=build-x CLANG_TIDY=clang-tidy-16 scripts/tidy.sh
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build}
tidy=${CLANG_TIDY:-clang-tidy}
runner=${RUN_CLANG_TIDY:-run-clang-tidy}
for tool in "$tidy" "$runner"; do
  command -v "$tool" >/dev/null || {
    echo "tidy: $tool is not installed (scripts/install-deps.sh installs clang-tidy)" >&2
    exit 2
  }
done
[ -f "$build/compile_commands.json" ] || {
  echo "tidy: no $build/compile_commands.json: run scripts/build.sh first" >&2
  exit 2
}
regex=${1:-"$PWD/(core|backends|viz|report|lsp|cli|bench|tests)/.*[.]cpp\$"}
log="$build/tidy.log"
"$runner" -clang-tidy-binary "$(command -v "$tidy")" -p "$build" -quiet -j "$(nproc)" \
  "$regex" >"$log" 2>&1 || true
# run-clang-tidy colours its output; the escapes are taken out before matching.
findings=$(sed -E 's/\x1b\[[0-9;]*m//g' "$log" |
  grep -E '^/.*:[0-9]+:[0-9]+: (warning|error): .*\[[^]]+\]$' | sort -u || true)
if [ -z "$findings" ]; then
  echo "tidy: no findings (log: $log)"
  exit 0
fi
echo "$findings" | sed "s|^$PWD/||"
echo
echo "$findings" | sed -E 's/.*\[([^]]+)\]$/\1/' | sort | uniq -c | sort -rn
echo "tidy: $(echo "$findings" | wc -l) finding(s) (log: $log)" >&2
exit 1
