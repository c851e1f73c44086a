# ctest: labels=cli timeout=600 env=@cli serial
# Allocator configurations (a library with environment settings, allocators/manifest.tsv or
# --add-allocator NAME=PATH,VAR=VALUE...): listed with their settings, left out of the default
# matrix but run when named, their variables set in every cell process (the record shows what
# the cell saw, and the allocator acts on them), and bad settings refused in one line.
source "$(dirname "$0")/../lib.sh"

list=$("$ALLOCSTRESS" list) || fail "list failed"
grep -q "^jemalloc-bg .* + MALLOC_CONF=background_thread:true (configuration: runs when named)" <<<"$list" && pass || fail "list lacks jemalloc-bg's setting: $list"
grep -q "^glibc-arena1 .* + GLIBC_TUNABLES=glibc.malloc.arena_max=1 (configuration" <<<"$list" && pass || fail "list lacks glibc-arena1: $list"
grep -q "^scudo " <<<"$list" && pass || fail "list lacks scudo: $list"

# A value may hold commas (MALLOC_CONF's separator): the pieces after it continue it.
out=$("$ALLOCSTRESS" run --verify-only --allocator "cfg=$FAULTY_MALLOC,ALLOCSTRESS_TEST_FAULT=none,MALLOC_CONF=a:1,b:2" 2>"$T/err") \
  || fail "verify-only of a command-line configuration failed: $(cat "$T/err")"
/usr/bin/python3 -c 'import json,sys; r=json.loads(sys.argv[1]); assert r["allocator_environment"] == {"ALLOCSTRESS_TEST_FAULT": "none", "MALLOC_CONF": "a:1,b:2"}, r' "$out" \
  && pass || fail "the cell did not see the configuration's variables: $out"

# The variables reach the allocator: this one aborts at its 100th malloc only when told to (told
# "none" above, the same library ran to its provider line).  It aborts without a word, in the
# process that preloads it: SIGABRT (exit 134 in the shell's terms), nothing on stdout or stderr.
rc=0
{ ALLOCSTRESS_TEST_FAULT= "$ALLOCSTRESS" run --allocator "f=$FAULTY_MALLOC,ALLOCSTRESS_TEST_FAULT=abort,ALLOCSTRESS_TEST_FAULT_AFTER=100" \
  --verify-only >"$T/out" 2>"$T/err" || rc=$?; } 2>/dev/null  # (the braces' 2>/dev/null: bash's own "Aborted" notice)
[ "$rc" = 134 ] && [ ! -s "$T/out" ] && [ ! -s "$T/err" ] && pass \
  || fail "the faulty allocator did not get its settings: exit $rc (wanted 134, SIGABRT), stdout '$(cat "$T/out")', stderr '$(cat "$T/err")'"

# Named configurations run in a matrix (none runs by default); each record carries the settings
# its cell process saw, the plan the declared ones.
if grep -q "^jemalloc-bg .* found " <<<"$list" && grep -q "^glibc-arena1 .* found " <<<"$list"; then
  "$ALLOCSTRESS" matrix --out "$T/c.json" --allocators system,glibc-arena1,jemalloc-bg --threads 2 --reps 1 --no-counts "${TINY[@]}" \
    >/dev/null 2>"$T/log" || fail "matrix of configurations exited $?: $(tail -3 "$T/log")"
  cells_of "$T/c.json" >/dev/null && pass || fail "configuration results not schema-valid"
  /usr/bin/python3 - "$T/c.json" <<'PY' && pass || fail "records or plan lack the configurations' environment"
import json, sys
doc = json.load(open(sys.argv[1]))
want = {"system": {}, "glibc-arena1": {"GLIBC_TUNABLES": "glibc.malloc.arena_max=1"}, "jemalloc-bg": {"MALLOC_CONF": "background_thread:true"}}
records = [b for b in doc["benchmarks"] if b["run_type"] == "iteration" and b["allocator"] in want]
assert {b["allocator"] for b in records} == set(want), records
for b in records:
    assert b["status"] == "ok" and b["allocator_environment"] == want[b["allocator"]], b
plan = {a["name"]: a["environment"] for a in doc["context"]["plan"]["allocators"]}
assert all(plan[a] == e for a, e in want.items()), plan
PY
  grep -q "^- jemalloc-bg: libjemalloc.so.2 with MALLOC_CONF=background_thread:true$" "$T/c.md" && pass || fail "the table does not say what jemalloc-bg is: $(head "$T/c.md")"
  # jemalloc acts on it: its statistics at exit show the option as set.
  "$ALLOCSTRESS" run --allocator "jstats=libjemalloc.so.2,MALLOC_CONF=background_thread:true,stats_print:true" --threads 1 "${TINY[@]}" \
    >/dev/null 2>"$T/stats" || fail "jemalloc with stats_print failed: $(tail -3 "$T/stats")"
  grep -q "opt.background_thread: true" "$T/stats" && pass || fail "jemalloc did not act on MALLOC_CONF: $(head -20 "$T/stats")"
  plan=$("$ALLOCSTRESS" matrix --plan-only -o "$T/p.json" --no-counts "${TINY[@]}" 2>&1) || fail "plan-only failed: $plan"
  /usr/bin/python3 -c 'import json,sys; n=[a["name"] for a in json.load(open(sys.argv[1]))["plan"]["allocators"]]; assert "system" in n and not {"jemalloc-bg","glibc-arena1"} & set(n), n' "$T/p.json" \
    && pass || fail "the default matrix includes configurations"
else
  echo "note: jemalloc or the manifest's configurations are not installed: the matrix part is not run"
fi

# Bad settings: one line naming the line or the text, and what is accepted.
printf 'x libc.so.6 libc6 MALLOC_CONF=a:1 not-a-setting\n' >"$T/bad.tsv"
expect_error 2 "bad.tsv:1: field 5: 'not-a-setting' is not an environment setting (accepted: VAR=VALUE" -- "$ALLOCSTRESS" list --manifest "$T/bad.tsv"
expect_error 2 "LD_PRELOAD is set by allocstress from the allocator's library" -- "$ALLOCSTRESS" list --add-allocator "x=$FAULTY_MALLOC,LD_PRELOAD=/x.so"
expect_error 2 "'1X=2' is not an environment setting (accepted: VAR=VALUE" -- "$ALLOCSTRESS" matrix --out "$T/b.json" --add-allocator "x=$FAULTY_MALLOC,1X=2"
expect_error 2 "sets A twice" -- "$ALLOCSTRESS" list --add-allocator "x=$FAULTY_MALLOC,A=1,A=2"
finish
