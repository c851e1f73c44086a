# ctest: labels=cli timeout=600 env=@cli,MAKE_TRACE serial
# Trace replay end to end: synthetic traces of a known shape (tests/replay/make_trace.cpp) replay
# on every installed allocator, with cross-thread frees and more threads than PUs, without
# deadlock (each run under a timeout) and with every operation replayed; `allocstress replay`
# writes a schema-valid results file with a replay table and the allocstats series; a trace cut
# short replays its complete blocks with a warning; bad input is refused with one line.
source "$(dirname "$0")/../lib.sh"
: "${MAKE_TRACE:?set by CTest}"

field() { /usr/bin/python3 -c "import json,sys; r=json.loads(sys.stdin.read().strip().splitlines()[-1]); print($1)"; }

"$MAKE_TRACE" "$T/one.ast" 1 20000 0 >"$T/one.txt"
"$MAKE_TRACE" "$T/three.ast" 3 20000 40 >"$T/three.txt"
read -r three_events _ <"$T/three.txt"

# Every installed allocator, the 3-thread trace (cross-thread frees; 3 threads > 2 PUs here).
allocators=$("$ALLOCSTRESS" list | tail -n +3 | awk '$3 == "found" {print $1}')
for a in $allocators; do
  rec=$(timeout 120 "$ALLOCSTRESS" run --allocator "$a" --workload replay --trace "$T/three.ast" --access write_read 2>"$T/err") \
    || { fail "replay on $a exited $?: $(tail -1 "$T/err")"; continue; }
  got=$(field "r['status'], r['threads'], r['ops'] == r['trace']['ops'] == r['mallocs'] + r['frees'] + r['reallocs'], r['trace']['trace_events'], r['trace']['cross_thread_consumes'] > 1000, len(r['allocstats']['rows']) > 0" <<<"$rec")
  [ "$got" = "ok 3 True $three_events True True" ] && pass || fail "replay on $a: $got $(field "r.get('reason')" <<<"$rec")"
done

# The matrix form: void baseline included, net costs, the table, the allocstats series.
timeout 300 "$ALLOCSTRESS" replay "$T/one.ast" --allocators system,pool --reps 2 --no-counts --out "$T/r.json" >"$T/out" 2>"$T/log" \
  || fail "replay command exited $?: $(tail -3 "$T/log")"
cells=$(cells_of "$T/r.json") || fail "results not schema-valid: $cells"
[ "$(grep -c $'\tok\t' <<<"$cells")" = 6 ] && pass || fail "wanted 6 ok cells (void, system, pool x 2 reps): $cells"
# The table's row says how many processes counted and how many were disturbed (replaced, counted
# apart), as the cell's median record does; a cell whose every process was disturbed is listed
# under "Not measured" instead (on a busy machine that can happen).
/usr/bin/python3 - "$T/r.json" "$T/r.md" <<'EOF' && pass || fail "replay table: $(cat "$T/r.md")"
import json, re, sys
doc, md = json.load(open(sys.argv[1])), open(sys.argv[2]).read()
med = [b for b in doc["benchmarks"] if b["run_type"] == "aggregate" and b.get("aggregate_name") == "median" and b["allocator"] == "pool"]
ok, disturbed = (med[0]["repetitions_ok"], med[0].get("repetitions_disturbed", 0)) if med else (0, 0)
want = rf"^\| pool \| 1 \| {ok}" + (rf" \(\+{disturbed} disturbed\)" if disturbed else "") + r" \|"
found = "### replay" in md and (re.search(want, md, re.M) if med else re.search(r"^- pool x replay at 1 threads: \d+ cell\(s\) disturbed: ", md, re.M))
bad = [] if found and (not med or ok >= 1) else [f"no pool row {want!r}" if med else "no pool row and no 'Not measured' line"]
print("\n".join(bad), file=sys.stderr)
sys.exit(1 if bad else 0)
EOF
/usr/bin/python3 - "$T/r.json" <<'EOF' && pass || fail "replay records lack net costs or a consistent allocstats series"
import json, sys
cells = [b for b in json.load(open(sys.argv[1]))["benchmarks"] if b.get("run_type") == "iteration"]
for c in cells:
    assert c["net_cycles_per_pair"] is not None, c["allocator"]
    rows = c["allocstats"]["rows"]
    assert rows and [r[0] for r in rows] == sorted(r[0] for r in rows), "rows in recorded order"
    assert all(r[3] == r[2] - r[1] for r in rows), "overhead = rss - used"
    assert all(b[4] >= a[4] for a, b in zip(rows, rows[1:])), "maxmem never falls"
    assert c["peak_live_requested_bytes"] >= max(r[1] for r in rows)
