# ctest: labels=cli timeout=600 env=ALLOCSTRESS,TRACER,DUMP_TRACE,SPAWN_HELPER,COUNT_MALLOC serial
# The tracer on process changes and fatal signals (tests/trace/spawn_helper.c): vfork+exec,
# posix_spawn and clone(CLONE_VM) children leave the parent's trace whole and trace their exec'd
# image into a file named after their own pid; fork children get a file of their own; exec
# writes a second file; SIGSEGV/SIGBUS/SIGILL/SIGFPE/SIGABRT leave a readable trace ended by the
# signal (also through the program's own SIGSEGV handler).  Each process's marked events are
# compared with the count the program itself makes.  Then real programs against an independent
# counter (tests/support/count_malloc.c, preloaded before the tracer): the gcc driver (vfork+exec
# of cc1 and as) and a Python script using subprocess.
source "$(dirname "$0")/../lib.sh"
: "${TRACER:?}" "${DUMP_TRACE:?}" "${SPAWN_HELPER:?}" "${COUNT_MALLOC:?}"
unset LD_PRELOAD ALLOCSTRESS_TRACE_OUT ALLOCSTRESS_TRACE_LEVEL ALLOCSTRESS_TRACE_CALL_SITES

# marked FILE: the events of malloc(4321) and of the frees of those blocks in FILE.
marked() {
  "$DUMP_TRACE" "$1" | awk '!/^#/ && $3 == "malloc" && $4 == 4321 {live[$5] = 1; n++}
                            !/^#/ && $3 == "free" && ($5 in live) {delete live[$5]; n++} END {print n + 0}'
}
header_pid() { "$DUMP_TRACE" --summary "$1" | awk '/^# pid/ {print $3}'; }
info() { "$ALLOCSTRESS" trace-info "$1" 2>/dev/null; }

# check_processes NAME: every "pid P expect E" line of $T/NAME.out has its file $T/NAME.P.ast
# (or $T/NAME.P.1.ast for an exec'd image, given as P.1) holding E marked events, whose header
# names P, and trace-info says it ended whole.
check_processes() {
  local name=$1 pid want file got
  while read -r _ pid _ want; do
    file="$T/$name.$pid.ast"
    if [ ! -f "$file" ]; then fail "$name: no trace file for process $pid (files: $(cd "$T" && ls | grep "^$name\." | tr '\n' ' '))"; continue; fi
    got=$(marked "$file")
    [ "$got" = "$want" ] && pass || fail "$name: process $pid: $got marked events traced, the program made $want"
    [ "$(header_pid "$file")" = "$pid" ] && pass || fail "$name: $file names pid $(header_pid "$file")"
    info "$file" | grep -q "^complete:     yes" && pass || fail "$name: $file not whole: $(info "$file" | grep -e complete -e ended)"
  done < "$T/$name.out"
}

# --- vfork + exec, posix_spawn, clone(CLONE_VM|CLONE_VFORK) + exec ---------------------------------
for mode in vfork spawn clone; do
  rc=0; "$ALLOCSTRESS" trace --out-prefix "$T/$mode" -- "$SPAWN_HELPER" "$mode" > "$T/$mode.out" 2> "$T/$mode.err" || rc=$?
  [ "$rc" = 0 ] && pass || fail "$mode: exit $rc: $(cat "$T/$mode.err")"
  [ "$(wc -l < "$T/$mode.out")" = 2 ] && pass || fail "$mode: $(cat "$T/$mode.out")"
  check_processes "$mode"
  [ "$(ls "$T"/"$mode".*.ast | wc -l)" = 2 ] && pass || fail "$mode: $(ls "$T"/"$mode".*.ast | wc -l) trace files, 2 expected (parent, exec'd child)"
  grep -q "tracing stopped\|cut short" "$T/$mode.err" && fail "$mode: $(cat "$T/$mode.err")" || pass
  parent=$(awk 'NR == 2 {print $2}' "$T/$mode.out")
  child=$(awk 'NR == 1 {print $2}' "$T/$mode.out")
  info "$T/$mode.$child.ast" | grep -q "^process:      pid $child, parent $parent$" && pass || fail "$mode: child's header: $(info "$T/$mode.$child.ast" | grep process)"
done

# --- fork: the child's own file, without the parent's events ------------------------------------------
"$ALLOCSTRESS" trace --out-prefix "$T/fork" -- "$SPAWN_HELPER" fork > "$T/fork.out" 2> "$T/fork.err" || fail "fork: exit $?: $(cat "$T/fork.err")"
check_processes fork

