# ctest: labels=cli timeout=600 env=@cli serial
# Profile runs: the strace counts of the measured phase match an independent count (a test
# allocator that makes one mmap per malloc and one munmap per free); a real allocator's profile
# has latency rows, software counters, hardware counters n/a with a reason where there is no
# PMU, and an allocator-reported memory breakdown; matrix --profile adds labelled profile cells
# that are never aggregated with the timing cells; bad input gets one clear line.
source "$(dirname "$0")/../lib.sh"
SMALL=(--iterations 100000 --slots 4096)
py() { /usr/bin/python3 -c "import json,sys; r=json.loads(sys.stdin.read().strip().splitlines()[-1]); p=r.get('profile', {}); sys.exit(0 if ($1) else 1)"; }

rec=$("$ALLOCSTRESS" run --allocator mm="$MMAP_MALLOC" --profile "${SMALL[@]}" 2>"$T/err") || fail "profile of mmap_malloc exited $?: $(tail -1 "$T/err")"
py "r['status'] == 'ok' and r['mode'] == 'profile'" <<<"$rec" && pass || fail "not an ok profile record"
# every malloc of the phase is one mmap, every free one munmap; the harness adds a handful
py "r['mallocs'] <= p['syscalls']['counts']['mmap'] <= r['mallocs'] + 64" <<<"$rec" && pass \
  || fail "mmap count does not match the mallocs: $(py "print(r['mallocs'], p['syscalls']['counts']) or True" <<<"$rec")"
py "r['frees'] <= p['syscalls']['counts']['munmap'] <= r['frees'] + 64" <<<"$rec" && pass || fail "munmap count does not match the frees"
py "p['memory']['at_peak']['allocator']['allocated']['provenance'].startswith('n/a(')" <<<"$rec" && pass \
  || fail "an allocator without a statistics API did not get n/a"

rec=$("$ALLOCSTRESS" run --allocator jemalloc --profile --sample-every 16 "${SMALL[@]}" 2>"$T/err") || fail "jemalloc profile exited $?: $(tail -1 "$T/err")"
py "r['status'] == 'ok' and p['sample_every'] == 16 and abs(p['share_sampled'] - 1/16) < 0.01" <<<"$rec" && pass || fail "sampling share is not 1/16"
# a percentile below one step of the cycle counter (~10 ns on some VMs) is listed as below resolution,
# never passed off as a measured 0 ns
py "any(x['op'] == 'malloc' and x['size_class'] == 'small' and x['sampled'] > 100 and x['p50_ns'] <= x['p99_ns'] <= x['max_ns'] and 0 < x['max_ns']
        and (0 < x['p50_ns'] or 'p50_ns' in x['below_resolution']) for x in p['latency'])" <<<"$rec" \
  && pass || fail "no sensible small-malloc latency row"
py "p['timer']['resolution_ticks'] > 0 and all(0 < x['resolution_ns'] and all((x[k] < x['resolution_ns']) == (k in x['below_resolution'])
        for k in ('p50_ns', 'p90_ns', 'p99_ns', 'p999_ns', 'max_ns')) for x in p['latency'])" <<<"$rec" \
  && pass || fail "below_resolution does not list exactly the figures under the counter's resolution"
py "p['counters']['page_faults']['provenance'] == 'exact' and p['counters']['task_clock_ns']['value'] > 0" <<<"$rec" && pass || fail "software counters missing"
py "all(c['provenance'] == 'exact' or (c['value'] is None and c['provenance'].startswith('n/a(')) for c in p['counters'].values())" <<<"$rec" \
  && pass || fail "a counter without provenance"
py "p['memory']['at_peak']['allocator']['api'] == 'jemalloc mallctl' and p['memory']['at_peak']['allocator']['allocated']['value'] > 0" <<<"$rec" \
  && pass || fail "jemalloc's mallctl figures missing"
py "p['memory']['at_peak']['internal_fragmentation']['value'] >= 0 and p['fingerprint']['style'] == 'BiBOP'" <<<"$rec" && pass || fail "fragmentation or fingerprint missing"

"$ALLOCSTRESS" matrix --out "$T/p.json" --allocators system,jemalloc --threads 1 --reps 2 --no-counts "${SMALL[@]}" --profile >"$T/out" 2>"$T/log" \
  || { fail "matrix --profile exited $?: $(tail -3 "$T/log")"; finish; exit 1; }
cells=$(/usr/bin/python3 "$VALIDATOR" "$SCHEMA" "$T/p.json" --with-workload) || { fail "results not schema-valid"; finish; exit 1; }
for a in system jemalloc; do
  [ "$(grep -c "^alloc-test	profile	$a	1	ok	" <<<"$cells")" = 1 ] && pass || fail "$a: no ok profile cell"
  [ "$(grep -c "^alloc-test	timing	$a	1	ok	" <<<"$cells")" = 2 ] && pass || fail "$a: not 2 timing cells"
done
/usr/bin/python3 -c "
import json; d=json.load(open('$T/p.json'))
med=[e for e in d['benchmarks'] if e['run_type']=='aggregate' and e['aggregate_name']=='median' and e['allocator']=='jemalloc']
timing = [e for e in d['benchmarks'] if e['run_type'] == 'iteration' and e['mode'] == 'timing' and e['allocator'] == 'jemalloc']
assert med and all(m['repetitions_ok'] + m['repetitions_disturbed'] == len(timing) for m in med), med" && pass || fail "profile cells leaked into the aggregates"
grep -q "^### Profile runs" "$T/p.md" && grep -q "^| jemalloc | 1 | 1.56% |" "$T/p.md" && pass || fail "no profile table"

expect_error 2 "--profile applies to alloc-test, not to bintree" -- "$ALLOCSTRESS" run --allocator jemalloc --workload bintree --profile
expect_error 2 "'pool' is an in-tree backend" -- "$ALLOCSTRESS" run --allocator pool --profile
expect_error 2 "--sample-every must be at least 1" -- "$ALLOCSTRESS" run --allocator jemalloc --profile --sample-every 0
expect_error 2 "--sample-every applies to --profile runs only" -- "$ALLOCSTRESS" run --allocator jemalloc --sample-every 8
expect_error 2 "--profile, --cache-sim, --counts, --age, --thp and --soak are separate runs" -- "$ALLOCSTRESS" run --allocator jemalloc --profile --cache-sim
expect_error 2 "--profile needs the alloc-test workload" -- "$ALLOCSTRESS" matrix --out "$T/q.json" --workload bintree --profile
finish
