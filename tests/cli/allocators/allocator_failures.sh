# ctest: labels=cli timeout=600 env=@cli serial
# An allocator whose preload check crashes or hangs is recorded as failed with its reason (the
# results file's excluded list and records, the Markdown "Not measured" section, stderr) and the
# matrix measures the others; the check is killed after --timeout.  When every allocator asked for
# fails, the matrix says so in one line and exits 2.
source "$(dirname "$0")/../lib.sh"

# broken: aborts at its 100th malloc; hang: sleeps forever at its 100th malloc (both in the
# preload check, whose start-up makes thousands); stuck: its constructor never returns.
BROKEN="broken=$FAULTY_MALLOC,ALLOCSTRESS_TEST_FAULT=abort,ALLOCSTRESS_TEST_FAULT_AFTER=100"
HANG="hang=$FAULTY_MALLOC,ALLOCSTRESS_TEST_FAULT=hang,ALLOCSTRESS_TEST_FAULT_AFTER=100"
STUCK="stuck=$CONSTRUCTOR_HANG"

start=$(date +%s)
"$ALLOCSTRESS" matrix --out "$T/r.json" --allocators system --add-allocator "$BROKEN" --add-allocator "$HANG" \
  --add-allocator "$STUCK" --threads 1 --reps 1 --timeout 5 --no-counts "${TINY[@]}" >/dev/null 2>"$T/log" \
  && pass || fail "matrix exited $?: $(tail -3 "$T/log")"
elapsed=$(($(date +%s) - start))
# Two checks killed at 5 s each, plus a few cells: far below the preset's timeout (120 s) per hang.
[ "$elapsed" -lt 60 ] && pass || fail "matrix took $elapsed s: the preload check did not honour --timeout 5"

cells=$(cells_of "$T/r.json") || fail "results file invalid: $cells"
grep -q "^system	1	ok	" <<<"$cells" && grep -q "^void	1	ok	" <<<"$cells" && pass || fail "void/system not measured: $cells"
grep -q "^broken	1	failed	preload check failed: killed by signal 6 (SIGABRT)" <<<"$cells" && pass || fail "broken not failed with SIGABRT: $cells"
for a in hang stuck; do
  grep -q "^$a	1	failed	preload check failed: did not finish within the timeout of 5 s (--timeout) and was killed" <<<"$cells" \
    && pass || fail "$a not failed with the 5 s timeout: $cells"
  grep -q "^- $a x alloc-test at 1 threads: 1 cell(s) failed: preload check failed: did not finish within the timeout of 5 s" "$T/r.md" \
    && pass || fail "$a not in the table's Not measured section: $(cat "$T/r.md")"
  grep -q "failed: $a (preload check failed: did not finish within the timeout of 5 s" "$T/log" && pass || fail "$a not reported on stderr: $(cat "$T/log")"
done
grep -q "^Not measured:" "$T/r.md" && grep -q "^- broken x alloc-test at 1 threads: 1 cell(s) failed: preload check failed: killed by signal 6 (SIGABRT)" "$T/r.md" \
  && pass || fail "broken not in the table's Not measured section: $(cat "$T/r.md")"
/usr/bin/python3 - "$T/r.json" <<'PY' && pass || fail "context.plan.excluded does not list the three failures with their settings"
import json, sys
plan = json.load(open(sys.argv[1]))["context"]["plan"]
excluded = {e["allocator"]["name"]: e for e in plan["excluded"]}
assert set(excluded) == {"broken", "hang", "stuck"}, excluded
assert all(e["status"] == "failed" and e["reason"].startswith("preload check failed: ") for e in excluded.values()), excluded
assert excluded["broken"]["allocator"]["environment"] == {"ALLOCSTRESS_TEST_FAULT": "abort", "ALLOCSTRESS_TEST_FAULT_AFTER": "100"}, excluded
assert [a["name"] for a in plan["allocators"]] == ["void", "system"], plan["allocators"]
PY

# Nothing left to measure: one line naming each failure, exit 2, nothing written.
expect_error 2 "nothing to measure: every allocator asked for failed the preload check (broken: preload check failed: killed by signal 6 (SIGABRT)" \
  -- "$ALLOCSTRESS" matrix --out "$T/n.json" --allocators broken --add-allocator "$BROKEN" --timeout 5 --no-counts "${TINY[@]}"
finish
