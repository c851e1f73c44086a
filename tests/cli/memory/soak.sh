# ctest: labels=cli timeout=600 env=@cli,MAKE_TRACE serial
# `--soak SPEC`: a steady workload's measured phase made to last a set time.  `run --soak` gives a
# record of mode soak whose measured phase lasted the duration, whose workers ran soak rounds on
# the same heap (more operations than the plain cell), and whose soak block has one bin per
# complete BIN of the timeline with its readings (at the sampler's recorded pace, 8 a bin at
# least), and a drift (an interval from 5 fitted bins on, none below).  A matrix with --soak adds
# one soak cell per allocator (void aside) after the other cells, whose plan entry reruns as
# itself, with valid results and the soak table.  lifetime runs its clock on past N, replay loops
# its trace (all workers together).  Bad specs and workloads without a steady state get one error
# line and exit 2.
source "$(dirname "$0")/../lib.sh"
VALIDATOR="$(dirname "$0")/../validate_results.py"
SCHEMA="$(dirname "$0")/../../../results/schema.json"

soak_fields() {  # status mode wall_s ops bins samples_in_bins fitted drift_low rounds, one line
  /usr/bin/python3 -c "
import json, sys
r = json.loads(sys.stdin.read().strip().splitlines()[-1])
s = r.get('soak') or {}
d = s.get('drift') or {}
low = (d.get('rss_growth_bytes') or {}).get('low')
print(r['status'], r['mode'], r['wall_time_ns'] / 1e9, r.get('mallocs', 0) + r.get('frees', 0), len(s.get('bins', [])),
      sum(b['samples'] for b in s.get('bins', [])), d.get('fitted_bins', '-'), 'none' if low is None else 'some', s.get('rounds', '-'))"
}

# alloc-test, 5 s in bins of 1 s: 4 fitted bins, too few for an interval.
"$ALLOCSTRESS" run --allocator system "${TINY[@]}" --soak 5s,every=1s >"$T/at_soak" 2>"$T/err"
read -r status mode wall ops bins _ fitted low rounds < <(soak_fields <"$T/at_soak")
[ "$status $mode" = "ok soak" ] && pass || fail "alloc-test soak: $status $mode: $(tail -1 "$T/err")"
/usr/bin/python3 -c "import sys; sys.exit(0 if 5 <= $wall < 8 else 1)" && pass || fail "the soak's measured phase lasted $wall s, not 5"
[ "$bins" = 5 ] && [ "$fitted" = 4 ] && [ "$low" = none ] && pass || fail "5 s in 1 s bins: $bins bins, $fitted fitted, interval $low"
# The sampler's pace (soak.hpp soak_sampling): a reading every 50 ms, half as often for each pair
# of readings in a row over 1% of the interval, but never fewer than 8 a bin.  How dear a reading
# is depends on the machine (0.3-5 ms of CPU on this VM, right after the thread's sleep), so the
# pace is checked against the record's own account of it, and every bin must hold its readings
# (less the slots the record says passed while the sampler's thread was behind).
/usr/bin/python3 - "$T/at_soak" <<'PY' && pass || fail "the soak's readings"
import json, sys
r = json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])
h, s = r["hugepages"], r["soak"]
every, slowdowns, bin_s = h["interval_s"], h["slowdowns"], s["bin_s"]
bad = [] if abs(every - 0.05 * 2 ** slowdowns) < 1e-9 else [f"interval {every} s after {slowdowns} slowdowns from 50 ms"]
bad += [] if every <= bin_s / 8 else [f"a reading every {every} s: fewer than 8 in a {bin_s} s bin"]
# the last doubling came from two readings in a row over 1% of the interval before it
bad += [] if slowdowns == 0 or h["slowest_reading_s"] > 0.01 * every / 2 else [
    f"{slowdowns} slowdowns, but the slowest reading took {h['slowest_reading_s']} s"]
# a bin's slots, one of them possibly across its edge, less those the sampler's thread let pass
# while it was behind (a stall of the thread, which the record counts)
slots, skipped = round(bin_s / every), h["skipped_slots"]
bad += [f"bin at {b['start_s']} s: {b['samples']} readings, a pace of {every} s with {skipped} slots skipped gives "
        f"{slots - 1 - skipped} or more" for b in s["bins"] if b["samples"] < slots - 1 - skipped]
