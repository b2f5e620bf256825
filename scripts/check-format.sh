#!/usr/bin/env bash
# Checks that every C and C++ source of isamap is formatted as .clang-format says (the
# format_check test runs it): clang-format --dry-run -Werror over the repository's sources, not
# build trees (build*/: the generated parser), node_modules or scripts/probes (the toolchain
# probes, one of them unformatted on purpose). Prints each file that differs and
# exits 1 when there is one; `scripts/check-format.sh --fix` reformats them in place instead.
#   CLANG_FORMAT=clang-format-16 scripts/check-format.sh   picks another clang-format.
set -euo pipefail
cd "$(dirname "$0")/.."
clang_format=${CLANG_FORMAT:-clang-format}
command -v "$clang_format" >/dev/null || {
  echo "check-format: $clang_format is not installed (scripts/install-deps.sh installs it)" >&2
  exit 2
}

files=()
while IFS= read -r -d '' f; do
  files+=("$f")
done < <(find . \( -path ./.git -o -path './build*' -o -name node_modules \
  -o -path ./scripts/probes \) -prune -o \
  -type f \( -name '*.cpp' -o -name '*.h' -o -name '*.c' \) -printf '%P\0' | sort -z)

if [ "${1:-}" = --fix ]; then
  "$clang_format" -i "${files[@]}"
  exit 0
fi

# One process for all files; each difference is reported as "FILE:LINE:COL: error: ...".
status=0
report=$("$clang_format" --dry-run -Werror "${files[@]}" 2>&1) || status=$?
if [ $status -ne 0 ]; then
  bad=$(echo "$report" | sed -nE 's/^([^:]+):[0-9]+:[0-9]+: error: .*/\1/p' | sort -u)
  if [ -z "$bad" ]; then
    echo "$report" >&2 # clang-format itself failed
    exit 1
  fi
  echo "$bad"
  echo "check-format: $(echo "$bad" | wc -l) of ${#files[@]} files differ from .clang-format" \
    "(scripts/check-format.sh --fix reformats them)" >&2
  exit 1
fi
echo "check-format: ${#files[@]} files formatted"
