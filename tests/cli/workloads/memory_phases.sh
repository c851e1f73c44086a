# ctest: labels=cli timeout=300 env=ALLOCSTRESS serial
# phase-ramp, phase-plateau, phase-peak through `allocstress run`: every shape on system and pool
# gives an ok record with its RSS series, checkpoints and metrics; the op stream depends on the
# seed only; bad parameters give one error line and exit 2.
source "$(dirname "$0")/../lib.sh"

SMALL=(--live-bytes 4000000 --iterations 1000000 --max-size-exp 12)

# check_record FILE SHAPE THREADS: status, counts, series, checkpoints and metrics of one record.
check_record() {
  /usr/bin/python3 - "$@" <<'EOF'
import json, math, sys
path, shape, threads = sys.argv[1], sys.argv[2], int(sys.argv[3])
r = json.load(open(path))
m, s, cps = r["workload_metrics"], r["phase_series"], r["phase_checkpoints"]
keys = {"ramp": ["rss_per_live_at_half", "rss_per_live_at_end"],
        "plateau": ["rss_per_live_after_rise", "hold_rss_growth_share", "rss_per_live_at_end"],
        "peak": ["rss_at_peak_ratio", "rss_after_drop_ratio", "rss_after_pause_ratio", "freed_share", "returned_share_after_drop",
                 "returned_share_after_pause", "drop_ms", "regrowth_rss_ratio", "rss_per_live_at_end"]}[shape]
kinds = {"ramp": ["half"], "plateau": ["rise_end"], "peak": ["peak", "drop", "peak", "drop"]}[shape]
rows = s["rows"]
L, block = r["params"]["live_bytes"] / threads, 2 ** r["params"]["max_size_exp"]
checks = {
    "status": r["status"] == "ok",
    "ops": r["mallocs"] + r["frees"] == 1000000 * threads,
    "timing": r["cycles_per_pair"] > 0 and r["overhead_ratio"] is not None,
    "columns": s["columns"] == ["thread", "op_index", "elapsed_ms", "live_bytes", "rss_bytes", "stage"],
    "rows per thread": all(200 <= sum(1 for x in rows if x[0] == t) <= 520 for t in range(threads)),
    "rss on worker 0": all(x[4] is not None for x in rows if x[0] == 0),
    "checkpoints": [c["kind"] for c in cps] == kinds,
    "metrics": all(isinstance(m.get(k), (int, float)) and math.isfinite(m[k]) for k in keys) and "return_ms" in m if shape == "peak"
               else all(isinstance(m.get(k), (int, float)) and math.isfinite(m[k]) for k in keys),
    "means": all(k in r["workload_metrics_means"] for k in keys),
    "pause rows": shape != "peak" or sum(1 for x in rows if x[5] == "pause") == 2 * 21,
    # One rule drives every op: allocate while live < target, else free a live block.  So once the
    # target is met, live stays within one block of it: at the end (op N, target L) |live - L| is
    # less than the largest block, 2^E, and live never exceeds L + 2^E (memory_phases.hpp).  The
    # 2-thread peak's final growth may be planned steep after a long drop: there only the ceiling.
    "shape": all(last[1] == 1000000 and (abs(last[3] - L) <= block if shape != "peak" or threads == 1 else last[3] <= L + block)
                 for last in ([x for x in rows if x[0] == t][-1] for t in range(threads)))
             and all(x[3] <= L + block for x in rows),
}
bad = [k for k, ok in checks.items() if not ok]
if bad:
    print(path, shape, "failed checks:", bad, json.dumps({"metrics": m, "checkpoints": cps, "status": r["status"], "reason": r["reason"]}),
          file=sys.stderr)
sys.exit(1 if bad else 0)
EOF
}

for shape in ramp plateau peak; do
  extra=()
  [ "$shape" = peak ] && extra=(--peaks 2 --drop-share 90 --drop-pause-ms 20)
  for alloc in system pool; do
    if "$ALLOCSTRESS" run --allocator "$alloc" --workload "phase-$shape" "${SMALL[@]}" "${extra[@]}" >"$T/$shape-$alloc.json" 2>"$T/err.txt"; then
      check_record "$T/$shape-$alloc.json" "$shape" 1 && pass || fail "phase-$shape on $alloc: record checks"
    else
      fail "phase-$shape on $alloc exited $?: $(cat "$T/err.txt")"
    fi
  done
done

# Two threads meet at every checkpoint (peak: 2 x (peak, drop)).
if "$ALLOCSTRESS" run --allocator system --workload phase-peak --threads 2 --oversubscribe --live-bytes 8000000 --iterations 1000000 \
     --max-size-exp 12 --drop-pause-ms 20 >"$T/two.json" 2>"$T/err.txt"; then
  check_record "$T/two.json" peak 2 && pass || fail "phase-peak on 2 threads: record checks"
else
  fail "phase-peak on 2 threads exited $?: $(cat "$T/err.txt")"
fi

# The op stream depends on the seed only: void runs the same stream as system.
hash_of() { /usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["op_stream_hash"])' "$1"; }
"$ALLOCSTRESS" run --allocator void --workload phase-peak "${SMALL[@]}" --drop-pause-ms 0 >"$T/void.json" || fail "phase-peak on void failed"
"$ALLOCSTRESS" run --allocator system --workload phase-peak "${SMALL[@]}" --drop-pause-ms 0 >"$T/again.json" || fail "phase-peak again failed"
[ "$(hash_of "$T/void.json")" = "$(hash_of "$T/peak-system.json")" ] && [ "$(hash_of "$T/again.json")" = "$(hash_of "$T/peak-system.json")" ] &&
  pass || fail "op_stream_hash differs between runs of the same seed"
"$ALLOCSTRESS" run --allocator system --workload phase-peak "${SMALL[@]}" --drop-pause-ms 0 --seed 2 >"$T/seed2.json" || fail "seed 2 failed"
[ "$(hash_of "$T/seed2.json")" != "$(hash_of "$T/peak-system.json")" ] && pass || fail "another seed gave the same op stream"
rm -f "$T"/*.json "$T/err.txt"

# Bad parameters.
PEAK=(run --allocator system --workload phase-peak "${SMALL[@]}")
expect_error 2 "--drop-share 120" -- "$ALLOCSTRESS" "${PEAK[@]}" --drop-share 120
expect_error 2 "drop_share out of range: 0 (accepted:" -- "$ALLOCSTRESS" "${PEAK[@]}" --drop-share 0
expect_error 2 "peaks out of range: 0 (accepted: 1..100)" -- "$ALLOCSTRESS" "${PEAK[@]}" --peaks 0
expect_error 2 "pause_ms out of range: 20000 (accepted: 0..10000)" -- "$ALLOCSTRESS" "${PEAK[@]}" --drop-pause-ms 20000
expect_error 2 "iterations per thread too few for phase-peak: 1000 (accepted: at least" -- \
  "$ALLOCSTRESS" run --allocator system --workload phase-peak --live-bytes 4000000 --iterations 1000
expect_error 2 "--drop-share applies to phase-peak only" -- "$ALLOCSTRESS" run --allocator system --workload phase-ramp --drop-share 50
finish
