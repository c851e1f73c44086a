#!/usr/bin/env bash
# Quick start, command 1: install what is missing, build the release preset (the CLI and the
# Python extension the report needs), run the default matrix (every installed allocator + the
# void baseline x alloc-test x threads 1..PUs, adaptive repetitions) and write the HTML report.
# Extra arguments go to `allocstress matrix` (e.g. --preset study, --threads 1,2, --out FILE).
# BUILD_DIR (default build/release) builds elsewhere, e.g. a fresh directory (tests/cli/first_command.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${BUILD_DIR:-build/release}
bash scripts/setup-deps.sh
cmake --preset release -B "$build_dir" >/dev/null
# The allocstress target depends on the Python extension (_core) and the virtual-clock preload.
cmake --build "$build_dir" --target allocstress -j 2
exec "$build_dir/allocstress" matrix "$@"
