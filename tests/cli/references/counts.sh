# ctest: labels=cli timeout=600 env=@cli serial
# The counts tier: `run --counts` counts the measured phase under callgrind; three runs of the
# same cell give identical figures for every kind of allocator (glibc, jemalloc and mimalloc, which
# read the clock, the in-tree pool, void); the iterations are capped to a prefix of the op stream;
# a plan's counts cell reproduces from its command line; xthread and larson count at 2 threads,
# per worker, close to but not exactly the same from run to run; bad input gets one line.
source "$(dirname "$0")/../lib.sh"
C=(--slots 65536 --max-size-exp 12 --counts --counts-iterations 200000)
figures() {  # the whole counts block and the op stream: everything that must not change between runs
  /usr/bin/python3 -c "
import json, sys
r = json.loads(sys.stdin.read().strip().splitlines()[-1])
assert r['status'] == 'ok' and r['mode'] == 'counts', r.get('reason')
print(json.dumps([r['counts'], r['op_stream_hash'], r['params']['iterations_per_thread']], sort_keys=True))"
}

for a in system jemalloc mimalloc pool void; do
  runs=()
  for i in 1 2 3; do
    runs+=("$("$ALLOCSTRESS" run --allocator "$a" "${C[@]}" 2>"$T/err" | figures)") || fail "$a: counts run $i failed: $(tail -1 "$T/err")"
  done
  [ -n "${runs[0]}" ] && [ "${runs[0]}" = "${runs[1]}" ] && [ "${runs[1]}" = "${runs[2]}" ] && pass \
    || fail "$a: counts differ between runs: ${runs[0]:0:300} / ${runs[1]:0:300} / ${runs[2]:0:300}"
done

# Kernel events, against an independent reference: under the test allocator whose every malloc is
# one mmap and every free one munmap, the native run of the counts cell counts exactly the
# workload's own mallocs and frees, and at least one fault per malloc (each block is written);
# the 1-thread figures are identical in two runs, for it and for jemalloc.  The cell here is C's
# with 50,000 iterations (26,749 mallocs, 23,251 frees): every figure below is an exact count or a
# ratio, whatever the length, and under valgrind each of that allocator's mmaps is slow (C's
# 200,000 iterations took 30-60 s a run on the 2-core VM).  The reference check reads the
# allocator's first run; a third run of the same cell gave nothing more.
K=(--slots 65536 --max-size-exp 12 --counts --counts-iterations 50000)
kernel() {
  /usr/bin/python3 -c "
import json, sys
r = json.loads(sys.stdin.read().strip().splitlines()[-1])
k = r['counts']['kernel_events']
assert 'n/a' not in k and k['reproducibility'].startswith('exact:'), k
print(json.dumps([r['mallocs'], r['frees'], k['minor_faults'], k['syscalls']], sort_keys=True))"
}
for a in "mm=$MMAP_MALLOC" jemalloc; do
  one=$("$ALLOCSTRESS" run --allocator "$a" "${K[@]}" 2>"$T/err" | kernel) && two=$("$ALLOCSTRESS" run --allocator "$a" "${K[@]}" 2>>"$T/err" | kernel) \
    && [ "$one" = "$two" ] && pass || fail "${a%%=*}: kernel events missing or different between runs: $one / $two $(tail -1 "$T/err")"
  [ "$a" = jemalloc ] || mm_one=$one
done
/usr/bin/python3 - "$one" "$mm_one" <<'PY' && pass \
  || fail "the kernel events of the mmap-per-malloc allocator are not its mallocs and frees"
import json, sys
mallocs, frees, faults, calls = json.loads(sys.argv[2])
assert calls["mmap"] == mallocs and calls["munmap"] == frees, (mallocs, frees, calls)
assert mallocs <= faults <= 2 * mallocs, (mallocs, faults)
assert all(calls[k] == 0 for k in ("brk", "madvise", "mremap", "mprotect", "futex")), calls
jm = json.loads(sys.argv[1])[3]  # jemalloc's: it does not map a block per malloc
assert jm["mmap"] < mallocs / 100, jm
PY

