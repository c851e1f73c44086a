#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan + libFuzzer), writes their seed corpora
# and fuzzes each for SECONDS.
#
#   run_fuzz.sh BUILD_DIR SECONDS [TARGET...]      (no TARGET: every target)
#
# A target is a harness tests/fuzz/TARGET_fuzz.cpp, whose top comment states the contract it
# checks.  The build (fuzz.mk) compiles every library source once into BUILD_DIR/libfuzzed.a,
# shared by all harnesses, through ccache when it is installed; the targets then fuzz as many at
# once as this machine has CPUs (ALLOCSTRESS_FUZZ_JOBS overrides it): each fuzzer is one process
# on one CPU, so each still fuzzes SECONDS of its own.  Seeds: the files under seeds/TARGET/
# (small real files, written by seeds/regenerate.sh) plus those written here from real files of the
# tree (tests/data/traces/, allocators/manifest.tsv) and by make_seeds.cpp; they are rewritten every run, while the working corpus
# (BUILD_DIR/TARGET/corpus) persists between runs.
#
# Exit 1 when a fuzzer finds a crash, an exception outside the contract, a sanitizer report, a
# leak, a timeout or an out-of-memory input: the input is kept in BUILD_DIR/TARGET/artifacts/ and
# its path printed, so that `BUILD_DIR/bin/TARGET_fuzz INPUT` replays it.  Exit 2 on bad usage.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
targets_all=()
for h in "$here"/*_fuzz.cpp; do h=${h##*/}; targets_all+=("${h%_fuzz.cpp}"); done
if [ $# -lt 2 ]; then echo "usage: $0 BUILD_DIR SECONDS [TARGET...] (targets: ${targets_all[*]})" >&2; exit 2; fi
build_arg=$1 seconds=$2
shift 2
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${targets_all[@]}")
for t in "${targets[@]}"; do
  if [ ! -e "$here/${t}_fuzz.cpp" ]; then echo "run_fuzz.sh: unknown target '$t' (accepted: ${targets_all[*]})" >&2; exit 2; fi
done
case "$seconds" in ''|*[!0-9]*) echo "run_fuzz.sh: SECONDS must be a whole number, got '$seconds'" >&2; exit 2 ;; esac
cxx=${CXX:-clang++}
if ! command -v "$cxx" >/dev/null; then echo "run_fuzz.sh: $cxx not found: the fuzz targets need clang++ with libFuzzer (apt-get install clang)" >&2; exit 2; fi
mkdir -p "$build_arg"
build=$(cd "$build_arg" && pwd)
launcher=$(command -v ccache || true)

# --- build ---------------------------------------------------------------------------------------
started=$(date +%s)
goals=("$build/bin/make_seeds")
# make runs in the source folder: ccache hashes the working directory of a compile with debug
# information, so that every build folder gets the objects compiled for another
for t in "${targets[@]}"; do goals+=("$build/bin/${t}_fuzz"); done
if ! make -s -C "$src" -f "$here/fuzz.mk" -j"$(nproc)" SRC="$src" OUT="$build" CXX="$cxx" LAUNCHER="$launcher" "${goals[@]}" >"$build/build.log" 2>&1; then
  tail -n 40 "$build/build.log"
  echo "fuzz: the build failed (log: $build/build.log)"
  exit 1
fi
echo "fuzz: built ${#targets[@]} targets in $(( $(date +%s) - started )) s${launcher:+ (through ccache)} (log: $build/build.log)"

