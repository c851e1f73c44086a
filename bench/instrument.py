#!/usr/bin/python3
"""A benchmark of the instrument itself: does allocstress give the same verdict when run again?

Runs the quick matrix --runs times (default 3) on a quiet machine and, with --loaded, as many
times again with a second process spinning on another PU (the one the 1-thread workers are not
pinned to), then prints, per condition:

  - the wall time of each matrix (the quick preset promises <= 3 minutes on 2 cores);
  - the counts tier: whether every allocator's instruction and simulated-miss figures are
    identical in every run;
  - the timing tier, per allocator and thread count: each run's median net ns/pair, the largest
    deviation from their mean (target: within +-10%), whether each run's interval holds the
    other runs' medians, and over all cells how many (run, other run) pairs it holds; the same for
    the reproduction intervals where the host has a calibration (`allocstress calibrate`);
  - order: every pair of allocators whose intervals do not overlap in a run, and whether that
    pair keeps its order in all runs: by the intervals of the median (what the verdict groups
    by), and by the reproduction intervals where the runs carry them;
  - A/A: `compare` of the first two runs, the share of cells called significantly different
    (target <= 5%);
  - disturbed processes (cells/modes/interference.hpp) and adaptive repetitions per run.

This is a benchmark, not a test: it takes minutes and its figures depend on the machine.  Run it
alone: `flock /tmp/allocstress-measure.lock /usr/bin/python3 bench/instrument.py --loaded`.
Extra arguments after `--` go to `allocstress matrix` (e.g. `-- --allocators system,jemalloc`).
"""

from __future__ import annotations

import argparse
import glob
import itertools
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def run_matrix(exe: str, out: str, extra: list[str]) -> float:
    started = time.monotonic()
    subprocess.run([exe, "matrix", "-o", out, *extra], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.monotonic() - started


def medians(doc: dict) -> dict:
    """(allocator, threads) -> (median net ns/pair, interval low, high, level, reproduction low, high) of every
    timing median entry; the reproduction bounds are None where the run had no calibration."""
    out = {}
    for e in doc["benchmarks"]:
        if e.get("run_type") == "aggregate" and e.get("aggregate_name") == "median" and e["allocator"] != "void":
            iv = (e.get("intervals") or {}).get("net_ns_per_pair")
            rep = e.get("reproduction") or {}
            if e.get("net_ns_per_pair") is not None and iv:
                out[(e["allocator"], e["threads"])] = (e["net_ns_per_pair"], iv["low"], iv["high"], iv["level"], rep.get("low"), rep.get("high"))
    return out


def drop_ins(doc: dict) -> set:
    return {e["allocator"] for e in doc["benchmarks"] if e.get("run_type") == "iteration" and e.get("allocator_kind") == "drop_in"}


def reproduction_report(m: list[dict], cells: list, dropped_in: set) -> None:
    """How often each run's reproduction interval (results/reproduction.hpp) holds the other runs' medians."""
    if not all(x[c][4] is not None for x in m for c in cells):
        print("reproduction intervals: not in every cell of every run (no calibration for this host: `allocstress calibrate`)")
        return
    for name, chosen in (("every cell", cells), ("drop-ins at 1 thread", [c for c in cells if c[1] == 1 and c[0] in dropped_in])):
        held = [x[c][4] <= y[c][0] <= x[c][5] for c in chosen for x in m for y in m if y is not x]
        whole = sum(all(x[c][4] <= y[c][0] <= x[c][5] for x in m for y in m if y is not x) for c in chosen)
        print(f"reproduction intervals, {name}: hold another run's median in {sum(held)} of {len(held)} (run, other run) pairs; "
              f"every run's holds every other median in {whole} of {len(chosen)} cells")


def order_report(m: list[dict], cells: list, low: int, high: int, which: str) -> None:
    """Every pair of allocators at one thread count whose intervals (bounds at positions low, high of
    medians()' tuples) do not overlap in some run, and whether the pair keeps its order in all runs."""
    kept = flipped = 0
    for a, b in itertools.combinations(cells, 2):
        if a[1] != b[1]:
            continue
        for x in m:
            if x[a][high] < x[b][low] or x[b][high] < x[a][low]:  # separated in this run: must keep its order everywhere
                order = [y[a][0] < y[b][0] for y in m]
                if all(order) or not any(order):
                    kept += 1
                else:
                    flipped += 1
                    print(f"order flipped: {a[0]} vs {b[0]} at {a[1]} threads: " + ", ".join(f"{y[a][0]:.2f}/{y[b][0]:.2f}" for y in m))
                break
    print(f"pairs separated by {which} in some run: {kept + flipped}; order kept in all runs: {kept}")


def counts(doc: dict) -> dict:
    """allocator -> (instructions, D1 misses, LL misses) of its counts record."""
    return {e["allocator"]: (e["counts"]["instructions"], e["counts"]["d1_misses"], e["counts"]["ll_misses"])
            for e in doc["benchmarks"] if e.get("mode") == "counts" and e.get("status") == "ok" and e.get("run_type") == "iteration"}


def condition_report(name: str, docs: list[dict], walls: list[float], paths: list[str]) -> None:
    print(f"\n## {name}: {len(docs)} runs")
    if walls:
        print("matrix wall time: " + ", ".join(f"{w:.0f} s" for w in walls) + f" (max {max(walls):.0f} s; target <= 180 s)")
    else:
        print("matrix wall time: not known (results re-read)")
    for i, doc in enumerate(docs):
        ad = doc["context"].get("adaptive_repetitions") or {}
        disturbed = sum(1 for e in doc["benchmarks"] if e.get("run_type") == "iteration" and (e.get("interference") or {}).get("disturbed"))
        print(f"run {i + 1}: {ad.get('extra_processes', 0)} adaptive processes ({ad.get('stopped_by', 'off')}), {disturbed} disturbed")
    c = [counts(d) for d in docs]
    if c[0]:
        same = all(x == c[0] for x in c[1:])
        print(f"counts tier: {len(c[0])} allocators, identical in every run: {'yes' if same else 'NO'}")
        if not same:
            for a in sorted(c[0]):
                print(f"  {a}: " + " | ".join(str(x.get(a)) for x in c))
    m = [medians(d) for d in docs]
    cells = sorted(set.intersection(*(set(x) for x in m)), key=lambda k: (k[1], k[0]))
    print("\n| allocator | threads | medians net ns/pair | max dev from mean | intervals hold the others' medians |")
    print("|---|---:|---|---:|---|")
    within = contained = pairs_held = pairs = 0
    for cell in cells:
        values = [x[cell][0] for x in m]
        mean = sum(values) / len(values)
        dev = max(abs(v - mean) for v in values) / abs(mean) if mean else float("nan")
        holds = [all(x[cell][1] <= y[cell][0] <= x[cell][2] for y in m if y is not x) for x in m]
        within += dev <= 0.10
        contained += all(holds)
        pairs += len(m) * (len(m) - 1)
        pairs_held += sum(x[cell][1] <= y[cell][0] <= x[cell][2] for x in m for y in m if y is not x)
        print(f"| {cell[0]} | {cell[1]} | " + ", ".join(f"{v:.2f}" for v in values) +
              f" | {100 * dev:.1f}% | {''.join('y' if h else 'n' for h in holds)} (levels " +
              ", ".join(f"{100 * x[cell][3]:.0f}%" for x in m) + ") |")
    print(f"\nwithin +-10% of their mean: {within} of {len(cells)} cells; every interval holds the other runs' medians: "
          f"{contained} of {len(cells)} cells; an interval holds another run's median: {pairs_held} of {pairs} (run, other run) "
          f"pairs (two independent honest 95% intervals of the median: about 83%)")
    reproduction_report(m, cells, drop_ins(docs[0]))
    order_report(m, cells, 1, 2, "the interval of the median (what the verdict groups by)")
    if all(x[c][4] is not None for x in m for c in cells):
        order_report(m, cells, 4, 5, "the reproduction interval")
    if len(paths) >= 2:
        env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "build/release/python"))
        out = subprocess.run([sys.executable, "-m", "allocstress", "compare", paths[0], paths[1]], env=env, capture_output=True, text=True)
        wanted = ("timing:", "reference", "→ exit", "geomean")
        lines = [line for line in out.stdout.splitlines() if line.startswith(wanted)] or [out.stderr.strip()]
        print("A/A compare (runs 1 and 2):\n" + "\n".join(f"  {line}" for line in lines))


