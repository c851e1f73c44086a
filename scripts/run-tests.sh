#!/usr/bin/env bash
# Quick start, command 2: install what is missing, build, and run the whole test suite through
# CTest: every test on the release build (warnings are errors), then the unit tests again on the
# debug build with AddressSanitizer + UndefinedBehaviorSanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release
ctest --preset release
# The sanitizer build keeps line tables only (-g1): its reports still name file:line, and its
# unit-test build took 10m42s instead of 12m03s with full -g (2 jobs, no ccache, 2026-11-27).
# `cmake --preset debug` on its own keeps full -g for gdb.
cmake --preset debug -DALLOCSTRESS_BUILD_BENCHMARKS=OFF -DCMAKE_CXX_FLAGS_DEBUG=-g1 -DCMAKE_C_FLAGS_DEBUG=-g1 >/dev/null
cmake --build --preset debug --target allocstress_unit_tests
ctest --preset debug
