# ctest: labels=cli timeout=600 env=@cli serial
# `matrix --thp MODE[,MODE]` and hugepage coverage.  As root: a run with `--thp never,always` (timing
# cells under never, thp cells under always) records the mode in every record, leaves the system's
# mode as it was, and shows THP coverage and the THP modes table in the .md and the HTML; under
# never every coverage is 0, under always at least one allocator's is above 0.3 (the difference
# the mode makes).  `run --thp` refuses a mode the system is not in.  A runner stopped by SIGTERM restores the mode
# itself; one killed by SIGKILL leaves it set with a state file, and the next matrix restores it
# and says so.  Bad modes give one error line and exit 2.
source "$(dirname "$0")/../lib.sh"
ENABLED=/sys/kernel/mm/transparent_hugepage/enabled
mode_now() { sed 's/.*\[\(.*\)\].*/\1/' "$ENABLED"; }
[ -r "$ENABLED" ] || { echo "FAIL: $ENABLED is missing: this kernel has no transparent huge pages" >&2; exit 1; }
[ "$(id -u)" = 0 ] || { echo "FAIL: the system's THP mode can be set by root only; run this test as root" >&2; exit 1; }
original=$(mode_now)
before=$original
trap 'echo "$original" > "$ENABLED"; rm -rf "$T"' EXIT  # whatever happens here, the machine keeps its mode

# 1M slots of blocks below 64 KiB: a heap of some 100 MiB, enough for 2 MiB pages to matter.  The
# timing cells run under never, a thp cell beside each under always (--thp never,always).
HEAP=(--workload alloc-test --slots 1048576 --iterations 2000000 --allocators system,jemalloc --threads 1 --reps 2 --no-counts)
"$ALLOCSTRESS" matrix --out "$T/modes.json" "${HEAP[@]}" --thp never,always >"$T/modes.out" 2>"$T/modes.err" && pass \
  || fail "--thp never,always exited $?: $(tail -3 "$T/modes.err")"
[ "$(mode_now)" = "$before" ] && pass || fail "after --thp never,always the system's mode is $(mode_now), not $before"
grep -q "THP mode set to never (and per thp cell to its own) for this run (it was $before" "$T/modes.err" && pass \
  || fail "--thp never,always did not say what it set: $(head -3 "$T/modes.err")"
grep -q "THP coverage" "$T/modes.md" && grep -q "### THP modes (timing cells under never" "$T/modes.md" && pass \
  || fail "no THP coverage column or THP modes table in $T/modes.md"
grep -q "THP coverage" "$T/modes-report/index.html" && grep -q "THP modes (timing cells under never" "$T/modes-report/index.html" && pass \
  || fail "no THP coverage column or THP modes table in the HTML report"
/usr/bin/python3 - "$T/modes.json" <<'EOF' && pass || fail "THP modes and coverage of the records"
import json, sys
bad = []
coverage = {}
records = [r for r in json.load(open(sys.argv[1]))["benchmarks"] if r.get("run_type") == "iteration" and r.get("status") == "ok"]
for r in records:
    mode = {"timing": "never", "thp": "always"}[r["mode"]]
    if r.get("thp_mode") != mode:
        bad.append(f"{r['name']} ran under {r.get('thp_mode')}, not {mode}")
    if r["mode"] == "thp" and not r["cell_key"].endswith(f"/thp:always/rep:{r['repetition_index']}"):
        bad.append(f"{r['cell_key']}: not a thp:always key")
    h = r["hugepages"]
    if h["unavailable"] is not None or h["readings"] < 2 or r["thp_coverage"] is None:
        bad.append(f"{r['name']}: no hugepage readings: {h['unavailable']}, {h['readings']}")
        continue
    if not 0 <= h["coverage"]["median"] <= h["coverage"]["peak"] <= 1:
        bad.append(f"{r['name']}: coverage {h['coverage']}")
    coverage.setdefault(mode, {}).setdefault(r["allocator"], []).append(r["thp_coverage"])
if sorted(coverage.get("always", {})) != ["jemalloc", "system", "void"]:
    bad.append(f"thp cells of {sorted(coverage.get('always', {}))}")
if any(c != 0 for cs in coverage.get("never", {}).values() for c in cs):
    bad.append(f"coverage under never: {coverage.get('never')}")
if not any(min(cs) > 0.3 for a, cs in coverage.get("always", {}).items() if a != "void"):
    bad.append(f"no allocator above 0.3 coverage under always: {coverage.get('always')}")
print("\n".join(bad), file=sys.stderr)
sys.exit(1 if bad else 0)
EOF

# A long run under always, stopped while a cell runs: SIGTERM (restored by the runner), then SIGKILL (by the next run).
LONG=(--workload alloc-test --slots 65536 --iterations 400000000 --max-size-exp 12 --allocators system --threads 1 --reps 1 --no-counts --thp always)
wait_for_always() { for _ in $(seq 300); do [ "$(mode_now)" = always ] && return 0; sleep 0.1; done; return 1; }
[ "$before" != always ] || echo "madvise" > "$ENABLED"  # so that `always` shows the run's doing
before=$(mode_now)
for signal in TERM KILL; do
  "$ALLOCSTRESS" matrix --out "$T/stop$signal.json" "${LONG[@]}" >"$T/stop$signal.out" 2>"$T/stop$signal.err" &
  runner=$!
  wait_for_always && sleep 0.5 && kill -$signal $runner && pass || fail "the run never set always: $(tail -2 "$T/stop$signal.err")"
  wait $runner 2>/dev/null
  if [ $signal = TERM ]; then
    [ "$(mode_now)" = "$before" ] && pass || fail "after SIGTERM the mode is $(mode_now), not $before"
  else
    [ "$(mode_now)" = always ] && [ -f /run/allocstress/thp-restore ] && pass || fail "after SIGKILL: mode $(mode_now), state file $(ls /run/allocstress 2>&1)"
    "$ALLOCSTRESS" matrix --out "$T/next.json" --workload alloc-test --slots 65536 --iterations 100000 --allocators system --threads 1 --reps 1 \
      --no-counts >"$T/next.out" 2>"$T/next.err" && pass || fail "the next run exited $?: $(tail -2 "$T/next.err")"
    grep -q "THP mode restored to $before (a previous run was stopped while it had set always)" "$T/next.err" && pass \
      || fail "the next run did not say it restored the mode: $(head -3 "$T/next.err")"
    [ "$(mode_now)" = "$before" ] && [ ! -f /run/allocstress/thp-restore ] && pass || fail "after the next run: mode $(mode_now)"
  fi
done

expect_error 2 "unknown THP mode 'sometimes' (accepted: never, madvise, always)" -- "$ALLOCSTRESS" matrix --out "$T/bad.json" --thp sometimes
expect_error 2 "--thp: THP mode 'never' named twice in 'never,never' (accepted: a comma list of never, madvise, always, each once)" -- "$ALLOCSTRESS" matrix --out "$T/bad.json" --thp never,never
other=$([ "$(mode_now)" = always ] && echo madvise || echo always)  # a mode the system is not in
expect_error 2 "the system's THP mode is $(mode_now) and \`run\` does not change it" -- "$ALLOCSTRESS" run --allocator system --thp "$other"
expect_error 2 "--thp applies to --backend local only" -- "$ALLOCSTRESS" matrix --out "$T/bad.json" --backend slurm --thp never
finish
