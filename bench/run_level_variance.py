#!/usr/bin/python3
"""Is there run-level variance?  Given results files of the same matrix run at different times,
this asks whether one run's process-to-process spread predicts where another run's medians land.

For each run and timing cell (undisturbed ok records, net ns/pair), it builds the distribution-free
prediction interval for the median of another sample of the same size: with n values x(1..n) here
and m = n in the other run, the number J of this run's values below the other run's median Y(k)
(k = (m + 1) // 2) has P(J = j) = C(j + k - 1, j) C(n - j + m - k, n - j) / C(n + m, n) whatever
the distribution, so [x(r), x(n + 1 - r)] holds Y(k) with probability P(r <= J <= n - r).  It takes
the largest r whose coverage still reaches --level, and counts the (run, other run) pairs whose
interval holds the other median.  Without run-level variance about --level of the pairs hold.

    /usr/bin/python3 bench/run_level_variance.py RUN1.json RUN2.json RUN3.json
"""
import argparse
import json
import statistics
from math import comb


def runs_below_distribution(n: int, m: int) -> list[float]:
    """P(J = j), j = 0..n: how many of n values fall below the median of m others (exchangeable)."""
    k = (m + 1) // 2
    total = comb(n + m, n)
    return [comb(j + k - 1, j) * comb(n - j + m - k, n - j) / total for j in range(n + 1)]


def prediction_interval(values: list[float], level: float):
    """(low, high, coverage) for the median of another sample as large, or None when n is too small."""
    xs = sorted(values)
    n = len(xs)
    p = runs_below_distribution(n, n)
    best = None
    for r in range(1, n // 2 + 1):
        coverage = sum(p[r:n - r + 1])
        if coverage >= level:
            best = (xs[r - 1], xs[n - r], coverage)
    return best


def cells(path: str) -> dict:
    out = {}
    for e in json.load(open(path))["benchmarks"]:
        if (e.get("run_type") == "iteration" and e.get("mode", "timing") == "timing" and e.get("status") == "ok"
                and e.get("allocator") != "void" and e.get("net_ns_per_pair") is not None
                and not (e.get("interference") or {}).get("disturbed")):
            out.setdefault((e["workload"], e["allocator"], e["threads"]), []).append(e["net_ns_per_pair"])
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("runs", nargs="+", help="results files of the same matrix (at least 2)")
    ap.add_argument("--level", type=float, default=0.95)
    args = ap.parse_args()
    if len(args.runs) < 2:
        ap.error("give at least 2 results files")
    runs = [cells(p) for p in args.runs]
    common = sorted(set.intersection(*(set(r) for r in runs)))
    held = pairs = all_held = 0
    print("| workload | allocator | threads | medians net ns/pair | n per run | interval holds the others' medians |")
    print("|---|---|---:|---|---|---|")
    for key in common:
        medians = [statistics.median(r[key]) for r in runs]
        marks = []
        for i, r in enumerate(runs):
            interval = prediction_interval(r[key], args.level)
            ok = interval is not None and all(interval[0] <= medians[j] <= interval[1] for j in range(len(runs)) if j != i)
            for j in range(len(runs)):
                if j != i:
                    pairs += 1
                    held += interval is not None and interval[0] <= medians[j] <= interval[1]
            marks.append("y" if ok else "n")
        all_held += all(m == "y" for m in marks)
        print(f"| {key[0]} | {key[1]} | {key[2]} | {', '.join(f'{m:.2f}' for m in medians)} | "
              f"{', '.join(str(len(r[key])) for r in runs)} | {''.join(marks)} |")
    print(f"\n{args.level:.0%} prediction intervals hold another run's median in {held} of {pairs} (run, other run) pairs "
          f"({held / max(pairs, 1):.0%}); in {all_held} of {len(common)} cells every run's interval holds every other median")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
