# ctest: labels=cli timeout=600 env=@safety serial
# The misuse battery through the CLI (`allocstress misuse`, `matrix --misuse`) and the conformance
# preflight of every matrix.
#   - The positive controls, added as drop-ins: catch_all gives detected for every case (error
#     returned for malloc-zero, its one NULL) and catches every scored case; catch_none gives
#     silent for every case and catches none.  A case that could not tell them apart fails here.
#   - The default battery (the packaged drop-ins and scudo): valid results, every case under every
#     allocator, glibc's and scudo's well-known double-free checks found with their messages, and
#     the same outcome table in two runs.
#   - A matrix with the 8-byte-aligned and the 1-byte-misaligned test libraries: both flagged
#     non-conforming by the check (its message, not a crash), left out of the ranking, their
#     records flagged.  `matrix --misuse` adds the safety section and the verdict's safety lines.
#   - Bad input: one error line, exit 2, nothing written.
source "$(dirname "$0")/../lib.sh"
: "${CATCH_ALL_MALLOC:?set by CTest}" "${CATCH_NONE_MALLOC:?}" "${ALIGN8_MALLOC:?}" "${MISALIGN1_MALLOC:?}"

# Prints "allocator case outcome" per outcome (after validating the file), then "score allocator caught scored".
outcomes_of() {
  /usr/bin/python3 "$VALIDATOR" "$SCHEMA" "$1" >/dev/null || { echo "schema violation in $1"; return; }
  /usr/bin/python3 -c "
import json, sys
s = json.load(open('$1'))['safety']
for a in s['allocators']:
    for o in a['outcomes']:
        print(a['allocator'], o['case'], o['outcome'].replace(' ', '_'))
    print('score', a['allocator'], a['caught'], a['scored'])"
}

# --- the positive controls -------------------------------------------------------------------
"$ALLOCSTRESS" misuse --allocators catch_all,catch_none --add-allocator "catch_all=$CATCH_ALL_MALLOC" \
  --add-allocator "catch_none=$CATCH_NONE_MALLOC" --processes 2 -o "$T/controls.json" >"$T/controls.out" 2>"$T/err" \
  && pass || fail "misuse on the controls: $(tail -1 "$T/err")"
outcomes_of "$T/controls.json" >"$T/controls.txt"
cases=$(grep -c '^catch_all ' "$T/controls.txt")
[ "$cases" -ge 24 ] && [ "$(grep -c '^catch_none ' "$T/controls.txt")" = "$cases" ] && pass || fail "the controls ran $cases cases: $(head -3 "$T/controls.txt")"
while read -r allocator case outcome; do
  [ "$allocator" = score ] && continue
  want=detected
  [ "$allocator" = catch_none ] && want=silent
  [ "$allocator $case" = "catch_all malloc-zero" ] && want=error_returned
  [ "$outcome" = "$want" ] && pass || fail "control $allocator, case $case: $outcome (wanted $want)"
done <"$T/controls.txt"
read -r _ _ all_caught all_scored < <(grep '^score catch_all ' "$T/controls.txt")
read -r _ _ none_caught none_scored < <(grep '^score catch_none ' "$T/controls.txt")
[ "$all_caught" = "$all_scored" ] && [ "$all_scored" -ge 22 ] && [ "$none_caught $none_scored" = "0 $all_scored" ] && pass \
  || fail "scores: catch_all $all_caught of $all_scored, catch_none $none_caught of $none_scored"
grep -q '^| \*\*caught\*\* | | \*\*22 of 22\*\* | \*\*0 of 22\*\* |' "$T/controls.out" && pass || fail "no score row in the table: $(grep caught "$T/controls.out")"
[ -s "$T/controls.md" ] && pass || fail "no Markdown beside the results"

# --- the default battery, twice ----------------------------------------------------------------
for run in 1 2; do
  "$ALLOCSTRESS" misuse --processes 3 -o "$T/default$run.json" >/dev/null 2>"$T/err" && pass || fail "default battery $run: $(tail -1 "$T/err")"
  outcomes_of "$T/default$run.json" | grep -v '^score' >"$T/default$run.txt"
