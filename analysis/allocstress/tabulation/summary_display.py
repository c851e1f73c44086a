"""The summary table (tables.summary_table) as a display model (table_model.py): which columns are
shown in the compact (paper) and full sets, and every decision about what a cell holds -- its
interval, its unstable mark, a verdict word instead of the number, or n/a with the reason.  The
Markdown, LaTeX and CSV renderings all come from the model built here.

Rules: a ratio to system is shown only with its interval, else n/a with the reason; where the
two medians' intervals overlap it is "indistinguishable", for system itself "reference"; the
void baseline has net cost 0 by definition and no memory figure (its RSS counts one aliased
buffer); unstable = the interval of the median is wider than ±10% of it."""

from __future__ import annotations

import math
import re

import pandas as pd

from ..results import catalogue
from ..stats.median_intervals import RATIO_METHOD
from .table_model import Cell, Column, DisplayTable

BOTH, FULL, CSV_ONLY = ("compact", "full"), ("full",), ()


def _finite(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def _levels(table: pd.DataFrame, column: str, at_least: bool = False) -> str:
    """The real level(s) of a column's intervals, e.g. "93.8%", "95.0% to 96.9%", "≥ 87.5%"."""
    levels = pd.to_numeric(table[column], errors="coerce").dropna()
    if levels.empty:
        return "n/a"
    if at_least:
        return f"≥ {levels.min():.1%}"
    return f"{levels.min():.1%}" if levels.min() == levels.max() else f"{levels.min():.1%} to {levels.max():.1%}"


def median_interval_name(table: pd.DataFrame) -> str:
    """The real method(s) and level(s) of the net cost medians' intervals, e.g. "order statistics, 93.8%".  A
    method's own gloss in parentheses (C++'s "order statistics (distribution-free interval of the median)") is left
    to the CSV's net_cycles_ci_method: the header already says what the interval is of."""
    methods = dict.fromkeys(re.sub(r" \(.*\)$", "", m) for m in table["net_cycles_ci_method"].dropna().unique() if m)
    return " / ".join(methods or ["order statistics"]) + ", " + _levels(table, "net_cycles_ci_level")


def ratio_interval_name(table: pd.DataFrame, level_column: str) -> str:
    return f"interval: {RATIO_METHOD}, {_levels(table, level_column, at_least=True)}"


def columns(table: pd.DataFrame) -> list[Column]:
    multi_run, multi_workload = table["run"].nunique() > 1, table["workload"].nunique() > 1
    net, raw = catalogue.shown("net_cycles_per_pair")[0], catalogue.shown("cycles_per_pair")[0]
    ns, overhead = catalogue.shown("net_ns_per_pair")[0], catalogue.shown("overhead_ratio")[0]
    return [
        Column("run", "run", sets=BOTH if multi_run else CSV_ONLY),
        Column("workload", "workload", sets=BOTH if multi_workload else CSV_ONLY),
        Column("allocator", "allocator", sets=BOTH),
        Column("threads", "threads", 0, sets=BOTH),
        Column("reps_ok", "reps", 0, sets=FULL),
        Column("net_cycles_per_pair", net, 1, interval=f"interval of the median ({median_interval_name(table)})",
               low_key="net_cycles_ci_low", high_key="net_cycles_ci_high", sets=BOTH,
               extra_keys=("net_cycles_ci_level", "net_cycles_ci_method", "net_cycles_rel_half_width")),
        Column("net_cycles_cv", "CV, % of mean", 1, scale=100, sets=FULL, extra_keys=("unstable",)),
        Column("cycles_per_pair", raw, 1, sets=FULL),
        Column("net_ns_per_pair", ns, 2, sets=FULL),
        Column("overhead_ratio", overhead, 2, sets=BOTH, low_key="overhead_ratio_ci_low", high_key="overhead_ratio_ci_high",
               interval=f"interval of the median (order statistics, {_levels(table, 'overhead_ratio_ci_level')})",
               extra_keys=("overhead_ratio_ci_level",)),
        Column("thp_coverage", catalogue.shown("thp_coverage")[0], 2, sets=FULL),
        Column("speed_vs_system", "speed vs system", 2, interval=ratio_interval_name(table, "speed_ci_level"),
               low_key="speed_ci_low", high_key="speed_ci_high", verdict_key="speed_vs_system_verdict", sets=BOTH,
               extra_keys=("speed_ci_level", "speed_p", "speed_significance")),
        Column("overhead_vs_system", "overhead vs system", 2, interval=ratio_interval_name(table, "overhead_ci_level"),
               low_key="overhead_ci_low", high_key="overhead_ci_high", verdict_key="overhead_vs_system_verdict",
               sets=FULL, extra_keys=("overhead_ci_level", "overhead_p", "overhead_significance")),
        Column("notes", "notes", sets=CSV_ONLY),
    ]


def _note(notes: str, prefixes: tuple, fallback: str) -> str:
    """The part of a row's notes that explains a missing figure (the first starting with a prefix)."""
    for part in (notes or "").split("; "):
        if part.startswith(prefixes):
            return part.split(": ", 1)[1] if part.startswith(("speed: ", "overhead: ")) else part
    return fallback


def _ratio_cell(r, key: str, low: str, high: str, verdict: str, prefix: str, baseline: bool) -> Cell:
    if baseline:
        return Cell(na="void is the baseline: nothing to compare")
    why = _note(r.notes, (prefix, "no ok system"), "")
    if verdict == "reference":
        return Cell(value=getattr(r, key), low=getattr(r, low), high=getattr(r, high), verdict=verdict)
    if not _finite(getattr(r, key)):
        return Cell(na=why or "no ratio")
    if not (_finite(getattr(r, low)) and getattr(r, high) == getattr(r, high)):  # no ratio without its interval
        return Cell(na=why or "fewer than 2 repetitions: no interval")
    return Cell(value=getattr(r, key), low=getattr(r, low), high=getattr(r, high), verdict=verdict)


def _number(x, na: str, low=None, high=None) -> Cell:
    """A figure, with its interval when both ends are known; n/a with the reason when it is missing."""
    if not _finite(x):
        return Cell(na=na)
    return Cell(value=float(x), low=low, high=high) if _finite(low) and _finite(high) else Cell(value=float(x))


def _row(r, baseline_name: str, no_overhead: str) -> tuple[list[Cell], dict]:
    baseline = r.allocator == baseline_name
    net = Cell(value=float(r.net_cycles_per_pair), low=r.net_cycles_ci_low if _finite(r.net_cycles_ci_low) else None,
               high=r.net_cycles_ci_high if _finite(r.net_cycles_ci_high) else None,
               unstable=bool(r.unstable)) if _finite(r.net_cycles_per_pair) else Cell(na="no repetition with a net cost")
    overhead = Cell(na=no_overhead) if baseline else _number(
        r.overhead_ratio, _note(r.notes, ("overhead invalid",), "no overhead figure"),
        r.overhead_ratio_ci_low, r.overhead_ratio_ci_high)
    cells = [Cell(value=r.run), Cell(value=r.workload), Cell(value=r.allocator, label=r.allocator + (" (baseline)" if baseline else "")),
             Cell(value=int(r.threads)), Cell(value=int(r.reps_ok)), net,
             _number(r.net_cycles_cv, "fewer than 2 repetitions: no CV"),
             _number(r.cycles_per_pair, "no repetition"), _number(r.net_ns_per_pair, "no repetition with a net cost"),
             overhead,
             _number(r.thp_coverage, "no hugepage reading (smaps_rollup unreadable, or nothing sampled)"),
             _ratio_cell(r, "speed_vs_system", "speed_ci_low", "speed_ci_high", r.speed_vs_system_verdict, "speed:", baseline),
             _ratio_cell(r, "overhead_vs_system", "overhead_ci_low", "overhead_ci_high", r.overhead_vs_system_verdict,
                         "overhead", baseline),
             Cell(value=r.notes)]
    extras = {k: getattr(r, k) for c in COLUMN_EXTRAS for k in c}
    return cells, extras


COLUMN_EXTRAS = (("net_cycles_ci_level", "net_cycles_ci_method", "net_cycles_rel_half_width"), ("unstable",),
                 ("overhead_ratio_ci_level",), ("speed_ci_level", "speed_p", "speed_significance"),
                 ("overhead_ci_level", "overhead_p", "overhead_significance"))


def display_model(table: pd.DataFrame, baseline: str, no_overhead: str, legend: str) -> DisplayTable:
    """The display model of a summary table (its rows in order)."""
    rows, extras = [], []
    for r in table.itertuples():
        cells, extra = _row(r, baseline, no_overhead)
        rows.append(cells)
        extras.append(extra)
    return DisplayTable(columns(table), rows, extras, legend)
