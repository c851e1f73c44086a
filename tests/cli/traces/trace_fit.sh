# ctest: labels=cli timeout=600 env=ALLOCSTRESS,MAKE_TRACE serial
# `allocstress fit`: fits a generated trace (the replay tests' generator, known shape), writes a
# fit file that states the trace's own figures, is deterministic, never overwrites without
# --force; bad input gives one error line, exit 2 and no file.
source "$(dirname "$0")/../lib.sh"
: "${MAKE_TRACE:?set by CTest}"

# 2 threads x 20000 ops, 20% of frees by the other thread; the generator prints its own counts.
read -r events allocations frees peak < <("$MAKE_TRACE" "$T/two.ast" 2 20000 20 5)

if "$ALLOCSTRESS" fit "$T/two.ast" -o "$T/fit.json" >"$T/out.txt" 2>"$T/err.txt"; then pass; else fail "fit exited $?: $(cat "$T/err.txt")"; fi
[ ! -s "$T/err.txt" ] && pass || fail "fit wrote to stderr: $(cat "$T/err.txt")"
for text in "trace $T/two.ast: $events events; threads 2" "sizes: mean" "KS distance" "peak live requested bytes: trace $peak" \
            "workload fitted: 2 threads"; do
  grep -qF "$text" "$T/out.txt" && pass || fail "summary lacks '$text': $(cat "$T/out.txt")"
done
# The file: format, the trace's own figures, and a close fit (sizes 16..4096 B as generated).
if /usr/bin/python3 - "$T/fit.json" "$events" "$peak" <<'EOF'; then pass; else fail "fit.json content"; fi
import json, sys
f = json.load(open(sys.argv[1]))
events, peak = int(sys.argv[2]), int(sys.argv[3])
w, t, q = f["workload"], f["trace"], f["fit"]
checks = {
    "format": f["format"] == "allocstress-fit" and f["version"] == 1,
    "trace figures": t["events"] == events and t["peak_live_requested_bytes"] == peak and t["threads"] == 2,
    "threads": w["threads"] == 2 and abs(w["allocations_per_thread"] * 2 - t["allocations"]) <= 1,
    "size range": min(r["min"] for r in w["sizes"]) >= 16 and max(r["max"] for r in w["sizes"]) <= 4096,
    "weights": abs(sum(r["weight"] for r in w["sizes"]) - 1) < 1e-9 and abs(sum(r["weight"] for r in w["lifetimes"]) - 1) < 1e-9,
    "distances": q["size_ks_distance"] <= 0.01 and q["lifetime_ks_distance"] <= 0.01,
    "model peak": q["model_peak_live_requested_bytes"] > 0,  # this generator is not stationary: no closeness asked
}
bad = [k for k, ok in checks.items() if not ok]
if bad:
    print("failed checks:", bad, json.dumps({"trace": t, "fit": q}), file=sys.stderr)
sys.exit(1 if bad else 0)
EOF
[ "$(ls "$T" | grep -c partial)" = 0 ] && pass || fail "temporary file left behind: $(ls "$T")"

# Deterministic; an existing file is kept unless --force.
cp "$T/fit.json" "$T/first.json"
expect_error 2 "already exists (pass --force" -- "$ALLOCSTRESS" fit "$T/two.ast" -o "$T/fit.json"
cmp -s "$T/fit.json" "$T/first.json" && pass || fail "existing fit file changed without --force"
"$ALLOCSTRESS" fit "$T/two.ast" -o "$T/fit.json" --force >/dev/null && cmp -s "$T/fit.json" "$T/first.json" && pass ||
  fail "a second fit of the same trace differs"
"$ALLOCSTRESS" fit "$T/two.ast" -o "$T/seeded.json" --seed 99 --threads 3 --max-range-share 0.05 >/dev/null &&
  /usr/bin/python3 -c 'import json,sys; w=json.load(open(sys.argv[1]))["workload"]; sys.exit(0 if (w["seed"], w["threads"]) == (99, 3) else 1)' \
    "$T/seeded.json" && pass || fail "--seed/--threads not applied"
rm -f "$T/fit.json" "$T/first.json" "$T/seeded.json" "$T/out.txt" "$T/err.txt"

