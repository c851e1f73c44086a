# ctest: labels=cli timeout=300 env=ALLOCSTRESS,TRACER,DUMP_TRACE,KNOWN_SEQUENCE serial
# Trace capture: the preloaded tracer (liballocstress_trace.so) and `allocstress trace`.
# Test programs whose exact allocation sequence is known (tests/trace/known_sequence.cpp) are
# traced and read back with read_trace (tests/trace/dump_trace.cpp): every interposed function
# and operator new/delete variant, two threads freeing each other's blocks, fork children, abort,
# exec, kill -9; then real programs nobody here wrote (sort, python3), jemalloc underneath, and
# bad input.
source "$(dirname "$0")/../lib.sh"
: "${TRACER:?}" "${DUMP_TRACE:?}" "${KNOWN_SEQUENCE:?}"
unset LD_PRELOAD ALLOCSTRESS_TRACE_OUT ALLOCSTRESS_TRACE_LEVEL ALLOCSTRESS_TRACE_CALL_SITES

# events FILE [TID]: "op size address old alignment call_site" per event (of thread TID).
events() { "$DUMP_TRACE" "$1" | awk -v tid="${2:-}" '!/^#/ && (tid == "" || $2 == tid) {print $3, $4, $5, $6, $7, $8}'; }

# The events of thread TID from the start marker malloc(77777) to the free after the end marker
# malloc(77779) (known_sequence.cpp).
marked() {
  events "$1" "${2:-}" | awk 'on == 0 && $1 == "malloc" && $2 == 77777 {on = 1}
                          on {print} done {exit}
                          on && $1 == "malloc" && $2 == 77779 {done = 1}'
}

# check_exact WHAT EXPECTED TRACE TID: the marked events of TID in TRACE are exactly the lines
# of EXPECTED (known_sequence's output) for that TID; '*' in an expected address matches any.
check_exact() {
  local what=$1 expected=$2 trace=$3 tid=$4
  awk -v tid="$tid" '!/^#/ && $2 == tid {print $3, $4, $5, $6, $7}' "$expected" > "$T/want"
  marked "$trace" "$tid" | cut -d' ' -f1-5 > "$T/got"
  if [ ! -s "$T/want" ]; then fail "$what: no expected events for thread $tid"; return; fi
  if [ "$(wc -l < "$T/want")" != "$(wc -l < "$T/got")" ]; then
    fail "$what: $(wc -l < "$T/got") events traced for thread $tid, $(wc -l < "$T/want") expected"
    diff "$T/want" "$T/got" | head -5 >&2
    return
  fi
  if ! paste -d'|' "$T/got" "$T/want" | awk -F'|' '{split($1, g, " "); split($2, w, " ")
         for (i = 1; i <= 5; i++) if (w[i] != "*" && w[i] != g[i]) {print "event " NR ": traced " $1 ", expected " $2; exit 1}}' >&2; then
    fail "$what: events differ"
    return
  fi
  pass
}

trace() { "$ALLOCSTRESS" trace "$@"; }
tids_of() { grep -v '^#' "$1" | awk '{print $2}' | sort -u; }
pids_of() { grep -v '^#' "$1" | awk '{print $1}' | sort -u; }

# --- every function and variant, exactly ---------------------------------------------------------
trace --out-prefix "$T/seq" -- "$KNOWN_SEQUENCE" sequence > "$T/seq.expected" 2> "$T/seq.err" || fail "sequence: exit $?: $(cat "$T/seq.err")"
seq_file=$(ls "$T"/seq.*.ast)
check_exact "sequence" "$T/seq.expected" "$seq_file" "$(tids_of "$T/seq.expected")"
grep -q "^allocstress: trace: $seq_file: [0-9]* events, 1 thread" "$T/seq.err" && pass || fail "sequence: no summary line: $(cat "$T/seq.err")"
for op in malloc calloc realloc reallocarray free posix_memalign aligned_alloc memalign valloc pvalloc new 'new\[\]' new_nothrow \
          'new\[\]_nothrow' new_aligned 'new\[\]_aligned' new_aligned_nothrow 'new\[\]_aligned_nothrow' delete 'delete\[\]' delete_sized \
          'delete\[\]_sized' delete_aligned 'delete\[\]_aligned' delete_sized_aligned 'delete\[\]_sized_aligned' delete_nothrow \
          'delete\[\]_nothrow' delete_aligned_nothrow 'delete\[\]_aligned_nothrow'; do
  grep -q "^[0-9]* [0-9]* $op " "$T/seq.expected" || fail "sequence does not cover $op"
done

