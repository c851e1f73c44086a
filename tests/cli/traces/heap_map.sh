# ctest: labels=cli timeout=600 env=@cli,MAKE_TRACE serial
# Heap maps end to end (replay --heap-map N): a generated trace replayed under system and jemalloc
# (and the void baseline) writes, in each record, a heap map of N frames that is schema-valid and
# consistent with the trace (the last frame is the end of the trace, its requested bytes the
# trace's live bytes at the end; live <= spanned); the report's replay section draws it; without
# the option there is none; bad values are refused with one line naming the accepted range.
source "$(dirname "$0")/../lib.sh"
: "${MAKE_TRACE:?set by CTest}"

"$MAKE_TRACE" "$T/one.ast" 1 20000 0 >/dev/null
"$MAKE_TRACE" "$T/three.ast" 3 20000 40 >/dev/null
allocators=system
"$ALLOCSTRESS" list | tail -n +3 | awk '$3 == "found" {print $1}' | grep -qx jemalloc && allocators=system,jemalloc

# The matrix form, the report included.
timeout 300 "$ALLOCSTRESS" matrix --workload replay --trace "$T/one.ast" --heap-map 20 --allocators "$allocators" --reps 1 --no-counts \
  --out "$T/r.json" >"$T/out" 2>"$T/log" || fail "matrix --heap-map 20 exited $?: $(tail -3 "$T/log")"
cells=$(cells_of "$T/r.json") && pass || fail "results not schema-valid: $cells"
/usr/bin/python3 - "$T/r.json" "$allocators" <<'EOF_PY' && pass || fail "heap maps missing or inconsistent"
import base64, json, sys
records = [b for b in json.load(open(sys.argv[1]))["benchmarks"] if b.get("run_type") == "iteration" and b["status"] == "ok"]
# Every record has its heap map, the repetitions the matrix added beyond --reps (adaptive, disturbed) too.
assert {r["allocator"] for r in records} == {"void", *sys.argv[2].split(",")}, [r["allocator"] for r in records]
for r in records:
    hm = r["heap_map"]
    assert hm["frames"] == 20, hm
    if r["allocator"] == "void":
        assert "same buffer" in hm["unavailable"], hm
        continue
    assert "unavailable" not in hm, hm["unavailable"]
    assert len(hm["op_index"]) == 20 and hm["op_index"][-1] == r["ops"] - 1, hm["op_index"]
    assert 0 < hm["bins"] <= 512 and len(base64.b64decode(hm["live_fraction"])) == 20 * hm["bins"]
    assert hm["requested_bytes"][-1] == r["trace"]["end_live_requested_bytes"], (hm["requested_bytes"][-1], r["trace"])
    assert hm["overlapped_frames"] == 0  # one thread: the replay's order is the recorded one
    assert hm["live_bytes"] == hm["requested_bytes"]
    assert all(0 < l <= s for l, s in zip(hm["live_bytes"], hm["spanned_bytes"]) if l)
    assert all(f is None or 0 <= f < 1 for f in hm["fragmentation"])
    assert sum(c for _, c, _ in hm["spans"]) <= hm["chunks"] * hm["chunk_bytes"]
EOF_PY
page="$T/r-report/index.html"
for a in ${allocators//,/ }; do
  grep -q "Heap map of $a: where the blocks live at each of 20 evenly spaced points" "$page" && pass || fail "the report lacks $a's heap map"
done
ls "$T/r-report" | grep -q -- "-system-heap-map.svg" && pass || fail "no heap-map SVG beside the report: $(ls "$T/r-report")"

# The run form at three threads (cross-thread frees); without --heap-map, no heap map.
rec=$(timeout 120 "$ALLOCSTRESS" run --allocator system --workload replay --trace "$T/three.ast" --heap-map 5) || fail "run --heap-map 5 failed"
got=$(/usr/bin/python3 -c "import json,sys; r=json.loads(sys.stdin.read().strip().splitlines()[-1]); h=r['heap_map']; print(r['status'], h['frames'], len(h['spanned_bytes']), h['op_index'][-1] == r['ops'] - 1)" <<<"$rec")
[ "$got" = "ok 5 5 True" ] && pass || fail "run --heap-map 5 at three threads: $got"
rec=$(timeout 120 "$ALLOCSTRESS" run --allocator system --workload replay --trace "$T/one.ast") || fail "run without --heap-map failed"
got=$(/usr/bin/python3 -c "import json,sys; r=json.loads(sys.stdin.read().strip().splitlines()[-1]); print(r['status'], 'heap_map' in r, r['params']['heap_map_frames'])" <<<"$rec")
[ "$got" = "ok False 0" ] && pass || fail "a replay without --heap-map: $got"

# Bad values: one line naming the accepted range, exit 2, nothing written.
rm -rf "$T/r.json" "$T/r.md" "$T/r-report" "$T/out" "$T/log"
expect_error 2 "--heap-map 1 is out of range (accepted: 2..1000 frames, or 0 for no heap map)" -- "$ALLOCSTRESS" run --allocator system --workload replay --trace "$T/one.ast" --heap-map 1
expect_error 2 "--heap-map 1001 is out of range (accepted: 2..1000" -- "$ALLOCSTRESS" matrix --workload replay --trace "$T/one.ast" --heap-map 1001 --allocators system --out "$T/bad.json"
expect_error 2 "--heap-map 'many' is not a whole number" -- "$ALLOCSTRESS" replay "$T/one.ast" --heap-map many --allocators system --out "$T/bad.json"
expect_error 2 "--heap-map applies to replay only" -- "$ALLOCSTRESS" matrix --workload alloc-test --heap-map 20 --allocators system --out "$T/bad.json"

finish