EOF

# Memory validity: by default every page of every block is written once, so the RSS holds the
# blocks (overhead ratio >= 1); with --access none glibc gives 1 MiB blocks that are never made
# resident, the RSS grows by less than is live, and that ratio is reported invalid, never ranked.
"$MAKE_TRACE" "$T/big.ast" 1 3000 0 1 1048576 >/dev/null
rec=$("$ALLOCSTRESS" run --allocator system --workload replay --trace "$T/big.ast") || fail "replay of 1 MiB blocks failed"
got=$(field "r['params']['memory_access'], r['overhead_ratio'] >= 1, 'overhead_ratio_invalid' in r" <<<"$rec")
[ "$got" = "touch True False" ] && pass || fail "default access does not make the blocks resident: $got"
rec=$("$ALLOCSTRESS" run --allocator system --workload replay --trace "$T/big.ast" --access none) || fail "replay --access none failed"
got=$(field "r['overhead_ratio'] is None, r['overhead_ratio_measured'] < 1, 'not all resident' in r['overhead_ratio_invalid']" <<<"$rec")
[ "$got" = "True True True" ] && pass || fail "an overhead ratio below 1 was not flagged invalid: $got"
"$ALLOCSTRESS" replay "$T/big.ast" --allocators system --reps 1 --access none --no-counts --out "$T/none.json" >/dev/null 2>"$T/log" || fail "replay --access none matrix failed: $(tail -1 "$T/log")"
# (a row when some process of the cell was undisturbed; on a busy machine every one may be
# disturbed, and the cell is listed under "Not measured" instead)
{ grep -Eq '^\| system \| 1 \| 1( \(\+[0-9]+ disturbed\))? \|.*\| invalid \(< 1\) \|' "$T/none.md" \
  || { ! grep -q '^| system ' "$T/none.md" && grep -q "^- system x replay at 1 threads: [0-9]* cell(s) disturbed: " "$T/none.md"; }; } && pass \
  || fail "the table does not say invalid: $(grep '| system\|^- system' "$T/none.md")"
rm -f "$T/big.ast"

# A trace cut inside a block: the complete blocks replay, with a warning.
size=$(stat -c %s "$T/one.ast")
head -c $((size * 2 / 3)) "$T/one.ast" >"$T/cut.ast"
rec=$("$ALLOCSTRESS" run --allocator pool --workload replay --trace "$T/cut.ast") || fail "cut trace did not replay"
got=$(field "r['status'], 0 < r['ops'] < 20000, any('cut short' in w for w in r['warnings'])" <<<"$rec")
[ "$got" = "ok True True" ] && pass || fail "cut trace: $got"

# A program nobody here wrote, traced and replayed end to end: sort on a generated file, then
# python3 with its allocations routed through malloc.
seq 1 20000 | awk '{print ($1 * 7919) % 100003}' >"$T/numbers.txt"
"$ALLOCSTRESS" trace --out "$T/sort" -- sort -n "$T/numbers.txt" >"$T/sorted.txt" 2>"$T/trace.log" || fail "tracing sort failed: $(cat "$T/trace.log")"
PYTHONMALLOC=malloc "$ALLOCSTRESS" trace --out "$T/py" -- /usr/bin/python3 -c 'import json; print(len(json.dumps([{str(i): [i] * 5} for i in range(20000)])))' \
  >/dev/null 2>>"$T/trace.log" || fail "tracing python3 failed: $(cat "$T/trace.log")"
