# ctest: not a test (sourced by the CLI scripts)
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
# expect_error_matching RC ERE -- COMMAND...: the same, the line matching the extended regular
# expression ERE (for a message with a figure of this machine's in it).
expect_error() { _expect_error fixed "$@"; }
expect_error_matching() { _expect_error regex "$@"; }
_expect_error() {
  local how=$1 want_rc=$2 want_text=$3
  shift 4
  local out err rc before
  before=$(ls -A "$T")
  out=$("$@" 2>"$T/stderr") && rc=0 || rc=$?
  err=$(cat "$T/stderr")
  local lines
  lines=$(printf '%s' "$err" | grep -c '' || true)
  if [ "$rc" != "$want_rc" ]; then fail "exit $rc (wanted $want_rc): $* -> $err"; return; fi
  if [ "$lines" != 1 ]; then fail "$lines stderr lines (wanted 1): $* -> $err"; return; fi
  if [ "$how" = regex ]; then
    [[ $err =~ $want_text ]] || { fail "stderr does not match '$want_text': $* -> $err"; return; }
  else
    case "$err" in *"$want_text"*) ;; *) fail "stderr lacks '$want_text': $* -> $err"; return ;; esac
  fi
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

# skip_part PART REASON: a part of this script cannot run here.  Recorded as cli.SCRIPT:PART with
# its reason (tests/skip_policy.py): under CI=true, scripts/run-tests.sh fails unless
# tests/skips.allowed lists it.  Never for what scripts/setup-deps.sh installs: fail instead.
skip_part() {
  /usr/bin/python3 "$(dirname "${BASH_SOURCE[0]}")/../skip_policy.py" record "cli.$(basename "$0" .sh):$1" "$2"
}

# without_dac CMD...: runs CMD without the capabilities that let root ignore permission bits
# (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH), the same user otherwise: the permission checks a user
# meets are tested under root too (CI runs as root).  Files stay readable: root owns them.
without_dac() {
  if [ "$(id -u)" != 0 ]; then "$@"; return; fi
  setpriv --bounding-set=-dac_override,-dac_read_search --inh-caps=-dac_override,-dac_read_search "$@"
}
