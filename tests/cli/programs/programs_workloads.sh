# ctest: labels=cli timeout=600 env=@cli serial
# Real-program workloads (cells/programs/program_cell.cpp): a tiny matrix of prog-lua and prog-sqlite3 on
# system, jemalloc and pool -- pool refused (in-tree), each drop-in measured in fresh program
# processes whose probe lines show the preload reached them, schema-valid records with the program metrics, a
# table and verdict lines (wall time; memory by peak RSS) -- and a program that is not installed
# skipped with its reason, in `allocstress workloads` and in the matrix.
source "$(dirname "$0")/../lib.sh"
for bin in lua5.4 sqlite3; do
  command -v "$bin" >/dev/null || { echo "SKIP: $bin is not installed (scripts/setup-deps.sh)"; exit 77; }
done
JEMALLOC=$("$ALLOCSTRESS" list 2>/dev/null | awk '$1 == "jemalloc" && $3 == "found" {print "jemalloc"}' | head -1)
ALLOCS=system,pool${JEMALLOC:+,jemalloc}

"$ALLOCSTRESS" matrix --workload prog-lua,prog-sqlite3 --allocators "$ALLOCS" --reps 2 --prog-work 15 \
  --out "$T/p.json" >/dev/null 2>"$T/log" || fail "program matrix failed: $(tail -3 "$T/log")"
grep -q "skipped: pool x prog-lua (a real program can only run under a drop-in allocator (LD_PRELOAD))" "$T/log" && pass \
  || fail "pool is not listed as skipped with the reason: $(cat "$T/log")"
cells=$(cells_of "$T/p.json") || fail "program results are not schema-valid: $cells"
/usr/bin/python3 - "$T/p.json" "$JEMALLOC" <<'PY' && pass || fail "program records are wrong"
import json, sys
doc = json.load(open(sys.argv[1]))
jemalloc = sys.argv[2]
it = [b for b in doc["benchmarks"] if b["run_type"] == "iteration"]
drop_ins = ["system"] + ([jemalloc] if jemalloc else [])
for w in ("prog-lua", "prog-sqlite3"):
    for a in drop_ins:
        rows = [b for b in it if b["workload"] == w and b["allocator"] == a]
        assert len(rows) == 2 and all(b["status"] == "ok" for b in rows), (w, a, [(b["status"], b.get("reason")) for b in rows])
        for b in rows:
            m = b["workload_metrics"]
            assert set(m) == {"wall_s", "user_s", "sys_s", "peak_rss_mib", "tree_peak_rss_mib", "minor_faults", "major_faults",
                              "context_switches", "processes", "throughput"}, m
            assert m["wall_s"] > 0 and m["user_s"] > 0 and m["peak_rss_mib"] > 1 and m["minor_faults"] > 0 and m["processes"] == 1, m
            assert m["throughput"] is None, m  # neither program prints a throughput
            assert b["threads"] == 1 and b["program"]["exit_code"] == 0 and b["program"]["name"] == w, b["program"]
            assert b["params"]["program"]["name"] == w and "workload" not in b["params"], b["params"]
            pre = b["program"]["preload"]
            assert pre["observed"] and pre["processes_reached"] == pre["processes"] == 1, pre
            if a == "system":
                assert pre["expected_library"] is None and pre["library_mapped"] is None, pre
            else:
                assert pre["library_mapped"] is True and pre["malloc_expected_from"] == pre["expected_library"], pre
            assert b["program"]["processes"][0]["malloc_from"] == pre["malloc_expected_from"], b["program"]["processes"]
    pool = [b for b in it if b["workload"] == w and b["allocator"] == "pool"]
    assert pool and all(b["status"] == "skipped" and "drop-in allocator" in b["reason"] for b in pool), pool
med = [b for b in doc["benchmarks"] if b["run_type"] == "aggregate" and b["aggregate_name"] == "median" and b["allocator"] == "system"]
assert med and all("wall_s" in b["intervals"] and "peak_rss_mib" in b["intervals"] for b in med), med
PY
grep -q '^### prog-lua$' "$T/p.md" && grep -q '^\*\*prog-sqlite3, 1 thread\*\*: cost in wall s' "$T/p.md" \
  && grep -q '^\*\*prog-lua, 1 thread\*\*: memory, peak RSS MiB' "$T/p.md" && pass || fail "no program table or verdict lines: $(cat "$T/p.md")"

# A program that is not installed: ALLOCSTRESS_PROGRAM_PATH holds sqlite3 only.
mkdir -p "$T/bin" && ln -s "$(command -v sqlite3)" "$T/bin/sqlite3"
export ALLOCSTRESS_PROGRAM_PATH="$T/bin"
"$ALLOCSTRESS" workloads | grep -q "prog-lua: not installed: lua5.4 from package lua5.4 (looked in $T/bin" && pass \
  || fail "allocstress workloads does not say prog-lua is not installed"
"$ALLOCSTRESS" matrix --workload prog-lua,prog-sqlite3 --allocators system --reps 1 --prog-work 10 \
  --out "$T/m.json" >/dev/null 2>"$T/log2" || fail "matrix with a missing program failed: $(tail -3 "$T/log2")"
grep -q "skipped: system x prog-lua (not installed: lua5.4 from package lua5.4" "$T/log2" && pass || fail "no skipped line: $(cat "$T/log2")"
cells_of "$T/m.json" >/dev/null || fail "results with a missing program are not schema-valid"
grep -q "^Not measured:" "$T/m.md" && grep -q "system x prog-lua at 1 threads: 1 cell(s) skipped: not installed: lua5.4" "$T/m.md" && pass \
  || fail "the summary does not list the missing program: $(cat "$T/m.md")"
expect_error 2 "nothing to run: every allocator is skipped for these workloads (prog-lua on system: not installed: lua5.4" \
  -- "$ALLOCSTRESS" matrix --workload prog-lua --allocators system --reps 1 --no-counts --out "$T/n.json"
unset ALLOCSTRESS_PROGRAM_PATH
expect_error 2 "prog-lua cannot take --threads 2: a program cell is one program process" \
  -- "$ALLOCSTRESS" matrix --workload prog-lua --allocators system --threads 2 --no-counts --out "$T/n.json"
finish
