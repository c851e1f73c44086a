# ctest: labels=cli timeout=600 env=@cli serial
# `matrix --memory-limit`: limited cells in a memory cgroup of their own.  phase-peak at 0.8x and
# 1.5x each allocator's unlimited peak: every outcome recorded (completed, throttled, oom-killed)
# and shown in the .md and the HTML, none killed at 1.5x, the results valid; a limited cell killed
# from outside is a failed record and leaves no cgroup; a runner killed outright leaves its cgroup,
# and the next run (--resume) removes it and says so.  Bad specs give one error line and exit 2.
source "$(dirname "$0")/../lib.sh"
VALIDATOR="$(dirname "$0")/../validate_results.py"
SCHEMA="$(dirname "$0")/../../../results/schema.json"

# The cgroups a runner with pid $1 made: children of this test's own memory cgroup (v1 memory
# controller, or v2 where it is mounted), whose children the runner's are.
parents=()
v1=$(awk -F: '$2 == "memory" {print $3}' /proc/self/cgroup)
[ -n "$v1" ] && parents+=("/sys/fs/cgroup/memory$v1")
v2=$(awk -F: '$1 == "0" {print $3}' /proc/self/cgroup)
for mount in /sys/fs/cgroup/unified /sys/fs/cgroup; do [ -f "$mount/cgroup.controllers" ] && parents+=("$mount$v2"); done
cgroups_of() { for p in "${parents[@]}"; do ls -d "$p"/allocstress-$1-* 2>/dev/null; done; }

PEAK=(--workload phase-peak --live-bytes 8000000 --iterations 2000000 --max-size-exp 12 --drop-pause-ms 50)
for factor in 0.8 1.5; do
  out="$T/peak$factor"
  "$ALLOCSTRESS" matrix --out "$out.json" "${PEAK[@]}" --allocators system,jemalloc,pool --threads 1 --reps 2 --no-counts \
    --memory-limit "${factor}xPEAK" >"$out.out" 2>"$out.err" && pass || fail "matrix at ${factor}xPEAK exited $?: $(tail -3 "$out.err")"
  cells_of "$out.json" >/dev/null && pass || fail "results at ${factor}xPEAK do not validate: $(cells_of "$out.json" | head -3)"
  /usr/bin/python3 - "$out.json" "$factor" <<'EOF' && pass || fail "limited records at ${factor}xPEAK"
import json, sys
doc, factor = json.load(open(sys.argv[1])), float(sys.argv[2])
rows = {r["allocator"]: r for r in doc["benchmarks"] if r.get("mode") == "limited"}
bad = []
if sorted(rows) != ["jemalloc", "pool", "system"]:
    bad.append(f"limited cells of {sorted(rows)}")
