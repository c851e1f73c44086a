# ctest: labels=cli timeout=600 env=@cli serial
# Mistyped commands, options, allocator and workload names: one error line that names what was
# wrong, suggests the closest valid spelling and says what is accepted; exit 2; nothing written.
# Also --version's format and that each command's --help lists only its own options.
source "$(dirname "$0")/../lib.sh"
R=(--out "$T/r.json")

expect_error 2 "unknown command 'raport': did you mean report? (accepted: list, " -- "$ALLOCSTRESS" raport
expect_error 2 "unknown command 'subbmit': did you mean submit? (accepted: submit, status, merge, run-cell" -- "$ALLOCSTRESS" slurm subbmit
expect_error 2 "unknown command 'xyzzy' (accepted: list, "                          -- "$ALLOCSTRESS" xyzzy
expect_error 2 "unknown option '--alocator' of allocstress run: did you mean --allocator? (accepted: the options \`allocstress run --help\` lists)" -- "$ALLOCSTRESS" run --alocator jemalloc
expect_error 2 "unknown option '--alocator' of allocstress run: did you mean --allocator?" -- "$ALLOCSTRESS" run --alocator=jemalloc
expect_error 2 "unknown option '--alocators' of allocstress matrix: did you mean --allocators?" -- "$ALLOCSTRESS" matrix "${R[@]}" --alocators jemalloc
expect_error 2 "unknown option '--verison' of allocstress: did you mean --version?" -- "$ALLOCSTRESS" --verison
expect_error 2 "unknown option '--zzzzzzzz' of allocstress matrix (accepted: "    -- "$ALLOCSTRESS" matrix "${R[@]}" --zzzzzzzz
expect_error 2 "unknown allocator 'jemaloc': did you mean jemalloc? (accepted: void, " -- "$ALLOCSTRESS" matrix "${R[@]}" --allocators system,jemaloc
expect_error 2 "unknown allocator 'jemaloc': did you mean jemalloc? (accepted: void, " -- "$ALLOCSTRESS" run --allocator jemaloc
expect_error 2 "unknown allocator 'jemaloc': did you mean jemalloc?" -- "$ALLOCSTRESS" trace --allocator jemaloc -- true
expect_error 2 "unknown allocator 'jemaloc': did you mean jemalloc?" -- "$ALLOCSTRESS" fit "$T/none.ast" -o "$T/fit.json" --evaluate --allocators system,jemaloc
expect_error 2 "unknown workload 'aloc-test': did you mean alloc-test? (accepted: alloc-test, " -- "$ALLOCSTRESS" run --allocator system --workload aloc-test
expect_error 2 "unknown workload 'bintre': did you mean bintree? (accepted: alloc-test, " -- "$ALLOCSTRESS" matrix "${R[@]}" --workload bintre,linkedlist
expect_error 2 "allocstress needs a command (accepted: list, "                     -- "$ALLOCSTRESS"

# A name far from every accepted one gets no suggestion: the line goes from the name straight to
# what is accepted.
expect_error 2 "unknown allocator 'nosuch' (accepted: void, " -- "$ALLOCSTRESS" matrix "${R[@]}" --allocators nosuch
rm -f "$T/stderr"

# --version: "allocstress X.Y.Z (commit abcdef0[-dirty], BUILD TYPE)", exit 0, nothing on stderr.
out=$("$ALLOCSTRESS" --version 2>"$T/stderr") && rc=0 || rc=$?
if [ "$rc" != 0 ] || [ -s "$T/stderr" ]; then fail "--version: exit $rc, stderr $(cat "$T/stderr")"
elif ! grep -Eqx 'allocstress [0-9]+\.[0-9]+\.[0-9]+ \(commit ([0-9a-f]{7}(-dirty)?|unknown), [A-Za-z][A-Za-z ,+]*\)' <<<"$out"; then
  fail "--version format: $out"
else pass; fi
rm -f "$T/stderr"

# Each command's --help lists its own options only: replay has no profile or cache-simulation
# cells and no sized workloads, so neither --cache-sim nor --slots; matrix lists both.
replay_help=$("$ALLOCSTRESS" replay --help)
matrix_help=$("$ALLOCSTRESS" matrix --help)
for opt in --cache-sim --slots --profile; do
  grep -q -- "^ *$opt\b" <<<"$replay_help" && fail "replay --help lists $opt" || pass
  grep -q -- "^ *$opt\b" <<<"$matrix_help" && pass || fail "matrix --help lacks $opt (the check above would prove nothing)"
done
finish