# The counts tier against an allocator whose costs are known in advance (tests/support/
# known_cost_malloc.c): malloc is exactly 6 instructions and free exactly 1, and every block is a
# fresh page of a .bss arena, never reused.  The instructions in allocator calls must be exactly
# 6 x mallocs + frees, and no system call is made.  Each malloc faults exactly one page; the
# phase also faults a fixed few pages of the workload's own, allocated before it and first
# written in it (5 here, void's 1 among them, whatever the iterations), so two runs of different
# lengths must differ by exactly their difference in mallocs.
if [ -n "${KNOWN_COST_MALLOC:-}" ]; then
  for n in 20000 50000; do
    "$ALLOCSTRESS" run --allocator "kc=$KNOWN_COST_MALLOC" --slots 4096 --max-size-exp 12 --counts --counts-iterations $n >"$T/kc$n.json" 2>"$T/err" \
      || fail "counts run of the known-cost allocator failed: $(tail -1 "$T/err")"
  done
  /usr/bin/python3 - "$T/kc20000.json" "$T/kc50000.json" <<'PY' && pass || fail "the counts tier does not give the known-cost allocator's known figures"
import json, sys
short, long = (json.loads(open(p).read().strip().splitlines()[-1]) for p in sys.argv[1:])
for r in (short, long):
    assert r["status"] == "ok" and r["mallocs"] > 5000, (r.get("reason"), r.get("mallocs"))
    c, k = r["counts"], r["counts"]["kernel_events"]
    assert c["allocator_calls"]["instructions"] == 6 * r["mallocs"] + r["frees"], (c["allocator_calls"]["instructions"], r["mallocs"], r["frees"])
    assert k["syscalls_total"] == 0, k["syscalls"]
    assert 0 <= k["minor_faults"] - r["mallocs"] <= 8, (k["minor_faults"], r["mallocs"])
faults = [r["counts"]["kernel_events"]["minor_faults"] for r in (short, long)]
assert faults[1] - faults[0] == long["mallocs"] - short["mallocs"] > 0, (faults, long["mallocs"], short["mallocs"])
PY
  # The per-pair figures users read, exactly.  A pair is two operations (units = (mallocs + frees)
  # / 2); the allocator's instructions per pair are (6 x mallocs + frees) / units, malloc's 6 x
  # mallocs and free's frees by function.  Net of void: a matrix with the known-cost allocator and
  # its padded twin (16 instructions per malloc, 4 per free: KNOWN_COST_MALLOC_PADDED) on the same
  # op stream; their net instructions per pair must differ by exactly (10 x mallocs + 3 x frees) /
  # units, each net figure be its own minus void's, and the Counts tier table print the per-pair
  # figure of allocator calls.
  "$ALLOCSTRESS" matrix --allocators kc,kc16 --add-allocator "kc=$KNOWN_COST_MALLOC" --add-allocator "kc16=$KNOWN_COST_MALLOC_PADDED"     --threads 1 --reps 1 --slots 4096 --max-size-exp 12 --iterations 20000 --counts --counts-iterations 20000 -o "$T/kc-matrix.json"     >"$T/kc-matrix.log" 2>&1 || fail "the known-cost matrix failed: $(tail -3 "$T/kc-matrix.log")"
  /usr/bin/python3 - "$T/kc50000.json" "$T/kc-matrix.json" "$T/kc-matrix.md" <<'PY' && pass || fail "the counts tier's per-pair figures are not the known-cost allocators' known figures"
import json, re, sys
cost = {"kc": (6, 1), "kc16": (16, 4)}
def exact_per_pair(r, name):
    m, f, c = r["mallocs"], r["frees"], r["counts"]
    units = c["units"]
    assert units == (m + f) / 2 == r["pairs"], (units, m, f)
    per_malloc, per_free = cost[name]
    calls = c["allocator_calls"]
    assert calls["instructions"] == per_malloc * m + per_free * f, (name, calls["instructions"], m, f)
    assert calls["instructions_by_function"] == {"malloc": per_malloc * m, "free": per_free * f}, (name, calls["instructions_by_function"])
    want = (per_malloc * m + per_free * f) / units
    assert abs(calls["instructions_per_unit"] - want) <= 1e-12 * want, (name, calls["instructions_per_unit"], want)
    return want
