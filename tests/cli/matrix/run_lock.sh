# ctest: labels=cli timeout=600 env=@cli serial
# One run per results file (issue 29): a matrix holds <out>.lock (flock, its pid inside) from its
# start to the end of its report.  A second matrix, or --resume, on the same --out meanwhile is
# refused with one line naming the running one's pid, exit 2, nothing written; once the first
# is interrupted, its journal is what a new run is told about, and the lock is gone.
source "$(dirname "$0")/../lib.sh"
mkdir "$T/out"
# Still running while the checks below run (they take well under a second): 200 cells of about
# 0.1 s each; it is interrupted after them.
"$ALLOCSTRESS" matrix --allocators system --threads 1 --reps 100 --no-counts --target-ci 0 "${TINY[@]}" --out "$T/out/r.json" \
  >/dev/null 2>"$T/out/first.err" &
first=$!
# Wait on state: the journal's first cell line (the lock is taken before the journal is created).
for _ in $(seq 600); do
  cells=$(grep -c '"type":"cell"' "$T/out/r.json.journal.jsonl" 2>/dev/null)
  [ "${cells:-0}" -ge 1 ] && break
  kill -0 "$first" 2>/dev/null || break
  sleep 0.1
done
[ "$(cat "$T/out/r.json.lock" 2>/dev/null)" = "$first" ] && pass || fail "the lock file does not hold the running matrix's pid $first: $(cat "$T/out/r.json.lock" 2>&1)"
running="allocstress: error: another allocstress (pid $first) is running on $T/out/r.json: wait for it to end, or choose another --out"
expect_exact 2 "$running" -- "$ALLOCSTRESS" matrix --allocators system --threads 1 --reps 1 --no-counts "${TINY[@]}" --out "$T/out/r.json"
expect_exact 2 "$running" -- "$ALLOCSTRESS" matrix --allocators system --threads 1 --reps 1 --no-counts "${TINY[@]}" --out "$T/out/r.json" --force
expect_exact 2 "$running" -- "$ALLOCSTRESS" matrix --resume --out "$T/out/r.json"
kill -0 "$first" 2>/dev/null && pass || fail "the first matrix ended before the checks: $(tail -3 "$T/out/first.err")"
# Interrupted (Ctrl-C): exit 130, the journal stays, the lock goes; a new run is told to resume.
kill -INT "$first"
rc=0; wait "$first" || rc=$?
[ "$rc" = 130 ] && pass || fail "the interrupted matrix exited $rc: $(tail -3 "$T/out/first.err")"
[ ! -e "$T/out/r.json.lock" ] && [ -e "$T/out/r.json.journal.jsonl" ] && pass || fail "after the interrupt: $(ls "$T/out")"
expect_exact 2 "allocstress: error: an interrupted run left $T/out/r.json.journal.jsonl (continue it with --resume --out $T/out/r.json, or delete it)" -- \
  "$ALLOCSTRESS" matrix --allocators system --threads 1 --reps 1 --no-counts "${TINY[@]}" --out "$T/out/r.json"
[ ! -e "$T/out/r.json.lock" ] && pass || fail "a refused run left the lock file"
finish
