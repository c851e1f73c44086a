"""Comparing two runs (versions, machines, allocator builds) cell by cell: for every (workload,
allocator, threads) present in both, the ratio B / A of the median headline cost -- the metric
the catalogue marks headline for the workload: net cycles per pair for alloc-test, search cycles
per node visited for the data-structure workloads, the write slowdown of the false-sharing kernels
-- or of a chosen metric, with a bootstrap CI and a Mann-Whitney test whose p-values are adjusted
over all compared cells (Benjamini-Hochberg), then one geometric-mean summary line with its bootstrap interval.
Only undisturbed timing records are compared (simulated-cache and counts records are not timings).
Two runs of the same commit on the same machine (A/A) should call at most ALPHA of the cells
significantly different: the adjustment bounds the chance of calling any."""

from __future__ import annotations

import math

import pandas as pd

from . import catalogue
from . import statistics as st
from .loading import Runs, measured_timing
from .structures import STRUCTURE_WORKLOADS  # noqa: F401 -- re-exported: the one definition is in structures.py

CELL = ["workload", "allocator", "threads"]
METRICS = list(catalogue.metrics())  # every catalogued metric can be compared (--metric)
# Keys of context.plan that make two runs measure different things; workload_params is missing
# from files older than the registry (treated as {}).
PLAN_KEYS = ("params", "structure_params", "workload_params", "placement", "workloads")
PLAN_DEFAULTS = {"workload_params": {}}


def headline_metric(workload: str) -> str:
    """The catalogue's headline metric of `workload` (net_cycles_per_pair when unknown)."""
    return catalogue.headline_metric(workload)


def metric_label(table: pd.DataFrame, metric: str | None) -> str:
    """The metric's name, or for the per-workload headline the names that occur."""
    if metric:
        return metric
    names = list(dict.fromkeys(table["metric"])) if "metric" in table else []
    return names[0] if len(names) == 1 else "the headline cost (" + ", ".join(names or ["none"]) + ")"


def compare_runs(runs: Runs, metric: str | None = None) -> pd.DataFrame:
    """Rows: workload, allocator, threads, metric, reps_a, reps_b, median_a, median_b, ratio (B/A),
    ci_low, ci_high, p, significance.  metric None = each workload's headline cost.
    pre: runs holds exactly two files."""
    a_name, b_name = runs.run_names()
    ok = measured_timing(runs.cells)
    a, b = ok[ok["run"] == a_name], ok[ok["run"] == b_name]
    rows = []
    for key, ga in a.groupby(CELL, sort=False):
        gb = b[(b["workload"] == key[0]) & (b["allocator"] == key[1]) & (b["threads"] == key[2])]
        name = metric or headline_metric(key[0])
        column = catalogue.column_of(name)  # workload_metrics.NAME for a workload metric
        if gb.empty or key[1] == "void" or column not in ga or column not in gb:
            continue
        va, vb = st.clean(ga[column].to_numpy()), st.clean(gb[column].to_numpy())
        if va.size == 0 or vb.size == 0:
            continue
        r = st.ratio_of_medians(vb, va)
        p = st.mann_whitney_p(va, vb)
        rows.append({"workload": key[0], "allocator": key[1], "threads": int(key[2]), "metric": name,
                     "reps_a": len(va), "reps_b": len(vb),
                     "median_a": float(pd.Series(va).median()), "median_b": float(pd.Series(vb).median()),
                     "ratio": r["ratio"], "ci_low": r["ci_low"], "ci_high": r["ci_high"], "p": p, "values": (va, vb)})
    for row, adjusted in zip(rows, st.fdr_adjust([row["p"] for row in rows])):
        row["p_adjusted"] = adjusted
        row["significance"] = st.significance_mark(adjusted, row["reps_a"], row["reps_b"])
    table = pd.DataFrame(rows, columns=CELL + ["metric", "reps_a", "reps_b", "median_a", "median_b", "ratio", "ci_low", "ci_high",
                                               "p", "p_adjusted", "significance", "values"])
    return table