exact_per_pair(json.loads(open(sys.argv[1]).read().strip().splitlines()[-1]), "kc")
records = {e["allocator"]: e for e in json.load(open(sys.argv[2]))["benchmarks"] if e.get("mode") == "counts" and e["run_type"] == "iteration"}
assert set(records) == {"void", "kc", "kc16"} and all(r["status"] == "ok" for r in records.values()), {a: r.get("reason") for a, r in records.items()}
assert len({r["op_stream_hash"] for r in records.values()}) == 1, "not one op stream"
void = records["void"]["counts"]
per_pair = {name: exact_per_pair(records[name], name) for name in cost}
for name in cost:
    c = records[name]["counts"]
    want = c["instructions_per_unit"] - void["instructions_per_unit"]
    assert abs(c["net_instructions_per_unit"] - want) <= 1e-9 * abs(want), (name, c["net_instructions_per_unit"], want)
r = records["kc"]
delta = (10 * r["mallocs"] + 3 * r["frees"]) / r["counts"]["units"]
got = records["kc16"]["counts"]["net_instructions_per_unit"] - records["kc"]["counts"]["net_instructions_per_unit"]
assert abs(got - delta) <= 1e-9 * delta, ("net difference", got, delta)
# The Markdown table: "in allocator calls/pair" (7th column), to one decimal.
md = open(sys.argv[3]).read()
for name, want in per_pair.items():
    rows = [l for l in md.splitlines() if re.match(rf"\| \d+ \| {name} \|", l)]
    assert len(rows) == 1, (name, rows)
    cell = rows[0].split("|")[7].strip()
    assert cell == f"{want:.1f}", (name, cell, want)
PY
else
  echo "note: no known-cost allocator on this architecture (x86-64 assembly): the exact-count reference is not checked"
fi

# What the cell process under callgrind sees does not depend on where the caller runs: the same
# counts cell of two matrices, one written to a short --out from one folder, one to a long --out
# from another with a 20 kB larger environment, gives the identical counts block (instructions and
# simulated misses; a longer path once moved jemalloc's count by 10,000 instructions).
# Both price their counts at one machine-costs file (written here), so their estimated cycles are
# the model's: user part + kernel part, recomputed below from the file's medians.
short_dir=$T/s; long_dir=$T/$(printf 'a-much-longer-folder-name-%.0s' 1 2 3 4 5); mkdir -p "$short_dir" "$long_dir"
"$ALLOCSTRESS" calibrate --costs --repeats 5 -o "$T/costs.json" >"$T/costs.log" 2>&1 || fail "calibrate --costs failed: $(tail -1 "$T/costs.log")"
export ALLOCSTRESS_COSTS=$T/costs.json
M=(matrix --allocators jemalloc,mimalloc --threads 1 --reps 1 --slots 65536 --max-size-exp 12 --counts --counts-iterations 200000)
(cd "$short_dir" && "$ALLOCSTRESS" "${M[@]}" -o r.json >/dev/null 2>"$T/m1.log") || fail "matrix with a short --out failed: $(tail -1 "$T/m1.log")"
(cd "$long_dir" && env ALLOCSTRESS_TEST_PADDING="$(head -c 20000 /dev/zero | tr '\0' p)" \
  "$ALLOCSTRESS" "${M[@]}" -o "$long_dir/results-with-a-long-name-of-the-kind-people-give.json" >/dev/null 2>"$T/m2.log") \
  || fail "matrix with a long --out failed: $(tail -1 "$T/m2.log")"
/usr/bin/python3 - "$short_dir/r.json" "$long_dir/results-with-a-long-name-of-the-kind-people-give.json" <<'PY' && pass \
  || fail "the counts tier depends on the output path, working directory or environment size"
import json, sys
def counts(path):
    return {e["allocator"]: e["counts"] for e in json.load(open(path))["benchmarks"] if e.get("mode") == "counts" and e["run_type"] == "iteration"}
one, two = counts(sys.argv[1]), counts(sys.argv[2])
assert set(one) == set(two) == {"void", "jemalloc", "mimalloc"}, (set(one), set(two))
for a in one:
    assert one[a] == two[a], (a, one[a]["instructions"], two[a]["instructions"], one[a]["events"], two[a]["events"])
