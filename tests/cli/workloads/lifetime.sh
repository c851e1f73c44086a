# The `lifetime` workload from the command line: every shape on system, pool and the void
# baseline at 1 and 2 threads runs ok, states Little's law from its tables (= the target), and
# its measured mean live bytes meets the target within 5 x the record's own estimate of the
# measurement's standard deviation; bad shapes and live sizes give one error line and exit 2.
source "$(dirname "$0")/../lib.sh"

# Inverse sizes below 1 KiB (mean ~24 B): mean lifetimes ~4000..8000 allocations, well inside the
# accepted range (<= 25000 for 400000 allocations per thread), every cell well under a second.
SMALL=(--workload lifetime --iterations 400000 --max-size-exp 10)
LIVE=(--live-bytes 200000)

# check_record FILE WHAT MAX_BOUND: status ok, model = target, achieved within 5 sd estimates of the
# target, the estimate below MAX_BOUND x the target (so that the check means something).
check_record() {
  /usr/bin/python3 - "$1" "$3" <<'EOF' && pass || fail "$2: $(head -c 2000 "$1")"
import json, sys
r = json.load(open(sys.argv[1]))
max_bound = float(sys.argv[2])
m = r["workload_metrics"]
target, model, achieved, bound = m["target_live_bytes"], m["model_mean_live_bytes"], m["achieved_mean_live_bytes"], m["achieved_sd_estimate_bytes"]
checks = {
    "status": r["status"] == "ok",
    "metrics are numbers": all(isinstance(v, (int, float)) for v in m.values()),
    "model = target": abs(model - target) <= 1e-6 * target,
    "achieved near target": abs(achieved - target) <= 5 * bound,
    "bound is informative": 0 < bound < max_bound * target,
    "lifetimes below the truncation": r["lifetime"]["longest_lifetime"] <= r["lifetime"]["truncation"] == r["params"]["iterations_per_thread"] // 2,
    "every allocation made": r["mallocs"] == r["params"]["iterations_per_thread"] * r["threads"],
}
bad = [k for k, ok in checks.items() if not ok]
if bad:
    print("failed checks:", bad, json.dumps(m), file=sys.stderr)
sys.exit(1 if bad else 0)
EOF
}

for allocator in system pool void; do
  for shape in exponential pareto size-classes; do
    for threads in 1 2; do
      what="$allocator $shape --threads $threads"
      if "$ALLOCSTRESS" run --allocator "$allocator" --threads "$threads" "${SMALL[@]}" "${LIVE[@]}" --lifetime "$shape" >"$T/rec.json" 2>"$T/err.txt"; then
        check_record "$T/rec.json" "$what" 0.05
      else
        fail "$what exited $?: $(cat "$T/err.txt")"
      fi
    done
  done
done
# The same seed gives the same stream on every allocator.
hashes=$(for a in system pool; do
  "$ALLOCSTRESS" run --allocator "$a" "${SMALL[@]}" "${LIVE[@]}" --lifetime pareto --seed 5 |
    /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["op_stream_hash"])'
done | sort -u | wc -l)
[ "$hashes" = 1 ] && pass || fail "op_stream_hash differs between allocators"
# Fleet sizes: the 4 MiB size tail makes the live bytes noisy (sd estimate ~20% here; it says so).
"$ALLOCSTRESS" run --allocator system --workload lifetime --lifetime pareto --live-bytes 8000000 --iterations 300000 --sizes fleet \
  >"$T/rec.json" 2>"$T/err.txt" && check_record "$T/rec.json" "fleet pareto" 0.3 || fail "fleet pareto: $(cat "$T/err.txt")"
rm -f "$T/rec.json" "$T/err.txt"

# Bad input: one line, exit 2.
expect_error 2 "unknown lifetime shape 'foo' (accepted: exponential, pareto, size-classes)" -- \
  "$ALLOCSTRESS" run --allocator system --workload lifetime --lifetime foo
expect_error 2 "live_bytes out of range: 0 (accepted: 4096..1099511627776" -- \
  "$ALLOCSTRESS" run --allocator system --workload lifetime --live-bytes 0
expect_error 2 "(accepted: live_bytes " -- \
  "$ALLOCSTRESS" run --allocator system "${SMALL[@]}" --live-bytes 1000000000
expect_error 2 "--lifetime applies to lifetime only" -- \
  "$ALLOCSTRESS" run --allocator system --workload alloc-test --lifetime pareto

finish
