#!/usr/bin/env bash
# The real-program study in one command: install what is missing (the allocators, and the
# programs: python3, gcc, sqlite3, lua, ghostscript, redis, xz ...), build the release preset, then
# `allocstress programs`: every program workload (prog-*) under every installed drop-in allocator,
# each program's trace replayed and its fitted and size-mix models run on every allocator (the
# in-tree ones too), merged into one results file whose table and HTML report hold the real,
# replay and fitted rows of each program and the fidelity table.
# Extra arguments go to `allocstress programs` (e.g. --programs prog-python3,prog-sqlite3 --reps 3).
# BUILD_DIR (default build/release) builds elsewhere.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/build-cli.sh
exec "$build_dir/allocstress" programs "$@"
