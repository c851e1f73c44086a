# A disk that fills while the matrix writes its report (issue 29).  The failure is injected, so
# that it is the same on every run: a sitecustomize module on PYTHONPATH (the report's Python
# process keeps the caller's PYTHONPATH) makes the write of the report's index.html, its last
# file, fail with ENOSPC, as a full disk would after the tables and figures were written.  The report is written into a temporary
# folder beside <out>-report/ and renamed into place when whole, so nothing half-written is
# left; the matrix says in one line that the results are safe and which command writes the
# report, and exits 0 (the results are complete).  That command then writes it.
source "$(dirname "$0")/lib.sh"
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
finish