done
for a in system jemalloc tcmalloc tcmalloc_minimal mimalloc tbbmalloc scudo; do
  [ "$(grep -c "^$a " "$T/default1.txt")" = "$cases" ] && pass || fail "$a: $(grep -c "^$a " "$T/default1.txt") of $cases cases"
done
if cmp -s "$T/default1.txt" "$T/default2.txt"; then pass; else fail "two runs gave different tables: $(diff "$T/default1.txt" "$T/default2.txt" | head -5)"; fi
/usr/bin/python3 - "$T/default1.json" <<'EOF' && pass || fail "the double-free anchors"
import json, sys
s = {a["allocator"]: {o["case"]: o for o in a["outcomes"]} for a in json.load(open(sys.argv[1]))["safety"]["allocators"]}
# glibc 2.36's tcache check and scudo's chunk header state: both stop a double free with their own words.
assert s["system"]["double-free"]["outcome"] == "detected" and "double free" in s["system"]["double-free"]["message"], s["system"]["double-free"]
assert s["scudo"]["double-free"]["outcome"] == "detected" and "Scudo ERROR" in s["scudo"]["double-free"]["message"], s["scudo"]["double-free"]
EOF

# compare: the same table twice is no change (exit 0); a lost detection is worse (exit 4).
"$ALLOCSTRESS" compare "$T/default1.json" "$T/default2.json" >"$T/cmp.out" 2>&1 && pass || fail "compare of two equal batteries: $(tail -3 "$T/cmp.out")"
/usr/bin/python3 - "$T/default2.json" "$T/lost.json" <<'EOF' || fail "could not write the edited file"
import json, sys
doc = json.load(open(sys.argv[1]))
system = next(a for a in doc["safety"]["allocators"] if a["allocator"] == "system")
next(o for o in system["outcomes"] if o["case"] == "double-free").update(outcome="silent", message="")
system["caught"] -= 1
json.dump(doc, open(sys.argv[2], "w"))
EOF
"$ALLOCSTRESS" compare "$T/default1.json" "$T/lost.json" >"$T/cmp.out" 2>&1 && rc=0 || rc=$?
[ "$rc" = 4 ] && grep -q "system, double-free: lost detection: detected → silent" "$T/cmp.out" && pass \
  || fail "compare of a lost detection: exit $rc: $(grep -i -A2 safety "$T/cmp.out")"
# report of a battery alone: the Safety section with the scores.
"$ALLOCSTRESS" report "$T/default1.json" -o "$T/report" >/dev/null 2>"$T/err" && grep -q "caught [0-9]* of 22" "$T/report/index.html" \
  && pass || fail "report of a misuse file: $(tail -1 "$T/err")"

# --- conformance in a matrix ---------------------------------------------------------------------
"$ALLOCSTRESS" matrix --allocators system,align8,misalign1 --add-allocator "align8=$ALIGN8_MALLOC" --add-allocator "misalign1=$MISALIGN1_MALLOC" \
  "${TINY[@]}" --reps 2 --no-counts --threads 1 -o "$T/conf.json" >"$T/conf.out" 2>"$T/err" || fail "matrix with the misaligning libraries: $(tail -1 "$T/err")"
