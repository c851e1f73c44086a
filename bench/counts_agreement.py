#!/usr/bin/python3
"""How well does the counts tier predict the clock?  Given results files of the same matrix run
at different times (each with its counts cells and its timing cells), this sets the counts tier's
net estimated cycles per pair against the timing tier's median net cycles per pair, allocator by
allocator, for one workload at one thread count:

- per run: Spearman's rho against that run's own clock; of the pairs of allocators whose timing
  intervals do not overlap (the pairs the clock separates), how many the counts put in the same
  order; the allocators the counts put on the other side of `system` than the clock;
- the clock against itself: rho between every two runs' clocks (the ceiling a single run's rho
  can reach when the clock's own order moves between runs);
- the pairs the clock separates in every run, in the same order (where the clock is sure), and
  how many of them the counts put in that order;
- the pooled clock: each allocator's median over the runs of its cost relative to system's in the
  same run (a drifting host moves every figure of a run together), and each run's counts against
  that ranking;
- whether the counts were identical in every run (they are priced at one costs file).

    /usr/bin/python3 bench/counts_agreement.py RUN1.json RUN2.json RUN3.json [--workload alloc-test] [--threads 1]
"""
import argparse
import itertools
import json
import statistics

from scipy.stats import spearmanr


def figures(path: str, workload: str, threads: int):
    """({allocator: (median, low, high)} of the timing tier, {allocator: net est. cycles/pair}, costs date)."""
    doc = json.load(open(path))
    clock, counts = {}, {}
    for r in doc["benchmarks"]:
        if r.get("workload") != workload or r.get("threads") != threads or r.get("allocator") == "void":
            continue
        if r.get("aggregate_name") == "median" and r.get("mode", "timing") == "timing" and r.get("net_cycles_per_pair") is not None:
            interval = r.get("intervals", {}).get("net_cycles_per_pair", {})
            clock[r["allocator"]] = (r["net_cycles_per_pair"], interval.get("low"), interval.get("high"))
        if r.get("mode") == "counts" and r.get("run_type") == "iteration" and r.get("status") == "ok":
            value = r["counts"].get("net_estimated_cycles_per_unit")
            if value is not None:
                counts[r["allocator"]] = value
    costs = doc.get("context", {}).get("machine_costs", {})
    return clock, counts, costs.get("created", costs.get("n/a", "?"))


def rho(a: dict, b: dict) -> float:
    names = sorted(set(a) & set(b))
    return float(spearmanr([a[n] for n in names], [b[n] for n in names]).statistic)


def separated_pairs(clock: dict, counts: dict):
    """(pairs whose timing intervals are apart, of them in the same order in the counts)."""
    apart = same = 0
    for x, y in itertools.combinations(sorted(set(clock) & set(counts)), 2):
        (mx, lx, hx), (my, ly, hy) = clock[x], clock[y]
        if None in (lx, hx, ly, hy) or not (hx < ly or hy < lx):
            continue
        apart += 1
        same += (counts[x] < counts[y]) == (mx < my)
    return apart, same


def consistent_pairs(clocks: list) -> list:
    """The pairs (cheaper, dearer) whose timing intervals are apart in every run, in the same order."""
    common = sorted(set.intersection(*(set(c) for c in clocks)))
    steady = []
    for x, y in itertools.combinations(common, 2):
        orders = set()
        for c in clocks:
            (mx, lx, hx), (my, ly, hy) = c[x], c[y]
            orders.add("x<y" if hx is not None and ly is not None and hx < ly else "y<x" if hy is not None and lx is not None and hy < lx else "overlap")
        if orders == {"x<y"}:
            steady.append((x, y))
        elif orders == {"y<x"}:
            steady.append((y, x))
    return steady


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("runs", nargs="+", help="results files of the same matrix")
    ap.add_argument("--workload", default="alloc-test")
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()
    runs = {path: figures(path, args.workload, args.threads) for path in args.runs}
    for path, (clock, counts, _) in runs.items():
        if "system" not in clock or len(set(clock) & set(counts)) < 3:
            raise SystemExit(f"{path}: needs timing and counts cells of system and at least 2 more allocators "
                             f"for {args.workload} at {args.threads} thread(s)")
    print(f"{args.workload}, {args.threads} thread(s)")
    print("| run | costs of | allocators | rho vs its clock | pairs the clock separates, same order | other side of system |")
    print("|---|---|---:|---:|---:|---|")
    for path, (clock, counts, created) in runs.items():
        apart, same = separated_pairs(clock, counts)
        system_clock, system_counts = clock["system"][0], counts["system"]
        wrong_side = [a for a in sorted(set(clock) & set(counts)) if a != "system"
                      and (clock[a][0] > system_clock) != (counts[a] > system_counts)]
        print(f"| {path} | {created} | {len(set(clock) & set(counts))} | {rho(counts, {a: v[0] for a, v in clock.items()}):.2f} "
              f"| {same} of {apart} | {', '.join(wrong_side) or 'none'} |")
    medians = {path: {a: v[0] for a, v in clock.items()} for path, (clock, _, _) in runs.items()}
    for p, q in itertools.combinations(runs, 2):
        print(f"clock vs clock, {p} / {q}: rho {rho(medians[p], medians[q]):.2f}")
    common = set.intersection(*(set(m) for m in medians.values()))
    pooled = {a: statistics.median(m[a] / m["system"] for m in medians.values()) for a in common}
    print("pooled clock (median over the runs of cost / system's): "
          + ", ".join(f"{a} {pooled[a]:.2f}" for a in sorted(pooled, key=pooled.get)))
    for path, (_, counts, _) in runs.items():
        print(f"{path}: counts vs the pooled clock rho {rho(counts, pooled):.2f}; its own clock vs the pooled clock rho "
              f"{rho(medians[path], pooled):.2f}")
    steady = consistent_pairs([clock for clock, _, _ in runs.values()])
    for path, (_, counts, _) in runs.items():
        same = sum((counts[x] < counts[y]) for x, y in steady if x in counts and y in counts)
        print(f"{path}: of the {len(steady)} pairs the clock separates in every run, in the same order, {same} in that order in the counts")
    all_counts = [counts for _, counts, _ in runs.values()]
    spread = max(abs(c[a] / all_counts[0][a] - 1) for c in all_counts for a in set(c) & set(all_counts[0]))
    print(f"counts across the runs: largest relative difference {spread:.2e}")


if __name__ == "__main__":
    main()
