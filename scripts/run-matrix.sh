#!/usr/bin/env bash
# Quick start, command 1: install what is missing, build the release preset, run the default
# matrix (every installed allocator + the void baseline x alloc-test x threads 1..PUs x 5 reps).
# Extra arguments go to `allocstress matrix` (e.g. --preset study, --threads 1,2, --out FILE).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release --target allocstress
exec build/release/allocstress matrix "$@"
