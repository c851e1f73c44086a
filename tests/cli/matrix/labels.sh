# ctest: labels=cli timeout=600 env=@cli serial
# Workload instance labels (cells/workload_registry.hpp): two instances of alloc-test in one
# matrix, each with its own table and verdict lines (where it ranks), their records named by the whole name and
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
# A table per instance, and its own cost line in the verdict whenever its table ranks system (an
# interval needs two undisturbed processes: on a busy machine a cell may have fewer).
/usr/bin/python3 - "$T/l.md" <<'PY' && pass || fail "no table or verdict per instance: $(cat "$T/l.md")"
import sys
md, bad = open(sys.argv[1]).read(), []
for label in ("small", "big"):
    if f"\n### alloc-test:{label}\n" not in md:
        bad.append(f"no table of alloc-test:{label}")
        continue
    table = md.split(f"\n### alloc-test:{label}\n", 1)[1].split("\n###", 1)[0]
    ranked = any(line.startswith("| system |") and line.split("|")[6].strip() != "n/a" for line in table.splitlines())
    if (f"**alloc-test:{label}, 1 thread**: cost" in md) != ranked:
        bad.append(f"alloc-test:{label}: a verdict cost line {'missing' if ranked else 'without an interval to rank'}")
print("\n".join(bad), file=sys.stderr)
sys.exit(1 if bad else 0)
PY
expect_error 2 "bad workload label in 'alloc-test:a/b' (accepted: WORKLOAD:LABEL" -- "$ALLOCSTRESS" run --workload alloc-test:a/b --allocator system
expect_error 2 "unknown workload 'allocc-test:x': did you mean alloc-test?" -- "$ALLOCSTRESS" matrix --workload allocc-test:x --out "$T/x.json"
finish
