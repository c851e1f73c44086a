#!/usr/bin/env bash
# Runs run_fuzz.sh for each TARGET, as many at once as this machine has CPUs: a fuzzer is one
# process on one CPU, so each still fuzzes for SECONDS of its own, and two CPUs halve the wall
# time of the set.  Prints each target's summary in the order given; fails (exit 1) when any
# target failed, naming it.  Usage: run_fuzz_all.sh BUILD_ROOT SECONDS TARGET...
#   Each TARGET gets BUILD_ROOT/TARGET as its build folder (run_fuzz.sh BUILD_DIR SECONDS TARGET).
set -euo pipefail
if [ $# -lt 3 ]; then echo "usage: $0 BUILD_ROOT SECONDS TARGET..." >&2; exit 2; fi
root=$1 seconds=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$root"
slots=$(nproc)
for target in "$@"; do
  while [ "$(jobs -rp | wc -l)" -ge "$slots" ]; do sleep 1; done
  rm -f "$root/$target.rc"
  # the exit status goes to a file: `wait PID` cannot be trusted for a job another wait reaped
  (bash "$here/run_fuzz.sh" "$root/$target" "$seconds" "$target" >"$root/$target.out" 2>&1; echo $? >"$root/$target.rc") &
done
wait
failed=()
for target in "$@"; do
  [ "$(cat "$root/$target.rc" 2>/dev/null)" = 0 ] || failed+=("$target")
  echo "== $target"
  cat "$root/$target.out"
done
if [ ${#failed[@]} -gt 0 ]; then echo "fuzz: FAILED: ${failed[*]}"; exit 1; fi
echo "fuzz: $# targets, no crash in ${seconds} s each"
