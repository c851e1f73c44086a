# ctest: not a test (sourced by the Slurm scripts)
# localhost_slurm.sh: a real, private, single-node Slurm on this machine for tests (sourced, bash).
#
# Contract
#   source tests/slurm/localhost_slurm.sh
#   slurm_install_if_missing || exit $?     # 0 ok; SLURM_SKIP_RC (77) = cannot install: skip the test
#   trap slurm_stop EXIT                    # always, before slurm_start
#   slurm_start "$(mktemp -d)/slurm" || exit 1
#   jobid=$(sbatch --parsable --array=0-2 --exclusive ... script) ; slurm_wait_jobs "$jobid" 60
#   slurm_stop                              # idempotent; also what the trap runs
#
# What slurm_start brings up, all owned by the caller's DIR and nothing else on the machine:
#   * its own munged (own key, own socket DIR/munge/munge.socket; the system munged and
#     /run/munge are never used or touched).  Slurm's daemons and clients find that socket through
#     `AuthInfo=socket=...` in the generated slurm.conf, so no MUNGE environment variable is needed;
#   * slurmctld and slurmd in the foreground (-D) as background children of the caller, no systemd,
#     SlurmUser=root, on two free TCP ports picked at start (never the default 6817/6818);
#   * a generated slurm.conf (one node: this host's real CPUs/cores/threads/memory from
#     `slurmd -C`; one partition, the default; proctrack/linuxproc, task/none, select/cons_tres
#     with CR_Core; no accounting; an empty plugstack.conf so /etc/slurm is never read).
#   It exports SLURM_CONF (all Slurm clients then talk to this instance) and:
#     SLURM_LOCALHOST_DIR        the DIR
#     SLURM_LOCALHOST_PARTITION  the partition's name (allocstress)
#     SLURM_LOCALHOST_NODE       the node's name (this host's short name, as slurmd -C says)
#   It sets (not exported) SLURM_LOCALHOST_START_SECONDS: start to idle node, in seconds.
#   It unsets the caller's other SLURM_*, SBATCH_*, SQUEUE_*, SINFO_*, SCONTROL_*, SALLOC_*, SRUN_*
#   variables (but not SLURM_LOCALHOST_*) so that a test started inside a real cluster's job cannot
#   leak options into this instance (a SLURM_CONF of the caller's is not restored by slurm_stop).
#   How slurm_stop finds exactly what this instance started, and nothing else: the pids recorded
#   in DIR/daemons.pids, checked against /proc (name, and the marker ALLOCSTRESS_SLURM_DIR=DIR in the
#   environment of munged, slurmctld, slurmscriptd, slurmd); slurmstepd clears its environment,
#   so it is recognised by its open DIR/log/slurmd.log; job processes by SLURM_CONF=DIR/slurm.conf
#   together with SLURM_JOB_ID in their environment.
#
# Failures print one line "localhost_slurm: ..." on stderr (then, for daemon failures, the tail of
# the daemon logs, indented) and return non-zero; slurm_start cleans up what it had started before
# returning.  Needs root (SlurmUser=root, munged as root) and DIR's path short enough for Unix
# sockets (slurmd puts step sockets in DIR/spool): at most 60 characters.
#
# Environment knobs: SLURM_LOCALHOST_START_TIMEOUT (seconds until the node must be idle, default
# 30), SLURM_LOCALHOST_KEEP=1 (slurm_stop keeps DIR, for debugging), SLURM_LOCALHOST_MINJOBAGE
# (seconds finished jobs stay visible to scontrol/squeue, default 300 as Slurm's own default).

# slurm_stop's DIR argument is optional: calls without it are meant.
# shellcheck disable=SC2119,SC2120
SLURM_SKIP_RC=77
SLURM_LOCALHOST_PARTITION=allocstress

_slurm_lh_say() { echo "localhost_slurm: $*"; }
_slurm_lh_err() { echo "localhost_slurm: $*" >&2; }
# The processes of an instance: finding, ending them (_slurm_lh_ours, _slurm_lh_terminate, ...).
# shellcheck source-path=SCRIPTDIR
source "$(dirname "${BASH_SOURCE[0]}")/localhost_slurm_processes.sh"

# The commands this library and its callers need, and the Debian packages providing them.
_SLURM_LH_COMMANDS=(munged mungekey slurmctld slurmd sbatch squeue sinfo scontrol scancel)

