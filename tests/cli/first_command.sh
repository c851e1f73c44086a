# ctest: labels=cli,e2e timeout=1500 env=@cli serial
# The README's first command as a new user runs it, on a fresh build directory: scripts/run-matrix.sh
# installs what is missing, configures and builds what the report needs (the CLI and the Python
# extension), runs the matrix and ends with the verdict and the HTML report.  A fresh build takes
# minutes: this is the suite's slowest CLI test.
source "$(dirname "$0")/lib.sh"
source_dir=$(cd "$(dirname "$0")/../.." && pwd)

# The machine costs it measures first go to this test's folder, not the user's data folder.
export ALLOCSTRESS_COSTS=$T/costs.json
BUILD_DIR="$T/build" bash "$source_dir/scripts/run-matrix.sh" --allocators system,jemalloc --threads 1 --reps 2 --no-counts \
  "${TINY[@]}" -o "$T/r.json" >"$T/out" 2>"$T/err" || { fail "run-matrix.sh exited $?: $(tail -3 "$T/err")"; finish; exit 1; }
[ -x "$T/build/allocstress" ] && pass || fail "no CLI in the fresh build directory"
[ -s "$T/costs.json" ] && grep -q '"schema":"allocstress-machine-costs"' "$T/costs.json" && pass || fail "run-matrix.sh did not measure the machine costs"
grep -q "^### Verdict" "$T/out" && pass || fail "the console output has no verdict"
[ -s "$T/r-report/index.html" ] && grep -q "^report:  $T/r-report/index.html" "$T/out" && pass \
  || fail "run-matrix.sh did not end with the HTML report: $(grep -i "report" "$T/out" "$T/err" | tail -2)"
grep -q "<h2>Verdict</h2>" "$T/r-report/index.html" && pass || fail "the report does not show the verdict"
# The same target builds what the CLI preloads: the tracer (scripts/run-programs.sh traces every
# program with this build; a fresh clone once had no tracer and every trace failed).
"$T/build/allocstress" trace --out-prefix "$T/true" -- /bin/true >"$T/trace.out" 2>&1 && ls "$T"/true.*.ast >/dev/null 2>&1 && pass \
  || fail "the fresh build cannot trace: $(tail -2 "$T/trace.out")"
finish
