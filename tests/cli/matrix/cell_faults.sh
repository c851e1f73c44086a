# ctest: labels=cli timeout=600 env=@cli serial
# A cell that crashes, or hangs past the per-cell timeout, is recorded as failed with the reason,
# and the matrix goes on to produce a complete, valid results file.
source "$(dirname "$0")/../lib.sh"

run_faulty() {  # MODE TIMEOUT
  ALLOCSTRESS_TEST_FAULT=$1 "$ALLOCSTRESS" matrix --out "$T/$1.json" --allocators void,system \
    --add-allocator faulty="$FAULTY_MALLOC" --threads 1 --reps 2 --timeout "$2" --no-counts "${TINY[@]}" 2>"$T/$1.log"
}

for mode in abort segv hang; do
  timeout=60; [ $mode = hang ] && timeout=3
  run_faulty $mode $timeout || { fail "$mode: matrix exited $? ($(tail -1 "$T/$mode.log"))"; continue; }
  cells=$(cells_of "$T/$mode.json") || { fail "$mode: results file invalid"; continue; }
  want=$(case $mode in abort) echo "SIGABRT" ;; segv) echo "SIGSEGV" ;; hang) echo "timeout of 3 s" ;; esac)
  [ "$(grep -c "^faulty	1	failed	.*$want" <<<"$cells")" = 2 ] && pass || fail "$mode: faulty cells not failed with '$want': $cells"
  [ "$(grep -c "	ok	" <<<"$cells")" = 4 ] && pass || fail "$mode: void/system cells not ok: $cells"
  grep -q "faulty x alloc-test at 1 threads: 2 cell(s) failed" "$T/$mode.md" && pass || fail "$mode: table does not list the failure"
done
finish
