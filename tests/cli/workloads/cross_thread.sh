# ctest: labels=cli timeout=600 env=ALLOCSTRESS serial
# The cross-thread workloads through `allocstress run`: xthread at remote share 0/50/100 and
# larson on a drop-in (system) and an in-tree (pool) allocator at 2 threads; share 0 is
# alloc-test's stream; one thread warns (on the console and under
# the matrix summary too); bad parameters give one error line and exit 2.
source "$(dirname "$0")/../lib.sh"

# check NAME PYTHON-EXPRESSION -- COMMAND...: runs the cell, then evaluates the expression on its
# record `r` (with `m` = r["workload_metrics"]); prints the record's gist when it is false.
check() {
  local name=$1 expr=$2
  shift 3
  local rec
  if ! rec=$("$@" 2>"$T/err.txt"); then fail "$name: exit $?: $(cat "$T/err.txt")"; return; fi
  if /usr/bin/python3 - "$rec" "$expr" <<'EOF'; then pass; else fail "$name: $*"; fi
import json, math, sys
r = json.loads(sys.argv[1])
m = r.get("workload_metrics", {})
ok = r["status"] == "ok" and eval(sys.argv[2])
if not ok:
    print(json.dumps({k: r.get(k) for k in ("status", "reason", "mallocs", "frees", "workload_metrics", "warnings")}), file=sys.stderr)
sys.exit(0 if ok else 1)
EOF
}

field() { /usr/bin/python3 -c 'import json,sys; print(json.loads(sys.argv[1])[sys.argv[2]])' "$1" "$2"; }

# At 50%, each free's route is its own draw (a stream apart from the slots'), so the remote frees
# are Binomial(frees, 1/2) and, by Hoeffding, the share is within sqrt(ln(2/P) / (2 frees)) of
# 1/2 at P = 1e-6: 0.0061 for the ~194,000 frees here.
for alloc in system pool; do
  X=("$ALLOCSTRESS" run --allocator "$alloc" --workload xthread --threads 2 "${TINY[@]}")
  check "$alloc xthread 0%" 'm["remote_frees"] == 0 and m["remote_free_share"] == 0 and m["local_frees"] == r["frees"]' -- "${X[@]}" --remote-share 0
  check "$alloc xthread 50%" 'abs(m["remote_free_share"] - 0.5) <= math.sqrt(math.log(2e6) / (2 * r["frees"])) and m["remote_frees"] == round(m["remote_free_share"] * r["frees"]) and m["local_frees"] + m["remote_frees"] == r["frees"] and r["cross_thread"]["remote_share_requested"] == 0.5' \
    -- "${X[@]}" --remote-share 50
  check "$alloc xthread 100%" 'm["local_frees"] == 0 and m["remote_free_share"] == 1' -- "${X[@]}" --remote-share 100 --queue-capacity 16
  check "$alloc larson" 'r["cross_thread"]["rounds"] == 16 and m["rounds"] == 16 and 0 < m["remote_free_share"] < 1 and m["local_frees"] + m["remote_frees"] == r["frees"]' \
    -- "$ALLOCSTRESS" run --allocator "$alloc" --workload larson --threads 2 "${TINY[@]}"
done

# Remote share 0 measures alloc-test's operation stream; the live-bytes series does not depend on the share.
base=$("$ALLOCSTRESS" run --allocator system --threads 2 "${TINY[@]}")
zero=$("$ALLOCSTRESS" run --allocator system --workload xthread --threads 2 "${TINY[@]}" --remote-share 0)
half=$("$ALLOCSTRESS" run --allocator system --workload xthread --threads 2 "${TINY[@]}" --remote-share 50)
[ "$(field "$base" op_stream_hash)" = "$(field "$zero" op_stream_hash)" ] && pass || fail "xthread 0% is not alloc-test's stream"
[ "$(field "$base" peak_live_requested_bytes)" = "$(field "$half" peak_live_requested_bytes)" ] && pass ||
  fail "peak live bytes depend on the remote share"

# One thread: defined, and said.
check "xthread 1 thread" 'm["remote_frees"] == 0 and any("one thread" in w for w in r["warnings"])' \
  -- "$ALLOCSTRESS" run --allocator system --workload xthread --threads 1 "${TINY[@]}" --remote-share 50
check "larson 1 thread" 'm["remote_frees"] == 0 and any("one thread" in w for w in r["warnings"])' \
  -- "$ALLOCSTRESS" run --allocator pool --workload larson --threads 1 "${TINY[@]}" --larson-rounds 4

# Bad parameters.
# A cell's warning reaches the reader: on the console as the cell ends, and under the Markdown summary.
"$ALLOCSTRESS" matrix --workload xthread --allocators system --threads 1 --reps 1 --no-counts "${TINY[@]}" -o "$T/x.json" >"$T/x.out" 2>"$T/x.err" \
  && pass || fail "xthread matrix exited $?: $(tail -2 "$T/x.err")"
grep -q "^          warning: xthread with one thread: no other thread" "$T/x.err" && pass || fail "the cell's warning is not on the console"
grep -q "^- xthread at 1 thread: xthread with one thread: no other thread.*: \(void ([1-9][0-9]* of [1-9][0-9]*), \)\?system ([1-9][0-9]* of [1-9][0-9]*) process(es)$" "$T/x.md" \
  && pass || fail "the cell's warning is not under the Markdown summary"

expect_error 2 "--remote-share 150.0 is out of range (accepted: a percentage 0..100)" -- "$ALLOCSTRESS" run --allocator system --workload xthread --threads 2 --remote-share 150
expect_error 2 "queue capacity out of range: 0 (accepted: 1..1048576 blocks)" -- "$ALLOCSTRESS" run --allocator system --workload xthread --threads 2 --queue-capacity 0
expect_error 2 "rounds out of range: 0 (accepted: 1..1000000)" -- "$ALLOCSTRESS" run --allocator system --workload larson --threads 2 --larson-rounds 0
expect_error 2 "rounds out of range: 100 (accepted: 1..iterations per thread = 10)" -- "$ALLOCSTRESS" run --allocator system --workload larson --threads 2 --iterations 10 --larson-rounds 100

finish