PY
/usr/bin/python3 - "$short_dir/r.json" "$T/costs.json" <<'PY' && pass || fail "the estimated cycles are not the machine-costs model"
import json, sys
doc, costs = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))["costs"]
assert doc["context"]["machine_costs"]["file"] == sys.argv[2], doc["context"]["machine_costs"]
lines = costs.pop("lines_per_page")["value"]
m = {k: v["median"] for k, v in costs.items()}
for e in doc["benchmarks"]:
    if e.get("mode") != "counts" or e["run_type"] != "iteration":
        continue
    c, ev, k = e["counts"], e["counts"]["events"], e["counts"]["kernel_events"]
    l1_misses, ram = ev["I1mr"] + ev["D1mr"] + ev["D1mw"], ev["ILmr"] + ev["DLmr"] + ev["DLmw"]
    fresh = min(ram, lines * k["minor_faults"])  # first touches of faulted pages: LL hits
    user = (m["cycles_per_instruction"] * ev["Ir"] + (m["last_level_latency"] - m["l1_latency"]) * (l1_misses - ram + fresh)
            + (m["ram_latency"] - m["l1_latency"]) * (ram - fresh))
    kernel = k["minor_faults"] * m["minor_fault"] + sum(n * m.get(name, m["syscall"]) for name, n in k["syscalls"].items())
    assert abs(c["estimated_user_cycles"] - user) <= 1e-9 * user and abs(c["estimated_kernel_cycles"] - kernel) <= 1e-9 * max(kernel, 1), (e["allocator"], c, user, kernel)
    assert c["estimated_cycles"] == c["estimated_user_cycles"] + c["estimated_kernel_cycles"] and "calibrated on this machine" in c["cost_model"], c
    assert e["allocator"] == "void" or c["estimated_kernel_cycles"] > 0, (e["allocator"], k)
PY
unset ALLOCSTRESS_COSTS

# 200000 of the 1e7 iterations the quick preset gives; the counts-iterations default caps at 1e6
rec=$("$ALLOCSTRESS" run --allocator pool --slots 65536 --max-size-exp 12 --counts) || fail "counts with the default cap failed"
got=$(/usr/bin/python3 -c "import json,sys; r=json.loads(sys.stdin.read()); print(r['params']['iterations_per_thread'], r['ops'], r['counts']['units'])" <<<"$rec")
[ "$got" = "1000000 1000000 500000.0" ] && pass || fail "the default cap of 1e6 iterations was not applied: $got"

# The plan's counts cell: its command line gives the same figures as the planned cell file.
"$ALLOCSTRESS" matrix --plan-only -o "$T/plan.json" --allocators jemalloc --threads 1 --reps 1 --slots 65536 --max-size-exp 12 \
  --counts-iterations 150000 >/dev/null 2>&1 || fail "--plan-only with the counts tier failed"
/usr/bin/python3 - "$T/plan.json" "$T/cell.json" "$T/command" <<'PY' && pass || fail "the plan has no jemalloc counts cell with a capped --counts-iterations"
import json, sys
plan = json.load(open(sys.argv[1]))
[cell] = [c for c in plan["cells"] if c["key"] == "alloc-test/jemalloc/threads:1/counts"]
assert cell["mode"] == "counts" and cell["params"]["iterations_per_thread"] == 150000, cell
i = cell["command"].index("--counts-iterations")
assert cell["command"][i + 1] == "150000", cell["command"]
json.dump({k: v for k, v in cell.items() if k not in ("command", "index", "key")}, open(sys.argv[2], "w"))
open(sys.argv[3], "w").write("\n".join(cell["command"]))
PY
mapfile -t command <"$T/command"
one=$("${command[@]}" 2>/dev/null | figures) && two=$("$ALLOCSTRESS" run --cell "$T/cell.json" 2>/dev/null | figures) \
  && [ "$one" = "$two" ] && pass || fail "the counts cell's command and its cell file disagree"

# At N threads (xthread, larson): one profile per worker, waits left out.  valgrind runs the
# workers one at a time and their interleaving can vary, so runs agree closely, not exactly: the
# totals within 1% (0.4% is the largest spread seen over three runs of six allocators).
nthreads() {  # total and allocator-call instructions; checks the per-worker block
  /usr/bin/python3 -c "
import json, sys
r = json.loads(sys.stdin.read().strip().splitlines()[-1])
assert r['status'] == 'ok' and r['mode'] == 'counts' and r['threads'] == 2, r.get('reason')
c = r['counts']
assert c['reproducibility'].startswith('near-exact:'), c['reproducibility']
assert len(c['per_worker']) == 2, c['per_worker']
assert sum(w['instructions'] for w in c['per_worker']) == c['instructions'], c
assert all(w['units'] == c['units'] / 2 for w in c['per_worker']), c
print(c['instructions'], c['allocator_calls']['instructions'] or 0)"
}
for w in xthread larson; do
  runs=()
  for i in 1 2 3; do
    runs+=("$("$ALLOCSTRESS" run --allocator jemalloc --workload "$w" --threads 2 "${C[@]}" 2>"$T/err" | nthreads)") \
      || fail "$w: 2-thread counts run $i failed: $(tail -1 "$T/err")"
  done
  /usr/bin/python3 - "${runs[@]}" <<'PY' && pass || fail "$w: 2-thread counts differ by more than 1% between runs: ${runs[*]}"
