# ctest: labels=cli timeout=600 env=@cli serial
# Plans and backends without Slurm: `matrix --plan-only` writes the documented plan file, the
# local backend runs it (`matrix --plan`) to the same cells as planning and running in one go;
# a corrupt or foreign plan, and the Slurm backend's bad input (no Slurm on PATH, no controller,
# a results directory that is not writable or node-local), are refused with one line before
# anything is submitted or written.
source "$(dirname "$0")/../lib.sh"
R=(--allocators system,pool --threads 1 --reps 2 --no-counts "${TINY[@]}")

"$ALLOCSTRESS" matrix "${R[@]}" --plan-only -o "$T/plan.json" >"$T/out" || fail "--plan-only exited $?"
/usr/bin/python3 - "$T/plan.json" <<'PY' && pass || fail "plan file content"
import json, sys
p = json.load(open(sys.argv[1]))
assert p["format"] == "allocstress-plan" and p["version"] == 2
cells = p["cells"]
assert [c["index"] for c in cells] == list(range(6)), cells            # void, pool, system x 2 reps
assert {c["allocator"] for c in cells} == {"void", "pool", "system"}
assert all(c["command"][1] == "run" and "--allocator" in c["command"] for c in cells)
assert p["plan"]["repetitions"] == 2 and p["plan"]["thread_counts"] == [1]
PY
"$ALLOCSTRESS" matrix --plan "$T/plan.json" --out "$T/planned.json" >/dev/null 2>"$T/log" || fail "matrix --plan exited $?: $(tail -2 "$T/log")"
"$ALLOCSTRESS" matrix "${R[@]}" --out "$T/direct.json" >/dev/null 2>"$T/log" || fail "matrix exited $?: $(tail -2 "$T/log")"
a=$(cells_of "$T/planned.json") && b=$(cells_of "$T/direct.json") && [ "$a" = "$b" ] && [ "$(grep -c $'\tok\t' <<<"$a")" = 6 ] && pass ||
  fail "plan run and direct run differ: $a / $b"
rm -f "$T/out" "$T/log" "$T"/planned.* "$T"/direct.*

printf '{"format": "something-else"}' >"$T/foreign.json"
cp "$T/plan.json" "$T/edited.json"
/usr/bin/python3 -c 'import json,sys; p=json.load(open(sys.argv[1])); p["cells"][2]["key"]="x"; json.dump(p, open(sys.argv[1], "w"))' "$T/edited.json"
mkdir -p "$T/readonly" && chmod 555 "$T/readonly"
expect_error 2 "not a plan file" -- "$ALLOCSTRESS" matrix --plan "$T/foreign.json" --out "$T/x.json"
expect_error 2 "cell 2 is listed as x but the plan makes it" -- "$ALLOCSTRESS" matrix --plan "$T/edited.json" --out "$T/x.json"
expect_error 2 "drop --reps" -- "$ALLOCSTRESS" matrix --plan "$T/plan.json" --reps 3 --out "$T/x.json"
expect_error 2 "needs -o FILE.json" -- "$ALLOCSTRESS" matrix "${R[@]}" --plan-only
expect_error 2 "already exists" -- "$ALLOCSTRESS" matrix "${R[@]}" --plan-only -o "$T/plan.json"
expect_error 2 "unknown --backend 'pbs' (accepted: local, slurm)" -- "$ALLOCSTRESS" matrix "${R[@]}" --backend pbs
expect_error 2 "applies to --backend slurm only" -- "$ALLOCSTRESS" matrix "${R[@]}" --partition debug
# No Slurm on PATH at all (a PATH without the Slurm client commands).
expect_error 2 "sbatch is not on PATH" -- env PATH=/nonexistent "$ALLOCSTRESS" matrix "${R[@]}" --backend slurm --results-dir "$T/d"
# With the Slurm client commands installed (the slurm tests install them): a SLURM_CONF naming no
# file, and a configuration naming a controller nobody runs.
if [ -n "$(command -v sbatch)" ] && [ -n "$(command -v scontrol)" ] && [ -n "$(command -v squeue)" ]; then
  expect_error 2 "which does not exist" -- env SLURM_CONF="$T/none.conf" "$ALLOCSTRESS" matrix "${R[@]}" --backend slurm --results-dir "$T/d"
  printf 'ClusterName=none\nSlurmctldHost=localhost\nSlurmctldPort=1\nNodeName=localhost\nPartitionName=p Nodes=localhost\n' >"$T/slurm.conf"
  expect_error 2 "controller is unreachable" -- env SLURM_CONF="$T/slurm.conf" "$ALLOCSTRESS" matrix "${R[@]}" --backend slurm --results-dir "$T/d"
else
  skip_part slurm-client "sbatch, scontrol or squeue is not on PATH (Debian slurm-wlm, which scripts/setup-deps.sh installs)"
fi
expect_error 2 "does not exist" -- "$ALLOCSTRESS" slurm status "$T/missing"
expect_error 2 "slurm needs a command (accepted: submit, status, merge, run-cell" -- "$ALLOCSTRESS" slurm
expect_error 2 "does not exist" -- "$ALLOCSTRESS" slurm merge "$T/missing" -o "$T/x.json"
expect_error 2 "cannot open the plan file" -- "$ALLOCSTRESS" slurm merge "$T/readonly" -o "$T/x.json"
finish
