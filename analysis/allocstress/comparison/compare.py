"""Comparing two runs (versions, machines, allocator builds) cell by cell, on timing records.

A cell is a timing record's key (records.cell_key; its mode is timing, so a row names it by
workload, allocator and threads).  Every cell that has a timing record in either run gets
one row.  Where both runs have undisturbed `ok` repetitions with a value of the metric -- by
default the catalogue's headline metric of the workload (net cycles per pair for alloc-test,
search cycles per node visited for the data structures, ...), or `--metric` -- the row holds the
ratio B / A of the medians with the quotient of the two runs' intervals of the median
(sides.quotient_of_medians: the same interval the tables and the verdict give a ratio of medians)
and the decision of
compare_decision.py (better / worse / no change against the threshold).  Every other row is `n/a`
with the reason (absent from a run, failed or skipped with its reason, every process disturbed,
no void baseline, void itself for a net metric, fewer than 2 repetitions, a median <= 0).

Multiplicity: m cells are decided at once, and one false `worse` fails a CI gate, so each
interval aims at level L = 1 - 0.05 / m (Bonferroni, statistics.familywise_level), each run's
interval of the median at 1 - (1 - L) / 2, so that all m quotients hold their true ratios together
with probability >= 95% (distribution-free; where the repetitions are too few for the order
statistics to reach that level, the level each cell achieves is lower, and ci_level says so), so
with no change beyond the threshold anywhere, a cell is called worse or better with
probability <= 5% over the whole comparison.  The intervals describe the noise between
repetitions of one run; a shift of the whole machine between the two runs is not in them.
Only undisturbed timing records are compared (simulated-cache, profile and counts records are not
timings; counts: compare_counts.py).  The Mann-Whitney p, adjusted over the cells by
Benjamini-Hochberg, is kept as a column; it decides nothing."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..results import catalogue
from . import compare_decision as rule
from ..stats import statistics as st
from .compare_context import context_differences
from ..results.loading import Runs
from ..results.records import rows_by_cell
from .sides import quotient_of_medians, side_level, side_values
from ..tabulation.structures import STRUCTURE_WORKLOADS  # noqa: F401 -- re-exported: the one definition is in structures.py

CELL = ["workload", "allocator", "threads"]
METRICS = list(catalogue.metrics())  # every catalogued metric can be compared (--metric)
COLUMNS = CELL + ["metric", "decision", "reason", "reps_a", "reps_b", "median_a", "median_b", "ratio", "ci_low",
                  "ci_high", "ci_level", "p", "p_adjusted", "significance", "values"]
INTERVAL_METHOD = "quotient of the two runs' order-statistic intervals of the median ([B low / A high, B high / A low])"


def headline_metric(workload: str) -> str:
    """The catalogue's headline metric of `workload` (net_cycles_per_pair when unknown)."""
    return catalogue.headline_metric(workload)


def metric_label(table: pd.DataFrame, metric: str | None) -> str:
    """The metric's name, or for the per-workload headline the names that occur."""
    if metric:
        return metric
    names = list(dict.fromkeys(table["metric"])) if "metric" in table else []
    return names[0] if len(names) == 1 else "the headline cost (" + ", ".join(names or ["none"]) + ")"


@dataclass(frozen=True)
class Interval:
    """How the per-cell intervals are made: aimed at `level` per cell (each run's median at
    side_level), `familywise` over `cells` cells; `achieved` the lowest level a cell reached."""
    level: float
    familywise: float
    cells: int
    achieved: float = math.nan
    method: str = INTERVAL_METHOD

    @property
    def side_level(self) -> float:
        return side_level(self.level)

    def short_of_aim(self) -> bool:
        return math.isfinite(self.achieved) and self.achieved < self.level - 1e-12

    def name(self) -> str:
        together = (f"{self.familywise:.0%} for all {self.cells} cells together, Bonferroni" if self.cells > 1
                    else "one cell" if self.cells == 1 else "no cell has an interval")
        shortfall = (f"; with these repetitions a cell achieves at least {self.achieved:.2%}, below the aim: run more "
                     "repetitions" if self.short_of_aim() else "")
        return (f"{self.method}, each median's at {self.side_level:.2%}, so the quotient holds with at least "
                f"{self.level:.2%} per cell ({together}){shortfall}")

    def short(self) -> str:
        lowest = f", achieved >= {self.achieved:.2%}" if self.short_of_aim() else ""
        return f"quotient, level >= {self.level:.2%} aimed{lowest}"


def _reason_without_interval(va: np.ndarray, vb: np.ndarray, note: str, names: tuple[str, str]) -> str:
    for values, run in zip((va, vb), names):
        if values.size < 2:
            return f"only {values.size} undisturbed repetition in {run}: no interval"
    return note or "no interval"


