# ctest: labels=cli timeout=600 env=@cli serial
# Plan and cell files are checked before anything runs (issue 29): `matrix --plan` checks every
# cell of the file with the checks of `run --cell` (plan/cell_check.hpp), refuses a cell whose
# fields contradict its command or the plan, naming the cell and the field, and counts are whole
# numbers everywhere a plan or a cell holds one ("threads": -3 is -3, not 4294967293).  Each bad
# file: one exact stderr line, exit 2, no results file and no journal.
source "$(dirname "$0")/../lib.sh"
R=(--allocators system,pool --threads 1 --reps 1 --no-counts "${TINY[@]}")
"$ALLOCSTRESS" matrix "${R[@]}" --plan-only -o "$T/plan.json" >/dev/null 2>"$T/log" || fail "--plan-only exited $?: $(cat "$T/log")"
rm -f "$T/log"
system=$(/usr/bin/python3 -c 'import json, sys; print([c["allocator"] for c in json.load(open(sys.argv[1]))["cells"]].index("system"))' "$T/plan.json")

# edited NAME PYTHON: $T/NAME.json, the plan with PYTHON applied to `p` (the plan) and `c` (its system cell).
edited() {
  /usr/bin/python3 - "$T/plan.json" "$T/$1.json" "$system" "$2" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
c = p["cells"][int(sys.argv[3])]
def arg(flag, value):  # sets the value after `flag` in the cell's command
    c["command"][c["command"].index(flag) + 1] = value
exec(sys.argv[4])
json.dump(p, open(sys.argv[2], "w"), indent=1)
PY
}
plan() { "$ALLOCSTRESS" matrix --plan "$T/$1.json" --out "$T/out.json"; }
at="cell $system (system x alloc-test"

# Counts that are not whole numbers, refused as what they are.
edited threads-text 'c["threads"] = "x"'
expect_exact 2 "allocstress: error: $T/threads-text.json: $at x x threads): \"threads\" must be a whole number ≥ 1, got \"x\"" -- plan threads-text
edited threads-negative 'c["threads"] = -3'
expect_exact 2 "allocstress: error: $T/threads-negative.json: $at x -3 threads): \"threads\" must be a whole number ≥ 1, got -3" -- plan threads-negative
edited threads-fraction 'c["threads"] = 2.5'
expect_exact 2 "allocstress: error: $T/threads-fraction.json: $at x 2.5 threads): \"threads\" must be a whole number ≥ 1, got 2.5" -- plan threads-fraction
edited iterations-negative 'c["params"]["iterations_per_thread"] = -3; arg("--iterations", "-3")'
expect_exact 2 "allocstress: error: $T/iterations-negative.json: $at x 1 thread): params: \"iterations_per_thread\" must be a whole number ≥ 0, got -3" -- plan iterations-negative
edited repetitions 'p["plan"]["repetitions"] = -1'
expect_exact 2 "allocstress: error: $T/repetitions.json: not a valid matrix plan: \"repetitions\" must be a whole number ≥ 1, got -1" -- plan repetitions
# Far more repetitions than cells listed: refused before the plan is expanded (it took all memory).
edited many-reps 'p["plan"]["repetitions"] = 4000000000'
n_listed=$(/usr/bin/python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["cells"]))' "$T/many-reps.json")
expect_exact 2 "allocstress: error: $T/many-reps.json: its cell list does not match its plan ($n_listed cells listed, 4000000000 repetitions planned): written by another version of allocstress?" -- plan many-reps
edited thread-counts 'p["plan"]["thread_counts"] = [1.5]'
expect_exact 2 "allocstress: error: $T/thread-counts.json: not a valid matrix plan: \"thread_counts[0]\" must be a whole number ≥ 1, got 1.5" -- plan thread-counts