# Bad input.
printf 'not a trace at all\n' > "$T/foreign.ast"
head -c 200 "$T/two.ast" > "$T/cut.ast"
cp "$T/two.ast" "$T/corrupt.ast"
printf '\xff\xff\xff\xff' | dd of="$T/corrupt.ast" bs=1 seek=300 conv=notrunc status=none
"$MAKE_TRACE" "$T/small.ast" 1 100 0 >/dev/null
expect_error 2 "$T/none.ast: cannot open (No such file or directory)" -- "$ALLOCSTRESS" fit "$T/none.ast" -o "$T/f.json"
expect_error 2 "$T/foreign.ast: offset 0: not an allocstress trace (no ASTRACE1 magic; accepted: " -- "$ALLOCSTRESS" fit "$T/foreign.ast" -o "$T/f.json"
expect_error 2 "no successful allocation to fit"     -- "$ALLOCSTRESS" fit "$T/cut.ast" -o "$T/f.json"
expect_error 2 "$T/corrupt.ast: offset"              -- "$ALLOCSTRESS" fit "$T/corrupt.ast" -o "$T/f.json"
expect_error 2 "--out $T/f.txt must end in .json" -- "$ALLOCSTRESS" fit "$T/small.ast" -o "$T/f.txt"
expect_error 2 "output folder $T/nowhere does not exist" -- "$ALLOCSTRESS" fit "$T/small.ast" -o "$T/nowhere/f.json"
expect_error 2 "--out is required (see allocstress fit --help)" -- "$ALLOCSTRESS" fit "$T/small.ast"
expect_error 2 "--max-range-share out of range: 0.9 (accepted: 0.0001..0.5)" -- "$ALLOCSTRESS" fit "$T/small.ast" -o "$T/f.json" --max-range-share 0.9
expect_error 2 "--threads out of range: 5000 (accepted: 0 = the trace's effective count, or 1..4096)" -- "$ALLOCSTRESS" fit "$T/small.ast" -o "$T/f.json" --threads 5000
expect_error 2 "--seed: '-1' is not a whole number >= 0 (see allocstress fit --help)" -- "$ALLOCSTRESS" fit "$T/small.ast" -o "$T/f.json" --seed -1
# The fitted workload runs like alloc-test: run (the fit's threads by default), a matrix with the
# void baseline, and --evaluate's side-by-side comparison with the replay of the same trace.
"$MAKE_TRACE" "$T/eval.ast" 1 20000 0 >/dev/null
"$ALLOCSTRESS" fit "$T/eval.ast" -o "$T/eval.json" >/dev/null || fail "fit of eval.ast failed"
rec=$("$ALLOCSTRESS" run --allocator pool --workload fitted --fit "$T/eval.json") || fail "run --workload fitted failed"
got=$(/usr/bin/python3 -c 'import json,sys; r=json.loads(sys.argv[1]); print(r["status"], r["threads"], r["mallocs"] == r["fitted"]["allocations_per_thread"], r["params"]["fit"] == sys.argv[2])' "$rec" "$T/eval.json")
[ "$got" = "ok 1 True True" ] && pass || fail "fitted run record: $got"
timeout 300 "$ALLOCSTRESS" fit "$T/eval.ast" -o "$T/ev.json" --evaluate --allocators system,pool,jemalloc --reps 1 >"$T/out.txt" 2>"$T/err.txt" \
  || fail "fit --evaluate exited $?: $(tail -3 "$T/err.txt")"
for f in ev-replay.json ev-fitted.json ev-comparison.md ev-comparison.json; do
  [ -s "$T/$f" ] && pass || fail "fit --evaluate did not write $f"
done
grep -q '^| pool | ' "$T/ev-comparison.md" && grep -q 'Spearman rho' "$T/ev-comparison.md" && pass ||
  fail "comparison table missing: $(cat "$T/ev-comparison.md")"
# Each row has the fitted model's net cost, unless every process of that allocator's fitted cell
# was disturbed (left out: on a busy machine they may all be).
/usr/bin/python3 - "$T/ev-comparison.json" "$T/ev-fitted.json" <<'PY' && pass || fail "comparison JSON lacks its three allocators: $(head -c 600 "$T/ev-comparison.json")"
import json, sys
rows = json.load(open(sys.argv[1]))["rows"]
records = [b for b in json.load(open(sys.argv[2]))["benchmarks"] if b["run_type"] == "iteration" and b["allocator"] != "void"]
def all_disturbed(a):
    mine = [b for b in records if b["allocator"] == a]
    return bool(mine) and all(b.get("interference", {}).get("disturbed") for b in mine)
assert len(rows) == 3, rows
assert all(r["fitted_net_cycles_per_op"] is not None or all_disturbed(r["allocator"]) for r in rows), rows
PY
: >"$T/ev4-replay.json"
expect_error 2 "ev4-replay.json already exists" -- "$ALLOCSTRESS" fit "$T/eval.ast" -o "$T/ev4.json" --evaluate --allocators system --reps 1
expect_error 2 "--reps applies to --evaluate only" -- "$ALLOCSTRESS" fit "$T/eval.ast" -o "$T/ev3.json" --reps 2
expect_error 2 "--workload fitted needs --fit FILE (written by \`allocstress fit TRACE -o FILE\`)" -- "$ALLOCSTRESS" run --allocator pool --workload fitted
expect_error 2 "--fit applies to fitted only, not to alloc-test" -- "$ALLOCSTRESS" run --allocator pool --fit "$T/eval.json"
expect_error 2 "$T/foreign.ast: not valid JSON (accepted: a fit file written by \`allocstress fit\`)" -- "$ALLOCSTRESS" run --allocator pool --workload fitted --fit "$T/foreign.ast"
finish
