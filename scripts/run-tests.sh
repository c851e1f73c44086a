#!/usr/bin/env bash
# Quick start, command 2: install what is missing, build, and run the whole test suite through
# CTest: every test on the release build (warnings are errors), then the unit tests again on the
# debug build with AddressSanitizer + UndefinedBehaviorSanitizer.
#
# Skips: every skipped test, or part of one, is listed at the end of each CTest run with its
# reason (tests/skip_policy.py).  Under CI=true a skip that tests/skips.allowed does not list
# fails the run, naming it.  Each stage prints its wall time, and the run ends with all of them.
set -euo pipefail
cd "$(dirname "$0")/.."
run_start=$SECONDS
stage_times=()

# stage NAME COMMAND...: runs one stage and notes its wall time (printed at once and at the end).
stage() {
  local name=$1 start=$SECONDS rc=0
  shift
  echo "== stage: $name"
  "$@" || rc=$?
  local took=$((SECONDS - start))
  stage_times+=("$(printf '%-28s %2d min %02d s%s' "$name" $((took / 60)) $((took % 60)) "$([ $rc = 0 ] || echo "  (failed, exit $rc)")")")
  echo "== stage: $name: $((took / 60)) min $((took % 60)) s$([ $rc = 0 ] || echo ", failed (exit $rc)")"
  if [ $rc != 0 ]; then print_times; exit $rc; fi
}
print_times() {
  echo "== wall time per stage"
  printf '  %s\n' "${stage_times[@]}"
  local all=$((SECONDS - run_start))
  echo "  all: $((all / 60)) min $((all % 60)) s"
}

# configure PRESET ARGS...: configure output goes to a log, shown in full when configure fails
# (a missing compiler or library must be seen, not hidden), and its summary lines otherwise.
configure() {
  local preset=$1 log
  shift
  log=$(mktemp)
  if ! cmake --preset "$preset" "$@" >"$log" 2>&1; then
    cat "$log"
    echo "run-tests.sh: configuring the $preset build failed (its output is above)" >&2
    rm -f "$log"
    return 1
  fi
  # What configure chose to leave out or could not find is worth a line on every run.
  grep -E "not found|not registered|disabled|Could NOT" "$log" || true
  rm -f "$log"
}

# tests PRESET: CTest on one build, then the skip check over its JUnit file and the skip log.
tests() {
  local preset=$1 dir="build/$1" rc=0
  export ALLOCSTRESS_SKIP_LOG="$PWD/$dir/skips.log"
  rm -f "$ALLOCSTRESS_SKIP_LOG" "$dir/ctest-junit.xml"
  ctest --preset "$preset" --output-junit "$PWD/$dir/ctest-junit.xml" || rc=$?
  /usr/bin/python3 tests/skip_policy.py check --junit "$dir/ctest-junit.xml" --log "$ALLOCSTRESS_SKIP_LOG" || { [ "$rc" != 0 ] || rc=1; }
  return "$rc"
}

stage "install dependencies" bash scripts/setup-deps.sh
/usr/bin/python3 tests/skip_policy.py print
stage "configure release" configure release
stage "build release" cmake --build --preset release
stage "tests release" tests release
# The sanitizer build keeps line tables only (-g1): its reports still name file:line, and its
# unit-test build took 10m42s instead of 12m03s with full -g (2 jobs, no ccache, 2026-11-27).
# `cmake --preset debug` on its own keeps full -g for gdb.
stage "configure debug" configure debug -DALLOCSTRESS_BUILD_BENCHMARKS=OFF -DCMAKE_CXX_FLAGS_DEBUG=-g1 -DCMAKE_C_FLAGS_DEBUG=-g1
stage "build debug (unit tests)" cmake --build --preset debug --target allocstress_unit_tests
stage "tests debug (sanitized unit)" tests debug
print_times
