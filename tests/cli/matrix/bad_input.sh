# ctest: labels=cli timeout=600 env=@cli serial
# Bad input: one clear error line, exit code 2, no results file or journal left behind.
source "$(dirname "$0")/../lib.sh"
R=(--out "$T/r.json")
printf 'ghost libghost.so.9 libghost9\n' > "$T/ghost.tsv"

expect_error 2 "unknown allocator 'nosuch' (accepted: void, bump, pool, eqclass, system, " -- "$ALLOCSTRESS" matrix "${R[@]}" --allocators nosuch
expect_error 2 "does not exist: /nonexistent"   -- "$ALLOCSTRESS" matrix "${R[@]}" --add-allocator x=/nonexistent/lib.so
expect_error 2 "install Debian package libghost9" -- "$ALLOCSTRESS" matrix "${R[@]}" --manifest "$T/ghost.tsv" --allocators ghost
# An allocator that fails its preload check is left out (tests/cli/allocators/allocator_failures.sh); only when
# nothing else is left is it an error.
expect_error 2 "every allocator asked for failed the preload check (bogus: " -- "$ALLOCSTRESS" matrix "${R[@]}" --allocators bogus --add-allocator bogus=/etc/hostname
expect_error 2 "every allocator asked for failed the preload check (nomalloc: " -- "$ALLOCSTRESS" matrix "${R[@]}" --allocators nomalloc --add-allocator nomalloc="$NO_MALLOC"
expect_error 2 "invalid --threads '0': 0 threads (accepted: counts >= 1, e.g. 1,2,4 or 1-4)" -- "$ALLOCSTRESS" matrix "${R[@]}" --threads 0
expect_error 2 "'two' is not a positive whole number" -- "$ALLOCSTRESS" matrix "${R[@]}" --threads two
expect_error_matching 2 "threads 4096 exceeds the ([0-9]+) usable PUs.* \\(accepted: 1\\.\\.([0-9]+), or pass --oversubscribe\\)$" -- "$ALLOCSTRESS" matrix "${R[@]}" --threads 4096
expect_error 2 "E out of range: 99 (accepted: 3..28)" -- "$ALLOCSTRESS" matrix "${R[@]}" --max-size-exp 99
expect_error 2 "unknown preset 'huge' (accepted: quick, study)" -- "$ALLOCSTRESS" matrix "${R[@]}" --preset huge
expect_error 2 "--reps must be at least 1"      -- "$ALLOCSTRESS" matrix "${R[@]}" --reps 0
expect_error 2 "--slots 'lots' is not a whole number (accepted: 0, 1, 2, ... up to 2^64 - 1)" -- "$ALLOCSTRESS" matrix "${R[@]}" --slots lots
expect_error 2 "slots per thread too few: 10 slots / 1 threads (accepted: at least 64 per thread)" -- "$ALLOCSTRESS" matrix "${R[@]}" --slots 10
expect_error 2 "unknown memory access 'sometimes' (accepted: none, touch, write, write_read)" -- "$ALLOCSTRESS" matrix "${R[@]}" --access sometimes
expect_error 2 "unknown placement 'random' (accepted: compact, scatter, one-per-core, smt-pairs)" -- "$ALLOCSTRESS" matrix "${R[@]}" --placement random
expect_error 2 "nothing to resume: no journal $T/r.json.journal.jsonl" -- "$ALLOCSTRESS" matrix "${R[@]}" --resume
expect_error 2 "'-1' is not a whole number"     -- "$ALLOCSTRESS" matrix "${R[@]}" --slots -1
expect_error 2 "'-5' is not a whole number"     -- "$ALLOCSTRESS" matrix "${R[@]}" --iterations -5
expect_error 2 "iterations per thread too many: 99999999999999 (accepted: at most 1000000000000)" -- "$ALLOCSTRESS" matrix "${R[@]}" --iterations 99999999999999
expect_error 2 "--timeout must be a number of seconds" -- "$ALLOCSTRESS" matrix "${R[@]}" --timeout nan
expect_error 2 "--timeout must be a number of seconds" -- "$ALLOCSTRESS" matrix "${R[@]}" --timeout -3
expect_error 2 "--out $T/r.md must end in .json (the table is written beside it as .md)" -- "$ALLOCSTRESS" matrix --out "$T/r.md"
expect_error 2 "cannot read allocator manifest $T/none.tsv (set --manifest or ALLOCSTRESS_MANIFEST to a readable file)" -- "$ALLOCSTRESS" list --manifest "$T/none.tsv"
expect_error 2 "unknown workload 'hashmap' (accepted: alloc-test, bintree, linkedlist, multilist, xthread, larson, lifetime, fleet-profile, phase-ramp, phase-plateau, phase-peak, false-sharing-active, false-sharing-passive, replay, fitted, prog-python3, prog-cc1, prog-sqlite3, prog-lua, prog-ghostscript, prog-redis, prog-xz, prog-rocksdb; each optionally as WORKLOAD:LABEL)" -- "$ALLOCSTRESS" matrix "${R[@]}" --workload bintree,hashmap
expect_error 2 "bintree: --node-size out of range: 16 (accepted: 32..65536)" -- "$ALLOCSTRESS" matrix "${R[@]}" --workload bintree --node-size 16
expect_error 2 "--node-size 36 is not a multiple of 8" -- "$ALLOCSTRESS" run --allocator pool --workload linkedlist --node-size 36
expect_error 2 "--churn out of range: 101 (accepted: 0..100)" -- "$ALLOCSTRESS" run --allocator pool --workload bintree --churn 101
expect_error 2 "--interleave out of range: 65" -- "$ALLOCSTRESS" run --allocator pool --workload bintree --interleave 65
expect_error 2 "--zipf out of range: -1"        -- "$ALLOCSTRESS" run --allocator pool --workload multilist --zipf -1
expect_error 2 "--heads out of range: 0"        -- "$ALLOCSTRESS" run --allocator pool --workload multilist --heads 0
expect_error 2 "--heads applies to multilist only, not to bintree" -- "$ALLOCSTRESS" run --allocator pool --workload bintree --heads 4
expect_error 2 "--slots applies to alloc-test, xthread and larson only, not to linkedlist" -- "$ALLOCSTRESS" run --allocator pool --workload linkedlist --slots 4096
expect_error 2 "--nodes applies to bintree, linkedlist and multilist only, not to alloc-test" -- "$ALLOCSTRESS" matrix "${R[@]}" --nodes 10
expect_error 2 "run takes one workload"         -- "$ALLOCSTRESS" run --allocator pool --workload bintree,linkedlist
expect_error 2 "allocator 'void' cannot run bintree" -- "$ALLOCSTRESS" run --allocator void --workload bintree
expect_error 2 "--cache-sim applies to bintree, linkedlist and multilist" -- "$ALLOCSTRESS" run --allocator pool --cache-sim
expect_error 2 "--cache-sim needs a data-structure workload" -- "$ALLOCSTRESS" matrix "${R[@]}" --cache-sim
expect_error 2 "ALLOCSTRESS_EQCLASS_HOT_BLOCKS='-3' is not a whole number" -- env ALLOCSTRESS_EQCLASS_HOT_BLOCKS=-3 "$ALLOCSTRESS" matrix "${R[@]}" --allocators eqclass
expect_error 2 "unknown allocator 'nosuch' (accepted: void, bump, pool, eqclass, system, " -- "$ALLOCSTRESS" run --allocator nosuch
expect_error 2 "invalid --threads '0': 0 threads (accepted: counts >= 1, e.g. 1,2,4 or 1-4)" -- "$ALLOCSTRESS" run --allocator void --threads 0
expect_error_matching 2 "threads 4096 exceeds the ([0-9]+) usable PUs.* \\(accepted: 1\\.\\.([0-9]+), or pass --oversubscribe\\)$" -- "$ALLOCSTRESS" run --allocator void --threads 4096
expect_error 2 "max size exponent E out of range: 2 (accepted: 3..28)" -- "$ALLOCSTRESS" run --allocator void --max-size-exp 2
expect_error 2 "unknown workload 'hoard-larson' (accepted: alloc-test, " -- "$ALLOCSTRESS" run --allocator void --workload hoard-larson
expect_error 2 "unknown size model 'zipf' (accepted: inverse, fleet, fit)" -- "$ALLOCSTRESS" run --allocator void --sizes zipf
expect_error 2 "--sizes applies to alloc-test, xthread, larson, lifetime and phase-* only, not to bintree" -- "$ALLOCSTRESS" run --allocator pool --workload bintree --sizes fleet
expect_error 2 "--remote-share 150.0 is out of range (accepted: a percentage 0..100)" -- "$ALLOCSTRESS" run --allocator pool --workload xthread --threads 2 --remote-share 150

# An existing results file is never overwritten without --force, and is left intact.
echo '{"keep": true}' > "$T/keep.json"
expect_error 2 "results file $T/keep.json already exists (pass --force to overwrite, or choose another --out)" \
  -- "$ALLOCSTRESS" matrix --out "$T/keep.json" --allocators system
[ "$(cat "$T/keep.json")" = '{"keep": true}' ] && pass || fail "the existing file changed: $(head -c 200 "$T/keep.json")"
rm -f "$T/keep.json"
finish
