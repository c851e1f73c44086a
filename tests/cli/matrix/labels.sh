# ctest: labels=cli timeout=600 env=@cli serial
# Workload instance labels (cells/workload_registry.hpp): two instances of alloc-test in one
# matrix, each with its own table and verdict lines, their records named by the whole name and
# schema-valid; a bad label and an unknown base are refused with what is accepted.
source "$(dirname "$0")/../lib.sh"
"$ALLOCSTRESS" matrix --workload alloc-test:small,alloc-test:big --allocators system --threads 1 --reps 2 --no-counts "${TINY[@]}" \
  --out "$T/l.json" >/dev/null 2>"$T/log" || fail "labelled matrix failed: $(tail -1 "$T/log")"
cells=$(cells_of "$T/l.json") || fail "labelled results are not schema-valid: $cells"
/usr/bin/python3 - "$T/l.json" <<'PY' && pass || fail "records do not carry the labelled names"
import json, sys
it = [b for b in json.load(open(sys.argv[1]))["benchmarks"] if b["run_type"] == "iteration" and b["status"] == "ok"]
names = {(b["workload"], b["allocator"]) for b in it}
assert names == {(w, a) for w in ("alloc-test:small", "alloc-test:big") for a in ("void", "system")}, names
PY
grep -q '^### alloc-test:small$' "$T/l.md" && grep -q '^### alloc-test:big$' "$T/l.md" \
  && grep -q '^\*\*alloc-test:big, 1 thread\*\*: cost' "$T/l.md" && pass || fail "no table or verdict per instance: $(cat "$T/l.md")"
expect_error 2 "bad workload label in 'alloc-test:a/b' (accepted: WORKLOAD:LABEL" -- "$ALLOCSTRESS" run --workload alloc-test:a/b --allocator system
expect_error 2 "unknown workload 'allocc-test:x': did you mean alloc-test?" -- "$ALLOCSTRESS" matrix --workload allocc-test:x --out "$T/x.json"
finish