import sys
runs = [tuple(map(int, r.split())) for r in sys.argv[1:]]
assert len(runs) == 3 and all(r[0] > 0 and r[1] > 0 for r in runs), runs
for k in range(2):
    lo, hi = min(r[k] for r in runs), max(r[k] for r in runs)
    assert hi - lo <= 0.01 * hi, runs
PY
done
one=$("$ALLOCSTRESS" run --allocator jemalloc --workload xthread --threads 1 "${C[@]}" 2>/dev/null | figures) \
  && grep -q '"reproducibility": "exact:' <<<"$one" && pass || fail "a 1-thread counts record does not say it is exact"

# The plan counts xthread at every thread count, its alloc-test companion at 1 thread only.
"$ALLOCSTRESS" matrix --plan-only -o "$T/xplan.json" --workload xthread --allocators jemalloc --threads 1-2 --reps 1 >/dev/null 2>&1 \
  || fail "--plan-only of an xthread matrix failed"
/usr/bin/python3 - "$T/xplan.json" <<'PY' && pass || fail "the xthread plan's counts cells are not xthread at 1 and 2 threads and alloc-test at 1"
import json, sys
keys = sorted(c["key"] for c in json.load(open(sys.argv[1]))["cells"] if c["mode"] == "counts")
assert keys == ["alloc-test/jemalloc/threads:1/counts", "alloc-test/void/threads:1/counts", "xthread/jemalloc/threads:1/counts",
                "xthread/jemalloc/threads:2/counts", "xthread/void/threads:1/counts", "xthread/void/threads:2/counts"], keys
PY

# Bad input: one line, exit 2.
expect_error 2 "--counts runs alloc-test at 1 thread only, got 2 threads (accepted at N threads: xthread and larson" \
  -- "$ALLOCSTRESS" run --allocator system --counts --threads 2
expect_error 2 "its deterministic figures come from --cache-sim" -- "$ALLOCSTRESS" run --allocator system --counts --workload bintree
expect_error 2 "--counts applies to alloc-test, xthread, larson, lifetime, fleet-profile, replay, fitted and program, not to phase-ramp" -- "$ALLOCSTRESS" run --allocator system --counts --workload phase-ramp
expect_error 2 "--counts-iterations applies to --counts runs only" -- "$ALLOCSTRESS" run --allocator system --counts-iterations 5
expect_error 2 "--counts-iterations must be at least 1, got 0" -- "$ALLOCSTRESS" run --allocator system --counts --counts-iterations 0
expect_error 2 "--profile, --cache-sim, --counts, --age, --thp and --soak are separate runs" -- "$ALLOCSTRESS" run --allocator system --counts --cache-sim
expect_error 2 "this matrix has no 1-thread cells" -- "$ALLOCSTRESS" matrix --counts --threads 2 --out "$T/x.json"
expect_error 2 "--counts and --no-counts contradict" -- "$ALLOCSTRESS" matrix --counts --no-counts --out "$T/x.json"
expect_error 2 "--counts-iterations must be at least 1, got 0" -- "$ALLOCSTRESS" matrix --counts-iterations 0 --out "$T/x.json"
expect_error 2 "--counts-iterations applies to runs with the counts tier" -- "$ALLOCSTRESS" matrix --no-counts --counts-iterations 5 --out "$T/x.json"
expect_error 2 "(the data structures through their cache simulation), not to false-sharing-active" -- "$ALLOCSTRESS" matrix --counts --workload false-sharing-active --out "$T/x.json"
[ ! -e "$T/x.json" ] && pass || fail "a refused matrix wrote its results file"
finish
