# ctest: labels=cli timeout=600 env=@cli serial
# A disk that fills while the matrix writes its report, its results file, or its journal (issue 29).  The failure is injected, so
# that it is the same on every run: a sitecustomize module on PYTHONPATH (the report's Python
# process keeps the caller's PYTHONPATH) makes the write of the report's index.html, its last
# file, fail with ENOSPC, as a full disk would after the tables and figures were written.  The report is written into a temporary
# folder beside <out>-report/ and renamed into place when whole, so nothing half-written is
# left; the matrix says in one line that the results are safe and which command writes the
# report, and exits 0 (the results are complete).  That command then writes it.
source "$(dirname "$0")/../lib.sh"
mkdir "$T/inject" "$T/out"
cat > "$T/inject/sitecustomize.py" <<'PY'
import builtins, errno
_open = builtins.open
def _full_disk_open(file, mode="r", *args, **kwargs):
    if any(c in mode for c in "wax") and "-report" in str(file) and str(file).endswith("index.html"):
        raise OSError(errno.ENOSPC, "No space left on device", str(file))
    return _open(file, mode, *args, **kwargs)
builtins.open = _full_disk_open
PY
out="$T/out/r.json"
rc=0
PYTHONPATH="$T/inject" "$ALLOCSTRESS" matrix --allocators system --threads 1 --reps 1 --no-counts "${TINY[@]}" --out "$out" \
  >"$T/stdout" 2>"$T/stderr" || rc=$?
[ "$rc" = 0 ] && pass || fail "the matrix exited $rc: $(tail -3 "$T/stderr")"
want="note: the HTML report was not written ($T/out/r-report: No space left on device); the results are safe in $out and $T/out/r.md: \`allocstress report $out\` writes the report"
[ "$(tail -1 "$T/stderr")" = "$want" ] && pass || fail "last stderr line: $(tail -1 "$T/stderr") (wanted: $want)"
[ "$(grep -c 'HTML report' "$T/stderr")" = 1 ] && pass || fail "the note is not one line: $(cat "$T/stderr")"
# Nothing half-written: no report folder, no temporary one; the results and the table are whole.
[ "$(ls "$T/out")" = "$(printf 'r.json\nr.md')" ] && pass || fail "the out folder holds: $(ls "$T/out")"
cells_of "$out" >/dev/null && pass || fail "the results file is not valid"
# The command the note names writes the report.
"$ALLOCSTRESS" report "$out" >/dev/null 2>"$T/report.err" && [ -f "$T/out/r-report/index.html" ] && pass ||
  fail "allocstress report after the failure: $(cat "$T/report.err")"
[ "$(ls "$T/out")" = "$(printf 'r-report\nr.json\nr.md')" ] && pass || fail "after the report the out folder holds: $(ls "$T/out")"
# A report that fails again leaves the earlier one as it was.
before=$(cd "$T/out/r-report" && ls && md5sum index.html)
rc=0; PYTHONPATH="$T/inject" "$ALLOCSTRESS" report "$out" >/dev/null 2>"$T/report.err" || rc=$?
[ "$rc" = 2 ] && [ "$(cat "$T/report.err")" = "allocstress: error: $T/out/r-report: No space left on device" ] && pass ||
  fail "a failing report: exit $rc: $(cat "$T/report.err")"
[ "$(cd "$T/out/r-report" && ls && md5sum index.html)" = "$before" ] && [ "$(ls "$T/out")" = "$(printf 'r-report\nr.json\nr.md')" ] && pass ||
  fail "a failing report changed the earlier one: $(ls "$T/out" "$T/out/r-report")"

# The disk fills earlier, as the results file is written: a file size limit the journal stays
# under and the results file does not (the journal of these 2 cells is about 14 KB, their results
# file about 40 KB; SIGXFSZ ignored, so that the write fails with EFBIG as on a full disk).  The
# run stops with one line saying the records are safe in the journal and which command goes on;
# that command writes the results and the report.
mkdir "$T/early"
out="$T/early/r.json"
rc=0
(trap '' XFSZ; ulimit -f 30; exec "$ALLOCSTRESS" matrix --allocators system --threads 1 --reps 1 --no-counts --target-ci 0 "${TINY[@]}" --out "$out") \
  >/dev/null 2>"$T/early.err" || rc=$?
want="allocstress: error: cannot write $out.tmp: File too large; every cell's record is safe in $out.journal.jsonl: \`allocstress matrix --resume --out $out\` writes the results and the report"
[ "$rc" = 1 ] && [ "$(tail -1 "$T/early.err")" = "$want" ] && pass || fail "results file over the limit: exit $rc: $(tail -1 "$T/early.err") (wanted: $want)"
[ -f "$out.journal.jsonl" ] && [ ! -e "$out" ] && [ ! -e "$out.tmp" ] && pass || fail "after the failed write: $(ls "$T/early")"
"$ALLOCSTRESS" matrix --resume --out "$out" >/dev/null 2>"$T/early.err" && cells_of "$out" >/dev/null && [ -f "$T/early/r-report/index.html" ] &&
  [ ! -e "$out.journal.jsonl" ] && pass || fail "--resume after the failed write: $(tail -2 "$T/early.err"); $(ls "$T/early")"

# ... and earlier still, as a cell's record is appended to the journal (a limit under the journal
# of 2 cells): the line names the cells recorded before, safe in the journal, and --resume.
mkdir "$T/journal"
out="$T/journal/r.json"
rc=0
(trap '' XFSZ; ulimit -f 8; exec "$ALLOCSTRESS" matrix --allocators system --threads 1 --reps 1 --no-counts --target-ci 0 "${TINY[@]}" --out "$out") \
  >/dev/null 2>"$T/journal.err" || rc=$?
recorded=$(/usr/bin/python3 -c 'import sys; print(sum(1 for l in open(sys.argv[1]) if l.endswith("\n") and "\"type\":\"cell\"" in l))' "$out.journal.jsonl")
want="allocstress: error: cannot write $out.journal.jsonl: File too large (the $recorded cells recorded before are safe in it: \`allocstress matrix --resume --out $out\` continues the run)"
[ "$rc" = 1 ] && [ "$(tail -1 "$T/journal.err")" = "$want" ] && pass || fail "journal over the limit: exit $rc: $(tail -1 "$T/journal.err") (wanted: $want)"
"$ALLOCSTRESS" matrix --resume --out "$out" >/dev/null 2>"$T/journal.err" && cells_of "$out" >/dev/null && [ -f "$T/journal/r-report/index.html" ] &&
  pass || fail "--resume after the failed append: $(tail -2 "$T/journal.err"); $(ls "$T/journal")"
finish