# A cell's fields against its command, and against the plan (what runs).
edited reviewer 'c["allocator"] = "jemalloc"; c["params"]["iterations_per_thread"] = 5'
expect_exact 2 "allocstress: error: $T/reviewer.json: cell $system (jemalloc x alloc-test x 1 thread): \"allocator\" is jemalloc but the cell's command says system" -- plan reviewer
edited iterations 'c["params"]["iterations_per_thread"] = 5'
expect_exact 2 "allocstress: error: $T/iterations.json: $at x 1 thread): \"iterations_per_thread\" is 5 but the cell's command says 200000" -- plan iterations
edited command-only 'arg("--slots", "4096")'
expect_exact 2 "allocstress: error: $T/command-only.json: $at x 1 thread): \"slots_total\" is 65536 but the cell's command says 4096" -- plan command-only
edited both 'c["params"]["iterations_per_thread"] = 5; arg("--iterations", "5")'
expect_exact 2 "allocstress: error: $T/both.json: $at x 1 thread): \"iterations_per_thread\" is 5 but the plan makes it 200000 (a plan file runs its \"plan\": plan the matrix again to change a cell)" -- plan both
edited mode 'c["command"].append("--counts")'
expect_exact 2 "allocstress: error: $T/mode.json: $at x 1 thread): \"mode\" is timing but the cell's command says counts" -- plan mode
# The checks of `run --cell`: an allocator the catalogue lacks, a parameter its workload refuses.
edited unknown 'c["allocator"] = "nosuch"; arg("--allocator", "nosuch")'
expect_error 2 "$T/unknown.json: cell $system (nosuch x alloc-test x 1 thread): unknown allocator 'nosuch'" -- plan unknown
edited exponent 'c["params"]["max_size_exp"] = 99; arg("--max-size-exp", "99")'
expect_exact 2 "allocstress: error: $T/exponent.json: $at x 1 thread): max size exponent E out of range: 99 (accepted: 3..28)" -- plan exponent

# run --cell: the same checks, the same words.
cell() {  # cell NAME PYTHON: $T/NAME.cell.json, the plan's system cell with PYTHON applied to `c`
  /usr/bin/python3 - "$T/plan.json" "$T/$1.cell.json" "$system" "$2" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["cells"][int(sys.argv[3])]
exec(sys.argv[4])
json.dump(c, open(sys.argv[2], "w"))
PY
}
cell_refused() {  # cell_refused NAME PYTHON MESSAGE: that cell, refused by run --cell with exactly MESSAGE
  cell "$1" "$2"
  expect_exact 2 "allocstress: error: cell file $T/$1.cell.json: $3" -- "$ALLOCSTRESS" run --cell "$T/$1.cell.json"
}
cell_refused negative 'c["threads"] = -3' "\"threads\" must be a whole number ≥ 1, got -3"
cell_refused text 'c["threads"] = "x"' "\"threads\" must be a whole number ≥ 1, got \"x\""
cell_refused fraction 'c["threads"] = 2.5' "\"threads\" must be a whole number ≥ 1, got 2.5"
cell_refused huge 'c["threads"] = 4294967296' "\"threads\" must be a whole number from 1 to 4294967295, got 4294967296"
cell_refused contradicted 'c["params"]["iterations_per_thread"] = 5' "\"iterations_per_thread\" is 5 but the cell's command says 200000"
cell_refused sample 'c["mode"] = "profile"; c["profile"] = {"sample_every": -1}; del c["command"]' "profile: \"sample_every\" must be a whole number ≥ 1, got -1"
# A cell without a command (as the backends hand them over) runs; one whose command agrees runs too.
cell plain 'del c["command"]'
"$ALLOCSTRESS" run --cell "$T/plain.cell.json" >/dev/null 2>"$T/log" && pass || fail "run --cell without a command: $(tail -1 "$T/log")"
cell agreeing 'pass'
"$ALLOCSTRESS" run --cell "$T/agreeing.cell.json" >/dev/null 2>"$T/log" && pass || fail "run --cell of a plan's cell: $(tail -1 "$T/log")"
rm -f "$T/log"

# The plan as written runs.
"$ALLOCSTRESS" matrix --plan "$T/plan.json" --out "$T/ran/out.json" >/dev/null 2>"$T/ran.log" && pass || fail "matrix --plan exited $?: $(tail -2 "$T/ran.log")"
finish
