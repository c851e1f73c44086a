"""Comparing two runs (versions, machines, allocator builds) cell by cell: for every (workload,
allocator, threads) present in both, the ratio B / A of median net cycles per pair with a
bootstrap CI and a Mann-Whitney test, then one geometric-mean summary line."""

from __future__ import annotations

import math

import pandas as pd

from . import statistics as st
from .loading import Runs

CELL = ["workload", "allocator", "threads"]


def compare_runs(runs: Runs, metric: str = "net_cycles_per_pair") -> pd.DataFrame:
    """Rows: workload, allocator, threads, reps_a, reps_b, median_a, median_b, ratio (B/A), ci_low,
    ci_high, p, significance.  pre: runs holds exactly two files."""
    a_name, b_name = runs.run_names()
    ok = runs.cells[runs.cells["status"] == "ok"]
    a, b = ok[ok["run"] == a_name], ok[ok["run"] == b_name]
    rows = []
    for key, ga in a.groupby(CELL, sort=False):
        gb = b[(b["workload"] == key[0]) & (b["allocator"] == key[1]) & (b["threads"] == key[2])]
        if gb.empty or key[1] == "void":
            continue
        va, vb = ga[metric].to_numpy(float), gb[metric].to_numpy(float)
        r = st.ratio_of_medians(vb, va)
        p = st.mann_whitney_p(va, vb)
        rows.append({"workload": key[0], "allocator": key[1], "threads": int(key[2]), "reps_a": len(va), "reps_b": len(vb),
                     "median_a": float(pd.Series(va).median()), "median_b": float(pd.Series(vb).median()),
                     "ratio": r["ratio"], "ci_low": r["ci_low"], "ci_high": r["ci_high"], "p": p,
                     "significance": st.significance_mark(p, len(va), len(vb))})
    return pd.DataFrame(rows, columns=CELL + ["reps_a", "reps_b", "median_a", "median_b", "ratio", "ci_low", "ci_high",
                                              "p", "significance"])


def summary_line(table: pd.DataFrame, a_name: str, b_name: str, metric: str) -> str:
    g = st.geometric_mean(table["ratio"])
    significant = int(table["significance"].isin(["*", "**"]).sum())
    if math.isnan(g):
        return f"geomean {b_name} / {a_name} of {metric}: n/a (no comparable cells)"
    return (f"geomean {b_name} / {a_name} of {metric}: {g:.3f} over {len(table)} cells "
            f"({significant} significant at p < {st.ALPHA}); < 1 means {b_name} is cheaper")


def to_markdown(table: pd.DataFrame, a_name: str, b_name: str, metric: str) -> str:
    head = f"| workload | allocator | threads | reps A/B | {metric} A | {metric} B | B / A [95% CI] | p |\n"
    head += "|---|---|---:|---:|---:|---:|---|---:|\n"
    body = ""
    for r in table.itertuples():
        ci = "" if math.isnan(r.ci_low) else f" [{r.ci_low:.3f}, {r.ci_high:.3f}]"
        ratio = "n/a" if math.isnan(r.ratio) else f"{r.ratio:.3f}{ci}"
        mark = {"n/a": " (test n/a)"}.get(r.significance, " " + r.significance if r.significance else "")
        body += (f"| {r.workload} | {r.allocator} | {r.threads} | {r.reps_a}/{r.reps_b} | {r.median_a:.1f} | "
                 f"{r.median_b:.1f} | {ratio}{mark} | {r.p:.3g} |\n")
    return f"A = {a_name}, B = {b_name}\n\n" + head + body + "\n" + summary_line(table, a_name, b_name, metric) + "\n"
