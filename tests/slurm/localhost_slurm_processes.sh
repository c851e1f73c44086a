# ctest: not a test (sourced by localhost_slurm.sh)
# localhost_slurm_processes.sh: how localhost_slurm.sh finds and ends exactly the processes of one
# instance (sourced by it, bash; the names start with _slurm_lh_, internal to the library): /proc
# says whether a pid is a live process of DIR's instance (its marker variable or a file open in
# DIR), which pids are its daemons or its jobs' processes, and ends them, SIGTERM then SIGKILL;
# also two free TCP ports and the tails of the daemon logs for failure messages.

# True when /proc says PID is a live (not zombie) process named COMM of DIR's instance: it carries
# the marker ALLOCSTRESS_SLURM_DIR=DIR in its environment (munged, slurmctld, slurmscriptd, slurmd)
# or has a file open inside DIR (slurmstepd clears its environment but keeps DIR/log/slurmd.log open).
_slurm_lh_ours() {
  local pid=$1 comm=$2 dir=$3 c stat f
  [ -n "$pid" ] || return 1
  { read -r c <"/proc/$pid/comm"; } 2>/dev/null || return 1
  [ "$c" = "$comm" ] || return 1
  { read -r stat <"/proc/$pid/stat"; } 2>/dev/null || return 1
  stat=${stat##*) }
  [ "${stat%% *}" != Z ] || return 1
  grep -qzxF "ALLOCSTRESS_SLURM_DIR=$dir" "/proc/$pid/environ" 2>/dev/null && return 0
  for f in "/proc/$pid/fd/"*; do
    case "$(readlink "$f" 2>/dev/null)" in "$dir"/*) return 0 ;; esac
  done
  return 1
}

# True while PID exists and is not a zombie (whatever it runs: right after `cmd &` it may not
# have exec'd cmd yet).
_slurm_lh_alive() {
  local stat
  { read -r stat <"/proc/$1/stat"; } 2>/dev/null || return 1
  stat=${stat##*) }
  [ "${stat%% *}" != Z ]
}

# Pids of live processes named COMM belonging to DIR's instance (see _slurm_lh_ours).
_slurm_lh_marked() {
  local comm=$1 dir=$2 p
  for p in /proc/[0-9]*; do
    p=${p#/proc/}
    _slurm_lh_ours "$p" "$comm" "$dir" && echo "$p"
  done
  return 0
}

# Pids of live processes of a job of DIR's instance: their environment has both
# SLURM_CONF=DIR/slurm.conf and SLURM_JOB_ID (batch scripts, what they run, and escapees that
# daemonized; not the caller, whose environment has no SLURM_JOB_ID after slurm_start).
_slurm_lh_job_processes() {
  local dir=$1 p
  for p in /proc/[0-9]*; do
    p=${p#/proc/}
    [ "$p" != "$$" ] || continue
    grep -qzxF "SLURM_CONF=$dir/slurm.conf" "/proc/$p/environ" 2>/dev/null \
      && grep -qz '^SLURM_JOB_ID=' "/proc/$p/environ" 2>/dev/null && echo "$p"
  done
  return 0
}

# Sends SIGTERM to the processes (pids) named COMM of DIR, waits up to GRACE tenths of a second
# (default 100) until each is gone, then SIGKILL.  A process stops looking like ours while it
# exits (the kernel drops its environment and descriptors before it becomes a zombie: a
# slurmstepd cleaning up after its job took longer than that), so the wait follows the pids that
# were ours when signalled until they are gone or zombies.
_slurm_lh_terminate() {
  local comm=$1 dir=$2 p i left grace=${_SLURM_LH_GRACE:-100} mine=()
  shift 2
  for p in "$@"; do _slurm_lh_ours "$p" "$comm" "$dir" && kill -TERM "$p" 2>/dev/null && mine+=("$p"); done
  [ ${#mine[@]} -gt 0 ] || return 0
  for ((i = 0; i < grace; i++)); do
    left=0
    for p in "${mine[@]}"; do _slurm_lh_alive "$p" && left=1; done
    [ "$left" = 0 ] && break
    sleep 0.1
  done
  for p in "${mine[@]}"; do
    if _slurm_lh_ours "$p" "$comm" "$dir"; then
      _slurm_lh_err "$comm (pid $p) ignored SIGTERM for $((grace / 10)) s: killing it"
      kill -KILL "$p" 2>/dev/null
    fi
  done
  for ((i = 0; i < 50; i++)); do  # SIGKILLed or still exiting: until gone (at most 5 s)
    left=0
    for p in "${mine[@]}"; do _slurm_lh_alive "$p" && left=1; done
    [ "$left" = 0 ] && break
    sleep 0.1
  done
  for p in "${mine[@]}"; do wait "$p" 2>/dev/null; done  # reaps our own children; no-op otherwise
  return 0
}

# A free TCP port pair (P, P+1) in 20000-29998 that no socket on this machine uses.
_slurm_lh_free_ports() {
  local try p used
  used=$(awk 'FNR > 1 { n = split($2, a, ":"); print a[n] }' /proc/net/tcp /proc/net/tcp6 2>/dev/null \
    | while read -r h; do echo $((16#$h)); done | sort -u)
  for ((try = 0; try < 200; try++)); do
    p=$((20000 + (RANDOM % 5000) * 2))
    if ! grep -qx -e "$p" -e "$((p + 1))" <<<"$used"; then echo "$p $((p + 1))"; return 0; fi
  done
  return 1
}

_slurm_lh_log_tails() {
  local dir=$1 f
  for f in "$dir"/log/*; do
    [ -s "$f" ] || continue
    echo "  --- tail of $f" >&2
    tail -n 8 "$f" | sed 's/^/  /' >&2
  done
}
