# ctest: labels=cli timeout=600 env=@cli serial
# `--age SPEC`: a cell on an aged heap.  `run --age` gives a record of mode aged whose ageing block
# counts what the workers left live, with the same op stream as the fresh cell; a matrix with
# --age adds an aged cell and its warmed control beside each timing cell of alloc-test and
# fleet-profile (void aside) in every repetition, whose plan entries rerun as they are, and shows
# the ageing penalty table in the .md and the HTML report, the results valid.  Bad specs and workloads that do not age get one
# error line and exit 2.
source "$(dirname "$0")/../lib.sh"
VALIDATOR="$(dirname "$0")/../validate_results.py"
SCHEMA="$(dirname "$0")/../../../results/schema.json"

record() {  # the fields this test reads from a run's record, one line
  /usr/bin/python3 -c "
import json, sys
r = json.loads(sys.stdin.read().strip().splitlines()[-1])
a = r.get('ageing') or {}
print(r['status'], r['mode'], r.get('op_stream_hash'), a.get('survivors', '-'), a.get('corrupted_survivors', '-'), a.get('bytes', '-'),
      a.get('blocks', '-'), r.get('reason'))"
}

# keep=0.5 spread: every second block in allocation order survives, so survivors are half the
# blocks (rounded either way); the blocks fill the 4 MiB heap to within one block (16 KiB).
for a in system jemalloc pool; do
  read -r status mode hash survivors corrupted bytes blocks _ < <("$ALLOCSTRESS" run --allocator $a "${TINY[@]}" --age 4M,keep=0.5 2>"$T/err" | record)
  [ "$status $mode $corrupted" = "ok aged 0" ] && [ "$blocks" -gt 0 ] && [ "$survivors" -ge $((blocks / 2)) ] && [ "$survivors" -le $(((blocks + 1) / 2)) ] \
    && [ "$bytes" -le 4194304 ] && [ "$bytes" -gt $((4194304 - 16384)) ] && pass \
    || fail "$a aged run: status $status mode $mode survivors $survivors of $blocks blocks, corrupted $corrupted, bytes $bytes: $(tail -1 "$T/err")"
  read -r fstatus fmode fhash _ < <("$ALLOCSTRESS" run --allocator $a "${TINY[@]}" 2>"$T/err" | record)
  [ "$fmode" = timing ] && [ "$fhash" = "$hash" ] && pass || fail "$a: the aged op stream $hash is not the fresh one's $fhash ($fmode)"
done
# pattern=random, keep 0.25: each block survives on its own draw, so survivors are Binomial(blocks,
# 1/4) and, by Hoeffding, their share is within sqrt(ln(2/P) / (2 blocks)) of 1/4 at P = 1e-6 (0.04
# for the ~4,400 blocks of 64..4K here).
read -r status mode _ survivors _ _ blocks _ < <("$ALLOCSTRESS" run --allocator system --workload fleet-profile --heap 4194304 --iterations 100000 --threads 2 \
  --age 4M,pattern=random,sizes=64..4K 2>"$T/err" | record)
[ "$status $mode" = "ok aged" ] && /usr/bin/python3 -c "import math, sys; n, k = $blocks, $survivors; sys.exit(0 if abs(k / n - 0.25) <= math.sqrt(math.log(2e6) / (2 * n)) else 1)" \
  && pass || fail "fleet-profile aged at 2 threads: $status $mode, $survivors survivors of $blocks blocks: $(tail -1 "$T/err")"

out="$T/aged"
"$ALLOCSTRESS" matrix --out "$out.json" "${TINY[@]}" --allocators system,jemalloc --threads 1 --reps 3 --no-counts --age 4M \
  >"$out.out" 2>"$out.err" && pass || fail "matrix --age exited $?: $(tail -3 "$out.err")"
cells_of "$out.json" >/dev/null && pass || fail "results with aged cells do not validate: $(cells_of "$out.json" | head -3)"
/usr/bin/python3 - "$out.json" <<'PY' && pass || fail "the aged cells of the matrix"
import json, sys
doc = json.load(open(sys.argv[1]))
aged = sorted((r["allocator"], r["cell_key"]) for r in doc["benchmarks"] if r.get("mode") == "aged")
want = sorted((a, f"alloc-test/{a}/threads:1/{m}/rep:{k}") for a in ("system", "jemalloc") for k in range(3) for m in ("aged", "aged:warmed"))
bad = [] if aged == want else [f"aged cells {aged}, wanted {want}"]
bad += [f"{r['cell_key']}: {r['status']} {r.get('reason')}" for r in doc["benchmarks"] if r.get("mode") == "aged" and r["status"] != "ok"]
bad += [f"{r['cell_key']}: no net cost" for r in doc["benchmarks"] if r.get("mode") == "aged" and not isinstance(r.get("net_ns_per_pair"), float)]
print("\n".join(bad), file=sys.stderr)
sys.exit(1 if bad else 0)
PY
grep -q "### Ageing penalty (--age 4M" "$out.md" && grep -q "| alloc-test | jemalloc | 1 | " "$out.md" && pass \
  || fail "no ageing penalty table with a jemalloc row in $out.md"
grep -q "Ageing penalty (--age 4M" "$out-report/index.html" && grep -q "<td>alloc-test</td><td>jemalloc</td><td>1</td>" "$out-report/index.html" && pass \
  || fail "no ageing penalty table with a jemalloc row in the HTML report"

# The plan's aged entry reruns as itself, from the cell file and from its command.
"$ALLOCSTRESS" matrix --plan-only --out "$T/plan.json" "${TINY[@]}" --allocators system --threads 1 --reps 1 --no-counts --age 4M,keep=0.5 \
  2>"$T/err" && pass || fail "--plan-only with --age: $(tail -1 "$T/err")"
/usr/bin/python3 -c "
import json, sys
cells = [c for c in json.load(open('$T/plan.json'))['cells'] if c['mode'] == 'aged' and c['key'].endswith('/aged/rep:0')]
assert len(cells) == 1, cells
json.dump(cells[0], open('$T/cell.json', 'w'))
print(' '.join(cells[0]['command']))" >"$T/command" && pass || fail "the plan has no single aged cell"
read -r status mode _ survivors _ < <("$ALLOCSTRESS" run --cell "$T/cell.json" 2>"$T/err" | record)
[ "$status $mode" = "ok aged" ] && pass || fail "run --cell of the aged entry: $status $mode: $(tail -1 "$T/err")"
grep -q -- "--age 4M,keep=0.5" "$T/command" && pass || fail "the aged entry's command lacks --age: $(cat "$T/command")"

expect_error 2 "--age 'lots': the heap 'lots' is not a byte count (accepted: HEAP[,keep=F]" -- "$ALLOCSTRESS" run --allocator system "${TINY[@]}" --age lots
expect_error 2 "keep=2 is not in [0, 1)" -- "$ALLOCSTRESS" matrix --out "$T/bad.json" --age 4M,keep=2
expect_error 2 "--age applies to alloc-test and fleet-profile" -- "$ALLOCSTRESS" run --allocator system --workload bintree --age 4M
expect_error 2 "--age applies to alloc-test and fleet-profile (workloads that draw sizes), and this matrix has none of them" -- "$ALLOCSTRESS" matrix --out "$T/bad.json" --workload bintree --age 4M
expect_error 2 "--profile, --cache-sim, --counts, --age, --thp and --soak are separate runs: pass one of them" -- "$ALLOCSTRESS" run --allocator system "${TINY[@]}" --age 4M --counts
finish