/usr/bin/python3 "$VALIDATOR" "$SCHEMA" "$T/conf.json" >/dev/null && pass || fail "conformance matrix: schema"
/usr/bin/python3 - "$T/conf.json" "$T/conf.md" <<'EOF' && pass || fail "align8 and misalign1 flagged by the check and left out of the ranking"
import json, re, sys
doc = json.load(open(sys.argv[1]))
md = open(sys.argv[2]).read()
flags = {(e["allocator"], e.get("nonconforming", "")) for e in doc["benchmarks"] if e["allocator"] in ("align8", "misalign1")}
reasons = {a: r for a, r in flags}
assert re.match(r"alignment: malloc\(16\) returned 0x[0-9a-f]*8, not aligned to 16", reasons.get("align8", "")), flags
assert re.match(r"alignment: malloc\(2\) returned 0x[0-9a-f]*[13579bdf], not aligned to 2", reasons.get("misalign1", "")), flags
assert all(e.get("nonconforming") for e in doc["benchmarks"] if e["allocator"] in ("align8", "misalign1")), "a record without the flag"
verdict = md.split("### Verdict")[1].split("Left out of the rankings")[0]
assert "**align8**" not in verdict and "**misalign1**" not in verdict and "**system**" in verdict, verdict
assert "- **align8**: alignment: malloc(16)" in md and "- **misalign1**: alignment: malloc(2)" in md, md
EOF

# --- matrix --misuse ------------------------------------------------------------------------------
"$ALLOCSTRESS" matrix --allocators system,jemalloc "${TINY[@]}" --reps 2 --no-counts --threads 1 --misuse -o "$T/with.json" >"$T/with.out" 2>"$T/err" \
  && pass || fail "matrix --misuse: $(tail -1 "$T/err")"
outcomes_of "$T/with.json" >"$T/with.txt"
[ "$(grep -c '^system ' "$T/with.txt")" = "$cases" ] && [ "$(grep -c '^jemalloc ' "$T/with.txt")" = "$cases" ] && ! grep -q '^void ' "$T/with.txt" \
  && pass || fail "matrix --misuse: the battery ran $(cut -d' ' -f1 "$T/with.txt" | sort | uniq -c | tr '\n' ' ')"
grep -q '^- \*\*jemalloc\*\*: detects [0-9]* of 22; [0-9.]*× system.s cost' "$T/with.md" && grep -q '### Safety: the misuse battery' "$T/with.md" \
  && pass || fail "matrix --misuse: no safety lines in the table: $(grep -A3 'Safety beside' "$T/with.md")"

# --- bad input ------------------------------------------------------------------------------------
expect_error 2 "'pool' is an in-tree backend" -- "$ALLOCSTRESS" misuse --allocators pool -o "$T/x.json"
expect_error 2 "unknown misuse case 'double-fre' (accepted: double-free," -- "$ALLOCSTRESS" misuse --allocators system --cases double-fre -o "$T/x.json"
expect_error 2 "unknown allocator 'jemallc': did you mean jemalloc?" -- "$ALLOCSTRESS" misuse --allocators jemallc -o "$T/x.json"
expect_error 2 "add a library with --add-allocator" -- "$ALLOCSTRESS" misuse --allocators system,foo=/no/lib.so -o "$T/x.json"
expect_error 2 "--timeout: 'abc' is not a number of seconds in [0.1, 3600]" -- "$ALLOCSTRESS" misuse --allocators system --timeout abc -o "$T/x.json"
expect_error 2 "--out $T/x.txt must end in .json" -- "$ALLOCSTRESS" misuse --allocators system -o "$T/x.txt"
expect_error 2 "--timeout: '0' is not a number of seconds in [0.1, 3600] (see allocstress misuse --help)" -- "$ALLOCSTRESS" misuse --allocators system --timeout 0 -o "$T/x.json"
expect_error 2 "--processes: '-3' is not a whole number >= 0 (see allocstress misuse --help)" -- "$ALLOCSTRESS" misuse --allocators system --processes -3 -o "$T/x.json"
expect_error 2 "--misuse applies to --backend local only" -- "$ALLOCSTRESS" matrix --misuse --backend slurm --results-dir "$T/r"
before=$(md5sum "$T/controls.json")
expect_error 2 "output file $T/controls.json already exists (pass --force to overwrite, or choose another --out)" -- "$ALLOCSTRESS" misuse --allocators system -o "$T/controls.json"
[ "$(md5sum "$T/controls.json")" = "$before" ] && pass || fail "a refused run changed the existing results file"

finish