def differences(runs: Runs, table: pd.DataFrame, metric: str) -> list[str]:
    """Why the two runs may not be comparable, and which cells the comparison leaves out."""
    a_name, b_name = runs.run_names()
    notes = []
    plans = [doc["context"].get("plan", {}) for doc in runs.documents]
    for key in PLAN_KEYS:
        a, b = (plan.get(key, PLAN_DEFAULTS.get(key)) for plan in plans)
        if a != b:
            notes.append(f"the runs differ in {key}: {a_name} {a} vs {b_name} {b}")
    compared = set(zip(table["workload"], table["allocator"], table["threads"]))
    for name in (a_name, b_name):
        cells = runs.cells[(runs.cells["run"] == name) & (runs.cells["allocator"] != "void")]
        missing = sorted({(w, al, int(t)) for w, al, t in zip(cells["workload"], cells["allocator"], cells["threads"])} - compared)
        if missing:
            notes.append(f"not compared (absent, failed or without {metric} in one run): " +
                         ", ".join(f"{al}@{t}" for _, al, t in missing[:20]) + (" ..." if len(missing) > 20 else ""))
    return notes


def summary_line(table: pd.DataFrame, a_name: str, b_name: str, metric: str) -> str:
    g = st.geometric_mean(table["ratio"])
    significant = int(table["significance"].isin(["*", "**"]).sum())
    if math.isnan(g):
        return f"geomean {b_name} / {a_name} of {metric}: n/a (no comparable cells)"
    low, high = st.geomean_ratio_interval(list(table["values"])) if "values" in table else (math.nan, math.nan)
    interval = "" if math.isnan(low) else f" [{low:.3f}, {high:.3f}] ({st.CONFIDENCE:.0%} bootstrap)"
    verdict = ("the interval holds 1: no overall difference" if not math.isnan(low) and low <= 1 <= high
               else f"< 1 means {b_name} is cheaper")
    return (f"geomean {b_name} / {a_name} of {metric}: {g:.3f}{interval} over {len(table)} cells "
            f"({significant} of {len(table)} significant at p < {st.ALPHA} after the Benjamini-Hochberg adjustment); {verdict}")


def to_markdown(table: pd.DataFrame, a_name: str, b_name: str, metric: str) -> str:
    mixed = "metric" in table and table["metric"].nunique() > 1
    if mixed:
        head = "| workload | allocator | threads | metric | reps A/B | A | B | B / A [95% CI] | p | p adjusted |\n"
        head += "|---|---|---:|---|---:|---:|---:|---|---:|---:|\n"
    else:
        head = f"| workload | allocator | threads | reps A/B | {metric} A | {metric} B | B / A [95% CI] | p | p adjusted |\n"
        head += "|---|---|---:|---:|---:|---:|---|---:|---:|\n"
    body = ""
    for r in table.itertuples():
        ci = "" if math.isnan(r.ci_low) else f" [{r.ci_low:.3f}, {r.ci_high:.3f}]"
        ratio = "n/a" if math.isnan(r.ratio) else f"{r.ratio:.3f}{ci}"
        mark = {"n/a": " (test n/a)"}.get(r.significance, " " + r.significance if r.significance else "")
        body += (f"| {r.workload} | {r.allocator} | {r.threads} | " + (f"{r.metric} | " if mixed else "") + f"{r.reps_a}/{r.reps_b} | {r.median_a:.4g} | "
                 f"{r.median_b:.4g} | {ratio}{mark} | {r.p:.3g} | {r.p_adjusted:.3g} |\n")
    return f"A = {a_name}, B = {b_name}\n\n" + head + body + "\n" + summary_line(table, a_name, b_name, metric) + "\n"


def report_text(runs: Runs, table: pd.DataFrame, metric: str | None = None) -> str:
    a_name, b_name = runs.run_names()
    metric = metric_label(table, metric)
    notes = differences(runs, table, metric)
    return to_markdown(table, a_name, b_name, metric) + "".join(f"note: {n}\n" for n in notes)