def reread(folder: str) -> int:
    """The report of an earlier --keep folder, from its results files alone."""
    found = False
    for condition in ("quiet", "loaded"):
        paths = sorted(glob.glob(os.path.join(folder, f"{condition}-*.json")), key=lambda p: int(p.rsplit("-", 1)[1][:-5]))
        if len(paths) < 2:
            continue
        found = True
        docs = []
        for path in paths:
            with open(path) as f:
                docs.append(json.load(f))
        condition_report(condition, docs, [], paths)
    if not found:
        print(f"instrument.py: error: {folder} holds fewer than 2 results files of one condition (quiet-N.json or loaded-N.json)",
              file=sys.stderr)
        return 2
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--loaded", action="store_true", help="also run with a process spinning on another PU")
    parser.add_argument("--exe", default=os.path.join(ROOT, "build/release/allocstress"))
    parser.add_argument("--keep", help="keep the results files in this folder")
    parser.add_argument("--reread", metavar="DIR", help="run nothing: report on the results files an earlier --keep DIR kept "
                        "(quiet-N.json, loaded-N.json; wall times are not known then)")
    parser.add_argument("matrix_args", nargs="*", help="after --: passed to allocstress matrix")
    args = parser.parse_args()
    if args.reread:
        return reread(args.reread)
    folder = args.keep or tempfile.mkdtemp(prefix="allocstress-instrument-")
    os.makedirs(folder, exist_ok=True)
    conditions = ["quiet"] + (["loaded"] if args.loaded else [])
    for condition in conditions:
        spinner = None
        if condition == "loaded":  # PU 1: the 1-thread workers are pinned to PU 0 (placement compact)
            spinner = subprocess.Popen(["taskset", "-c", "1", "sh", "-c", "while :; do :; done"])
        try:
            docs, walls, paths = [], [], []
            for i in range(args.runs):
                path = os.path.join(folder, f"{condition}-{i + 1}.json")
                for stale in (path, path[:-5] + ".md"):
                    if os.path.exists(stale):
                        os.remove(stale)
                walls.append(run_matrix(args.exe, path, args.matrix_args))
                with open(path) as f:
                    docs.append(json.load(f))
                paths.append(path)
        finally:
            if spinner:
                spinner.kill()
        condition_report(condition + (" (a process spinning on PU 1)" if spinner else ""), docs, walls, paths)
    print(f"\nresults: {folder}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