_slurm_lh_missing_commands() {
  local c missing=()
  for c in "${_SLURM_LH_COMMANDS[@]}"; do command -v "$c" >/dev/null 2>&1 || missing+=("$c"); done
  echo "${missing[*]}"
}

# slurm_install_if_missing: installs slurm-wlm and munge from the distribution (apt-get, no
# recommends) when any of their commands is missing; prints what it did.  Returns 0 when they are
# there (before or after), SLURM_SKIP_RC (77) with one line on stderr when they cannot be installed
# (not root, no apt-get, apt-get update or install failing, e.g. no network or a held lock).
slurm_install_if_missing() {
  local missing log
  missing=$(_slurm_lh_missing_commands)
  if [ -z "$missing" ]; then
    _slurm_lh_say "slurm and munge already installed ($(slurmd -V 2>/dev/null), munge $(munged -V 2>/dev/null | awk '{print $1; exit}' | sed 's/^munge-//'))"
    return 0
  fi
  if [ "$(id -u)" != 0 ]; then
    _slurm_lh_err "cannot install slurm-wlm and munge (missing: $missing): not root"; return "$SLURM_SKIP_RC"
  fi
  if ! command -v apt-get >/dev/null 2>&1; then
    _slurm_lh_err "cannot install slurm-wlm and munge (missing: $missing): no apt-get"; return "$SLURM_SKIP_RC"
  fi
  _slurm_lh_say "installing slurm-wlm and munge (missing: $missing)"
  log=$(mktemp) || { _slurm_lh_err "cannot install slurm-wlm and munge: mktemp failed"; return "$SLURM_SKIP_RC"; }
  if ! DEBIAN_FRONTEND=noninteractive apt-get update -qq >"$log" 2>&1; then
    _slurm_lh_err "cannot install slurm-wlm and munge: apt-get update failed: $(grep -v '^\s*$' "$log" | tail -1)"
    rm -f "$log"; return "$SLURM_SKIP_RC"
  fi
  if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends slurm-wlm munge >"$log" 2>&1; then
    _slurm_lh_err "cannot install slurm-wlm and munge: apt-get install failed: $(grep -v '^\s*$' "$log" | tail -1)"
    rm -f "$log"; return "$SLURM_SKIP_RC"
  fi
  rm -f "$log"
  missing=$(_slurm_lh_missing_commands)
  if [ -n "$missing" ]; then
    _slurm_lh_err "cannot install slurm-wlm and munge: still missing after apt-get install: $missing"; return "$SLURM_SKIP_RC"
  fi
  _slurm_lh_say "installed $(slurmd -V) and munge"
}

