# ctest: labels=cli timeout=600 env=@cli,STATIC_PROGRAM,TINY_SERVER,TINY_CLIENT serial
# `allocstress bench -- CMD` (cli/commands/bench_command.cpp): a user's command under system and jemalloc,
# with its own metric and the output check -- schema-valid records named after it, the metric in
# workload_metrics with an interval, the verdict ranking by wall time, peak RSS and the metric --
# then failure isolation (an allocator under which the program exits non-zero, crashes, hangs
# past --timeout or changes its output fails with the reason; the others are measured), and bad
# input: one line, exit 2, nothing written (a statically linked program among it).
source "$(dirname "$0")/../lib.sh"
JEMALLOC=$("$ALLOCSTRESS" list 2>/dev/null | awk '$1 == "jemalloc" && $3 == "found" {print "jemalloc"}' | head -1)
[ -n "$JEMALLOC" ] || { echo "FAIL: jemalloc is not installed (scripts/setup-deps.sh installs it)"; exit 1; }
PY=/usr/bin/python3

# 1. A churn loop that prints a figure, checked output, 2 measured runs each.
"$ALLOCSTRESS" bench --allocators system,jemalloc --reps 2 --check-output --metric 'score=score: ([0-9.]+),lower' \
  --name churn -o "$T/c.json" -- $PY -c 'd = {}
for i in range(40000): d[i % 3000] = [i] * (i % 13)
print("entries", len(d)); print("score: 42.5")' >"$T/out" 2>"$T/log" || fail "bench failed: $(tail -3 "$T/log")"
cells=$(cells_of "$T/c.json") || fail "bench results are not schema-valid: $cells"
$PY - "$T/c.json" <<'PY' && pass || fail "bench records are wrong"
import json, sys
doc = json.load(open(sys.argv[1]))
it = [b for b in doc["benchmarks"] if b["run_type"] == "iteration"]
for a in ("system", "jemalloc"):
    rows = [b for b in it if b["allocator"] == a]
    assert len(rows) == 2 and all(b["status"] == "ok" and b["workload"] == "churn" for b in rows), [(b["status"], b.get("reason")) for b in rows]
    for b in rows:
        m, p = b["workload_metrics"], b["program"]
        assert m["score"] == 42.5 and m["wall_s"] > 0 and m["peak_rss_mib"] > 1 and m["processes"] == 1, m
        assert p["name"] == "churn" and p["origin"] == "allocstress bench" and p["exit_code"] == 0, p
        assert p["output_checked"] == (a != "system"), p  # system's verification run wrote the reference
        assert p["preload"]["processes_reached"] == 1 and p["processes"][0]["malloc_from"] == p["preload"]["malloc_expected_from"], p
        assert b["params"]["program"]["metrics"][0]["better"] == "lower", b["params"]
med = [b for b in doc["benchmarks"] if b["run_type"] == "aggregate" and b["aggregate_name"] == "median"]
assert len(med) == 2 and all("score" in b["intervals"] and "wall_s" in b["intervals"] for b in med), med
assert doc["context"]["plan"]["warmup_runs"] == 1 and doc["context"]["plan"]["randomised_order"] is True
PY
grep -q '^\*\*churn, 1 thread\*\*: cost in wall s' "$T/c.md" && grep -q '^\*\*churn, 1 thread\*\*: memory, peak RSS MiB' "$T/c.md" \
  && grep -q '^\*\*churn, 1 thread\*\*: score, read from the program.s output, lowest first' "$T/c.md" && pass \
  || fail "the verdict lacks a line: $(head -30 "$T/c.md")"
grep -q "^\[warm-up 1/2\] .* churn .* ok .*verified: 1 of 1 process(es) under the allocator, [0-9]* allocation calls" "$T/log" && pass \
  || fail "no verification line: $(cat "$T/log")"
[ -f "$T/c-report/index.html" ] && pass || fail "no report"

