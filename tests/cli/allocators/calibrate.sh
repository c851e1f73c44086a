# ctest: labels=cli timeout=600 env=@cli serial
# Reproduction calibration (results/reproduction.hpp): `calibrate` takes runs of one matrix and
# writes the factor; a later matrix on this host (the calibration found through
# $ALLOCSTRESS_CALIBRATION) carries a reproduction interval in each timing median, wider than its
# base prediction interval by exactly that factor, and a Reproduction table; without a
# calibration the table says why not.  Then calibrate's bad input.
source "$(dirname "$0")/../lib.sh"
COMMON=(--allocators system,pool --threads 1 --target-ci 0 --no-counts "${TINY[@]}")
M=(--reps 10 "${COMMON[@]}")
for i in 1 2 3; do
  "$ALLOCSTRESS" matrix --out "$T/r$i.json" "${M[@]}" >/dev/null 2>"$T/log$i" || fail "matrix $i failed: $(tail -1 "$T/log$i")"
done
grep -q "^Reproduction intervals: n/a (no calibration at $T/cal.json" <(ALLOCSTRESS_CALIBRATION="$T/cal.json" \
  "$ALLOCSTRESS" matrix --out "$T/none.json" --reps 2 "${COMMON[@]}" >/dev/null 2>&1; cat "$T/none.md") && pass \
  || fail "a run without a calibration does not say why it has no reproduction intervals"

# 2 cells x 3 runs x 2 others = 12 pairs: enough for a 90% factor (9), not for 95% (19).
expect_error 2 "a reproduction factor at 95% needs at least 19 (run, other run) pairs of cells, got 12" \
  -- "$ALLOCSTRESS" calibrate "$T/r1.json" "$T/r2.json" "$T/r3.json" -o "$T/cal.json"
"$ALLOCSTRESS" calibrate "$T/r1.json" "$T/r2.json" "$T/r3.json" -o "$T/cal.json" --level 0.9 >"$T/out" 2>"$T/err" \
  && grep -q "^calibration: factor [0-9.]* at 90% from 3 runs (12 pairs" "$T/out" && pass \
  || fail "calibrate of 3 runs failed or printed no factor: $(cat "$T/out" "$T/err")"

ALLOCSTRESS_CALIBRATION="$T/cal.json" "$ALLOCSTRESS" matrix --out "$T/c.json" "${M[@]}" >/dev/null 2>"$T/log" \
  || fail "matrix with a calibration failed: $(tail -1 "$T/log")"