# --- exec: the first image's file ends with exec, the new image writes PREFIX.<pid>.1.ast ---------------
"$ALLOCSTRESS" trace --out-prefix "$T/exec" -- "$SPAWN_HELPER" exec > "$T/exec.out" 2> "$T/exec.err" || fail "exec: exit $?: $(cat "$T/exec.err")"
pid=$(awk 'NR == 1 {print $2}' "$T/exec.out")
[ "$(marked "$T/exec.$pid.ast")" = 2000 ] && pass || fail "exec: first image: $(marked "$T/exec.$pid.ast") marked events, 2000 made"
info "$T/exec.$pid.ast" | grep -q "^ended by:     exec" && pass || fail "exec: first image: $(info "$T/exec.$pid.ast" | grep ended)"
[ "$(marked "$T/exec.$pid.1.ast")" = 1554 ] && pass || fail "exec: new image: $(marked "$T/exec.$pid.1.ast" 2>&1) marked events, 1554 made"

# --- fatal signals: a readable trace ended by the signal, the exit status unchanged ----------------------
for sig in segv:11 bus:7 ill:4 fpe:8 abrt:6; do
  how=${sig%:*} num=${sig#*:}
  rc=0; "$ALLOCSTRESS" trace --out-prefix "$T/$how" -- "$SPAWN_HELPER" crash "$how" > "$T/$how.out" 2> "$T/$how.err" || rc=$?
  [ "$rc" = $((128 + num)) ] && pass || fail "crash $how: exit $rc, expected $((128 + num))"
  pid=$(awk '{print $2}' "$T/$how.out")
  file="$T/$how.$pid.ast"
  [ "$(marked "$file")" = 40300 ] && pass || fail "crash $how: $(marked "$file" 2>&1) marked events, 40300 made"
  info "$file" | grep -q "^ended by:     signal $num " && pass || fail "crash $how: $(info "$file" | grep -e ended -e complete)"
  "$ALLOCSTRESS" trace-info --json "$file" | grep -q "\"end\":{[^}]*\"cause\":\"signal\"[^}]*\"signal\":$num" && pass || fail "crash $how: JSON end"
  grep -q "ended by signal $num" "$T/$how.err" && pass || fail "crash $how: trace's line: $(cat "$T/$how.err")"
done

# --- the program's own SIGSEGV handler: called (twice), the first fault recovered, then death by SIGSEGV --
rc=0; "$ALLOCSTRESS" trace --out-prefix "$T/handler" -- "$SPAWN_HELPER" handler > "$T/handler.out" 2> "$T/handler.err" || rc=$?
[ "$rc" = 139 ] && pass || fail "handler: exit $rc, expected 139: $(cat "$T/handler.err")"
[ "$(grep -c "SIGSEGV caught" "$T/handler.out")" = 2 ] && pass || fail "handler: the program's handler ran $(grep -c "SIGSEGV caught" "$T/handler.out") times, 2 expected"
grep -v caught "$T/handler.out" > "$T/handler.pids"
pid=$(awk '{print $2}' "$T/handler.pids")
[ "$(marked "$T/handler.$pid.ast")" = 12000 ] && pass || fail "handler: $(marked "$T/handler.$pid.ast" 2>&1) marked events, 12000 made"
info "$T/handler.$pid.ast" | grep -q "^ended by:     signal 11 " && pass || fail "handler: $(info "$T/handler.$pid.ast" | grep ended)"

# --- a trace cut short: trace-info says so; `trace` warns and exits 5 although the program exited 0 -----
LD_PRELOAD="$TRACER" ALLOCSTRESS_TRACE_OUT="$T/kill" "$SPAWN_HELPER" crash segv > /dev/null 2>&1 || true
f=$(ls "$T"/kill.*.ast)
size=$(stat -c %s "$f")
head -c $((size - 48)) "$f" > "$T/noend.ast"  # without its end record, as after SIGKILL
info "$T/noend.ast" | grep -q "^complete:     no, cut short: no end record" && pass || fail "no end record: $(info "$T/noend.ast" | grep complete)"
"$ALLOCSTRESS" trace-info "$T/noend.ast" 2>&1 >/dev/null | grep -q "^allocstress: warning: .*trace cut short: no end record" && pass \
  || fail "trace-info: no cut-short warning"
# A child that writes blocks, then is killed by SIGKILL, under a shell that exits 0.
rc=0; "$ALLOCSTRESS" trace --out-prefix "$T/k9" -- /bin/sh -c "'$SPAWN_HELPER' selfkill; exit 0" 2> "$T/k9.err" || rc=$?
[ "$rc" = 5 ] && pass || fail "cut short: exit $rc, expected 5: $(cat "$T/k9.err")"
grep -q "^allocstress: warning: trace: .*: cut short: no end record" "$T/k9.err" && pass || fail "cut short: no warning line: $(cat "$T/k9.err")"
grep -q "^allocstress: error: trace: 1 of .* trace files were cut short" "$T/k9.err" && pass || fail "cut short: no summary line: $(cat "$T/k9.err")"
# --- real programs against an independent counter ----------------------------------------------------
# count_malloc.so, preloaded before the tracer, counts the calls each process makes; it also sees
# the tracer's own start-up calls (dlsym ...), measured on /bin/true, which makes none itself.
counted() {  # counted NAME [VAR=VALUE...] PROGRAM ARGS...: runs it under the counter and the tracer
  local name=$1; shift
  env LD_PRELOAD="$COUNT_MALLOC:$TRACER" ALLOCSTRESS_TRACE_OUT="$T/$name" ALLOCSTRESS_COUNT_OUT="$T/$name" "$@"
}
counted base /bin/true
own=$(awk '{print $2}' "$T"/base.*.count)
# compare_counts NAME MIN_FILES: every trace file of NAME holds exactly the calls counted in its process.
compare_counts() {
  local name=$1 min=$2 files=0 f pid traced calls
  for f in "$T/$name".*.ast; do
    pid=$(header_pid "$f"); files=$((files + 1))
    traced=$("$DUMP_TRACE" --summary "$f" | awk '/^# pid/ {print $11}')
    calls=$(awk '{print $2}' "$T/$name.$pid.count" 2>/dev/null || echo missing)
    echo "$name: pid $pid ($("$DUMP_TRACE" --summary "$f" | awk '/^# command/ {print $3}')): $traced events traced, $calls calls counted ($own of them the tracer's own start-up)"
    [ "$calls" != missing ] && [ "$traced" = $((calls - own)) ] && pass || fail "$name: pid $pid: $traced events traced, $calls - $own calls counted"
    info "$f" | grep -q "^complete:     yes" && pass || fail "$name: $f not whole"
  done
  [ "$files" -ge "$min" ] && pass || fail "$name: $files trace files, at least $min expected"
}
# The gcc driver spawns cc1 and as with vfork+exec.
awk 'BEGIN {for (i = 0; i < 300; i++) printf "int f%d(int x) { int s = 0; for (int k = 0; k < x; ++k) s += k * %d ^ (s >> 3); return s; }\n", i, i}' > "$T/big.c"
if command -v gcc > /dev/null; then
  (cd "$T" && counted gcc gcc -O2 -c big.c -o big.o) || fail "gcc: exit $?"
  compare_counts gcc 3
  rc=0; (cd "$T" && "$ALLOCSTRESS" trace --out-prefix "$T/gcct" -- gcc -O2 -c big.c -o big.o) 2> "$T/gcct.err" || rc=$?
  [ "$rc" = 0 ] && pass || fail "trace gcc: exit $rc: $(cat "$T/gcct.err")"
  for prog in gcc cc1 as; do
    grep -l "" "$T"/gcct.*.ast | while read -r f; do "$DUMP_TRACE" --summary "$f" | awk '/^# command/ {print $3}'; done | grep -Eq "(^|/)$prog\$" && pass \
      || fail "trace gcc: no trace file of $prog: $(cat "$T/gcct.err")"
  done
  grep -q "cut short\|tracing stopped" "$T/gcct.err" && fail "trace gcc: $(cat "$T/gcct.err")" || pass
else
  skip_part gcc "gcc is not installed (scripts/setup-deps.sh installs g++)"
fi
# A Python script using subprocess (vfork+exec in Python 3.11), every object from malloc.
cat > "$T/sub.py" <<'PY'
import subprocess
data = []
for i in range(30000):
    data.append({"k": i, "v": str(i) * 3})
    if i % 10000 == 0:
        subprocess.run(["/bin/true"], check=True)
print(len(data))
PY
counted py PYTHONMALLOC=malloc /usr/bin/python3 "$T/sub.py" > /dev/null || fail "python: exit $?"
compare_counts py 4
finish