# 2. Failure isolation: the program misbehaves only where jemalloc is preloaded.
misbehave() {  # $1: what it does under jemalloc
  echo "case \"\$LD_PRELOAD\" in *jemalloc*) $1 ;; esac; echo same output"
}
run_isolated() {  # $1: label, $2: what it does, $3: the reason expected, then bench options
  local label=$1 action=$2 reason=$3
  shift 3
  "$ALLOCSTRESS" bench --allocators system,jemalloc --reps 1 --name "$label" -o "$T/$label.json" "$@" -- /bin/sh -c "$(misbehave "$action")" \
    >/dev/null 2>"$T/$label.log" || { fail "$label: bench failed: $(tail -2 "$T/$label.log")"; return; }
  $PY - "$T/$label.json" "$reason" <<'PY' && pass || fail "$label: jemalloc is not failed with '$reason', or system is not ok"
import json, sys
doc = json.load(open(sys.argv[1]))
it = {b["allocator"]: b for b in doc["benchmarks"] if b["run_type"] == "iteration"}
assert it["system"]["status"] == "ok", it["system"].get("reason")
assert it["jemalloc"]["status"] == "failed" and sys.argv[2] in it["jemalloc"]["reason"], it["jemalloc"].get("reason")
PY
}
run_isolated exits 'echo oops >&2; exit 3' "the program exited with code 3: oops"
run_isolated crashes 'kill -SEGV $$' "killed by signal 11 (SIGSEGV)"
run_isolated hangs 'sleep 60' "exceeded its timeout of 2 s and was killed" --timeout 2
run_isolated differs 'echo other output; exit 0' "the output differs from system's" --check-output
grep -q "first difference at line 1: system's 'same output', this run's 'other output'" "$T/differs.json" && pass || fail "no diff excerpt in the reason"

# A program that never calls malloc (coreutils' true): every verification run fails, bench exits 1.
"$ALLOCSTRESS" bench --allocators system,jemalloc --reps 1 -o "$T/true.json" -- /bin/true >/dev/null 2>"$T/true.log" && rc=0 || rc=$?
[ "$rc" = 1 ] && grep -q "the program never called malloc (0 allocation calls counted in 1 process(es))" "$T/true.json" && pass \
  || fail "a program that never calls malloc is not refused (exit $rc): $(grep -m1 reason "$T/true.json")"

# The default set: every installed drop-in, no in-tree allocator (it cannot run a program) and no
# "skipped" line for one.
"$ALLOCSTRESS" bench --reps 1 -o "$T/default.json" -- /bin/ls / >/dev/null 2>"$T/default.log" || fail "bench on the default set failed: $(tail -2 "$T/default.log")"
$PY - "$T/default.json" <<'PY' && pass || fail "the default set of bench is not the installed drop-ins"
import json, sys
records = [b for b in json.load(open(sys.argv[1]))["benchmarks"] if b["run_type"] == "iteration"]
names = {b["allocator"] for b in records}
assert {"system", "jemalloc", "tcmalloc", "mimalloc"} <= names and not names & {"pool", "bump", "eqclass", "void"}, names
assert all(b["status"] == "ok" for b in records), [(b["allocator"], b["status"], b.get("reason")) for b in records]
PY

# 3. Bad input: one line naming it, exit 2, nothing written.
expect_error 2 "no command to measure (accepted: allocstress bench [options] -- CMD" -- "$ALLOCSTRESS" bench -o "$T/b1.json"
expect_error 2 "no program 'no-such-program-of-allocstress' on PATH" -- "$ALLOCSTRESS" bench -o "$T/b2.json" -- no-such-program-of-allocstress
expect_error 2 "statically linked: $STATIC_PROGRAM has no ELF interpreter" -- "$ALLOCSTRESS" bench -o "$T/b3.json" -- "$STATIC_PROGRAM"
expect_error 2 "metric 'rps': '([0-9' is not a regular expression" -- "$ALLOCSTRESS" bench --metric 'rps=([0-9' -o "$T/b4.json" -- /bin/true
expect_error 2 "--metric 'rps' is not NAME=REGEX[,higher|lower]" -- "$ALLOCSTRESS" bench --metric rps -o "$T/b5.json" -- /bin/true
expect_error 2 "--client belongs to server mode: give --server CMD too" -- "$ALLOCSTRESS" bench --client x -o "$T/b6.json" -- /bin/true
expect_error 2 "--server needs --client CMD" -- "$ALLOCSTRESS" bench --server /bin/true --ready-port 5 -o "$T/b7.json"
expect_error 2 "a server needs a way to tell it is up" -- "$ALLOCSTRESS" bench --server /bin/true --client true -o "$T/b8.json"
expect_error 2 "--name 'alloc-test' is a built-in workload's name" -- "$ALLOCSTRESS" bench --name alloc-test -o "$T/b9.json" -- /bin/true
expect_error 2 "--check-output compares every allocator's output with system's: add system to --allocators" \
  -- "$ALLOCSTRESS" bench --allocators jemalloc --check-output -o "$T/b10.json" -- /bin/true
expect_error 2 "--timeout must be a number of seconds" -- "$ALLOCSTRESS" bench --timeout 0 -o "$T/b11.json" -- /bin/true
finish
