# ctest: labels=cli timeout=600 env=@cli serial
# Peak RSS and the memory overhead against independent references: a sampler outside the cell
# process (tests/cli/references/rss_sampler.py: its /proc/PID/status every millisecond, and the kernel's
# ru_maxrss from wait4 when it is reaped) gives an upper bound of every resident-set size the cell
# had, and the workload's live bytes a lower bound of what its measured phase added:
#   peak_rss_bytes <= the sampler's peak: the largest VmHWM or VmRSS it read, or ru_maxrss (the
#     high-water mark at exit, after the phase) + the kernel's per-CPU counter slack (768 KiB on
#     this 2-CPU VM; the sampler says why), whichever is larger: the only slack of the model;
#   peak_rss_bytes - rss_before_bytes >= peak_live_requested_bytes (every block is written, so
#     resident) and, under the known-cost allocator (every malloc a fresh page of its own, written:
#     tests/support/known_cost_malloc.c), >= 4096 x mallocs, a count no code under test makes;
#   overhead_ratio = that growth / peak_live_requested_bytes, as results/README.md defines it.
source "$(dirname "$0")/../lib.sh"
SAMPLER="$(dirname "$0")/rss_sampler.py"

# measure NAME ARGS...: the cell's record and the sampler's account, in $T/NAME.json.
measure() {
  local name=$1
  shift
  /usr/bin/python3 "$SAMPLER" "$T/$name.json" "$ALLOCSTRESS" run "$@" 2>"$T/err" || fail "$name: the sampler failed: $(tail -1 "$T/err")"
}
# check NAME [PAGE_PER_MALLOC]: the bounds above for $T/NAME.json.
check() {
  /usr/bin/python3 - "$T/$1.json" "${2:-0}" <<'PY' && pass || fail "$1: peak RSS or overhead outside the independent bounds"
import json, sys
s = json.load(open(sys.argv[1]))
page_per_malloc = sys.argv[2] == "1"
assert s["exit_code"] == 0 and s["samples"] > 0, (s["exit_code"], s["samples"], s["stdout"][-300:])
r = json.loads(s["stdout"].strip().splitlines()[-1])
assert r["status"] == "ok", r.get("reason")
peak, before, live = r["peak_rss_bytes"], r["rss_before_bytes"], r["peak_live_requested_bytes"]
growth = peak - before
mib = lambda b: f"{b / 1048576:.2f} MiB"
assert peak <= s["peak"], f"reported peak RSS {mib(peak)} above the independent peak {mib(s['peak'])} (ru_maxrss {mib(s['ru_maxrss'])} + {mib(s['counter_slack'])}, sampled VmHWM {mib(s['max_vm_hwm'])}, VmRSS {mib(s['max_vm_rss'])})"
assert growth >= live > 0, f"RSS growth {mib(growth)} below the {mib(live)} the workload held live"
if page_per_malloc:
    assert growth >= 4096 * r["mallocs"], f"RSS growth {mib(growth)} below the {r['mallocs']} pages the known-cost allocator handed out"
ratio = r.get("overhead_ratio")
if ratio is not None:
    assert abs(ratio - growth / live) <= 1e-12 * ratio, (ratio, growth, live)
print(f"{r['allocator']}: peak {mib(peak)} <= {mib(s['peak'])}; growth {mib(growth)} >= live {mib(live)}; overhead {ratio}")
PY
}

# A live heap of 16 MiB (phase-plateau: it rises to --live-bytes and holds it; blocks up to 64 KiB)
# on glibc, a preloaded drop-in and an in-tree backend.
for a in system jemalloc pool; do
  measure "$a" --allocator "$a" --workload phase-plateau --live-bytes 16777216 --iterations 1500000
  check "$a"
done
# alloc-test under the known-cost allocator: 50,000 iterations, ~27,000 fresh pages (~105 MiB).
if [ -n "${KNOWN_COST_MALLOC:-}" ]; then
  measure kc --allocator "kc=$KNOWN_COST_MALLOC" --slots 4096 --max-size-exp 12 --iterations 50000
  check kc 1
fi
finish