for name, r in rows.items():
    l = r["memory_limit"]
    # the planned repetitions (0 and 1): the records the limited cell found in the journal; a
    # disturbed process's re-run comes after every planned cell (run/local_backend.cpp)
    peaks = sorted(t["peak_rss_bytes"] for t in doc["benchmarks"]
                   if t.get("mode") == "timing" and t["allocator"] == name and t["status"] == "ok" and t.get("run_type") == "iteration"
                   and t["repetition_index"] < 2)
    median = peaks[(len(peaks) - 1) // 2]
    if l["unlimited_peak_rss_bytes"] != median or abs(l["max_bytes"] - factor * median) > 1:
        bad.append(f"{name}: limit {l['max_bytes']} is not {factor} x the unlimited peak {median}")
    if l["outcome"] not in ("completed", "throttled", "oom-killed"):
        bad.append(f"{name}: outcome {l['outcome']} ({r.get('reason')})")
    if (l["outcome"] == "oom-killed") != (r["status"] == "oom-killed") or (l["outcome"] == "oom-killed") != (l["oom_kills"] > 0):
        bad.append(f"{name}: status {r['status']}, outcome {l['outcome']}, oom_kills {l['oom_kills']}")
    if factor > 1.2 and l["outcome"] == "oom-killed":
        bad.append(f"{name}: killed at {factor} x its peak")
    if l["outcome"] != "oom-killed" and l["cgroup_peak_bytes"] > l["max_bytes"]:
        bad.append(f"{name}: the cgroup's peak {l['cgroup_peak_bytes']} exceeds its limit {l['max_bytes']}")
print("\n".join(bad), file=sys.stderr)
sys.exit(1 if bad else 0)
EOF
  grep -q "### Under a memory limit (${factor}xPEAK" "$out.md" && pass || fail "no limits table in $out.md"
  grep -q "Under a memory limit (${factor}xPEAK" "$out-report/index.html" && pass || fail "no limits table in the HTML report"
done
[ -z "$(cgroups_of '[0-9]*')" ] && pass || fail "cgroups left behind: $(cgroups_of '[0-9]*')"

# A long limited cell (alloc-test at 4x its peak): its process killed from outside, then the runner itself.
LONG=(--slots 65536 --iterations 60000000 --max-size-exp 12 --allocators system --threads 1 --reps 1 --no-counts --memory-limit 4xPEAK)
# wait_for_cgroup PID: the path of the cgroup the runner PID made, once it has a process in it ("" after 60 s).
wait_for_cgroup() {
  for _ in $(seq 1200); do
    for g in $(cgroups_of "$1"); do
      [ -n "$(cat "$g/cgroup.procs" 2>/dev/null)" ] && { echo "$g"; return; }
    done
    sleep 0.05
  done
}
"$ALLOCSTRESS" matrix --out "$T/killed.json" "${LONG[@]}" >"$T/killed.out" 2>"$T/killed.err" &
runner=$!
group=$(wait_for_cgroup $runner)
if [ -n "$group" ]; then
  kill -9 $(cat "$group/cgroup.procs") && pass || fail "could not kill the limited cell"
else
  fail "no cgroup appeared for runner $runner: $(tail -3 "$T/killed.err")"
fi
wait $runner && pass || fail "the matrix exited $? after its limited cell was killed: $(tail -3 "$T/killed.err")"
/usr/bin/python3 - "$T/killed.json" <<'EOF' && pass || fail "the killed limited cell's record: $(grep -o '"memory_limit":{[^}]*}' "$T/killed.json")"
import json, sys
r = [r for r in json.load(open(sys.argv[1]))["benchmarks"] if r.get("mode") == "limited"][0]
sys.exit(0 if r["status"] == "failed" and r["memory_limit"]["outcome"] == "failed" and r["reason"].startswith("killed by signal 9 (SIGKILL)") else 1)
EOF
[ -z "$(cgroups_of $runner)" ] && pass || fail "the killed cell's cgroup is left: $(cgroups_of $runner)"

"$ALLOCSTRESS" matrix --out "$T/crash.json" "${LONG[@]}" >"$T/crash.out" 2>"$T/crash.err" &
runner=$!
group=$(wait_for_cgroup $runner)
[ -n "$group" ] && kill -9 $runner && pass || fail "no cgroup appeared for runner $runner to kill: $(tail -3 "$T/crash.err")"
wait $runner 2>/dev/null
for _ in $(seq 50); do [ -n "$(cat "$group/cgroup.procs" 2>/dev/null)" ] || break; sleep 0.1; done  # the cell dies with its runner (PDEATHSIG)
[ -d "$group" ] && pass || fail "a runner killed outright left no cgroup: the next check means nothing"
"$ALLOCSTRESS" matrix --resume --out "$T/crash.json" >"$T/resume.out" 2>"$T/resume.err" && pass || fail "--resume exited $?: $(tail -3 "$T/resume.err")"
grep -q "memory limit: removed .*allocstress-$runner-" "$T/resume.err" && pass || fail "the resumed run did not say it removed $group: $(head -3 "$T/resume.err")"
[ ! -d "$group" ] && [ -z "$(cgroups_of '[0-9]*')" ] && pass || fail "cgroups left after --resume: $(cgroups_of '[0-9]*')"

expect_error 2 "--memory-limit 'lots': 'lots' is neither a byte count nor FxPEAK (accepted: BYTES or FxPEAK" -- "$ALLOCSTRESS" matrix --out "$T/bad.json" --memory-limit lots
expect_error 2 "--memory-limit '1000': 1000 bytes is below 1 MiB, less than a process needs to start (accepted: " -- "$ALLOCSTRESS" matrix --out "$T/bad.json" --memory-limit 1000
expect_error 2 "--memory-limit 'min=2xPEAK': unknown limit 'min' (accepted: " -- "$ALLOCSTRESS" matrix --out "$T/bad.json" --memory-limit min=2xPEAK
if grep -q ':memory:' /proc/self/cgroup && [ -d /sys/fs/cgroup/memory ]; then  # a v1 memory controller: no memory.high
  expect_error 2 "needs cgroup v2's memory.high" -- "$ALLOCSTRESS" matrix --out "$T/bad.json" --memory-limit high=0.9xPEAK
fi
expect_error 2 "--memory-limit applies to --backend local only" -- "$ALLOCSTRESS" matrix --out "$T/bad.json" --backend slurm --memory-limit 2xPEAK
finish
