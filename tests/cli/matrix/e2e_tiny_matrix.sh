# ctest: labels=cli,e2e timeout=600 env=@cli serial
# End to end: a tiny matrix over every installed allocator produces a schema-valid results file
# in which every cell is ok, every allocator saw the same operation stream, and a Markdown table;
# the default counts tier adds one counts cell per allocator at 1 thread, net of void, ranked in
# its own table.  The summary opens with the verdict.
source "$(dirname "$0")/../lib.sh"

"$ALLOCSTRESS" matrix --out "$T/r.json" --threads 1-2 --reps 2 "${TINY[@]}" >"$T/out" 2>"$T/log" \
  || { fail "matrix exited $?: $(tail -3 "$T/log")"; finish; exit 1; }
cells=$(/usr/bin/python3 "$VALIDATOR" "$SCHEMA" "$T/r.json" --with-workload) || { fail "results file is not schema-valid"; finish; exit 1; }
pass
# every allocator of the default matrix: configurations and named-only allocators (list: "runs when named") are not in it
found=$("$ALLOCSTRESS" list | tail -n +3 | awk '$3 == "found" && !/runs when named/ {print $1}')
for a in $found; do
  [ "$(grep -c "^alloc-test	timing	$a	[12]	ok	" <<<"$cells")" = 4 ] && pass || fail "$a: not 4 ok timing cells: $(grep "	$a	" <<<"$cells")"
  [ "$(grep -c "^alloc-test	counts	$a	1	ok	" <<<"$cells")" = 1 ] && pass || fail "$a: no ok counts cell: $(grep "	$a	" <<<"$cells")"
  # a row, or (when every process of its cells was disturbed: one preemption is most of a TINY
  # cell's 8 ms, and the replacements may be disturbed too on a busy machine) a "Not measured" line
  { grep -q "^| $a" "$T/r.md" || grep -q "^- $a x alloc-test at [12] threads: [0-9]* cell(s) disturbed: " "$T/r.md"; } && pass \
    || fail "$a neither in the Markdown table nor listed as disturbed"
done
# The allocator's calls, against what the counts themselves imply: void runs the same operation
# stream with no allocator call, so a drop-in's net instructions are the instructions inside its
# malloc and free plus the cost of calling them through the dynamic linker (PLT), which is the
# harness's and the same for every library -- 8.88 per pair on x86-64 (2026-11-28: 8.878 for
# jemalloc, tcmalloc, tcmalloc_minimal, mimalloc and tbbmalloc, 8.883 for glibc).  So per pair:
# 0 < allocator calls <= net, net - calls within 0.01 of the same value for every drop-in (1,000
# instructions over the 100,000 pairs of this cell), and that value a call's cost, 1 to 20.  The
# figures are exact, the same on every run; the calls split into malloc and free exactly.
/usr/bin/python3 - "$T/r.json" <<'PY' && pass || fail "counts records are not net of void, or the allocator's calls are not attributed"
import json, sys
counts = {e["allocator"]: e for e in json.load(open(sys.argv[1]))["benchmarks"] if e.get("mode") == "counts"}
assert counts["void"]["counts"]["net_instructions_per_unit"] == 0
overhead = {}
for name, e in counts.items():
    c = e["counts"]
    assert c["provenance"].startswith("simulated (callgrind"), c["provenance"]
    assert c["net_instructions_per_unit"] == c["instructions_per_unit"] - counts["void"]["counts"]["instructions_per_unit"]
    k = c["kernel_events"]  # the native run's faults and memory system calls
    assert "n/a" not in k and k["reproducibility"].startswith("exact:") and k["minor_faults"] >= 0 and set(k["syscalls"]) >= {"mmap", "munmap", "madvise", "brk"}, (name, k)
    calls = c["allocator_calls"]
    if e["allocator_kind"] == "drop_in":
        by_function = calls["instructions_by_function"]
        assert set(by_function) >= {"malloc", "free"} and sum(by_function.values()) == calls["instructions"], (name, calls)
        assert abs(calls["instructions_per_unit"] - calls["instructions"] / c["units"]) <= 1e-9 * calls["instructions"], (name, calls, c["units"])
        assert 0 < calls["instructions_per_unit"] <= c["net_instructions_per_unit"], (name, calls, c["net_instructions_per_unit"])
        overhead[name] = c["net_instructions_per_unit"] - calls["instructions_per_unit"]
    else:
        assert calls["instructions"] is None and calls["provenance"].startswith("n/a("), (name, calls)
assert overhead and all(1 <= v <= 20 for v in overhead.values()), overhead
assert max(overhead.values()) - min(overhead.values()) <= 0.01, overhead
PY
grep -q "^### Counts tier: alloc-test (deterministic" "$T/r.md" && pass || fail "no counts table in the Markdown summary"
grep -q "| faults/1k pairs | memory syscalls/1k pairs |$" "$T/r.md" && ! grep -A30 "^### Counts tier" "$T/r.md" | grep "^| [0-9-]" | grep -q "| n/a | n/a |$" && pass \
  || fail "the counts table lacks the kernel events"
grep -q "different operation streams" "$T/r.json" && fail "allocators saw different operation streams" || pass
grep -q "net cycles/pair" "$T/out" && pass || fail "table not printed"
# the verdict comes first: cost and memory rankings per thread count, then the counts tier
/usr/bin/python3 - "$T/r.md" <<'PY' && pass || fail "the Markdown summary does not open with the verdict"
import sys
md = open(sys.argv[1]).read()
verdict = md.index("### Verdict")
assert verdict < md.index("### alloc-test"), "verdict after the tables"
# a cost ranking for each thread count where some allocator has an interval (a cell whose
# processes were all disturbed but one has none)
rows = [line.split("|")[1:-1] for line in md.split("### alloc-test", 1)[1].split("### Counts", 1)[0].splitlines()
        if line.startswith("| ") and not line.startswith("| allocator")]
for t in ("1", "2"):
    ranked = [r for r in rows if r[1].strip() == t and "void" not in r[0] and r[5].strip() != "n/a"]
    label = f"**alloc-test, {t} thread{'s' if t != '1' else ''}**: cost in net cycles/pair, cheapest first"
    assert (label in md) == bool(ranked), (t, ranked)
assert "**alloc-test, counts tier**" in md
assert "- 1: **" in md[verdict:]
PY
[ ! -e "$T/r.json.journal.jsonl" ] && pass || fail "journal left behind"
[ ! -e "$T/r.json.scratch" ] && pass || fail "the cells' scratch folder was left behind"
[ -s "$T/r-report/index.html" ] && grep -q "report:  $T/r-report/index.html" "$T/out" && pass || fail "matrix did not end with the HTML report"
# The report shows the counts tier's table too, with every allocator's row (the C++ table's text).
/usr/bin/python3 - "$T/r-report/index.html" "$T/r.json" <<'PY' && pass || fail "the HTML report lacks the counts table or a row of it"
import json, re, sys
page = open(sys.argv[1]).read()
section = page.split("<h2>Counts tier", 1)[1].split("<h2>", 1)[0]
assert "<h3>Counts tier: alloc-test (deterministic" in section, section[:300]
counted = {b["allocator"] for b in json.load(open(sys.argv[2]))["benchmarks"] if b.get("mode") == "counts" and b["status"] == "ok"}
rows = set(re.findall(r"<tr><td[^>]*>[-0-9]+</td><td[^>]*>([a-z_0-9]+)", section))
assert counted <= rows, (counted, rows)
PY
finish
