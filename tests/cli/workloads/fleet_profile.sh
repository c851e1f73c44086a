# ctest: labels=cli timeout=300 env=ALLOCSTRESS serial
# The `fleet-profile` workload from the command line: a matrix of all ten profiles (instances
# fleet-profile:0 .. :9) through system, pool and the void baseline at a scaled heap runs ok, its
# records validate, every allocator ran the same op stream of a profile, the verdict ranks the
# allocators of each profile, and the counts hold the plan (mallocs = live blocks + churn); at 2
# threads too.  Bad profiles, labels and heaps give one error line and exit 2.
source "$(dirname "$0")/../lib.sh"
VALIDATOR="$(dirname "$0")/../validate_results.py"
SCHEMA="$(dirname "$0")/../../../results/schema.json"

SMALL=(--heap 8388608 --iterations 100000)
instances=$(printf 'fleet-profile:%d,' 0 1 2 3 4 5 6 7 8 9)
"$ALLOCSTRESS" matrix --out "$T/f.json" --workload "${instances%,}" --allocators system,pool --threads 1 --reps 2 --no-counts "${SMALL[@]}" \
  >"$T/f.out" 2>"$T/f.err" && pass || fail "matrix of ten profiles exited $?: $(tail -3 "$T/f.err")"
cells_of "$T/f.json" >"$T/cells" && pass || fail "results do not validate: $(head -5 "$T/cells")"
[ "$(grep -c $'\tok\t' "$T/cells")" = 60 ] && pass || fail "not 60 ok cells: $(grep -v $'\tok\t' "$T/cells" | head -3)"

/usr/bin/python3 - "$T/f.json" "$T/f.md" <<'EOF' && pass || fail "records or verdict of the ten profiles"
import json, sys
doc = json.load(open(sys.argv[1]))
md = open(sys.argv[2]).read()
bad = []
by_profile = {}
for r in doc["benchmarks"]:
    if r.get("mode") != "timing" or r.get("status") != "ok" or r.get("run_type") != "iteration":
        continue
    m = r["workload_metrics"]
    k = m["fleet_profile"]
    if r["workload"] != f"fleet-profile:{k}":
        bad.append(f"{r['workload']} ran profile {k}")
    if r["mallocs"] != m["live_blocks"] + 100000:
        bad.append(f"{r['name']}: mallocs {r['mallocs']} != live blocks {m['live_blocks']} + 100000")
    if r["frees"] != 100000:
        bad.append(f"{r['name']}: frees {r['frees']}")
    if m["heap_bytes"] != 8388608:
        bad.append(f"{r['name']}: heap {m['heap_bytes']}")
    by_profile.setdefault(k, set()).add(r["op_stream_hash"])
for k in range(10):
    if len(by_profile.get(k, ())) != 1:
        bad.append(f"profile {k}: op stream hashes {by_profile.get(k)}")
    # a cost ranking where some allocator has an interval: on a busy machine every process of a
    # cell may be disturbed (left out), and a cell with one process or none has no interval
    section = md.split(f"### fleet-profile:{k}\n", 1)[1].split("\n###", 1)[0]
    rows = [line.split("|")[1:-1] for line in section.splitlines() if line.startswith("| ") and not line.startswith("| allocator")]
    ranked = [row for row in rows if "void" not in row[0] and row[5].strip() != "n/a"]
    if (f"**fleet-profile:{k}, 1 thread**: cost" in md) != bool(ranked):
        bad.append(f"verdict line for profile {k} {'missing' if ranked else 'without an interval to rank'}; its table: " + section[:1500])
print("\n".join(bad), file=sys.stderr)
sys.exit(1 if bad else 0)
EOF

# 2 threads: each worker holds half the heap and runs its own churn.
"$ALLOCSTRESS" run --workload fleet-profile:3 --allocator pool --threads 2 "${SMALL[@]}" >"$T/two.json" 2>"$T/two.err" \
  && pass || fail "2-thread run exited $?: $(tail -2 "$T/two.err")"
/usr/bin/python3 - "$T/two.json" <<'EOF' && pass || fail "2-thread record: $(head -c 600 "$T/two.json")"
import json, sys
r = json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])
m = r["workload_metrics"]
ok = r["status"] == "ok" and r["threads"] == 2 and r["mallocs"] == m["live_blocks"] + 2 * 100000
ok = ok and abs(m["live_requested_bytes"] - 8388608) < 0.01 * 8388608
sys.exit(0 if ok else 1)
EOF

expect_error 2 "accepted: fleet-profile:0 to fleet-profile:9" -- "$ALLOCSTRESS" run --workload fleet-profile:12 --allocator system
expect_error 2 "accepted: 0 to 9" -- "$ALLOCSTRESS" run --workload fleet-profile --fleet-profile 10 --allocator system
expect_error 2 "--fleet-profile 2 contradicts the workload's label fleet-profile:3 (accepted: leave --fleet-profile out, or name the workload fleet-profile)" -- "$ALLOCSTRESS" run --workload fleet-profile:3 --fleet-profile 2 --allocator system
expect_error 2 "--heap 100 is too small" -- "$ALLOCSTRESS" run --workload fleet-profile --heap 100 --allocator system
expect_error 2 "--fleet-profile applies to fleet-profile only, not to alloc-test" -- "$ALLOCSTRESS" run --workload alloc-test --fleet-profile 2 --allocator system
finish
