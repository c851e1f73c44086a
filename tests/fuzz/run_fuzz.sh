#!/usr/bin/env bash
# Builds the trace reader's libFuzzer target with clang (ASan + UBSan + libFuzzer), writes the
# seed corpus, and fuzzes for SECONDS.  Usage: run_fuzz.sh BUILD_DIR SECONDS
# Fails (exit 1) when the fuzzer finds a crash, a non-TraceError exception, a sanitizer report,
# a leak, a timeout or an out-of-memory input; the input is kept in BUILD_DIR/artifacts/ and its
# path printed, so that `BUILD_DIR/trace_reader_fuzz INPUT` replays it.  The working corpus
# (BUILD_DIR/corpus) persists between runs; the seeds are rewritten every run.
set -euo pipefail
if [ $# -ne 2 ]; then echo "usage: $0 BUILD_DIR SECONDS" >&2; exit 2; fi
build=$1 seconds=$2
src=$(cd "$(dirname "$0")/../.." && pwd)
cxx=${CXX:-clang++}
mkdir -p "$build/seeds" "$build/corpus" "$build/artifacts"
zstd_flags=$(pkg-config --cflags --libs libzstd)

# shellcheck disable=SC2086
"$cxx" -std=c++20 -O1 -g -I"$src" "$src/tests/fuzz/make_seeds.cpp" "$src/trace/trace_writer.cpp" $zstd_flags -o "$build/make_seeds"
"$build/make_seeds" "$build/seeds"
# shellcheck disable=SC2086
"$cxx" -std=c++20 -O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -I"$src" \
  "$src/tests/fuzz/trace_reader_fuzz.cpp" "$src/trace/trace_reader.cpp" $zstd_flags -o "$build/trace_reader_fuzz"

rm -f "$build"/artifacts/*
log="$build/fuzz.log"
# -rss_limit_mb: the reader may hold a few blocks of kMaxBlockEvents events; far beyond that is a bug.
if "$build/trace_reader_fuzz" "$build/corpus" "$build/seeds" -max_total_time="$seconds" -seed="${ALLOCSTRESS_FUZZ_SEED:-1}" \
     -rss_limit_mb=2048 -timeout=10 -artifact_prefix="$build/artifacts/" -print_final_stats=1 >"$log" 2>&1; then
  grep -E "^(stat::number_of_executed_units|stat::average_exec_per_sec|stat::peak_rss_mb)|^#[0-9]+ *DONE" "$log" || true
  echo "fuzz.trace_reader: no crash in ${seconds} s (log: $log)"
else
  tail -n 40 "$log"
  for f in "$build"/artifacts/*; do [ -e "$f" ] && echo "fuzz.trace_reader: crash input kept at $f (replay: $build/trace_reader_fuzz $f)"; done
  echo "fuzz.trace_reader: FAILED (log: $log)"
  exit 1
fi
