# ctest: name=slurm.matrix labels=slurm timeout=900 env=@cli serial skip=77
# The Slurm backend on a real single-node Slurm started here (localhost_slurm.sh): installs
# slurm-wlm and munge if missing (exit 77 = skipped when they cannot be installed), runs a tiny
# matrix through `matrix --backend slurm`, waits by polling squeue, checks `status`, merges, and
# compares the merged cells with the local backend's (same cells, all ok); then a lost task (the
# job cancelled before it ran) is reported with Slurm's state, and `--resume` re-submits exactly
# the cells without a record.  The trap stops exactly the daemons this test started.
source "$(dirname "$0")/../cli/lib.sh"
source "$(dirname "$0")/localhost_slurm.sh"
slurm_install_if_missing || exit $?
trap 'slurm_stop; rm -rf "$T"' EXIT
t0=$(date +%s)
slurm_start "$T/slurm" >/dev/null || exit 1
echo "slurm up in ${SLURM_LOCALHOST_START_SECONDS:-?} s"

R=(--allocators system,pool --threads 1 --reps 2 --no-counts "${TINY[@]}")
S=(--backend slurm --partition "$SLURM_LOCALHOST_PARTITION" --allow-local-results-dir)
job_of() { /usr/bin/python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).read().splitlines()[-1])["job_id"])' "$1/submissions.jsonl"; }

"$ALLOCSTRESS" matrix "${R[@]}" "${S[@]}" --results-dir "$T/d" >"$T/submit.txt" 2>&1 || fail "submission exited $?: $(cat "$T/submit.txt")"
grep -q "submitted job .*: 6 of 6 cells" "$T/submit.txt" && pass || fail "submission output: $(cat "$T/submit.txt")"
slurm_wait_jobs "$(job_of "$T/d")" 300 || fail "the array job did not finish in 300 s"
"$ALLOCSTRESS" slurm status "$T/d" >"$T/status.txt" || fail "status exited $?"
grep -q "6 cells, 6 done, 0 failed, 0 running, 0 pending, 0 lost, 0 not submitted" "$T/status.txt" && pass || fail "status: $(cat "$T/status.txt")"
[ "$(ls "$T/d/cells" | wc -l)" = 6 ] && [ -n "$(ls "$T/d/contexts")" ] && pass || fail "records or node contexts missing: $(ls -R "$T/d")"
"$ALLOCSTRESS" slurm merge "$T/d" -o "$T/slurm.json" >/dev/null 2>"$T/merge.err" || fail "merge exited $?: $(cat "$T/merge.err")"
"$ALLOCSTRESS" matrix "${R[@]}" --out "$T/local.json" >/dev/null 2>"$T/local.err" || fail "local matrix exited $?: $(tail -2 "$T/local.err")"
a=$(cells_of "$T/slurm.json") && b=$(cells_of "$T/local.json") && [ "$a" = "$b" ] && [ "$(grep -c $'\tok\t' <<<"$a")" = 6 ] && pass ||
  fail "merged Slurm cells differ from the local backend's: $a / $b"
# The array's tasks may share the node's PUs: a process whose worker another task displaced is
# disturbed (cells/modes/interference.hpp) and counted apart, so "reps ok" reads "2" or "1 (+1 disturbed)",
# or the cell is listed under "Not measured" when both were.
grep -Eq '^(\| pool \| 1 \| (2|1 \(\+1 disturbed\)) \||- pool x alloc-test at 1 threads: 2 cell\(s\) disturbed: )' "$T/slurm.md" && pass ||
  fail "merged table: $(cat "$T/slurm.md")"

# Results directories that cannot serve: on a node-local tmpfs (refused before anything is
# created), and one that cannot be created.
: >"$T/a-file"
expect_error 2 "node-local tmpfs" -- "$ALLOCSTRESS" matrix "${R[@]}" --backend slurm --partition "$SLURM_LOCALHOST_PARTITION" --results-dir /dev/shm/allocstress-test-$$
[ ! -e /dev/shm/allocstress-test-$$ ] && pass || fail "the refused tmpfs results directory was created"
expect_error 2 "cannot be created" -- "$ALLOCSTRESS" matrix "${R[@]}" "${S[@]}" --results-dir "$T/a-file/d"

