# ctest: labels=cli timeout=300 env=ALLOCSTRESS,MAKE_TRACE,SCHEMA,VALIDATOR serial
# `--sizes fit --size-fit FIT.json`: the sized models (alloc-test, lifetime) draw their block sizes
# from a fit file's size table -- a program's measured size mix.  The generated trace's sizes are
# 16..4096 B, so the models' sizes must be too; --sizes fit without a fit file, or a fit file with
# another size model, is refused with what is accepted.
source "$(dirname "$0")/../lib.sh"
: "${MAKE_TRACE:?set by CTest}"

"$MAKE_TRACE" "$T/one.ast" 1 20000 0 >/dev/null
"$ALLOCSTRESS" fit "$T/one.ast" -o "$T/fit.json" >/dev/null 2>"$T/err" || fail "fit failed: $(cat "$T/err")"
"$ALLOCSTRESS" matrix --workload alloc-test,lifetime --sizes fit --size-fit "$T/fit.json" --allocators system --threads 1 --reps 1 \
  --no-counts --slots 4096 --iterations 20000 --live-bytes 500000 --out "$T/m.json" >/dev/null 2>"$T/log" || fail "matrix with --sizes fit failed: $(tail -2 "$T/log")"
cells=$(cells_of "$T/m.json") || fail "results with --sizes fit are not schema-valid: $cells"
/usr/bin/python3 - "$T/m.json" "$T/fit.json" <<'PY' && pass || fail "records do not show the fit file's sizes"
import json, sys
res, fit = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
rows = fit["workload"]["sizes"]
fit_mean = sum(r["weight"] * (r["min"] + r["max"]) / 2 for r in rows)
it = [b for b in res["benchmarks"] if b["run_type"] == "iteration" and b["status"] == "ok" and b["allocator"] == "system"]
assert {b["workload"] for b in it} == {"alloc-test", "lifetime"}, it
for b in it:
    assert b["params"]["size_model"] == "fit" and b["params"]["size_fit"].endswith("fit.json"), b["params"]
life = next(b for b in it if b["workload"] == "lifetime")
mean = life["workload_metrics"]["mean_size_bytes"]
# the lifetime model's mean size is computed from the table it draws from: the fit file's
assert abs(mean - fit_mean) <= 1e-6 * fit_mean + 1, (mean, fit_mean)
assert 16 <= mean <= 4096, mean
PY
grep -q "sizes of fit.json" "$T/m.md" && pass || fail "the table heading does not name the fit file: $(grep -m3 '^###' -A2 "$T/m.md")"

expect_error 2 "--sizes fit needs --size-fit FIT.json" -- "$ALLOCSTRESS" run --allocator system --workload alloc-test --sizes fit
expect_error 2 "--size-fit applies with --sizes fit only" -- "$ALLOCSTRESS" run --allocator system --workload alloc-test --size-fit "$T/fit.json"
expect_error 2 "unknown size model 'fitted' (accepted: inverse, fleet, fit)" -- "$ALLOCSTRESS" run --allocator system --workload alloc-test --sizes fitted
printf '{"format": "nope"}\n' > "$T/bad.json"
expect_error 2 "$T/bad.json: not an allocstress fit file (accepted: JSON with \"format\": \"allocstress-fit\")" -- "$ALLOCSTRESS" run --allocator system --workload lifetime --sizes fit --size-fit "$T/bad.json"
finish