# --- call sites: one site for the four malloc(4096) of one loop, another for calloc -----------------
trace --out-prefix "$T/sites" --call-sites -- "$KNOWN_SEQUENCE" sequence > /dev/null 2>&1 || fail "call sites: exit $?"
sites_file=$(ls "$T"/sites.*.ast)
"$DUMP_TRACE" --summary "$sites_file" | grep -q "flags 1 " && pass || fail "call sites: file header lacks the call-site flag"
loop_sites=$(marked "$sites_file" | awk '$1 == "malloc" && $2 == 4096 {print $6}' | sort -u)
calloc_site=$(marked "$sites_file" | awk '$1 == "calloc" && $2 == 80 {print $6}')
if [ "$(wc -w <<< "$loop_sites")" = 1 ] && [ "$loop_sites" != 0 ] && [ -n "$calloc_site" ] && [ "$calloc_site" != "$loop_sites" ]; then pass
else fail "call sites: loop sites '$loop_sites', calloc site '$calloc_site'"; fi
[ "$(events "$seq_file" | awk '$6 != 0' | wc -l)" = 0 ] && pass || fail "call sites recorded without --call-sites"

# --- two threads, cross-thread frees --------------------------------------------------------------
trace --out-prefix "$T/thr" -- "$KNOWN_SEQUENCE" threads > "$T/thr.expected" 2> "$T/thr.err" || fail "threads: exit $?"
thr_file=$(ls "$T"/thr.*.ast)
grep -q "events, 2 threads" "$T/thr.err" && pass || fail "threads: $(cat "$T/thr.err")"
for tid in $(tids_of "$T/thr.expected"); do check_exact "threads (tid $tid)" "$T/thr.expected" "$thr_file" "$tid"; done
[ "$(tids_of "$T/thr.expected" | wc -l)" = 2 ] && pass || fail "threads: expected events of 2 threads"

# --- 20 short-lived threads: each one's events are written at its exit ------------------------------
trace --out-prefix "$T/churn" -- "$KNOWN_SEQUENCE" churn > "$T/churn.expected" 2> "$T/churn.err" || fail "thread churn: exit $?"
grep -q "events, 21 threads" "$T/churn.err" && pass || fail "thread churn: $(cat "$T/churn.err")"
for tid in $(tids_of "$T/churn.expected"); do check_exact "thread churn (tid $tid)" "$T/churn.expected" "$(ls "$T"/churn.*.ast)" "$tid"; done

# --- exit() while another thread allocates: both threads' pending events are written -----------------
trace --out-prefix "$T/busy" -- "$KNOWN_SEQUENCE" busy_exit > "$T/busy.expected" 2> "$T/busy.err" || fail "busy exit: exit $?"
busy_file=$(ls "$T"/busy.*.ast)
check_exact "busy exit (main thread)" "$T/busy.expected" "$busy_file" "$(tids_of "$T/busy.expected")"
busy_calls=$(awk '/^# busy/ {print $3}' "$T/busy.expected")
worker_events=$("$DUMP_TRACE" "$busy_file" | awk '!/^#/ && $1 == 1' | wc -l)
# Iteration i of the worker (a free and a malloc) is published before it stores i: at exit at
# least 2 * (i + 1) of its events were published, so all of them must be in the file.
[ "$worker_events" -ge $((2 * busy_calls + 2)) ] && pass || fail "busy exit: $worker_events worker events, at least $((2 * busy_calls + 2)) were published"

# --- fork: each child writes a file of its own, without the parent's pending events ------------------
trace --out-prefix "$T/fork" -- "$KNOWN_SEQUENCE" fork > "$T/fork.expected" 2> "$T/fork.err" || fail "fork: exit $?"
[ "$(ls "$T"/fork.*.ast | wc -l)" = 3 ] && pass || fail "fork: $(ls "$T"/fork.*.ast | wc -l) trace files, 3 expected (parent, 2 children)"
for pid in $(pids_of "$T/fork.expected"); do
  f="$T/fork.$pid.ast"
  if [ ! -f "$f" ]; then fail "fork: no trace file for process $pid"; continue; fi
  check_exact "fork (pid $pid)" "$T/fork.expected" "$f" "$(awk -v p="$pid" '$1 == p {print $2; exit}' "$T/fork.expected")"
done
n3001=0; for f in "$T"/fork.*.ast; do events "$f" | grep -q "^malloc 3001 " && n3001=$((n3001 + 1)); done
[ "$n3001" = 1 ] && pass || fail "fork: the parent's pending malloc(3001) is in $n3001 files (1 expected: the parent's)"

# --- abort(): the SIGABRT handler writes the pending events, then the default action --------------
rc=0; trace --out-prefix "$T/abrt" -- "$KNOWN_SEQUENCE" abort > "$T/abrt.expected" 2>/dev/null || rc=$?
[ "$rc" = 134 ] && pass || fail "abort: exit $rc, expected 134 (128 + SIGABRT)"
check_exact "abort" "$T/abrt.expected" "$(ls "$T"/abrt.*.ast)" "$(tids_of "$T/abrt.expected")"

