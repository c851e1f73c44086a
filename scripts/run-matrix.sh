#!/usr/bin/env bash
# Quick start, command 1: install what is missing, build the release preset (the CLI and the
# Python extension the report needs), run the default matrix (every installed allocator + the
# void baseline x alloc-test x threads 1..PUs, adaptive repetitions) and write the HTML report.
# On a host without machine costs it measures them first (allocstress calibrate --costs).
# Extra arguments go to `allocstress matrix` (e.g. --preset study, --threads 1,2, --out FILE).
# BUILD_DIR (default build/release) builds elsewhere, e.g. a fresh directory (tests/cli/first_command.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/build-cli.sh
# The counts tier prices its events at this machine's costs: measured once per host (a few seconds).
"$build_dir/allocstress" calibrate --costs --if-missing
exec "$build_dir/allocstress" matrix "$@"