in_bins = sum(1 for t in h["samples"]["t_s"] if t < len(s["bins"]) * bin_s)
total = sum(b["samples"] for b in s["bins"])
bad += [] if total == in_bins else [f"the bins count {total} readings, the timeline has {in_bins} in their span"]
bad += [] if total >= len(s["bins"]) * slots - 1 - skipped else [f"{total} readings in {len(s['bins'])} bins of {slots} slots, {skipped} skipped"]
print("\n".join(bad), file=sys.stderr)
sys.exit(1 if bad else 0)
PY
# A round is a tenth of the loop more (alloc_test_cell.cpp, kSegments), one operation an iteration.
read -r _ _ _ plain_ops _ < <("$ALLOCSTRESS" run --allocator system "${TINY[@]}" 2>"$T/err" | soak_fields)
[ "$rounds" -ge 1 ] && [ "$plain_ops" = 200000 ] && [ "$ops" = $((plain_ops + rounds * plain_ops / 10)) ] && pass \
  || fail "the soak ran $rounds rounds, $ops ops against $plain_ops in the plain cell (wanted plain + rounds x plain / 10)"

# phase-plateau at 2 threads, 7 s in bins of 1 s: 6 fitted bins give an interval.
read -r status mode wall _ bins _ fitted low rounds < <("$ALLOCSTRESS" run --allocator jemalloc --workload phase-plateau --threads 2 \
  --live-bytes 4194304 --iterations 200000 --soak 7s,every=1s 2>"$T/err" | soak_fields)
[ "$status $mode $bins $fitted $low" = "ok soak 7 6 some" ] && [ "$rounds" -gt 0 ] && pass \
  || fail "phase-plateau soak: $status $mode, $bins bins, $fitted fitted, interval $low, $rounds rounds: $(tail -1 "$T/err")"

# lifetime, 3 s: the allocation clock runs on past N, a tenth of N a round, and blocks still fall
# due after N, so the blocks live at the end are as many as the model says, in the soak as in the
# plain cell.  That count is a sum of independent Bernoulli variables, one per allocation (alive
# after the last allocation or not; exponential lifetimes, mean mu allocations), with mean
# sum over ages a of P(L > a) = mu (within 1, by where the count is taken); Chernoff's bound
# P(|X - mu| >= d mu) <= 2 exp(-d^2 mu / 3) holds it within d = sqrt(3 ln(2e6) / mu) of mu at
# P = 1e-6: 4.1% for mu = 25,265 here (1 MiB of blocks of 41.5 B on average).
LT=(--workload lifetime --live-bytes 1048576 --iterations 2000000)
"$ALLOCSTRESS" run --allocator system "${LT[@]}" --soak 3s,every=1s >"$T/lt_soak" 2>"$T/err" || fail "lifetime soak exited $?: $(tail -1 "$T/err")"
"$ALLOCSTRESS" run --allocator system "${LT[@]}" >"$T/lt_plain" 2>"$T/err" || fail "lifetime plain exited $?: $(tail -1 "$T/err")"
/usr/bin/python3 - "$T/lt_soak" "$T/lt_plain" <<'PY' && pass || fail "the lifetime soak"
import json, sys
s, p = (json.loads(open(f).read().strip().splitlines()[-1]) for f in sys.argv[1:3])
bad = [] if (s["status"], s["mode"], len(s["soak"]["bins"])) == ("ok", "soak", 3) else [f"{s['status']} {s['mode']}: {s.get('reason')}"]
if not bad:
    import math
    n, rounds = p["mallocs"], s["soak"]["rounds"]
    bad += [] if n == 2000000 and rounds >= 1 and s["mallocs"] == n + rounds * (n // 10) else [
        f"{s['mallocs']} allocations in {rounds} soak rounds, {n} in the plain cell (wanted plain + rounds x plain / 10)"]
    for what, r in (("soak", s), ("plain cell", p)):
        mu = r["workload_metrics"]["mean_lifetime_allocations"]
        live, d = r["mallocs"] - r["frees"], math.sqrt(3 * math.log(2e6) / mu)
        bad += [] if abs(live - mu) <= d * mu + 1 else [f"{live} blocks live at the {what}'s end, the model's {mu:.0f} +- {d * mu:.0f}"]
print("\n".join(bad), file=sys.stderr)
sys.exit(1 if bad else 0)
PY

# replay loops, 3 s of a 3-thread trace with cross-thread frees: every pass replays the whole trace
# (and frees what the last left live), all workers pass together (rounds = workers x extra passes).
"$MAKE_TRACE" "$T/three.ast" 3 2000 40 >/dev/null
"$ALLOCSTRESS" run --allocator system --workload replay --trace "$T/three.ast" --soak 3s,every=1s >"$T/rp_soak" 2>"$T/err" \
  || fail "replay soak exited $?: $(tail -1 "$T/err")"
