#!/usr/bin/env bash
# Writes the checked-in seed files of the fuzz targets (tests/fuzz/seeds/TARGET/) again, from the
# real CLI and the real tools: `allocstress matrix --plan-only`, a tiny matrix and its journal cut
# by a kill, `import` + `fit`, `calibrate`, `calibrate --costs`, and callgrind and strace run on a
# cell exactly as run/cell_process.cpp and run/kernel_events.cpp run them.  Run it after a format
# changes (a plan file version, a results schema ...):
#
#   tests/fuzz/seeds/regenerate.sh build/release/allocstress
#
# Takes about a minute.  The seeds of the other targets are written by run_fuzz.sh from files
# of the tree (tests/data/, allocators/manifest.tsv) and by make_seeds.cpp.
set -euo pipefail
if [ $# -ne 1 ]; then echo "usage: $0 ALLOCSTRESS" >&2; exit 2; fi
A=$(realpath "$1")
seeds=$(cd "$(dirname "$0")" && pwd)
data=$seeds/../../data
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
small=(--threads 1 --iterations 20000 --slots 1024)

# plan_file: three plans (timing cells; counts cells; two workloads x 2 threads with aged and
# limited cells), and cell_file: one cell of each mode they hold, as `run --cell` gets it.
mkdir -p plans
"$A" matrix --allocators bump,system "${small[@]}" --reps 2 --no-counts --plan-only -o plans/timing.json >/dev/null
"$A" matrix --allocators bump "${small[@]}" --reps 1 --counts --plan-only -o plans/counts.json >/dev/null
"$A" matrix --workload lifetime,fleet-profile --allocators bump --threads 1,2 --reps 1 --iterations 200000 --live-bytes 100000 \
  --age 1M --memory-limit 0.8xPEAK --no-counts --plan-only -o plans/modes.json >/dev/null
"$A" matrix --workload bintree --allocators bump --threads 1 --reps 1 --cache-sim --no-counts --plan-only -o plans/cache-sim.json >/dev/null
rm -rf "$seeds/plan_file" "$seeds/cell_file"
mkdir -p "$seeds/plan_file" "$seeds/cell_file"
cp plans/timing.json plans/counts.json plans/modes.json "$seeds/plan_file/"
for p in plans/*.json; do
  jq -c '.cells | group_by(.workload + .mode) | map(.[-1]) | .[]' "$p" | while read -r cell; do
    name=$(jq -r '.workload + "-" + .mode + "-" + .allocator' <<<"$cell")
    jq 'del(.command)' <<<"$cell" > "$seeds/cell_file/$name.json"
  done
done

# results_file: a one-repetition matrix; journal: a matrix killed once its journal holds a header
# and 3 cells; calibration: `calibrate` of two 5-repetition runs, and the machine costs.
"$A" matrix --allocators bump "${small[@]}" --reps 1 --no-counts -o one.json >/dev/null
"$A" matrix --allocators bump "${small[@]}" --reps 5 --no-counts -o run1.json >/dev/null
"$A" matrix --allocators bump "${small[@]}" --reps 5 --no-counts -o run2.json >/dev/null
"$A" matrix --allocators bump --threads 1 --reps 8 --iterations 400000 --slots 1024 --no-counts -o cut.json >/dev/null 2>&1 &
pid=$!
until [ -f cut.json.journal.jsonl ] && [ "$(wc -l <cut.json.journal.jsonl)" -ge 4 ]; do sleep 0.1; done
kill -KILL $pid
wait $pid || true
rm -rf "$seeds/results_file" "$seeds/journal" "$seeds/calibration"
mkdir -p "$seeds/results_file" "$seeds/journal" "$seeds/calibration"
cp one.json "$seeds/results_file/one-repetition.json"
head -n 4 cut.json.journal.jsonl > "$seeds/journal/killed.journal.jsonl"
{ head -n 3 cut.json.journal.jsonl; sed -n 4p cut.json.journal.jsonl | head -c 200; } > "$seeds/journal/torn.journal.jsonl"
"$A" calibrate run1.json run2.json --level 0.5 -o "$seeds/calibration/calibration.json" >/dev/null
"$A" calibrate --costs --repeats 5 -o "$seeds/calibration/machine-costs.json" >/dev/null

# fit_file: fits of the checked-in Steve and heaptrack traces and of a traced real program (ls).
"$A" import --format steve "$data/traces/steve-small.ops" -o steve.ast >/dev/null
"$A" import --format heaptrack "$data/traces/heaptrack.sort.31720.zst" -o sort.ast >/dev/null
"$A" trace --out-prefix ls -- /bin/ls / >/dev/null
rm -rf "$seeds/fit_file"
mkdir -p "$seeds/fit_file"
"$A" fit steve.ast -o "$seeds/fit_file/steve-small.fit.json" >/dev/null
"$A" fit sort.ast -o "$seeds/fit_file/heaptrack-sort.fit.json" >/dev/null
"$A" fit ls*.ast -o "$seeds/fit_file/ls.fit.json" >/dev/null

# callgrind: a counts cell under callgrind as run/cell_process.cpp runs it (collection toggled
# around the measured phase), and a bintree cache-sim cell.
cell=$seeds/cell_file/alloc-test-counts-bump.json
valgrind=(setarch --addr-no-randomize valgrind --tool=callgrind --cache-sim=yes --collect-atstart=no --instr-atstart=no --fair-sched=yes
          --I1=32768,8,64)
"${valgrind[@]}" --callgrind-out-file=counts.out "$A" run --cell "$cell" >/dev/null 2>&1
"${valgrind[@]}" --callgrind-out-file=cache-sim.out "$A" run --cell "$seeds/cell_file/bintree-simulate-bump.json" >/dev/null 2>&1
rm -rf "$seeds/callgrind"
mkdir -p "$seeds/callgrind"
cp counts.out cache-sim.out "$seeds/callgrind/"

# strace: the counts cell's kernel-events run (run/kernel_events.cpp: the phase markers) and the
# summary table of a real program's run (cells/program_counts.cpp).
ALLOCSTRESS_KERNEL_EVENTS=1 strace -f --seccomp-bpf -qq -T -e trace=mmap,munmap,mremap,madvise,brk,mprotect,futex,prctl -o phase.strace \
  setarch --addr-no-randomize "$A" run --cell "$cell" >/dev/null
strace -f -c -U calls,name -qq -o summary.strace sh -c 'ls / >/dev/null; sort /etc/passwd >/dev/null'
rm -rf "$seeds/strace"
mkdir -p "$seeds/strace"
cp phase.strace summary.strace "$seeds/strace/"

du -sh "$seeds"/*/ | sed "s|$seeds/||"
