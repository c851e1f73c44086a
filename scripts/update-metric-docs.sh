#!/usr/bin/env bash
# Rewrites the generated metric-catalogue section of results/README.md (between its
# "metric-catalogue:begin" and "metric-catalogue:end" markers) from `allocstress metrics --markdown`.
# Usage: scripts/update-metric-docs.sh [path/to/allocstress]   (default: build/release/allocstress)
set -euo pipefail
cd "$(dirname "$0")/.."
exe=${1:-build/release/allocstress}
[ -x "$exe" ] || { echo "update-metric-docs: $exe is not built (cmake --build --preset release --target allocstress)" >&2; exit 1; }
table=$("$exe" metrics --markdown)
/usr/bin/python3 - results/README.md "$table" <<'PY'
import re, sys
path, table = sys.argv[1], sys.argv[2]
text = open(path).read()
pattern = re.compile(r"(<!-- metric-catalogue:begin[^>]*-->\n).*?(<!-- metric-catalogue:end -->)", re.S)
if not pattern.search(text):
    sys.exit(f"update-metric-docs: {path} has no metric-catalogue markers")
open(path + ".tmp", "w").write(pattern.sub(lambda m: m.group(1) + table.rstrip("\n") + "\n" + m.group(2), text))
import os; os.replace(path + ".tmp", path)
print(f"update-metric-docs: {path} updated")
PY
