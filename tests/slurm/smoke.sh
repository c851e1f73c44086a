# ctest: labels=slurm timeout=300 serial skip=77
# Smoke test of tests/slurm/localhost_slurm.sh on a real single-node Slurm: install if missing
# (exit 77 = skipped when that is impossible), start, run a 3-task exclusive job array that writes
# one file per task into a shared folder, check a submission to a missing partition fails, stop,
# and check that no process it started is left.  Run as root; prints timings and
# "N passed, N failed".  Usage: bash tests/slurm/smoke.sh
# "check && pass || fail" is meant: pass never fails.
# shellcheck disable=SC2015
set -u
here=$(cd "$(dirname "$0")" && pwd)
source "$here/localhost_slurm.sh"

failures=0
checks=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
pass() { checks=$((checks + 1)); }
finish() { echo "$checks passed, $failures failed"; [ "$failures" -eq 0 ]; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# Live (not zombie) Slurm and munge processes on the machine, whoever started them: "PID COMM".
slurm_processes() {
  local p comm stat
  for p in /proc/[0-9]*; do
    comm=$(cat "$p/comm" 2>/dev/null) || continue
    case "$comm" in munged | slurmctld | slurmd | slurmstepd | slurmscriptd | slurm_script) ;; *) continue ;; esac
    { read -r stat <"$p/stat"; } 2>/dev/null || continue  # gone since its comm was read
    stat=${stat##*) }
    [ "${stat%% *}" = Z ] || echo "${p#/proc/} $comm"
  done
}

slurm_install_if_missing || exit $?
t_total=$(now)
before=$(slurm_processes)
T=$(mktemp -d)
trap 'slurm_stop; rm -rf "$T"' EXIT
trap 'exit 130' INT TERM

slurm_start "$T/slurm" || { fail "slurm_start"; finish; exit 1; }
pass
slurm_start "$T/slurm" >/dev/null && pass || fail "a second slurm_start on the same DIR is not a no-op"
scontrol ping >/dev/null 2>&1 && pass || fail "scontrol ping: controller not UP"

# The job array: each task records its ids, CPUs and start/end times in the shared folder.
shared=$T/shared
mkdir -p "$shared"
cat >"$T/task.sh" <<'EOT'
#!/bin/bash
start=$(date +%s.%N)
sleep 0.2
echo "$SLURM_ARRAY_JOB_ID $SLURM_ARRAY_TASK_ID $SLURM_CPUS_ON_NODE $(nproc) $start $(date +%s.%N) $PWD" \
  >"$1/task.$SLURM_ARRAY_TASK_ID.tmp"
mv "$1/task.$SLURM_ARRAY_TASK_ID.tmp" "$1/task.$SLURM_ARRAY_TASK_ID"
EOT
chmod +x "$T/task.sh"
t_array=$(now)
jobid=$(sbatch --parsable --array=0-2 --exclusive --partition="$SLURM_LOCALHOST_PARTITION" --time=5 \
  --chdir="$shared" --output="$shared/out.%A_%a" --job-name=smoke "$T/task.sh" "$shared" 2>"$T/err") \
  || { fail "sbatch of the array failed: $(head -1 "$T/err")"; finish; exit 1; }
case "$jobid" in '' | *[!0-9]*) fail "sbatch --parsable printed '$jobid', not a job id"; finish; exit 1 ;; esac
pass
slurm_wait_jobs "$jobid" 60 && pass || fail "array job $jobid did not finish"
array_seconds=$(since "$t_array")

cpus=$(nproc --all)
for i in 0 1 2; do
  f=$shared/task.$i
  if [ ! -s "$f" ]; then fail "task $i wrote no file (output: $(cat "$shared/out.${jobid}_$i" 2>/dev/null))"; continue; fi
  read -r job task cpus_on_node visible _ _ wd <"$f"
  [ "$job $task $wd" = "$jobid $i $shared" ] && pass || fail "task $i recorded job/task/cwd '$job $task $wd'"
  [ "$cpus_on_node" = "$cpus" ] && [ "$visible" = "$cpus" ] && pass \
    || fail "task $i: exclusive task should have all $cpus CPUs: SLURM_CPUS_ON_NODE=$cpus_on_node, nproc=$visible"
  [ -e "$shared/out.${jobid}_$i" ] && pass || fail "--output=%A_%a file missing for task $i"
done
# --exclusive on one node: the tasks ran one after another.
overlap=$(cat "$shared"/task.[012] 2>/dev/null | sort -k5,5n | awk 'NR > 1 && $5 < end { print "overlap" } { end = $6 }')
[ -z "$overlap" ] && pass || fail "exclusive array tasks overlapped in time"
states=$(slurm_task_states "$jobid")
[ "$states" = "$(printf '0 COMPLETED 0:0 None\n1 COMPLETED 0:0 None\n2 COMPLETED 0:0 None')" ] && pass \
  || fail "scontrol states of the array tasks: $(tr '\n' ';' <<<"$states")"

# A missing partition: sbatch fails at once, exit 1, naming it.
err=$(sbatch --parsable --partition=no_such_partition --wrap true 2>&1) && rc=0 || rc=$?
[ "$rc" = 1 ] && grep -q 'invalid partition specified: no_such_partition' <<<"$err" && pass \
  || fail "sbatch to a missing partition: exit $rc: $(tr '\n' ' ' <<<"$err")"

dir=$SLURM_LOCALHOST_DIR
start_seconds=$SLURM_LOCALHOST_START_SECONDS
t_stop=$(now)
slurm_stop
stop_seconds=$(since "$t_stop")
slurm_stop && pass || fail "a second slurm_stop failed"
[ ! -e "$dir" ] && pass || fail "slurm_stop left $dir"
[ -z "${SLURM_CONF:-}" ] && pass || fail "slurm_stop left SLURM_CONF=$SLURM_CONF"
# A step daemon can still be exiting when slurm_stop returns: one was listed once (2026-11-27, CI
# of a fresh clone) and gone when it was described a moment later -- by then it had closed the
# files by which slurm_stop recognises the instance's processes.  Left behind is what is still
# there 5 s later.
for ((i = 0; i < 50; i++)); do
  left=$(comm -13 <(sort <<<"$before") <(slurm_processes | sort))
  [ -z "$left" ] && break
  sleep 0.1
done
describe() { local pid comm; while read -r pid comm; do
  printf '%s %s (state %s, parent %s); ' "$pid" "$comm" "$(sed 's/^.*) //' /proc/$pid/stat 2>/dev/null | cut -d' ' -f1)" \
    "$(sed 's/^.*) //' /proc/$pid/stat 2>/dev/null | cut -d' ' -f2)"; done <<<"$1"; }
[ -z "$left" ] && pass || fail "processes left running: $(describe "$left")"

echo "timing: start to idle node ${start_seconds} s, 3-task exclusive array ${array_seconds} s, stop ${stop_seconds} s, whole test $(since "$t_total") s"
finish
