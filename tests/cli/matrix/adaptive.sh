# ctest: labels=cli timeout=600 env=@cli serial
# Adaptive repetitions (run/adaptive_repetitions.hpp): with a target the matrix adds interleaved
# repetitions (void included) beyond the planned ones until every cell is settled or the budget
# is spent, records what it did in context.adaptive_repetitions, and the aggregates summarise the
# extra processes; --reps alone runs exactly that many.  Then the options' bad input.
source "$(dirname "$0")/../lib.sh"

# A 2% target on tiny cells that are noisy on any machine: more rounds than none, within 20 s.
"$ALLOCSTRESS" matrix --out "$T/a.json" --allocators system --threads 1 --reps 3 --target-ci 2 --time-budget 20 --no-counts \
  "${TINY[@]}" >"$T/out" 2>"$T/log" || { fail "matrix exited $?: $(tail -3 "$T/log")"; finish; exit 1; }
cells_of "$T/a.json" >/dev/null || fail "results not schema-valid"
/usr/bin/python3 - "$T/a.json" <<'PY' && pass || fail "adaptive repetitions not as described"
import json, sys
d = json.load(open(sys.argv[1]))
ad = d["context"]["adaptive_repetitions"]
it = [e for e in d["benchmarks"] if e["run_type"] == "iteration" and e["mode"] == "timing"]
reps = {a: sorted(e["repetition_index"] for e in it if e["allocator"] == a) for a in ("void", "system")}
assert d["context"]["plan"]["target_ci"] == 0.02 and d["context"]["plan"]["time_budget_s"] == 20, d["context"]["plan"]
assert ad["extra_processes"] == len(it) - 6 and ad["rounds"] >= 1, (ad, len(it))
assert reps["void"] == reps["system"] == list(range(len(reps["void"]))), reps  # void runs in every round, indices contiguous
assert ad["stopped_by"] in ("every cell within the target", "time budget", "at most 200 repetitions"), ad
med = [e for e in d["benchmarks"] if e["run_type"] == "aggregate" and e["aggregate_name"] == "median" and e["allocator"] == "system"][0]
assert med["repetitions_ok"] + med["repetitions_disturbed"] == len(reps["system"]), med
iv = med["intervals"]["net_ns_per_pair"]
assert iv["low"] <= med["net_ns_per_pair"] <= iv["high"] and 0 < iv["level"] <= 1, iv
settled = iv["n"] >= 10 and (iv["high"] - iv["low"]) / 2 <= max(0.02 * abs(med["net_ns_per_pair"]), ad["settled_half_width_ns"])
assert settled == (ad["stopped_by"] == "every cell within the target"), (iv, ad)
PY
grep -q "^adaptive repetitions: " "$T/log" && pass || fail "no adaptive summary line on stderr"

# --reps alone: that many, plus only replacements of disturbed processes (at most 2 more per cell).
"$ALLOCSTRESS" matrix --out "$T/b.json" --allocators system --threads 1 --reps 2 --no-counts "${TINY[@]}" >/dev/null 2>"$T/log" ||
  fail "matrix --reps 2 exited $?"
/usr/bin/python3 -c "
import json; d = json.load(open('$T/b.json'))
ad = d['context'].get('adaptive_repetitions') or {'extra_processes': 0, 'stopped_by': 'every disturbed process replaced'}
it = [e for e in d['benchmarks'] if e['run_type'] == 'iteration']
assert d['context']['plan']['target_ci'] == 0 and len(it) == 4 + ad['extra_processes'] <= 8, (len(it), ad)
assert ad['stopped_by'] in ('every disturbed process replaced', 'at most 4 repetitions'), ad
disturbed = [e for e in it if e['interference']['disturbed']]
assert len(disturbed) >= ad['extra_processes'] / 2, (len(disturbed), ad)  # a round replaces void and system together" && pass ||
  fail "--reps 2 did not run exactly 2 repetitions and their replacements"

R=(--out "$T/bad.json" --allocators system --threads 1 --no-counts "${TINY[@]}")
expect_error 2 "--target-ci must be a percentage in [0, 100)" -- "$ALLOCSTRESS" matrix "${R[@]}" --target-ci 100
expect_error 2 "--target-ci must be a percentage in [0, 100)" -- "$ALLOCSTRESS" matrix "${R[@]}" --target-ci -5
expect_error 2 "--time-budget 'soon' is not a duration" -- "$ALLOCSTRESS" matrix "${R[@]}" --target-ci 5 --time-budget soon
expect_error 2 "--time-budget '5d' is not a duration" -- "$ALLOCSTRESS" matrix "${R[@]}" --target-ci 5 --time-budget 5d
expect_error 2 "--time-budget bounds adaptive repetitions" -- "$ALLOCSTRESS" matrix "${R[@]}" --reps 2 --time-budget 60
expect_error 2 "apply to --backend local only" -- "$ALLOCSTRESS" matrix "${R[@]}" --backend slurm --target-ci 5
finish