def compare_runs(runs: Runs, metric: str | None = None, threshold: float = rule.DEFAULT_THRESHOLD_PERCENT / 100,
                 familywise: float = st.CONFIDENCE) -> pd.DataFrame:
    """One row per timing cell of either run (COLUMNS): the decision with its reason, repetitions
    and medians per run, ratio B / A with its interval [ci_low, ci_high] at ci_level, Mann-Whitney
    p and its Benjamini-Hochberg adjustment.  `values` holds the (A, B) repetitions compared.
    `table.attrs["interval"]` is the Interval used.  metric None = each workload's headline;
    threshold a fraction (0.05).  pre: runs holds exactly two files."""
    names = tuple(runs.run_names())
    cells = runs.cells
    mode = cells["mode"].fillna("timing")
    timing = cells[mode == "timing"]
    rows = []
    for key, here in rows_by_cell(timing).items():  # both runs' rows of each cell
        name = metric or headline_metric(key.workload)
        (va, why_a), (vb, why_b) = (side_values(here[here["run"] == run], run, key.allocator, name) for run in names)
        rows.append({"workload": key.workload, "allocator": key.allocator, "threads": key.threads, "metric": name,
                     "reason": "; ".join(dict.fromkeys(w for w in (why_a, why_b) if w)), "reps_a": int(va.size), "reps_b": int(vb.size),
                     "median_a": float(np.median(va)) if va.size else math.nan,
                     "median_b": float(np.median(vb)) if vb.size else math.nan, "values": (va, vb)})
    decided = [r for r in rows if not r["reason"] and r["reps_a"] >= 2 and r["reps_b"] >= 2]
    level = st.familywise_level(len(decided), familywise)
    for r in rows:
        va, vb = r["values"]
        ratio = quotient_of_medians(va, vb, level)
        r.update(ratio=ratio["ratio"], ci_low=ratio["ci_low"], ci_high=ratio["ci_high"], ci_level=ratio["ci_level"],
                 p=st.mann_whitney_p(va, vb) if va.size and vb.size else math.nan)
        if r["reason"]:
            r["decision"] = rule.NOT_AVAILABLE
        elif math.isnan(r["ci_low"]):
            r["decision"], r["reason"] = rule.NOT_AVAILABLE, _reason_without_interval(va, vb, ratio["note"], names)
        else:
            r["decision"], r["reason"] = rule.decide(r["ci_low"], r["ci_high"], threshold, r["metric"] in rule.HIGHER_IS_BETTER)
    for r, adjusted in zip(rows, st.fdr_adjust([r["p"] for r in rows])):
        r["p_adjusted"] = adjusted
        r["significance"] = st.significance_mark(adjusted, r["reps_a"], r["reps_b"])
    table = pd.DataFrame(rows, columns=COLUMNS)
    table["order"] = table["decision"].map(rule.ORDER)
    table = table.sort_values(["order", "ratio"], ascending=[True, False], kind="stable").drop(columns="order")
    table = table.reset_index(drop=True)
    achieved = table["ci_level"].dropna()
    table.attrs["interval"] = Interval(level, familywise, len(decided), float(achieved.min()) if len(achieved) else math.nan)
    return table


def decided(table: pd.DataFrame) -> pd.DataFrame:
    """The rows with a decision (not n/a): the cells present, measured and with an interval in both runs."""
    return table[table["decision"] != rule.NOT_AVAILABLE]


def geomean(table: pd.DataFrame, threshold: float, higher_is_better: bool = False) -> dict:
    """The geometric mean of B / A over the decided cells (present in both runs, with an interval)
    with the 95% percentile-bootstrap interval of the geometric mean (every cell's repetitions
    resampled: a mean over many cells, which the per-cell quotient cannot bound usefully), how many cells
    it averages out of how many rows, and the same decision rule applied to it (not part of the
    exit status).  n/a figures carry a reason."""
    cells = decided(table)
    out = {"ratio": math.nan, "low": math.nan, "high": math.nan, "level": st.CONFIDENCE, "cells": len(cells),
           "of_cells": len(table), "method": f"bootstrap interval of the geometric mean ({st.CONFIDENCE:.0%} percentile), "
           f"every cell's repetitions resampled, {st.BOOTSTRAP_RESAMPLES} resamples"}
    if cells.empty:
        return {**out, "decision": rule.NOT_AVAILABLE, "reason": "no cell has a ratio in both runs"}
    out["ratio"] = st.geometric_mean(cells["ratio"])
    out["low"], out["high"] = st.geomean_ratio_interval(list(cells["values"]))
    if math.isnan(out["low"]):
        return {**out, "decision": rule.NOT_AVAILABLE, "reason": "no bootstrap interval of the geometric mean (a resampled median <= 0)"}
    out["decision"], out["reason"] = rule.decide(out["low"], out["high"], threshold, higher_is_better)
    return out


def differences(runs: Runs, table: pd.DataFrame, metric: str = "") -> list[str]:
    """Why the two runs may not be comparable, one line each: the context differences
    (compare_context.py; plan fields without their "plan." prefix) and the n/a cells with their
    reasons.  `metric` is unused (kept for callers of the earlier signature)."""
    notes = [f"the runs differ in {d['field'].removeprefix('plan.')}: A {d['a']} vs B {d['b']}"
             for d in context_differences(runs.documents)]
    return notes + [f"not compared: {r.workload} {r.allocator}@{r.threads}: {r.reason}"
                    for r in table.itertuples() if r.decision == rule.NOT_AVAILABLE]
