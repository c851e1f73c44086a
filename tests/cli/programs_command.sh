# `allocstress programs` (cli/programs_command.cpp): one program at a small work, under system and
# jemalloc (real runs) and pool too (its models): the merged results hold the real program, its
# replay and its fitted and sized models, schema-valid, each part's file and the program's trace
# and fit kept; the fidelity command reads the file (n < 4 allocators: flagged, never ranked); a
# program that is not installed is skipped with its reason; bad input: one line, exit 2, nothing
# written.
source "$(dirname "$0")/lib.sh"
command -v lua5.4 >/dev/null || { echo "SKIP: lua5.4 is not installed (scripts/setup-deps.sh)"; exit 77; }
JEMALLOC=$("$ALLOCSTRESS" list 2>/dev/null | awk '$1 == "jemalloc" && $3 == "found" {print "jemalloc"}' | head -1)
ALLOCS=system,pool${JEMALLOC:+,jemalloc}

"$ALLOCSTRESS" programs --programs prog-lua --allocators "$ALLOCS" --reps 2 --prog-work 10 --models replay,fitted,alloc-test \
  -o "$T/s.json" >"$T/out" 2>"$T/log" || fail "programs failed: $(tail -3 "$T/log")"
cells=$(cells_of "$T/s.json") || fail "merged results are not schema-valid: $cells"
/usr/bin/python3 - "$T/s.json" "$JEMALLOC" <<'PY' && pass || fail "the merged results lack a part"
import json, sys, os
doc = json.load(open(sys.argv[1]))
drop_ins = {"system"} | ({sys.argv[2]} if sys.argv[2] else set())
ok = {(b["workload"], b["allocator"]) for b in doc["benchmarks"] if b["run_type"] == "iteration" and b["status"] == "ok"}
assert {("prog-lua", a) for a in drop_ins} <= ok, ok
assert not any(w == "prog-lua" and a == "pool" for w, a in ok), ok  # in-tree: refused for the real program
for model in ("replay:prog-lua", "fitted:prog-lua", "alloc-test:prog-lua"):
    assert {(model, a) for a in drop_ins | {"pool"}} <= ok, (model, ok)
info = doc["context"]["programs"]["prog-lua"]
assert os.path.isfile(info["trace"]) and os.path.isfile(info["fit"]), info
assert len(doc["context"]["parts"]) == 4, doc["context"]["parts"]  # real, replay, fitted, alloc-test
PY
[ -s "$T/s.md" ] && grep -q '^### prog-lua$' "$T/s.md" && grep -q '^### replay:prog-lua$' "$T/s.md" && pass \
  || fail "the table lacks the program's or its replay's section"
"$ALLOCSTRESS" fidelity "$T/s.json" >"$T/fid" 2>&1 && grep -q "prog-lua | replay" "$T/fid" && grep -q "†" "$T/fid" && pass \
  || fail "fidelity table of the study: $(head -5 "$T/fid")"

# A program that is not installed: skipped with the reason, the others still run.
mkdir -p "$T/nobin"
ALLOCSTRESS_PROGRAM_PATH="$T/nobin" "$ALLOCSTRESS" programs --programs prog-lua --allocators system --reps 1 --prog-work 10 \
  --models replay -o "$T/none.json" >/dev/null 2>"$T/log2"
grep -q "prog-lua skipped: .*not installed" "$T/log2" && pass || fail "a missing program is not skipped with its reason: $(tail -3 "$T/log2")"

expect_error 2 "unknown program 'prog-nope' (accepted: prog-" -- "$ALLOCSTRESS" programs --programs prog-nope -o "$T/b1.json"
expect_error 2 "unknown model 'zipf' in --models (accepted: replay, fitted, alloc-test, lifetime)" -- "$ALLOCSTRESS" programs --models zipf -o "$T/b2.json"
expect_error 2 "--reps must be at least 1" -- "$ALLOCSTRESS" programs --reps 0 -o "$T/b3.json"
expect_error 2 "--prog-work must be a percentage" -- "$ALLOCSTRESS" programs --prog-work 0 -o "$T/b4.json"
expect_error 2 "already exists" -- "$ALLOCSTRESS" programs --programs prog-lua -o "$T/s.json"
# No tracer beside the executable: refused before anything runs (a fresh clone's build once lacked it
# and every program's trace failed after the real runs).
mkdir "$T/bin" && cp "$ALLOCSTRESS" "$T/bin/allocstress"
expect_error 2 "the tracer library is missing: neither $T/bin/liballocstress_trace.so" -- "$T/bin/allocstress" programs --programs prog-lua -o "$T/b5.json"
rm -rf "$T/bin"
for f in b1 b2 b3 b4 b5; do [ ! -e "$T/$f.json" ] && [ ! -e "$T/$f-programs" ] && pass || fail "bad input left $f behind"; done
finish
