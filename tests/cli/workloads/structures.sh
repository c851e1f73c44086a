# ctest: labels=cli timeout=600 env=@cli serial
# The data-structure workloads end to end: each runs and verifies on every installed drop-in and
# every in-tree backend; the simulated-cache figures are identical across two runs; a matrix over the three
# workloads with --cache-sim gives a schema-valid file, a per-workload table and the Gleipnir-style
# simulated-cache table, with void listed as skipped for the structures (it cannot hold one).
source "$(dirname "$0")/../lib.sh"
SMALL=(--nodes 2000 --searches 5000)

field() { /usr/bin/python3 -c "import json,sys; r=json.loads(sys.stdin.read().strip().splitlines()[-1]); print($1)"; }

# every installed allocator but void (which cannot hold a structure)
allocators=$("$ALLOCSTRESS" list | tail -n +3 | awk '$3 == "found" && $1 != "void" {print $1}')
for w in bintree linkedlist multilist; do
  for a in $allocators; do
    rec=$("$ALLOCSTRESS" run --allocator "$a" --workload "$w" "${SMALL[@]}" --churn 20 --interleave 1 --hints 2>"$T/err") \
      || { fail "$w on $a exited non-zero: $(tail -1 "$T/err")"; continue; }
    [ "$(field "r['status'], r['verified'], r['searches'] == 5000, r['placement_metrics']['nodes'] == r['live_nodes'] > 0" <<<"$rec")" \
      = "ok True True True" ] && pass || fail "$w on $a: $(field "r['status'], r['reason']" <<<"$rec")"
  done
done

# Deterministic simulation: the same cell twice gives the same callgrind figures.
for a in system eqclass; do
  one=$("$ALLOCSTRESS" run --allocator "$a" --workload bintree "${SMALL[@]}" --cache-sim | field "r['simulated_cache']['events']")
  two=$("$ALLOCSTRESS" run --allocator "$a" --workload bintree "${SMALL[@]}" --cache-sim | field "r['simulated_cache']['events']")
  [ -n "$one" ] && [ "$one" = "$two" ] && pass || fail "$a: simulated figures differ between runs: $one vs $two"
done

"$ALLOCSTRESS" matrix --out "$T/s.json" --workload alloc-test,bintree,linkedlist,multilist --allocators system,pool,eqclass \
  --threads 1 --reps 2 --no-counts "${TINY[@]}" "${SMALL[@]}" --cache-sim >"$T/out" 2>"$T/log" \
  || { fail "matrix exited $?: $(tail -3 "$T/log")"; finish; exit 1; }
cells=$(/usr/bin/python3 "$VALIDATOR" "$SCHEMA" "$T/s.json" --with-workload) || { fail "results not schema-valid"; finish; exit 1; }
pass
for w in bintree linkedlist multilist; do
  for a in system pool eqclass; do
    [ "$(grep -c "^$w	timing	$a	1	ok	" <<<"$cells")" = 2 ] && pass || fail "$w/$a: not 2 ok timing cells"
    [ "$(grep -c "^$w	simulate	$a	1	ok	" <<<"$cells")" = 1 ] && pass || fail "$w/$a: no ok simulate cell"
  done
  [ "$(grep -c "^$w	timing	void	1	skipped	void returns one buffer" <<<"$cells")" = 2 ] && pass || fail "$w: void not skipped"
  grep -q "^### $w" "$T/s.md" && pass || fail "no $w section in the table"
done
grep -q "^### Simulated caches, search phase only" "$T/s.md" && pass || fail "no simulated-cache table"
[ "$(grep -c "^| \(bintree\|linkedlist\|multilist\) | \(system\|pool\|eqclass\) | 1 | [0-9]" "$T/s.md")" = 9 ] && pass \
  || fail "simulated-cache table lacks rows: $(grep -A14 Simulated "$T/s.md")"
grep -q "void x bintree at 1 threads: 2 cell(s) skipped" "$T/s.md" && pass || fail "skipped void cells not listed"
grep -q "different operation streams" "$T/s.json" && fail "allocators saw different operation streams" || pass
grep -q "Simulated caches of the search phase" "$T/s-report/index.html" && pass || fail "report lacks the simulated-cache table"
finish