# --- seeds ---------------------------------------------------------------------------------------
# Small inputs the target accepts (and a few it refuses), so that mutations start from them.
write_seeds() {
  local t=$1 dir=$build/$1/seeds data=$src/tests/data
  rm -rf "$dir"
  mkdir -p "$dir"
  if [ -d "$here/seeds/$t" ]; then cp "$here/seeds/$t"/* "$dir/"; fi
  case "$t" in
    trace_reader) "$build/bin/make_seeds" traces "$dir" ;;
    replay_program) "$build/bin/make_seeds" replay "$dir" "$data/traces/steve-small.ops" ;;
    steve_import)
      cp "$data/traces/steve-small.ops" "$dir/"
      printf '1 N 0x10 8\n2 N 0x20 16\n1 F\n3 N 0x30 0x40\n# comment\n\n3 L\n3 U\n2 F 0x20 16\n3 F 0x30\n' > "$dir/mixed.ops"
      printf 'a N 1 1\r\na F\r\na N 2 2\r\n' > "$dir/crlf-reuse.ops"
      printf '1 N 0x1 18446744073709551615\n1 N 0x1 1\n' > "$dir/still-live.ops" ;;
    heaptrack_import)
      cp "$data/traces/heaptrack.sort.31720.zst" "$dir/"
      zstd -qdc "$data/traces/heaptrack.sort.31720.zst" > "$dir/sort.txt"
      printf 'v 10400 3\nX /bin/prog a\nI 1000 10\ns 4 prog\nt 1 0\ni 1000 1\na 10 1\na 20 1\n+ 0\n+ 1\n- 0\nc 5\nR 100\n+ 0\n- 1\n' > "$dir/small.txt"
      printf 'v 10400 2\nX /bin/prog with\nnewline\nI 1000 10\na 8 0\n+ 0\n' > "$dir/newline-arg.txt"
      zstd -qc "$dir/small.txt" > "$dir/small.zst" ;;
    manifest) cp "$src/allocators/manifest.tsv" "$dir/" ;;
  esac
}
for t in "${targets[@]}"; do write_seeds "$t"; done

# --- fuzz ----------------------------------------------------------------------------------------
fuzz_one() {
  local t=$1 dir=$build/$1
  mkdir -p "$dir/corpus" "$dir/artifacts"
  rm -f "$dir"/artifacts/*
  # -rss_limit_mb: far beyond what any of these files needs; -timeout: one input, in seconds.
  if "$build/bin/${t}_fuzz" "$dir/corpus" "$dir/seeds" -max_total_time="$seconds" -seed="${ALLOCSTRESS_FUZZ_SEED:-1}" \
       -rss_limit_mb=2048 -timeout=10 -artifact_prefix="$dir/artifacts/" -print_final_stats=1 >"$dir/fuzz.log" 2>&1; then
    local runs rate
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/fuzz.log")
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$dir/fuzz.log")
    echo "fuzz.$t: no finding in $seconds s: $runs runs, $rate exec/s, corpus $(ls "$dir/corpus" | wc -l) files (log: $dir/fuzz.log)"
  else
    grep -E "fuzz finding|ERROR: |SUMMARY: |^ *#[0-9]+ .* in " "$dir/fuzz.log" | head -n 16
    for f in "$dir"/artifacts/*; do [ -e "$f" ] && echo "fuzz.$t: input kept at $f (replay: $build/bin/${t}_fuzz $f)"; done
    echo "fuzz.$t: FAILED (log: $dir/fuzz.log)"
    return 1
  fi
}
slots=${ALLOCSTRESS_FUZZ_JOBS:-$(nproc)}
started=$(date +%s)
for t in "${targets[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$slots" ]; do sleep 1; done
  rm -f "$build/$t.rc"
  # the exit status goes to a file: `wait PID` cannot be trusted for a job another wait reaped
  (fuzz_one "$t" >"$build/$t.out" 2>&1; echo $? >"$build/$t.rc") &
done
wait
failed=()
for t in "${targets[@]}"; do
  [ "$(cat "$build/$t.rc" 2>/dev/null)" = 0 ] || failed+=("$t")
  cat "$build/$t.out"
done
if [ ${#failed[@]} -gt 0 ]; then echo "fuzz: FAILED: ${failed[*]}"; exit 1; fi
echo "fuzz: ${#targets[@]} targets, no finding in $seconds s each ($(( $(date +%s) - started )) s, $slots at once)"