for f in "$T"/sort.*.ast "$T"/py.*.ast; do
  [ -f "$f" ] || { fail "no trace file written: $(cat "$T/trace.log")"; continue; }
  for a in system pool; do
    rec=$(timeout 120 "$ALLOCSTRESS" run --allocator "$a" --workload replay --trace "$f" --access write_read) || { fail "replay of $f on $a failed"; continue; }
    got=$(field "r['status'], r['ops'] == r['trace']['ops'] > 100, r['peak_live_requested_bytes'] > 0" <<<"$rec")
    [ "$got" = "ok True True" ] && pass || fail "replay of $(basename "$f") on $a: $got"
  done
done
rm -f "$T"/sort.*.ast "$T"/py.*.ast "$T/numbers.txt" "$T/sorted.txt" "$T/trace.log"

# Bad input: one line, exit 2, nothing written.
printf 'hello\n' >"$T/text.ast"
cp "$T/one.ast" "$T/corrupt.ast"
printf '\xff\xff\xff\xff' | dd of="$T/corrupt.ast" bs=1 seek=200 conv=notrunc status=none
expect_error 2 "--trace $T/missing.ast: the file does not exist or is not a file" -- "$ALLOCSTRESS" replay "$T/missing.ast" --out "$T/x.json"
expect_error 2 "$T/text.ast: offset 0: not an allocstress trace (no ASTRACE1 magic; accepted: " -- "$ALLOCSTRESS" replay "$T/text.ast" --out "$T/x.json"
# (the offset is the damaged block's: where the file header and the command line end)
expect_error_matching 2 "$T/corrupt.ast: offset [0-9]+: block payload does not decompress: Data corruption detected$" -- "$ALLOCSTRESS" replay "$T/corrupt.ast" --out "$T/x.json"
expect_error_matching 2 "$T/corrupt.ast: offset [0-9]+: block payload does not decompress: Data corruption detected$" -- "$ALLOCSTRESS" run --allocator system --workload replay --trace "$T/corrupt.ast"
expect_error 2 "replay cannot take --threads 2: its thread count is the trace's (1); drop --threads" -- "$ALLOCSTRESS" replay "$T/one.ast" --threads 2 --out "$T/x.json"
expect_error 2 "replay cannot take --threads 2: its thread count is the trace's (3); drop --threads (or pass --threads 3)" -- "$ALLOCSTRESS" run --allocator pool --workload replay --trace "$T/three.ast" --threads 2
expect_error 2 "--workload replay needs --trace FILE (a trace from \`allocstress trace\` or \`allocstress import\`)" -- "$ALLOCSTRESS" run --allocator pool --workload replay
expect_error 2 "--trace applies to replay only, not to alloc-test" -- "$ALLOCSTRESS" run --allocator pool --trace "$T/one.ast"
expect_error 2 "--slots applies to alloc-test, xthread and larson only, not to replay" -- "$ALLOCSTRESS" replay "$T/one.ast" --slots 1000 --out "$T/x.json"
expect_error 2 "replay cannot share a matrix with alloc-test: its thread count is the trace's (run it alone)" -- "$ALLOCSTRESS" matrix --workload replay,alloc-test --trace "$T/one.ast" --out "$T/x.json"
expect_error 2 "--cache-sim applies to bintree, linkedlist and multilist (their search phase), not to replay" -- "$ALLOCSTRESS" run --allocator system --workload replay --trace "$T/one.ast" --cache-sim
expect_error 2 "replay takes the trace as its argument: drop --workload/--trace (or use matrix --workload replay --trace FILE)" -- "$ALLOCSTRESS" replay "$T/one.ast" --workload bintree --out "$T/x.json"
expect_error 2 "unknown memory access 'sometimes' (accepted: none, touch, write, write_read)" -- "$ALLOCSTRESS" replay "$T/one.ast" --access sometimes --out "$T/x.json"
finish