# A submission sbatch refuses (no such partition): one error line, the plan kept for --resume.
"$ALLOCSTRESS" matrix "${R[@]}" --backend slurm --allow-local-results-dir --partition nosuch --results-dir "$T/f" >"$T/out.txt" 2>"$T/err.txt"
rc=$?
[ "$rc" = 1 ] && [ "$(wc -l <"$T/err.txt")" = 1 ] && grep -q "sbatch refused the job: .*partition.*re-submit with --resume" "$T/err.txt" &&
  [ -f "$T/f/plan.json" ] && pass || fail "refused submission: exit $rc: $(cat "$T/err.txt")"
"$ALLOCSTRESS" matrix "${S[@]}" --results-dir "$T/f" --resume >"$T/out.txt" 2>&1 && grep -q "submitted job .*: 6 of 6 cells" "$T/out.txt" && pass ||
  fail "resume after a refused submission: $(cat "$T/out.txt")"
slurm_wait_jobs "$(job_of "$T/f")" 300 || fail "the job after the refused submission did not finish"

# A re-submission of a finished directory submits nothing; without --resume it is refused.
"$ALLOCSTRESS" matrix "${S[@]}" --results-dir "$T/d" --resume >"$T/again.txt" 2>&1 && grep -q "nothing to submit" "$T/again.txt" && pass ||
  fail "resume of a finished directory: $(cat "$T/again.txt")"
expect_error 2 "already holds a plan" -- "$ALLOCSTRESS" matrix "${R[@]}" "${S[@]}" --results-dir "$T/d"

# Pending and lost tasks: with the node drained the tasks stay pending (status says so, with
# Slurm's reason); cancelled, they end without a record and status reports them lost with Slurm's
# state; --resume then submits exactly those cells again, and they complete.
scontrol update nodename="$SLURM_LOCALHOST_NODE" state=drain reason=allocstress-test || fail "cannot drain the node"
"$ALLOCSTRESS" matrix "${R[@]}" "${S[@]}" --results-dir "$T/e" >/dev/null 2>&1 || fail "second submission failed"
sleep 2
"$ALLOCSTRESS" slurm status "$T/e" >"$T/status.txt"
grep -q "6 cells, 0 done, 0 failed, 0 running, 6 pending" "$T/status.txt" && pass || fail "drained node: $(cat "$T/status.txt")"
scancel "$(job_of "$T/e")"
slurm_wait_jobs "$(job_of "$T/e")" 120 || fail "cancelled job did not leave the queue"
"$ALLOCSTRESS" slurm status "$T/e" >"$T/status.txt"
[ "$(grep -c "lost: .*ended CANCELLED without a record" "$T/status.txt")" = 6 ] && grep -q "re-submit" "$T/status.txt" && pass ||
  fail "cancelled tasks not reported as lost: $(cat "$T/status.txt")"
expect_error 2 "have no record yet" -- "$ALLOCSTRESS" slurm merge "$T/e" -o "$T/x.json"
scontrol update nodename="$SLURM_LOCALHOST_NODE" state=resume || fail "cannot resume the node"
"$ALLOCSTRESS" matrix "${S[@]}" --results-dir "$T/e" --resume >"$T/resume.txt" 2>&1 || fail "resume exited $?: $(cat "$T/resume.txt")"
grep -q "submitted job .*: 6 of 6 cells" "$T/resume.txt" && pass || fail "resume did not submit the 6 lost cells: $(cat "$T/resume.txt")"
slurm_wait_jobs "$(job_of "$T/e")" 300 || fail "the re-submitted job did not finish"
[ "$(ls "$T/e/cells" | wc -l)" = 6 ] && pass || fail "after resume: $(ls "$T/e/cells")"

echo "wall time with Slurm start: $(($(date +%s) - t0)) s"
finish
