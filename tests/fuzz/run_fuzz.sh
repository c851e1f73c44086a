#!/usr/bin/env bash
# Builds one libFuzzer target with clang (ASan + UBSan + libFuzzer), writes its seed corpus, and
# fuzzes for SECONDS.  Usage: run_fuzz.sh BUILD_DIR SECONDS [TARGET]
#   TARGET  trace_reader (default): the trace reader (trace_reader_fuzz.cpp)
#           steve_import, heaptrack_import: the importers (import_fuzz.hpp has their contract)
# Fails (exit 1) when the fuzzer finds a crash, an exception outside the contract, a sanitizer
# report, a leak, a timeout or an out-of-memory input; the input is kept in BUILD_DIR/artifacts/
# and its path printed, so that `BUILD_DIR/TARGET_fuzz INPUT` replays it.  The working corpus
# (BUILD_DIR/corpus) persists between runs; the seeds are rewritten every run.  Each target has
# a BUILD_DIR of its own.
set -euo pipefail
if [ $# -lt 2 ] || [ $# -gt 3 ]; then echo "usage: $0 BUILD_DIR SECONDS [trace_reader|steve_import|heaptrack_import]" >&2; exit 2; fi
build=$1 seconds=$2 target=${3:-trace_reader}
src=$(cd "$(dirname "$0")/../.." && pwd)
cxx=${CXX:-clang++}
case "$target" in
  trace_reader) sources=("$src/trace/trace_reader.cpp") ;;
  steve_import) sources=("$src/trace/import_steve.cpp" "$src/trace/trace_writer.cpp" "$src/trace/trace_reader.cpp") ;;
  heaptrack_import) sources=("$src/trace/import_heaptrack.cpp" "$src/trace/trace_writer.cpp" "$src/trace/trace_reader.cpp") ;;
  *) echo "run_fuzz.sh: unknown target '$target' (accepted: trace_reader, steve_import, heaptrack_import)" >&2; exit 2 ;;
esac
mkdir -p "$build/seeds" "$build/corpus" "$build/artifacts"
zstd_flags=$(pkg-config --cflags --libs libzstd)

# Seeds: small inputs the target accepts (and a few it refuses), so mutations start from them.
case "$target" in
  trace_reader)
    # shellcheck disable=SC2086
    "$cxx" -std=c++20 -O1 -g -I"$src" "$src/tests/fuzz/make_seeds.cpp" "$src/trace/trace_writer.cpp" $zstd_flags -o "$build/make_seeds"
    "$build/make_seeds" "$build/seeds" ;;
  steve_import)
    cp "$src/tests/data/traces/steve-small.ops" "$build/seeds/"
    printf '1 N 0x10 8\n2 N 0x20 16\n1 F\n3 N 0x30 0x40\n# comment\n\n3 L\n3 U\n2 F 0x20 16\n3 F 0x30\n' > "$build/seeds/mixed.ops"
    printf 'a N 1 1\r\na F\r\na N 2 2\r\n' > "$build/seeds/crlf-reuse.ops"
    printf '1 N 0x1 18446744073709551615\n1 N 0x1 1\n' > "$build/seeds/still-live.ops" ;;
  heaptrack_import)
    cp "$src/tests/data/traces/heaptrack.sort.31720.zst" "$build/seeds/"
    zstd -qdc "$src/tests/data/traces/heaptrack.sort.31720.zst" > "$build/seeds/sort.txt"
    printf 'v 10400 3\nX /bin/prog a\nI 1000 10\ns 4 prog\nt 1 0\ni 1000 1\na 10 1\na 20 1\n+ 0\n+ 1\n- 0\nc 5\nR 100\n+ 0\n- 1\n' > "$build/seeds/small.txt"
    printf 'v 10400 2\nX /bin/prog with\nnewline\nI 1000 10\na 8 0\n+ 0\n' > "$build/seeds/newline-arg.txt"
    zstd -qc "$build/seeds/small.txt" > "$build/seeds/small.zst" ;;
esac

# shellcheck disable=SC2086
"$cxx" -std=c++20 -O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -I"$src" \
  "$src/tests/fuzz/${target}_fuzz.cpp" "${sources[@]}" $zstd_flags -o "$build/${target}_fuzz"

rm -f "$build"/artifacts/*
log="$build/fuzz.log"
# -rss_limit_mb: the reader may hold a few blocks of kMaxBlockEvents events; far beyond that is a bug.
if "$build/${target}_fuzz" "$build/corpus" "$build/seeds" -max_total_time="$seconds" -seed="${ALLOCSTRESS_FUZZ_SEED:-1}" \
     -rss_limit_mb=2048 -timeout=10 -artifact_prefix="$build/artifacts/" -print_final_stats=1 >"$log" 2>&1; then
  grep -E "^(stat::number_of_executed_units|stat::average_exec_per_sec|stat::peak_rss_mb)|^#[0-9]+ *DONE" "$log" || true
  echo "fuzz.$target: no crash in ${seconds} s (log: $log)"
else
  tail -n 40 "$log"
  for f in "$build"/artifacts/*; do [ -e "$f" ] && echo "fuzz.$target: crash input kept at $f (replay: $build/${target}_fuzz $f)"; done
  echo "fuzz.$target: FAILED (log: $log)"
  exit 1
fi
