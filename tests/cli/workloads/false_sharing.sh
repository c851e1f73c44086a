# ctest: labels=cli timeout=300 env=ALLOCSTRESS serial
# false-sharing-active and false-sharing-passive through `allocstress run`: both kernels on system
# and pool at 2 threads give an ok record with their metrics; pool (one instance per thread) shares
# no line; bad parameters and the void allocator give one error line and exit 2.
source "$(dirname "$0")/../lib.sh"

SMALL=(--threads 2 --object-size 8 --objects 16 --writes 200 --fs-rounds 200)

# check_record FILE KIND ALLOCATOR: status, counts and metrics of one record.
check_record() {
  /usr/bin/python3 - "$@" <<'EOF'
import json, math, sys
path, kind, allocator = sys.argv[1:4]
r = json.load(open(path))
m, f = r["workload_metrics"], r["false_sharing"]
keys = ["shared_lines_mean", "shared_lines_max", "shared_object_share", "slowdown", "write_cycles_per_write",
        "private_write_cycles_per_write", "alloc_cycles_per_pair"]
pairs_per_round = 2 * 16 * (2 if kind == "passive" else 1)  # passive: thread 0's hand-off on top
checks = {
    "status": r["status"] == "ok",
    "kind": f["kind"] == kind and f["line_size"] >= 8 and "private" in f["baseline"],
    "metrics": all(isinstance(m.get(k), (int, float)) and math.isfinite(m[k]) for k in keys),
    "counts": r["mallocs"] == r["frees"] == 200 * pairs_per_round and r["writes"] == 200 * 200 * 16 * 2 and r["rounds_completed"] == 200,
    "cost": m["alloc_cycles_per_pair"] == r["cycles_per_pair"] and m["write_cycles_per_write"] > 0 and m["slowdown"] > 0,
    "shares": 0 <= m["shared_object_share"] <= 1 and m["shared_lines_max"] >= m["shared_lines_mean"] >= 0,
    "pool shares nothing": allocator != "pool" or (m["shared_lines_max"] == 0 and "per worker" in f["allocator_instances"]),
}
bad = [k for k, ok in checks.items() if not ok]
if bad:
    print(path, kind, allocator, "failed checks:", bad, json.dumps({"metrics": m, "status": r["status"], "reason": r["reason"]}), file=sys.stderr)
sys.exit(1 if bad else 0)
EOF
}

for kind in active passive; do
  for alloc in system pool; do
    if "$ALLOCSTRESS" run --allocator "$alloc" --workload "false-sharing-$kind" --oversubscribe "${SMALL[@]}" \
         >"$T/$kind-$alloc.json" 2>"$T/err.txt"; then
      check_record "$T/$kind-$alloc.json" "$kind" "$alloc" && pass || fail "false-sharing-$kind on $alloc: record checks"
    else
      fail "false-sharing-$kind on $alloc exited $?: $(cat "$T/err.txt")"
    fi
  done
done
rm -f "$T"/*.json "$T/err.txt"

# Bad input.
run=("$ALLOCSTRESS" run --allocator system --workload false-sharing-active)
expect_error 2 "--object-size out of range: 0 (accepted: 1..4096)" -- "${run[@]}" --object-size 0
expect_error 2 "--objects out of range: 0"                         -- "${run[@]}" --objects 0
expect_error 2 "--writes out of range: 0"                          -- "${run[@]}" --writes 0
expect_error 2 "--fs-rounds out of range: 0"                       -- "${run[@]}" --fs-rounds 0
expect_error 2 "allocator 'void' cannot run false-sharing-passive: void returns one buffer for every object" -- "$ALLOCSTRESS" run --allocator void --workload false-sharing-passive

finish
