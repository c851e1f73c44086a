# ctest: labels=cli timeout=600 env=@cli serial
# An interrupted matrix keeps every finished cell in its journal and writes no results file;
# --resume runs only the missing cells and then writes the complete results.
source "$(dirname "$0")/../lib.sh"

# The 'slow' allocator hangs inside the workload (fault injection) so the interrupt always lands
# in the middle of a cell, after void and system of repetition 1 have been recorded.
ALLOCSTRESS_TEST_FAULT=hang "$ALLOCSTRESS" matrix --out "$T/r.json" --allocators void,system \
  --add-allocator slow="$FAULTY_MALLOC" --threads 1 --reps 2 --no-counts "${TINY[@]}" 2>"$T/first.log" &
pid=$!
for _ in $(seq 600); do
  [ "$(grep -c '"type":"cell"' "$T/r.json.journal.jsonl" 2>/dev/null)" = 2 ] && break
  sleep 0.1
done
sleep 0.5
kill -INT $pid
wait $pid && rc=0 || rc=$?
[ "$rc" = 130 ] && pass || fail "interrupted matrix exited $rc, wanted 130: $(tail -3 "$T/first.log")"
[ ! -e "$T/r.json" ] && pass || fail "an interrupted matrix wrote a results file"
grep -q "allocstress matrix --resume --out $T/r.json" "$T/first.log" && pass || fail "no resume hint: $(tail -3 "$T/first.log")"
[ "$(grep -c '"type":"cell"' "$T/r.json.journal.jsonl")" = 2 ] && pass || fail "journal does not hold the 2 finished cells"

ALLOCSTRESS_TEST_FAULT=none "$ALLOCSTRESS" matrix --resume --out "$T/r.json" >"$T/second.out" 2>"$T/second.log" \
  || fail "resume exited $?: $(tail -2 "$T/second.log")"
grep -q "resuming: 2 of 6 cells already recorded" "$T/second.log" && pass || fail "resume did not report its start point"
[ "$(grep -c '^\[' "$T/second.log")" = 4 ] && pass || fail "resume ran $(grep -c '^\[' "$T/second.log") cells, wanted 4"
cells=$(cells_of "$T/r.json") || fail "resumed results invalid"
[ "$(grep -c '	ok	' <<<"$cells")" = 6 ] && pass || fail "resumed results are not 6 ok cells: $cells"
[ ! -e "$T/r.json.journal.jsonl" ] && pass || fail "journal left behind after completion"
expect_error 2 "--resume continues the journal's own plan" -- "$ALLOCSTRESS" matrix --resume --out "$T/x.json" --reps 3
finish
