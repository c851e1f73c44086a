#!/usr/bin/env bash
# The sanitized unit tests (ASan + UBSan build), one process per test suite rather than per case.
# A sanitized process costs ~0.5 s before its first test (ASan registers every instrumented global,
# LeakSanitizer scans the data at exit), and there are over 300 cases.  The suites named in
# FRESH_PROCESS measure their own process (its RSS, faults, hugepages) or run a workload in it:
# their cases keep a process each, since what an earlier case left resident shows in the next
# (MemoryPhases.ACellRecordsItsSeriesCheckpointsAndMetrics saw 0.07 of its heap resident, 2026-11-27).
# Usage: run_by_suite.sh UNIT_TEST_BINARY.  Exit 0 only if every process passed; the failed
# filters are listed at the end.
set -uo pipefail
binary=${1:?usage: run_by_suite.sh UNIT_TEST_BINARY}
FRESH_PROCESS=" AllocTestWorkload CrossThread FalseSharingKernel FleetProfile HugepageSampler HugepageUsage Interference Larson \
  LifetimeModels LifetimeWorkload MemoryOverhead MemoryPhases ReplayLoop ReplayProgram StructureWorkloads "

listing=$("$binary" --gtest_list_tests) || { echo "run_by_suite.sh: $binary --gtest_list_tests failed" >&2; exit 1; }
# gtest lists "Suite." lines, each followed by "  Case" lines ("Prefix/Suite." for parameterised
# suites; a "  # GetParam() = ..." comment may follow a case); other lines are not part of the list.
fresh() { local name=${1%.}; [[ $FRESH_PROCESS == *" ${name#*/} "* ]]; }
filters=()
suite=""
while IFS= read -r line; do
  if [[ $line =~ ^([A-Za-z0-9_/]+\.)$ ]]; then
    suite=${BASH_REMATCH[1]}
    fresh "$suite" || filters+=("${suite}*")
  elif [[ -n $suite && $line =~ ^\ \ ([A-Za-z0-9_/]+) ]] && fresh "$suite"; then
    filters+=("${suite}${BASH_REMATCH[1]}")
  fi
done <<< "$listing"

# Each process writes a GoogleTest XML report: brief output does not name skipped cases, and a
# skip must be seen (tests/skip_policy.py records them as unit.sanitized:Suite.Case).
reports=$(mktemp -d)
trap 'rm -rf "$reports"' EXIT
failed=()
n=0
for f in "${filters[@]}"; do
  n=$((n + 1))
  if ! out=$("$binary" --gtest_filter="$f" --gtest_brief=1 --gtest_output="xml:$reports/$n.xml" 2>&1); then
    printf '%s\n' "$out"
    failed+=("$f")
  fi
done
/usr/bin/python3 "$(dirname "$0")/../skip_policy.py" record-gtest unit.sanitized: "$reports"/*.xml
echo "run_by_suite.sh: ${#filters[@]} processes, ${#failed[@]} failed"
[ ${#failed[@]} -eq 0 ] || { printf 'failed: %s\n' "${failed[@]}"; exit 1; }
