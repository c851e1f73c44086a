# ctest: labels=cli timeout=600 env=@cli serial
# The counts tier of a real program (`bench --counts`), against independent references: a test
# program whose mallocs are given on its command line (support/probe_target.c: `malloc N`, each
# block freed at once), run at two lengths, N and N + 2000.  The differences between the lengths
# are the program's own calls, whatever the loader and libc do at start-up:
# - under the allocator whose every malloc is one mmap and every free one munmap
#   (support/mmap_malloc.c), 2000 more of each, exactly, and 2000 more faults (each block's header
#   is written), within the 8 faults the records state for a whole process (up to 6 seen);
# - under the allocator of known cost (support/known_cost_malloc.c: malloc 6 instructions, free 1),
#   exactly 7 x 2000 more instructions in allocator calls.
# The kernel events also price: the record's kernel part is the events times the costs file's.
source "$(dirname "$0")/../lib.sh"
[ -x "${PROBE_TARGET:-}" ] || { echo "FAIL: PROBE_TARGET (the test program) is not built"; exit 1; }
export ALLOCSTRESS_COSTS="$T/costs.json"
"$ALLOCSTRESS" calibrate --costs --repeats 5 -o "$ALLOCSTRESS_COSTS" >/dev/null 2>"$T/cal" || fail "calibrate --costs failed: $(tail -1 "$T/cal")"
ALLOCS=(--add-allocator "mm=$MMAP_MALLOC" --allocators mm)
[ -n "${KNOWN_COST_MALLOC:-}" ] && ALLOCS=(--add-allocator "mm=$MMAP_MALLOC" --add-allocator "kc=$KNOWN_COST_MALLOC" --allocators mm,kc)
for n in 1000 3000; do
  "$ALLOCSTRESS" bench --counts "${ALLOCS[@]}" --reps 1 -o "$T/b$n.json" -- "$PROBE_TARGET" malloc $n >/dev/null 2>"$T/err$n" \
    || fail "bench --counts at $n mallocs failed: $(tail -2 "$T/err$n")"
done
cells_of "$T/b3000.json" >/dev/null || fail "bench --counts results are not schema-valid"
/usr/bin/python3 - "$T/b1000.json" "$T/b3000.json" "$ALLOCSTRESS_COSTS" <<'PY' && pass || fail "the program's counts miss the reference"
import json, sys
def counts(path):
    return {b["allocator"]: b["counts"] for b in json.load(open(path))["benchmarks"] if b.get("mode") == "counts" and b["status"] == "ok"}
short, long = counts(sys.argv[1]), counts(sys.argv[2])
costs = json.load(open(sys.argv[3]))["costs"]
assert "mm" in short and "mm" in long, (short.keys(), long.keys())
for c in (short["mm"], long["mm"]):
    k = c["kernel_events"]
    assert "n/a" not in k and k["reproducibility"].startswith("near-exact:"), k
    assert sum(k["other_calls"].values()) == k["syscalls"]["other"] and "execve" in k["other_calls"], k["other_calls"]
    # The kernel part is the events at the file's costs; other calls at the bare call's.
    want = k["minor_faults"] * costs["minor_fault"]["median"] + sum(
        n * costs[name if name in costs else "syscall"]["median"] for name, n in k["syscalls"].items())
    assert abs(c["estimated_kernel_cycles"] - want) <= 1e-6 * want, (c["estimated_kernel_cycles"], want)
    assert c["estimated_cycles"] == c["estimated_user_cycles"] + c["estimated_kernel_cycles"], c
a, b = short["mm"]["kernel_events"], long["mm"]["kernel_events"]
assert b["syscalls"]["mmap"] - a["syscalls"]["mmap"] == 2000, (a["syscalls"], b["syscalls"])
assert b["syscalls"]["munmap"] - a["syscalls"]["munmap"] == 2000, (a["syscalls"], b["syscalls"])
assert abs(b["minor_faults"] - a["minor_faults"] - 2000) <= 10, (a["minor_faults"], b["minor_faults"])
if "kc" in short:
    grew = long["kc"]["allocator_calls"]["instructions"] - short["kc"]["allocator_calls"]["instructions"]
    assert grew == 7 * 2000, grew
PY
# The Markdown summary and the report show the program's counts table: whole-run figures, a row per allocator.
grep -q "^### Counts tier: allocstress_test_probe_target (near-exact" "$T/b3000.md" && grep -q "| faults | memory syscalls | other syscalls |$" "$T/b3000.md" \
  && grep -q "<h3>Counts tier: allocstress_test_probe_target (near-exact" "$T/b3000-report/index.html" && pass \
  || fail "the program's counts table is missing from the summary or the report"
# Run twice, the program's system calls are identical and its faults within the stated tolerance: a
# whole process's faults move by up to 6 between runs whatever its size (/bin/true: 141-147 over 50
# runs), so 8 or 0.5%, whichever is larger.
"$ALLOCSTRESS" bench --counts "${ALLOCS[@]}" --reps 1 -o "$T/again.json" -- "$PROBE_TARGET" malloc 3000 >/dev/null 2>"$T/err" \
  || fail "second bench --counts failed: $(tail -2 "$T/err")"
/usr/bin/python3 - "$T/b3000.json" "$T/again.json" <<'PY' && pass || fail "two runs of the program's kernel events differ"
import json, sys
def kernel(path):
    return {b["allocator"]: b["counts"]["kernel_events"] for b in json.load(open(path))["benchmarks"] if b.get("mode") == "counts"}
one, two = kernel(sys.argv[1]), kernel(sys.argv[2])
for a in one:
    assert one[a]["syscalls"] == two[a]["syscalls"], (a, one[a]["syscalls"], two[a]["syscalls"])
    assert abs(one[a]["minor_faults"] - two[a]["minor_faults"]) <= max(8, 0.005 * one[a]["minor_faults"]), (a, one[a]["minor_faults"], two[a]["minor_faults"])
PY
finish