# slurm_start DIR: see the contract above.  DIR must not exist or be empty; it is created, and
# slurm_stop removes it.  Returns 0 once `sinfo` shows the node idle.  Calling it again while this
# shell's instance runs on the same DIR is a no-op.
slurm_start() {
  local dir=${1:-} missing ports ctld_port slurmd_port node conf t0 limit state i
  if [ -z "$dir" ]; then _slurm_lh_err "slurm_start: no DIR given"; return 1; fi
  case "$dir" in /*) ;; *) dir=$PWD/$dir ;; esac
  if [ -n "${SLURM_LOCALHOST_DIR:-}" ]; then
    if [ "$SLURM_LOCALHOST_DIR" = "$dir" ] && _slurm_lh_ours "${_SLURM_LH_CTLD_PID:-}" slurmctld "$dir" \
      && _slurm_lh_ours "${_SLURM_LH_SLURMD_PID:-}" slurmd "$dir"; then
      _slurm_lh_say "already running in $dir"; return 0
    fi
    _slurm_lh_err "slurm_start: an instance in $SLURM_LOCALHOST_DIR is still registered: call slurm_stop first"; return 1
  fi
  missing=$(_slurm_lh_missing_commands)
  if [ -n "$missing" ]; then _slurm_lh_err "slurm_start: missing commands: $missing (call slurm_install_if_missing)"; return 1; fi
  if [ "$(id -u)" != 0 ]; then _slurm_lh_err "slurm_start: needs root (SlurmUser=root, munged as root)"; return 1; fi
  if [ "${#dir}" -gt 60 ]; then _slurm_lh_err "slurm_start: DIR path longer than 60 characters (Unix socket paths inside it would not fit): $dir"; return 1; fi
  if [ -e "$dir" ] && [ -n "$(ls -A "$dir" 2>/dev/null)" ]; then _slurm_lh_err "slurm_start: DIR exists and is not empty: $dir"; return 1; fi
  mkdir -p "$dir"/{munge,state,spool,log,run} || { _slurm_lh_err "slurm_start: cannot create $dir"; return 1; }
  # munged wants the socket's folders searchable by all; ancestors that are not (mktemp -d makes
  # 0700 folders) only give a warning with --force, which is harmless here: every user is root.
  chmod 755 "$dir" "$dir/munge"
  t0=$(date +%s.%N)

  node=$(slurmd -C 2>/dev/null | awk '/^NodeName=/ { sub(/^NodeName=/, "", $1); print $1 }')
  local hw
  hw=$(slurmd -C 2>/dev/null | sed -n 's/^NodeName=[^ ]* //p')
  if [ -z "$node" ] || [ -z "$hw" ]; then _slurm_lh_err "slurm_start: slurmd -C did not describe this node"; rm -rf "$dir"; return 1; fi
  ports=$(_slurm_lh_free_ports) || { _slurm_lh_err "slurm_start: found no free TCP port pair in 20000-29999"; rm -rf "$dir"; return 1; }
  read -r ctld_port slurmd_port <<<"$ports"

  conf=$dir/slurm.conf
  : >"$dir/plugstack.conf"
  cat >"$conf" <<EOF
# Generated by tests/slurm/localhost_slurm.sh: a private single-node cluster for tests.
ClusterName=allocstress
SlurmctldHost=localhost
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
PlugStackConfig=$dir/plugstack.conf
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
# Schedule batch jobs at once (default: up to 3 s later); array tasks then start ~1 s apart.
SchedulerParameters=batch_sched_delay=0
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MpiDefault=none
ReturnToService=2
MinJobAge=${SLURM_LOCALHOST_MINJOBAGE:-300}
NodeName=$node NodeAddr=127.0.0.1 $hw State=UNKNOWN
PartitionName=$SLURM_LOCALHOST_PARTITION Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF

  # Isolate from the caller's Slurm environment, then point every client at this instance.
  local v
  for v in $(compgen -e | grep -E '^(SLURM|SBATCH|SQUEUE|SINFO|SCONTROL|SALLOC|SRUN)_' | grep -v '^SLURM_LOCALHOST_' || true); do
    unset "$v"
  done
  export SLURM_CONF=$conf SLURM_LOCALHOST_DIR=$dir SLURM_LOCALHOST_PARTITION SLURM_LOCALHOST_NODE=$node

  if ! mungekey -c -k "$dir/munge/munge.key" >"$dir/log/mungekey.out" 2>&1; then
    _slurm_lh_err "slurm_start: mungekey could not create $dir/munge/munge.key: $(tail -1 "$dir/log/mungekey.out")"
    slurm_stop; return 1
  fi
  ALLOCSTRESS_SLURM_DIR=$dir munged -F --force --socket="$dir/munge/munge.socket" \
    --key-file="$dir/munge/munge.key" --pid-file="$dir/run/munged.pid" --seed-file="$dir/munge/munged.seed" \
    </dev/null >>"$dir/log/munged.log" 2>&1 &
  _SLURM_LH_MUNGED_PID=$!
  echo "munged $_SLURM_LH_MUNGED_PID" >"$dir/daemons.pids"
  for ((i = 0; i < 100; i++)); do
    [ -S "$dir/munge/munge.socket" ] && break
    _slurm_lh_alive "$_SLURM_LH_MUNGED_PID" || break
    sleep 0.05
  done
  if [ ! -S "$dir/munge/munge.socket" ]; then
    _slurm_lh_err "slurm_start: munged did not create its socket within 5 s"; _slurm_lh_log_tails "$dir"
    slurm_stop; return 1
  fi

  ALLOCSTRESS_SLURM_DIR=$dir slurmctld -D -f "$conf" </dev/null >>"$dir/log/slurmctld.out" 2>&1 &
  _SLURM_LH_CTLD_PID=$!
  echo "slurmctld $_SLURM_LH_CTLD_PID" >>"$dir/daemons.pids"
  ALLOCSTRESS_SLURM_DIR=$dir slurmd -D -f "$conf" -N "$node" </dev/null >>"$dir/log/slurmd.out" 2>&1 &
  _SLURM_LH_SLURMD_PID=$!
  echo "slurmd $_SLURM_LH_SLURMD_PID" >>"$dir/daemons.pids"

  limit=${SLURM_LOCALHOST_START_TIMEOUT:-30}
  for ((i = 0; i < limit * 10; i++)); do
    state=$(timeout 5 sinfo -h -N -n "$node" -o %T 2>/dev/null)
    [ "$state" = idle ] && break
    if ! _slurm_lh_alive "$_SLURM_LH_CTLD_PID"; then
      _slurm_lh_err "slurm_start: slurmctld exited during start-up"; _slurm_lh_log_tails "$dir"; slurm_stop; return 1
    fi
    if ! _slurm_lh_alive "$_SLURM_LH_SLURMD_PID"; then
      _slurm_lh_err "slurm_start: slurmd exited during start-up"; _slurm_lh_log_tails "$dir"; slurm_stop; return 1
    fi
    sleep 0.1
  done
  if [ "$state" != idle ]; then
    _slurm_lh_err "slurm_start: node $node not idle after ${limit} s (state: ${state:-no answer from sinfo})"
    _slurm_lh_log_tails "$dir"; slurm_stop; return 1
  fi
  SLURM_LOCALHOST_START_SECONDS=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
  _slurm_lh_say "slurm running in $dir: node $node idle after $SLURM_LOCALHOST_START_SECONDS s (slurmctld port $ctld_port, slurmd port $slurmd_port, partition $SLURM_LOCALHOST_PARTITION)"
}

# slurm_stop [DIR]: cancels the instance's jobs (scancel), stops its slurmd, slurmctld, munged
# (SIGTERM, SIGKILL after 10 s) and whatever of its jobs survived (SIGKILL), waits for them to exit and removes DIR.  Without DIR it stops
# this shell's instance; with DIR it stops the instance recorded in DIR/daemons.pids (e.g. one left
# behind by a killed test).  Safe to call twice, from a trap, and when nothing was started.
slurm_stop() {
  local dir=${1:-${SLURM_LOCALHOST_DIR:-}} ids i munged_pid='' ctld_pid='' slurmd_pid='' name pid
  [ -n "$dir" ] || return 0
  if [ -r "$dir/daemons.pids" ]; then
    while read -r name pid; do
      case "$name" in munged) munged_pid=$pid ;; slurmctld) ctld_pid=$pid ;; slurmd) slurmd_pid=$pid ;; esac
    done <"$dir/daemons.pids"
  fi
  if _slurm_lh_ours "$ctld_pid" slurmctld "$dir"; then
    ids=$(SLURM_CONF=$dir/slurm.conf timeout 5 squeue -h -o %A 2>/dev/null | sort -u)
    if [ -n "$ids" ]; then
      # shellcheck disable=SC2086
      SLURM_CONF=$dir/slurm.conf timeout 5 scancel $ids 2>/dev/null
      for ((i = 0; i < 100; i++)); do
        [ -z "$(SLURM_CONF=$dir/slurm.conf timeout 5 squeue -h -o %A 2>/dev/null)" ] && break
        sleep 0.1
      done
    fi
  fi
  # (pids unquoted on purpose: an unknown pid is no argument)
  # shellcheck disable=SC2086
  _slurm_lh_terminate slurmd "$dir" $slurmd_pid
  # shellcheck disable=SC2086
  _slurm_lh_terminate slurmctld "$dir" $ctld_pid
  # Normally gone with their jobs or their parents; left over only when the jobs could not be
  # cancelled (controller dead or hung): kill the jobs' processes, then their slurmstepd (which
  # ignores SIGTERM), then slurmctld's script helper.
  local job_pids
  job_pids=$(_slurm_lh_job_processes "$dir")
  if [ -n "$job_pids" ]; then
    _slurm_lh_err "killing processes of jobs that could not be cancelled: $(tr '\n' ' ' <<<"$job_pids")"
    # shellcheck disable=SC2086
    kill -KILL $job_pids 2>/dev/null
  fi
  # shellcheck disable=SC2046
  _SLURM_LH_GRACE=20 _slurm_lh_terminate slurmstepd "$dir" $(_slurm_lh_marked slurmstepd "$dir")
  # shellcheck disable=SC2046
  _slurm_lh_terminate slurmscriptd "$dir" $(_slurm_lh_marked slurmscriptd "$dir")
  # shellcheck disable=SC2086
  _slurm_lh_terminate munged "$dir" $munged_pid
  if [ "${SLURM_LOCALHOST_KEEP:-0}" = 1 ]; then
    _slurm_lh_say "stopped; kept $dir (SLURM_LOCALHOST_KEEP=1)"
  else
    rm -rf "$dir"
  fi
  if [ "$dir" = "${SLURM_LOCALHOST_DIR:-}" ]; then
    unset SLURM_CONF SLURM_LOCALHOST_DIR SLURM_LOCALHOST_NODE _SLURM_LH_MUNGED_PID _SLURM_LH_CTLD_PID _SLURM_LH_SLURMD_PID
  fi
  return 0
}

# slurm_wait_jobs JOBID TIMEOUT: polls squeue (sbatch --wait returns late) until none of the job's
# tasks is pending, running or completing.  Returns 0 then; 1 with one line naming the tasks still
# queued after TIMEOUT seconds, or when squeue cannot reach the controller.
slurm_wait_jobs() {
  local id=${1:-} limit=${2:-60} out rc deadline
  if [ -z "$id" ]; then _slurm_lh_err "slurm_wait_jobs: no JOBID given"; return 1; fi
  deadline=$(($(date +%s) + limit))
  while :; do
    out=$(squeue -h -j "$id" -o '%i %T' 2>&1) && rc=0 || rc=$?
    if [ "$rc" != 0 ]; then
      # A job purged from slurmctld's memory (MinJobAge) is an invalid id: it has finished.
      case "$out" in *"Invalid job id"*) return 0 ;; esac
      _slurm_lh_err "slurm_wait_jobs: squeue failed for job $id: $(head -1 <<<"$out")"; return 1
    fi
    [ -z "$out" ] && return 0
    if [ "$(date +%s)" -ge "$deadline" ]; then
      _slurm_lh_err "slurm_wait_jobs: job $id not finished after $limit s: $(tr '\n' ' ' <<<"$out")"; return 1
    fi
    sleep 0.2
  done
}

# slurm_task_states JOBID: one line per array task slurmctld still remembers (finished tasks for
# MinJobAge seconds): "TASK STATE EXITCODE REASON", sorted by task, e.g. "1 FAILED 3:0
# NonZeroExitCode"; a job without array prints task "-".  Returns squeue/scontrol's failure
# (1, "Invalid job id specified" once the job has been purged).
slurm_task_states() {
  local id=${1:-} out
  if [ -z "$id" ]; then _slurm_lh_err "slurm_task_states: no JOBID given"; return 1; fi
  out=$(scontrol -o show job "$id" 2>&1) || { _slurm_lh_err "slurm_task_states: $(head -1 <<<"$out")"; return 1; }
  awk '{
    task = "-"; state = "?"; code = "?"; reason = "?"
    for (i = 1; i <= NF; i++) {
      if ($i ~ /^ArrayTaskId=/) task = substr($i, 13)
      else if ($i ~ /^JobState=/) state = substr($i, 10)
      else if ($i ~ /^ExitCode=/) code = substr($i, 10)
      else if ($i ~ /^Reason=/) reason = substr($i, 8)
    }
    print task, state, code, reason
  }' <<<"$out" | sort -n
}

# slurm_unreachable_conf DIR: writes DIR/slurm.conf for a controller that does not answer
# (localhost, a TCP port nobody listens on; no daemon is started) and prints its path, for
# tests of "unreachable controller" errors: with SLURM_CONF set to it, `scontrol ping` exits 1 at
# once ("Slurmctld(primary) at HOST is DOWN") while sbatch/squeue/sinfo exit 1 only after ~9 s of
# retries ("Unable to contact slurm controller (connect failure)").
slurm_unreachable_conf() {
  local dir=${1:-} ports
  if [ -z "$dir" ]; then _slurm_lh_err "slurm_unreachable_conf: no DIR given"; return 1; fi
  mkdir -p "$dir" || { _slurm_lh_err "slurm_unreachable_conf: cannot create $dir"; return 1; }
  ports=$(_slurm_lh_free_ports) || { _slurm_lh_err "slurm_unreachable_conf: found no free TCP port"; return 1; }
  cat >"$dir/slurm.conf" <<EOT
# Generated by tests/slurm/localhost_slurm.sh: a controller nobody runs.
ClusterName=unreachable
SlurmctldHost=localhost
SlurmctldPort=${ports%% *}
AuthInfo=socket=$dir/no-munged.socket
PlugStackConfig=$dir/plugstack.conf
NodeName=nowhere CPUs=1 State=UNKNOWN
PartitionName=$SLURM_LOCALHOST_PARTITION Nodes=nowhere Default=YES
EOT
  : >"$dir/plugstack.conf"
  echo "$dir/slurm.conf"
}
