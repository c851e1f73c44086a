# ctest: labels=cli timeout=600 env=@cli serial
# The one cell encoding: a plan file's cells run as they are (`run --cell FILE` and `run --cell -`),
# and the `command` beside each (the same cell as flags) measures the same operation stream with
# the same parameters, for every workload family.  Then `run --cell`'s bad input.
source "$(dirname "$0")/../lib.sh"

"$ALLOCSTRESS" matrix --plan-only -o "$T/plan.json" --allocators pool --threads 1 --reps 1 --preset quick \
  --workload alloc-test,bintree,multilist,xthread,larson,lifetime,phase-peak,false-sharing-passive \
  --slots 65536 --iterations 200000 --max-size-exp 10 --nodes 2000 --searches 2000 --live-bytes 200000 --drop-pause-ms 0 \
  --objects 4 --writes 10 --fs-rounds 20 --larson-rounds 4 --remote-share 33.3 >/dev/null 2>"$T/plan.err" ||
  fail "plan-only exited $?: $(cat "$T/plan.err")"
/usr/bin/python3 - "$ALLOCSTRESS" "$T" <<'PY' && pass || fail "a plan cell and its command disagree"
import json, subprocess, sys
exe, tmp = sys.argv[1], sys.argv[2]
plan = json.load(open(f"{tmp}/plan.json"))
ok = True
for c in plan["cells"]:
    with open(f"{tmp}/cell.json", "w") as f:
        json.dump(c, f)
    by_file = subprocess.run([exe, "run", "--cell", f"{tmp}/cell.json"], capture_output=True, text=True)
    by_stdin = subprocess.run([exe, "run", "--cell", "-"], input=json.dumps(c), capture_output=True, text=True)
    by_flags = subprocess.run(c["command"], capture_output=True, text=True)
    recs = []
    for how, r in (("file", by_file), ("stdin", by_stdin), ("flags", by_flags)):
        if r.returncode != 0:
            print(c["key"], how, "exited", r.returncode, r.stderr.strip(), file=sys.stderr); ok = False; continue
        recs.append(json.loads(r.stdout.splitlines()[-1]))
    if len(recs) != 3:
        continue
    keys = {(r.get("op_stream_hash"), json.dumps(r["params"], sort_keys=True), r["workload"], r["threads"]) for r in recs}
    if len(keys) != 1 or any(r["status"] != "ok" for r in recs):
        print(c["key"], "differ:", keys, [r["status"] for r in recs], file=sys.stderr); ok = False
    if recs[0]["params"].get("remote_share", 33.3 / 100) != 33.3 / 100:
        print(c["key"], "remote share", recs[0]["params"]["remote_share"], file=sys.stderr); ok = False
print(len(plan["cells"]), "cells", file=sys.stderr)
sys.exit(0 if ok else 1)
PY
rm -f "$T/plan.err" "$T/cell.json"

# Bad cells: one line, exit 2, nothing run.
printf '{"allocator": "pool", "workload": "alloc-test", "threads": 1}' > "$T/no-params.json"
printf 'not json' > "$T/text.json"
printf '{"allocator": "pool", "workload": "alloc-test", "threads": 1, "params": {"seed": 1}}' > "$T/thin.json"
expect_error 2 "cell file $T/none.json: cannot open it" -- "$ALLOCSTRESS" run --cell "$T/none.json"
expect_error 2 "cell file $T/text.json: not JSON" -- "$ALLOCSTRESS" run --cell "$T/text.json"
expect_error 2 "cell file $T/no-params.json: 'params' is missing" -- "$ALLOCSTRESS" run --cell "$T/no-params.json"
expect_error 2 "params: 'size_model' is missing" -- "$ALLOCSTRESS" run --cell "$T/thin.json"
expect_error 2 "--cell runs the cell file as it is; drop --threads" -- "$ALLOCSTRESS" run --cell "$T/thin.json" --threads 2
expect_error 2 "--allocator is required (or --cell FILE)" -- "$ALLOCSTRESS" run --workload alloc-test

finish