# --- exec: the old image's events are written first, the new image writes a second file -----------
trace --out-prefix "$T/exec" -- "$KNOWN_SEQUENCE" exec > "$T/exec.expected" 2>/dev/null || fail "exec: exit $?"
pid=$(awk 'NR == 1 {print $1}' "$T/exec.expected")
if [ -f "$T/exec.$pid.ast" ] && [ -f "$T/exec.$pid.1.ast" ]; then
  events "$T/exec.$pid.ast" | grep -q "^malloc 4001 " && pass || fail "exec: the first image's events are missing"
  # exec.expected: the first image's 5 events, then the new image's sequence.
  check_exact "exec (new image)" <(awk '!/^#/ && NR > 5' "$T/exec.expected") "$T/exec.$pid.1.ast" "$(awk 'NR == 1 {print $2}' "$T/exec.expected")"
else
  fail "exec: expected $T/exec.$pid.ast and $T/exec.$pid.1.ast, found: $(ls "$T" | grep exec)"
fi

# --- kill -9: the file is readable up to its last complete block ------------------------------------
LD_PRELOAD="$TRACER" ALLOCSTRESS_TRACE_OUT="$T/kill" "$KNOWN_SEQUENCE" loop &
loop_pid=$!
for _ in $(seq 200); do
  [ "$(stat -c %s "$T/kill.$loop_pid.ast" 2>/dev/null || echo 0)" -gt 300000 ] && break
  sleep 0.05
done
kill -9 "$loop_pid"; wait "$loop_pid" 2>/dev/null
if "$DUMP_TRACE" --summary "$T/kill.$loop_pid.ast" > "$T/kill.summary" 2>&1; then
  n=$(awk '/^# pid/ {print $11}' "$T/kill.summary")
  [ "${n:-0}" -gt 10000 ] && pass || fail "kill -9: only ${n:-0} events readable: $(cat "$T/kill.summary")"
else
  fail "kill -9: trace not readable: $(cat "$T/kill.summary")"
fi
# Cut inside its last block (as a kill during the write would): the reader reports the truncation
# and returns every complete block.
size=$(stat -c %s "$T/kill.$loop_pid.ast")
head -c $((size - 100)) "$T/kill.$loop_pid.ast" > "$T/cut.ast"
"$DUMP_TRACE" --summary "$T/cut.ast" > "$T/cut.summary" 2>&1 && grep -q "^# truncated at" "$T/cut.summary" && pass \
  || fail "cut trace: no truncation reported: $(cat "$T/cut.summary")"

# --- on top of jemalloc -------------------------------------------------------------------------------
if [ -f /usr/lib/x86_64-linux-gnu/libjemalloc.so.2 ]; then  # libjemalloc2, from scripts/setup-deps.sh
  trace --out-prefix "$T/je" --allocator jemalloc -- "$KNOWN_SEQUENCE" sequence > "$T/je.expected" 2>/dev/null || fail "jemalloc: exit $?"
  grep -q "^# jemalloc yes" "$T/je.expected" && pass || fail "jemalloc: the program did not run on jemalloc"
  check_exact "jemalloc" "$T/je.expected" "$(ls "$T"/je.*.ast)" "$(tids_of "$T/je.expected")"
else
  skip_part jemalloc "libjemalloc.so.2 is not installed (Debian libjemalloc2, which scripts/setup-deps.sh installs)"
fi

# --- real programs nobody here wrote -------------------------------------------------------------------
seq 1 100000 | awk '{print (($1 * 7919) % 100003)}' > "$T/numbers.txt"
trace --out-prefix "$T/sort" -- sort -n "$T/numbers.txt" > "$T/sorted.txt" 2> "$T/sort.err" || fail "sort: exit $?"
sort -n "$T/numbers.txt" | cmp -s - "$T/sorted.txt" && pass || fail "sort: output differs when traced"
sort_file=$(ls "$T"/sort.*.ast)
"$DUMP_TRACE" --summary "$sort_file" | grep -q "^# command sort -n" && pass || fail "sort: command line not recorded"
# sort reads its whole input into one buffer: one allocation at least as large as the file.
input=$(stat -c %s "$T/numbers.txt")
big=$(events "$sort_file" | awk -v n="$input" '($1 == "malloc" || $1 == "realloc") && $2 >= n' | wc -l)
total=$(events "$sort_file" | wc -l)
[ "$big" -ge 1 ] && [ "$total" -ge 50 ] && pass || fail "sort: $total events, $big of them >= the input ($input bytes)"

