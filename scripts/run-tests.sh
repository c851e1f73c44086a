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
cmake --preset debug -DALLOCSTRESS_BUILD_BENCHMARKS=OFF >/dev/null
cmake --build --preset debug --target allocstress_unit_tests
ctest --preset debug
