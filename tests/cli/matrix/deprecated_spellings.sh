# ctest: labels=cli timeout=600 env=@cli serial
# Deprecated spellings of earlier versions keep working: one warning line naming the new
# spelling, then the same as the new spelling (and an old spelling no chosen workload takes is
# the usual one-line error).
source "$(dirname "$0")/../lib.sh"

# Deprecated spellings: still accepted, with exactly one warning line naming the new one.
deprecated() {  # deprecated WARNING_TEXT -- COMMAND...: exit 0, the first stderr line is the warning, the only one
  local want=$1; shift 2  # but for what the command itself always says there (trace's summary line)
  local err rc
  "$@" >"$T/out" 2>"$T/err" && rc=0 || rc=$?
  err=$(cat "$T/err")
  if [ "$rc" != 0 ]; then fail "exit $rc: $* -> $err"; return; fi
  case "$(head -1 "$T/err")" in *"$want"*) ;; *) fail "no warning '$want': $* -> $err"; return ;; esac
  [ "$(grep -vc '^allocstress: trace: ' "$T/err")" = 1 ] && pass || fail "more than one warning line: $* -> $err"
}
SMALL=(--threads 1 --slots 65536 --iterations 20000 --max-size-exp 10)
deprecated "--rounds is deprecated: it now means --larson-rounds" -- "$ALLOCSTRESS" run --allocator pool --workload larson "${SMALL[@]}" --rounds 4
grep -q '"rounds":4' "$T/out" && pass || fail "--rounds did not set larson's rounds: $(head -c 300 "$T/out")"
deprecated "--rounds is deprecated: it now means --fs-rounds" -- "$ALLOCSTRESS" run --allocator system --workload false-sharing-active \
  --threads 2 --oversubscribe --objects 2 --writes 10 --rounds 5
grep -q '"rounds_completed":5' "$T/out" && pass || fail "--rounds did not set false sharing's rounds"
deprecated "list --allocator is deprecated: write --add-allocator" -- "$ALLOCSTRESS" list --allocator extra="$MMAP_MALLOC"
grep -q "^extra " "$T/out" && pass || fail "list --allocator did not add the library: $(cat "$T/out")"
deprecated "matrix --allocator is deprecated: write --add-allocator" -- "$ALLOCSTRESS" matrix --plan-only -o "$T/plan.json" \
  --allocators void --allocator extra="$MMAP_MALLOC" --reps 1 "${SMALL[@]}"
grep -q '"allocator": "extra"' "$T/plan.json" && pass || fail "matrix --allocator did not add the library to the plan"
rm -f "$T/plan.json"
deprecated "trace --out is deprecated: write --out-prefix" -- "$ALLOCSTRESS" trace --out "$T/old" -- /bin/true
expect_error 2 "--rounds applies to larson and false-sharing-* only, not to alloc-test" -- "$ALLOCSTRESS" run --allocator pool --rounds 3
expect_error 2 "--fs-rounds applies to false-sharing-* only, not to larson" -- "$ALLOCSTRESS" run --allocator pool --workload larson --fs-rounds 3
# The Slurm commands' old top-level names: a warning, then the same command.
"$ALLOCSTRESS" status "$T/missing" >/dev/null 2>"$T/err" && rc=0 || rc=$?
[ "$rc" = 2 ] && [ "$(sed -n 1p "$T/err")" = "allocstress: warning: status is deprecated: write allocstress slurm status" ] &&
  grep -q "^allocstress: error: results directory $T/missing does not exist" "$T/err" && pass || fail "status alias: exit $rc: $(cat "$T/err")"
"$ALLOCSTRESS" merge "$T/missing" -o "$T/x.json" >/dev/null 2>"$T/err" && rc=0 || rc=$?
[ "$rc" = 2 ] && [ "$(sed -n 1p "$T/err")" = "allocstress: warning: merge is deprecated: write allocstress slurm merge" ] &&
  [ "$(sed -n 2p "$T/err")" = "allocstress: error: results directory $T/missing does not exist" ] && [ "$(grep -c '' "$T/err")" = 2 ] \
  && pass || fail "merge alias: exit $rc: $(cat "$T/err")"
rm -f "$T/err" "$T/out"
finish
