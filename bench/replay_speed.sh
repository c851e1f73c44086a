#!/usr/bin/env bash
# Replay harness speed: how much the replay itself costs per operation (the void baseline: no
# allocator work, only reading the program, dispatching and publishing blocks) and how many
# operations per second glibc replays on one thread.  Targets (issue 6): harness <= 10 ns/op,
# >= 30 M ops/s on glibc.
#
#   bench/replay_speed.sh [BUILD_DIR]      (default build/release; run on a quiet machine)
#
# The trace is synthetic and single-threaded (tests/replay/make_trace.cpp): 2e6 operations on
# blocks of 16..256 bytes, frees oldest-first.  Each allocator is replayed 5 times, each in its
# own process; the medians are printed.  No allocstats rows (they read /proc, a few us each).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/release}
exe=$build/allocstress
make_trace=$build/tests/allocstress_test_make_trace
[ -x "$exe" ] && [ -x "$make_trace" ] || { echo "replay_speed: build first (missing $exe or $make_trace)" >&2; exit 2; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$make_trace" "$dir/small.ast" 1 2000000 0 1 256 >/dev/null
printf '%-10s %12s %12s %10s\n' allocator "ns/op" "cycles/op" "Mops/s"
for a in void system jemalloc mimalloc tcmalloc pool; do
  "$exe" list | awk -v a="$a" '$1 == a && $3 == "found" {ok=1} END {exit !ok}' || continue
  for rep in 1 2 3 4 5; do
    "$exe" run --allocator "$a" --workload replay --trace "$dir/small.ast" --allocstats-every 1000000000
  done | /usr/bin/python3 -c '
import json, statistics, sys
rs = [json.loads(l) for l in sys.stdin if l.strip()]
ns = statistics.median(r["ns_per_op"] for r in rs)
cy = statistics.median(r["cycles_per_op"] for r in rs)
print(f"{sys.argv[1]:<10} {ns:12.2f} {cy:12.1f} {1e3 / ns:10.1f}")' "$a"
done