cells_of "$T/c.json" >/dev/null || fail "results with reproduction intervals are not schema-valid"
/usr/bin/python3 - "$T/c.json" "$T/cal.json" <<'PY' && pass || fail "the reproduction intervals are not the base intervals widened by the factor"
import json, statistics, sys
from math import comb
d, cal = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert d["context"]["reproduction_calibration"]["factor"] == cal["factor"] and cal["level"] == 0.9, d["context"]["reproduction_calibration"]
def base(values, level):  # the distribution-free prediction interval of another run's median, written out again
    xs, n = sorted(values), len(values)
    k = (n + 1) // 2
    p = [comb(j + k - 1, j) * comb(2 * n - j - k, n - j) / comb(2 * n, n) for j in range(n + 1)]
    best = None
    for r in range(1, n // 2 + 1):
        if sum(p[r:n - r + 1]) < level:
            break
        best = (xs[r - 1], xs[n - r])
    return best
seen = 0
for e in d["benchmarks"]:
    if e["run_type"] != "aggregate" or e["aggregate_name"] != "median" or e["allocator"] == "void":
        continue
    rep = e["reproduction"]
    values = [r["net_ns_per_pair"] for r in d["benchmarks"] if r["run_type"] == "iteration" and r["allocator"] == e["allocator"]
              and r["mode"] == "timing" and r["status"] == "ok" and not r["interference"]["disturbed"]]
    lo, hi = base(values, 0.9)
    m = statistics.median(values)
    assert rep["metric"] == "net_ns_per_pair" and rep["n"] == len(values), rep
    assert abs(rep["low"] - (m - cal["factor"] * (m - lo))) < 1e-9 and abs(rep["high"] - (m + cal["factor"] * (hi - m))) < 1e-9, (rep, lo, hi, m)
    seen += 1
assert seen == 2, seen
PY
grep -q "^### Reproduction" "$T/c.md" && grep -q "^| alloc-test | 1 | system | " "$T/c.md" && pass || fail "no Reproduction table in the summary"

# Bad input: one line, exit 2, nothing written.
expect_error 2 "calibrate needs at least 2 results files, got 1" -- "$ALLOCSTRESS" calibrate "$T/r1.json" -o "$T/x.json"
expect_error 2 "is given twice" -- "$ALLOCSTRESS" calibrate "$T/r1.json" "$T/r1.json" -o "$T/x.json"
expect_error 2 "not an allocstress results file" -- "$ALLOCSTRESS" calibrate "$T/r1.json" "$T/cal.json" -o "$T/x.json"
expect_error 2 "invalid --level" -- "$ALLOCSTRESS" calibrate "$T/r1.json" "$T/r2.json" --level 1.5 -o "$T/x.json"
expect_error 2 "exists and is not a calibration file" -- "$ALLOCSTRESS" calibrate "$T/r1.json" "$T/r2.json" --level 0.9 -o "$T/r3.json"
[ ! -e "$T/x.json" ] && cells_of "$T/r3.json" >/dev/null && pass || fail "a refused calibrate wrote or replaced a file"

# Machine costs (calibrate --costs, platform/profilers/cost_measurements.hpp): every cost measured, a median
# inside its interval, in the cycle counter's ticks; --if-missing leaves this host's file alone.
"$ALLOCSTRESS" calibrate --costs --repeats 5 -o "$T/costs.json" >"$T/out" 2>"$T/err" && grep -q "^written: $T/costs.json" "$T/out" && pass \
  || fail "calibrate --costs failed: $(cat "$T/out" "$T/err" | tail -3)"
/usr/bin/python3 - "$T/costs.json" <<'PY' && pass || fail "the machine costs are incomplete or not medians inside their intervals"
import json, socket, sys
doc = json.load(open(sys.argv[1]))
assert doc["schema"] == "allocstress-machine-costs" and doc["host_name"] == socket.gethostname(), doc
names = {"cycles_per_instruction", "l1_latency", "last_level_latency", "ram_latency", "minor_fault", "mmap", "munmap", "madvise", "brk",
         "mprotect", "mremap", "syscall", "lines_per_page"}
assert set(doc["costs"]) == names, set(doc["costs"])
assert doc["costs"].pop("lines_per_page")["value"] >= 1, doc["costs"]
for name, c in doc["costs"].items():
    if name == "cycles_per_instruction" and "n/a" in c:
        continue  # not x86-64: the model charges 1 tick per instruction
    assert 0 < c["low"] <= c["median"] <= c["high"] and c["repeats"] == 5 and c["unit"].endswith("ticks"), (name, c)
lat = doc["costs"]
assert lat["l1_latency"]["median"] < lat["last_level_latency"]["median"] < lat["ram_latency"]["median"], lat
assert lat["minor_fault"]["median"] > lat["syscall"]["median"], lat  # a fault zeroes a page besides entering the kernel
PY
before=$(md5sum <"$T/costs.json")
"$ALLOCSTRESS" calibrate --costs --if-missing -o "$T/costs.json" >"$T/out" 2>&1 && grep -q "not measured again" "$T/out" \
  && [ "$(md5sum <"$T/costs.json")" = "$before" ] && pass || fail "--if-missing measured again: $(cat "$T/out")"
expect_error 2 "calibrate --costs takes no results files, got 1" -- "$ALLOCSTRESS" calibrate --costs "$T/r1.json" -o "$T/x.json"
expect_error 2 "invalid --repeats 3 (accepted: 5 to 1001)" -- "$ALLOCSTRESS" calibrate --costs --repeats 3 -o "$T/x.json"
expect_error 2 "--if-missing goes with --costs" -- "$ALLOCSTRESS" calibrate "$T/r1.json" "$T/r2.json" --if-missing -o "$T/x.json"
expect_error 2 "exists and is not a machine-costs file" -- "$ALLOCSTRESS" calibrate --costs -o "$T/r3.json"
[ ! -e "$T/x.json" ] && cells_of "$T/r3.json" >/dev/null && pass || fail "a refused calibrate --costs wrote or replaced a file"
finish
