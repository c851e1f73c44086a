# ctest: labels=cli timeout=600 env=@cli serial
# Pinning against an independent reference: each worker records the PU it really ran on
# (sched_getcpu() on its own thread right before and right after its timed work: the record's
# observed_pus), and both readings must be the PU the plan pinned it to (`pus`, from
# platform/topology.*).  The plan itself is checked against the CPUs this process may use
# (sched_getaffinity): N workers on N PUs use each once, an oversubscribed plan wraps around; a
# worker started elsewhere (taskset) is moved to its PU.  Several cell kinds go
# through the same measured phase (alloc-test, xthread, bintree): each is checked.
source "$(dirname "$0")/../lib.sh"
SMALL=(--slots 4096 --iterations 100000 --max-size-exp 10)

# check_pins LABEL EXPECTED RECORD_FILE: observed_pus[i] == [pus[i], pus[i]] for every worker, and
# pus is what the plan must be: EXPECTED is a list (exactly), {"distinct_of": [...]} (distinct
# PUs of these, as many as the threads) or {"wrapped_on": N} (more workers than the N PUs:
# worker i on the PU of worker i - N, the first N distinct).
check_pins() {
  /usr/bin/python3 - "$2" "$3" <<'PY' && pass || fail "$1: the workers did not run where the plan pinned them: $(tail -c 400 "$3")"
import json, sys
want = json.loads(sys.argv[1])
r = json.loads(open(sys.argv[2]).read().strip().splitlines()[-1])
assert r["status"] == "ok", r.get("reason")
pus, seen = r["pus"], r["observed_pus"]
if isinstance(want, dict) and "wrapped_on" in want:
    n = want["wrapped_on"]
    assert len(pus) > n and len(set(pus[:n])) == n and all(pus[i] == pus[i - n] for i in range(n, len(pus))), ("plan", pus, want)
elif isinstance(want, dict):
    assert len(set(pus)) == len(pus) and set(pus) <= set(want["distinct_of"]), ("plan", pus, want)
else:
    assert pus == want, ("plan", pus, want)
assert len(seen) == len(pus) == r["threads"], (pus, seen)
for i, (pu, (start, end)) in enumerate(zip(pus, seen)):
    assert start == pu and end == pu, f"worker {i}: pinned to PU {pu}, ran on {start} before its run() and on {end} after it"
PY
}

allowed=$(/usr/bin/python3 -c 'import os; print(",".join(map(str, sorted(os.sched_getaffinity(0)))))')
IFS=, read -r -a cpus <<<"$allowed"
n=${#cpus[@]}

# As many workers as allowed PUs (at most 4: the suite's time), each on a PU of its own, for glibc,
# a preloaded drop-in (the process re-executes itself) and an in-tree backend.
threads=$((n < 4 ? n : 4))
for a in system jemalloc pool; do
  "$ALLOCSTRESS" run --allocator "$a" --threads "$threads" "${SMALL[@]}" >"$T/$a.json" 2>"$T/err" || fail "$a run failed: $(tail -1 "$T/err")"
  check_pins "alloc-test on $a at $threads threads" "{\"distinct_of\": [$allowed]}" "$T/$a.json"
done

if [ "$n" -ge 2 ]; then
  first=${cpus[0]} second=${cpus[1]}
  # Started on another PU than the plan's: the plan takes hwloc's allowed PUs (the cgroup's cpuset),
  # not the affinity mask the process inherited (taskset does not narrow it), so the 1-thread
  # worker goes to the first PU while the process was confined to the second.  Its readings must
  # show the pin moved it there, away from where it started.
  taskset -c "$second" "$ALLOCSTRESS" run --allocator system --threads 1 "${SMALL[@]}" >"$T/moved.json" 2>"$T/err" \
    || fail "run under taskset -c $second failed: $(tail -1 "$T/err")"
  check_pins "1 thread, started on PU $second" "[$first]" "$T/moved.json"
  # One worker more than PUs: the plan wraps around (--oversubscribe), every worker stays put.
  "$ALLOCSTRESS" run --allocator system --threads $((n + 1)) --oversubscribe "${SMALL[@]}" >"$T/over.json" 2>"$T/err" \
    || fail "oversubscribed run failed: $(tail -1 "$T/err")"
  check_pins "3 workers, oversubscribed" "{\"wrapped_on\": $n}" "$T/over.json"
  # Other cells, same measured phase: cross-thread frees at 2 threads, a data structure at 1.
  "$ALLOCSTRESS" run --allocator system --workload xthread --threads 2 "${SMALL[@]}" >"$T/xthread.json" 2>"$T/err" \
    || fail "xthread run failed: $(tail -1 "$T/err")"
  check_pins "xthread at 2 threads" "{\"distinct_of\": [$allowed]}" "$T/xthread.json"
  taskset -c "$second" "$ALLOCSTRESS" run --allocator system --workload bintree --threads 1 >"$T/bintree.json" 2>"$T/err" \
    || fail "bintree run failed: $(tail -1 "$T/err")"
  check_pins "bintree, started on PU $second" "[$first]" "$T/bintree.json"
else
  fail "this test needs 2 usable PUs (it has $n: $allowed): with one, a worker cannot be seen to run anywhere but where it was pinned"
fi
finish