/usr/bin/python3 - "$T/rp_soak" <<'PY' && pass || fail "the replay loop"
import json, sys
r = json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])
bad = [] if (r["status"], r["mode"]) == ("ok", "soak") else [f"{r['status']} {r['mode']}: {r.get('reason')}"]
if not bad:
    passes, trace = r["replay_passes"], r["trace"]
    bad += [] if passes > 1 else [f"{passes} pass(es)"]
    bad += [] if r["ops"] == passes * trace["ops"] + (passes - 1) * trace["live_at_end"] else [f"{r['ops']} ops in {passes} passes of {trace['ops']}"]
    bad += [] if r["soak"]["rounds"] == 3 * (passes - 1) else [f"{r['soak']['rounds']} rounds for {passes} passes of 3 workers"]
print("\n".join(bad), file=sys.stderr)
sys.exit(1 if bad else 0)
PY

out="$T/soak"
"$ALLOCSTRESS" matrix --out "$out.json" "${TINY[@]}" --allocators system,jemalloc --threads 1 --reps 1 --no-counts --soak 3s,every=1s \
  >"$out.out" 2>"$out.err" && pass || fail "matrix --soak exited $?: $(tail -3 "$out.err")"
cells_of "$out.json" >/dev/null && pass || fail "results with soak cells do not validate: $(cells_of "$out.json" | head -3)"
/usr/bin/python3 - "$out.json" <<'PY' && pass || fail "the soak cells of the matrix"
import json, sys
doc = json.load(open(sys.argv[1]))
keys = [r["cell_key"] for r in doc["benchmarks"] if r.get("run_type") == "iteration"]
soaks = [k for k in keys if k.endswith("/soak")]
want = ["alloc-test/system/threads:1/soak", "alloc-test/jemalloc/threads:1/soak"]
bad = [] if sorted(soaks) == sorted(want) else [f"soak cells {soaks}, wanted {want}"]
first_soak = min(keys.index(k) for k in soaks) if soaks else len(keys)
late = [k for k in keys[first_soak:] if k.endswith("/rep:0")]  # planned cells (re-runs of disturbed ones come at the end)
bad += [f"planned cells after the soak cells: {late}"] if late else []
bad += [f"{r['cell_key']}: {r['status']} {r.get('reason')}" for r in doc["benchmarks"] if r.get("mode") == "soak" and r["status"] != "ok"]
bad += [f"{r['cell_key']}: a net cost" for r in doc["benchmarks"] if r.get("mode") == "soak" and r.get("net_ns_per_pair") is not None]
print("\n".join(bad), file=sys.stderr)
sys.exit(1 if bad else 0)
PY

# The plan's soak entry reruns as itself, from the cell file and from its command.
"$ALLOCSTRESS" matrix --plan-only --out "$T/plan.json" "${TINY[@]}" --allocators system --threads 1 --reps 1 --no-counts --soak 2s,every=1s \
  2>"$T/err" && pass || fail "--plan-only with --soak: $(tail -1 "$T/err")"
/usr/bin/python3 -c "
import json
cells = [c for c in json.load(open('$T/plan.json'))['cells'] if c['mode'] == 'soak']
assert len(cells) == 1 and cells[0]['key'] == 'alloc-test/system/threads:1/soak', cells
json.dump(cells[0], open('$T/cell.json', 'w'))
print(' '.join(cells[0]['command']))" >"$T/command" && pass || fail "the plan has no single soak cell"
read -r status mode _ _ bins _ < <("$ALLOCSTRESS" run --cell "$T/cell.json" 2>"$T/err" | soak_fields)
[ "$status $mode $bins" = "ok soak 2" ] && pass || fail "run --cell of the soak entry: $status $mode $bins bins: $(tail -1 "$T/err")"
grep -q -- "--soak 2s,every=1s" "$T/command" && pass || fail "the soak entry's command lacks --soak: $(cat "$T/command")"

expect_error 2 "--soak '60': the duration '60' is not a number with s, m or h (accepted: DURATION[,every=DURATION]" -- "$ALLOCSTRESS" run --allocator system "${TINY[@]}" --soak 60
expect_error 2 "the bin is outside 1s .. the duration" -- "$ALLOCSTRESS" matrix --out "$T/bad.json" --soak 1m,every=2m
expect_error 2 "--soak applies to alloc-test, lifetime, fleet-profile, phase-plateau and replay" -- "$ALLOCSTRESS" run --allocator system --workload bintree --soak 1m
expect_error 2 "--soak applies to alloc-test, lifetime, fleet-profile, phase-plateau and replay (workloads with a steady state), and this matrix has none of them" -- "$ALLOCSTRESS" matrix --out "$T/bad.json" --workload phase-peak --soak 1m
expect_error 2 "--profile, --cache-sim, --counts, --age, --thp and --soak are separate runs: pass one of them" -- "$ALLOCSTRESS" run --allocator system "${TINY[@]}" --soak 1m --age 4M
finish
