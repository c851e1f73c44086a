# The layering check itself: on a made-up tree it names a wrong include (file, include, rule),
# a file in no layer, and passes a tree whose includes follow the table.
set -u
CHECK="$(dirname "$0")/check_layers.py"
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
[ $status = 0 ] && echo "layering self-test passed"
exit $status
