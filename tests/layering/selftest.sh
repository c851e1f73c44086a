# The layering check itself, in two parts.
# 1. On a made-up tree it names a wrong include (file, include, rule), a file in no layer, and
#    passes a tree whose includes follow the table.
# 2. On a temporary copy of this repository's sources (which must pass), each kind of violation is
#    planted in a fresh copy of its own -- a bad C++ include, a bad Python import, a private name
#    imported across modules, a Python import circle, a bad CMake link -- and the check must fail
#    naming it.
set -u
HERE="$(cd "$(dirname "$0")" && pwd)"
CHECK="$HERE/check_layers.py"
ROOT="$(cd "$HERE/../.." && pwd)"
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
status=0
mkdir -p "$T/platform" "$T/cells" "$T/cli" "$T/stray"
printf '#pragma once\n' > "$T/cells/cell.hpp"
printf '#pragma once\n' > "$T/stray/x.hpp"
printf '#include "cells/cell.hpp"\n#include <vector>\n' > "$T/cli/ok.cpp"
printf '#include "platform/clock.hpp"\n' > "$T/cells/ok.cpp"
printf '#pragma once\n' > "$T/platform/clock.hpp"
out=$(/usr/bin/python3 "$CHECK" "$T" 2>/dev/null) || { echo "FAIL: a clean tree was refused: $out"; status=1; }
printf '#include "../cells/cell.hpp"\n' > "$T/platform/bad.cpp"
printf '#include "cli/ok.cpp"\n' > "$T/cells/worse.cpp"
out=$(/usr/bin/python3 "$CHECK" "$T" 2>/dev/null) && { echo "FAIL: violations passed"; status=1; }
grep -q '^platform/bad.cpp: includes "../cells/cell.hpp" (cells/cell.hpp): platform/ may include only nothing of the project'"'"'s' <<<"$out" ||
  { echo "FAIL: upward include not named: $out"; status=1; }
grep -q '^cells/worse.cpp: includes "cli/ok.cpp" (cli/ok.cpp): cells/ may include only platform, allocators, trace, workloads' <<<"$out" ||
  { echo "FAIL: include of cli/ not named: $out"; status=1; }
[ "$(grep -c '' <<<"$out")" = 2 ] || { echo "FAIL: expected exactly 2 violations: $out"; status=1; }

# Part 2: the repository's sources, Python package and CMake files (no build folder, no .git).
CLEAN="$T/repo"
mkdir -p "$CLEAN"
(cd "$ROOT" && find . \( -path ./build -o -path ./.git -o -name __pycache__ \) -prune -o -type f \( -name '*.c' -o -name '*.h' \
   -o -name '*.cpp' -o -name '*.hpp' -o -name '*.py' -o -name CMakeLists.txt -o -name '*.cmake' \) -print | tar -cf - -T -) |
  tar -xf - -C "$CLEAN"
out=$(/usr/bin/python3 "$CHECK" "$CLEAN" 2>/dev/null) || { echo "FAIL: the repository's copy was refused: $out"; status=1; }

# plant NAME FILE LINE EXPECTED [COUNT]: a fresh copy with LINE appended to FILE must fail with a line
# containing EXPECTED, and COUNT violations in all (default 1).
plant() {
  local copy="$T/$1"
  rm -rf "$copy"; cp -a "$CLEAN" "$copy"
  printf '%s\n' "$3" >> "$copy/$2"
  local got
  got=$(/usr/bin/python3 "$CHECK" "$copy" 2>/dev/null) && { echo "FAIL: $1 passed"; status=1; return; }
  grep -qF -- "$4" <<<"$got" || { echo "FAIL: $1 not named (expected '$4'): $got"; status=1; }
  [ "$(grep -c '' <<<"$got")" = "${5:-1}" ] || { echo "FAIL: $1: expected exactly ${5:-1} violation(s): $got"; status=1; }
  rm -rf "$copy"
}
PKG=analysis/allocstress
plant cpp-include results/tables/results_table.cpp '#include "cli/commands.hpp"' \
  'results/tables/results_table.cpp: includes "cli/commands.hpp" (cli/commands.hpp): results/ may include only'
plant python-import $PKG/stats/statistics.py 'from ..reporting import report' \
  "$PKG/stats/statistics.py:$(($(wc -l < "$ROOT/$PKG/stats/statistics.py") + 1)): imports allocstress.reporting.report: stats may import only _core (tests/layering/python_layers.txt)" 2  # and the circle it closes
plant python-absolute-import $PKG/results/loading.py 'import allocstress.figures.plots' \
  "$PKG/results/loading.py:$(($(wc -l < "$ROOT/$PKG/results/loading.py") + 1)): imports allocstress.figures.plots: results may import only _core, version, stats"
plant python-private-name $PKG/tabulation/structures.py 'from .tables import _values' \
  "imports the private name _values from allocstress.tabulation.tables"
plant python-circle $PKG/comparison/compare_decision.py 'from . import compare_text' \
  "$PKG: import circle: allocstress.comparison.compare <-> allocstress.comparison.compare_counts <-> allocstress.comparison.compare_decision"
plant cmake-link platform/CMakeLists.txt 'target_link_libraries(allocstress_platform PRIVATE allocstress_run)' \
  'allocstress_platform links allocstress_run (run/): platform/ may link only nothing of the project'"'"'s'
[ $status = 0 ] && echo "layering self-test passed"
exit $status