# python3: 20000 bytes objects of 1000 zero bytes (1033 with the object header, above pymalloc's
# 512-byte limit, so from the C allocator: calloc) are 20000 allocations at least.
trace --out-prefix "$T/py" -- /usr/bin/python3 -c "x = [bytes(1000) for i in range(20000)]" 2>/dev/null || fail "python3: exit $?"
n=$(events "$(ls "$T"/py.*.ast)" | awk '($1 == "malloc" || $1 == "calloc") && $2 >= 1000 && $2 <= 1100' | wc -l)
[ "$n" -ge 20000 ] && pass || fail "python3: $n allocations of 1000..1100 bytes, expected >= 20000"

# --- the program's exit status is passed on -------------------------------------------------------------
rc=0; trace --out-prefix "$T/rc" -- /bin/sh -c 'exit 7' 2>/dev/null || rc=$?
[ "$rc" = 7 ] && pass || fail "exit status 7 came back as $rc"
rc=0; trace --out-prefix "$T/rc" -- /bin/sh -c 'kill -TERM $$' 2>/dev/null || rc=$?
[ "$rc" = 143 ] && pass || fail "SIGTERM came back as $rc, expected 143"
rm -f "$T"/rc.*

# --- bad input: one line, exit 2, nothing run -------------------------------------------------------------
mkdir "$T/bad" && cd "$T/bad"
T="$T/bad"
touch "$T/a-file"
expect_error 2 "trace: no program given" -- "$ALLOCSTRESS" trace
expect_error 2 "trace: no program given" -- "$ALLOCSTRESS" trace --out-prefix "$T/x" --
expect_error 2 "output folder /nonexistent does not exist" -- "$ALLOCSTRESS" trace --out-prefix /nonexistent/x -- /bin/true
expect_error 2 "is not a folder" -- "$ALLOCSTRESS" trace --out-prefix "$T/a-file/x" -- /bin/true
expect_error 2 "output folder /proc/sys is not writable" -- without_dac "$ALLOCSTRESS" trace --out-prefix /proc/sys/x -- /bin/true
expect_error 2 "--out-prefix takes a file name prefix, not a folder" -- "$ALLOCSTRESS" trace --out-prefix "$T/" -- /bin/true
expect_error 2 "--level 20 is out of range (accepted: -7..19" -- "$ALLOCSTRESS" trace --level 20 -- /bin/true
expect_error 2 "--level" -- "$ALLOCSTRESS" trace --level many -- /bin/true
expect_error 2 "unknown allocator 'nosuch'" -- "$ALLOCSTRESS" trace --allocator nosuch -- /bin/true
expect_error 2 "'pool' is an in-tree backend" -- "$ALLOCSTRESS" trace --allocator pool -- /bin/true
expect_error 2 "program 'no-such-program' not found in PATH" -- "$ALLOCSTRESS" trace -- no-such-program
expect_error 2 "is not an executable file" -- "$ALLOCSTRESS" trace -- "$T/a-file"
[ -z "$(ls "$T" | grep -v -e a-file -e stderr)" ] && pass || fail "bad input left files: $(ls "$T")"
# The tracer library missing beside the executable (and no install tree): exit 1, one line.
mkdir "$T/bin" && cp "$ALLOCSTRESS" "$T/bin/allocstress"
expect_error 1 "the tracer library is missing" -- "$T/bin/allocstress" trace --out-prefix "$T/bin/x" -- /bin/true
rm -rf "$T/bin"
# Bad settings given to the library directly: one line, the program runs untraced.
for bad in ALLOCSTRESS_TRACE_LEVEL=99 ALLOCSTRESS_TRACE_CALL_SITES=yes ALLOCSTRESS_TRACE_OUT=; do
  rc=0; err=$(env "$bad" LD_PRELOAD="$TRACER" /bin/true 2>&1) || rc=$?
  if [ "$rc" = 0 ] && [ "$(printf '%s\n' "$err" | wc -l)" = 1 ] && [[ "$err" == "allocstress-trace: error: "*"this process is not traced" ]]; then pass
  else fail "$bad: exit $rc, stderr: $err"; fi
done
rc=0; err=$(ALLOCSTRESS_TRACE_OUT=/nonexistent/x LD_PRELOAD="$TRACER" /bin/true 2>&1) || rc=$?
[ "$rc" = 0 ] && [[ "$err" == "allocstress-trace: error: cannot create the trace file /nonexistent/x."* ]] && pass \
  || fail "missing folder given to the library: exit $rc, stderr: $err"
[ -z "$(ls "$T" | grep -v -e a-file -e stderr)" ] && pass || fail "bad settings left files: $(ls "$T")"
finish
