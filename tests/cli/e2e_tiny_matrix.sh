# End to end: a tiny matrix over every installed allocator produces a schema-valid results file
# in which every cell is ok, every allocator saw the same operation stream, and a Markdown table.
source "$(dirname "$0")/lib.sh"

"$ALLOCSTRESS" matrix --out "$T/r.json" --threads 1-2 --reps 2 "${TINY[@]}" >"$T/out" 2>"$T/log" \
  || { fail "matrix exited $?: $(tail -3 "$T/log")"; finish; exit 1; }
cells=$(cells_of "$T/r.json") || { fail "results file is not schema-valid"; finish; exit 1; }
pass
found=$("$ALLOCSTRESS" list | tail -n +3 | awk '$3 == "found" {print $1}')
for a in $found; do
  [ "$(grep -c "^$a	[12]	ok	" <<<"$cells")" = 4 ] && pass || fail "$a: not 4 ok cells: $(grep "^$a	" <<<"$cells")"
  grep -q "^| $a" "$T/r.md" && pass || fail "$a missing from the Markdown table"
done
grep -q "different operation streams" "$T/r.json" && fail "allocators saw different operation streams" || pass
grep -q "net cycles/pair" "$T/out" && pass || fail "table not printed"
[ ! -e "$T/r.json.journal.jsonl" ] && pass || fail "journal left behind"
[ ! -e "$T/r.json.scratch" ] && pass || fail "the cells' scratch folder was left behind"
[ -s "$T/r-report/index.html" ] && grep -q "report:  $T/r-report/index.html" "$T/out" && pass || fail "matrix did not end with the HTML report"
finish
