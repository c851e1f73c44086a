# ctest: labels=cli timeout=600 env=@cli serial
# Latency by class against an independent reference: a test allocator (tests/support/
# slow_class_malloc.c) that is glibc plus a spin of at least 20 us of wall time in every malloc of
# 1024..65536 bytes, the profile run's "medium" class here, and nothing else.  The profile run
# (cells/profiling/latency_profile.*) must show it: every medium malloc row (new and re-used
# addresses) has p50 >= 0.9 x 20 us (the spin is a lower bound of the call; the histograms are
# within 6.25%, and the empty bracket subtracted is ~20 ns), and every other row (small mallocs,
# every free) stays near the baseline: p50 <= 2 us and p90 <= 10 us, half the delay (no delayed
# call may land there: with 10% or more of a row's samples delayed, its p90 would be >= 18 us), and
# p50 within 2x + 0.5 us of the same row of the baseline, the same library with the delay off
# (SLOW_CLASS_MALLOC_NS=0: the same classes, the same calls), whose medium rows are fast too.
# Medians and a p90 with margins of 9x or more, not absolute times of single calls: a loaded
# 2-core VM preempts a few samples, which moves neither.
source "$(dirname "$0")/../lib.sh"
DELAY_NS=20000
P=(--profile --sample-every 4 --slots 4096 --iterations 1000000 --max-size-exp 12)

"$ALLOCSTRESS" run --allocator "slow=$SLOW_CLASS_MALLOC" "${P[@]}" >"$T/slow.json" 2>"$T/err" || fail "profile run of the slow-class allocator failed: $(tail -1 "$T/err")"
SLOW_CLASS_MALLOC_NS=0 "$ALLOCSTRESS" run --allocator "slow=$SLOW_CLASS_MALLOC" "${P[@]}" >"$T/base.json" 2>"$T/err" \
  || fail "profile run of the baseline (no delay) failed: $(tail -1 "$T/err")"
/usr/bin/python3 - "$T/slow.json" "$T/base.json" "$DELAY_NS" <<'PY' && pass || fail "the latency by class does not show the one slow class"
import json, sys
def rows(path):
    r = json.loads(open(path).read().strip().splitlines()[-1])
    assert r["status"] == "ok" and r["profile"]["pass"] == "sample", (r.get("reason"), r.get("profile", {}).get("pass"))
    bounds = r["profile"]["size_class_bounds"]
    return bounds, {(x["op"], x["size_class"], x["address"]): x for x in r["profile"]["latency"]}
delay = float(sys.argv[3])
bounds, slow = rows(sys.argv[1])
base_bounds, base = rows(sys.argv[2])
assert base_bounds == bounds, (bounds, base_bounds)
assert set(base) == set(slow), (sorted(base), sorted(slow))
# The model's premise: no usable sizes, so the default bounds; the delayed sizes are the medium class.
assert bounds["small_below"] == 1024 and (bounds["large_from"] is None or bounds["large_from"] > 4096), bounds
medium = [k for k in slow if k[0] == "malloc" and k[1] == "medium"]
others = [k for k in slow if k not in medium]
assert {k[2] for k in medium} == {"new", "reused"}, sorted(slow)
assert ("malloc", "small", "new") in others and ("malloc", "small", "reused") in others and ("free", "small", "any") in others and ("free", "medium", "any") in others, sorted(slow)
report, wrong = [], []  # every violation is listed, not only the first
for k in medium:
    x = slow[k]
    report.append(f"{'/'.join(k)}: p50 {x['p50_ns']:.0f} ns ({x['sampled']} sampled)")
    if x["sampled"] < 20 or x["p50_ns"] < 0.9 * delay:
        wrong.append(f"delayed {'/'.join(k)}: p50 {x['p50_ns']:.0f} ns over {x['sampled']} samples (wanted >= {0.9 * delay:.0f} ns over >= 20)")
    if base[k]["p50_ns"] > 0.1 * delay:
        wrong.append(f"baseline {'/'.join(k)}: p50 {base[k]['p50_ns']:.0f} ns without the delay")
for k in others:
    x, b = slow[k], base[k]
    report.append(f"{'/'.join(k)}: p50 {x['p50_ns']:.0f} ns, p90 {x['p90_ns']:.0f} ns (baseline p50 {b['p50_ns']:.0f} ns)")
    if x["p50_ns"] > 0.1 * delay or x["p90_ns"] > 0.5 * delay:
        wrong.append(f"undelayed {'/'.join(k)}: p50 {x['p50_ns']:.0f} ns, p90 {x['p90_ns']:.0f} ns (wanted <= {0.1 * delay:.0f} and <= {0.5 * delay:.0f})")
    if x["p50_ns"] > 2 * b["p50_ns"] + 500:
        wrong.append(f"undelayed {'/'.join(k)}: p50 {x['p50_ns']:.0f} ns, far from the baseline's {b['p50_ns']:.0f} ns")
print("; ".join(report))
assert not wrong, wrong
PY
finish
