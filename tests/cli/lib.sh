# Helpers for the CLI tests (sourced).  Each test runs the real `allocstress` executable as a user
# would, in a private temporary folder, and fails with a message naming what went wrong.
set -u
: "${ALLOCSTRESS:?set by CTest}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
failures=0
checks=0

fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
pass() { checks=$((checks + 1)); }

# expect_error RC SUBSTRING -- COMMAND...: the command exits RC, writes exactly one line to
# stderr containing SUBSTRING, nothing to stdout, and creates no file (results, journal) in $T.
expect_error() {
  local want_rc=$1 want_text=$2
  shift 3
  local out err rc before
  before=$(ls -A "$T")
  out=$("$@" 2>"$T/stderr") && rc=0 || rc=$?
  err=$(cat "$T/stderr")
  local lines
  lines=$(printf '%s' "$err" | grep -c '' || true)
  if [ "$rc" != "$want_rc" ]; then fail "exit $rc (wanted $want_rc): $* -> $err"; return; fi
  if [ "$lines" != 1 ]; then fail "$lines stderr lines (wanted 1): $* -> $err"; return; fi
  case "$err" in *"$want_text"*) ;; *) fail "stderr lacks '$want_text': $* -> $err"; return ;; esac
  if [ -n "$out" ]; then fail "stdout not empty: $* -> $out"; return; fi
  if [ "$(ls -A "$T" | grep -vx stderr)" != "$(grep -vx stderr <<<"$before")" ]; then
    fail "left files behind: $* -> $(ls "$T")"; return
  fi
  pass
}

# expect_exact RC LINE -- COMMAND...: as expect_error, and the one stderr line is exactly LINE.
expect_exact() {
  local want_line=$2 before=$failures
  expect_error "$@"
  [ "$failures" = "$before" ] || return
  if [ "$(cat "$T/stderr")" != "$want_line" ]; then
    checks=$((checks - 1))
    fail "stderr is not exactly the line wanted: $(cat "$T/stderr") (wanted: $want_line)"
  fi
}

# Prints "allocator<TAB>threads<TAB>status<TAB>reason" per measured cell, after validating the
# results file against results/schema.json (exit 1 with the violations otherwise).
cells_of() { /usr/bin/python3 "$VALIDATOR" "$SCHEMA" "$1"; }

finish() {
  echo "$checks passed, $failures failed"
  [ "$failures" -eq 0 ]
}

# Small parameters so that every cell takes well under a second.
TINY=(--slots 65536 --iterations 200000 --max-size-exp 12)

# The fault-injecting test allocator (tests/support/faulty_malloc.c) misbehaves after this many
# malloc calls: above the harness's own start-up and well below the ~100,000 mallocs of a TINY
# cell, so the fault always lands inside the measured loop.  Start-up is mostly CLI11 building
# every command's options: 21,042 mallocs for `allocstress list` on 2026-11-27 (the threshold was
# 20,000 until then, when four new options pushed start-up past it).
export ALLOCSTRESS_TEST_FAULT_AFTER=50000
