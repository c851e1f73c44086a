#!/usr/bin/env bash
# Rewrites the generated parts of docs/testing.md (between the testing-counts and testing-times
# markers) from CTest on the release build: the suite's counts, and the times CTest measured on
# its last runs there.  Run it after a whole `ctest --preset release` (or scripts/run-tests.sh).
# Usage: scripts/update-testing-docs.sh [BUILD_DIR]   (default: build/release)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/release}
[ -f "$build/CTestTestfile.cmake" ] || { echo "update-testing-docs: $build is not a configured build (cmake --preset release)" >&2; exit 1; }
exec /usr/bin/python3 tests/testing_doc.py "$build"
