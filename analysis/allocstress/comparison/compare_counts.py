"""Comparing the counts tier of two runs exactly.

Counts records (`mode == "counts"`, one per workload x allocator at 1 thread; results/README.md
"Counts cells"; a cell is the records' key, records.cell_key) hold callgrind's simulated figures of one cell.  They are identical on every run
of the same binary, parameters, allocator library and cache geometry, so there is no interval:
A and B are compared by their exact difference B - A and ratio B / A, and the decision rule of
compare_decision.py is applied to the exact ratio (worse when B / A > 1 + threshold, better when
< 1 - threshold, else no change) on DECIDING_FIGURE, the net estimated cycles per pair by which
the matrix's verdict ranks the counts tier.  The other net figures are shown with their exact
deltas.  Only when both runs have a counts tier; a cell of one run only, a failed record, a null
net figure (no void counts record of the same op stream) or records of different op streams
(parameters differ: the figures count different work) are n/a with the reason."""

from __future__ import annotations

import math

import pandas as pd

from ..results import catalogue
from ..results.records import BASELINE, CellKey, rows_by_cell
from . import compare_decision as rule

CELL = ["workload", "allocator", "threads"]
# (field of `counts`, label): the net figures per pair, the deciding one first.
FIGURES = [("net_estimated_cycles_per_unit", "net est. cycles/pair"),
           ("net_instructions_per_unit", "net instructions/pair"),
           ("net_d1_misses_per_unit", "net D1 misses/pair"),
           ("net_ll_misses_per_unit", "net LL misses/pair")]
DECIDING_FIGURE = FIGURES[0][0]
COLUMNS = CELL + ["decision", "reason"] + [f"{f}_{side}" for f, _ in FIGURES for side in ("a", "b", "delta", "ratio")]


def counts_records(runs, run: str) -> pd.DataFrame:
    cells = runs.cells
    mode = cells["mode"].fillna("timing")
    return cells[(cells["run"] == run) & (mode == "counts")]


def availability(runs) -> str:
    """"" when both runs have counts records, else why the counts tier is not compared."""
    missing = [run for run in runs.run_names() if counts_records(runs, run).empty]
    if not missing:
        return ""
    return ("neither run has" if len(missing) == 2 else f"{missing[0]} has no") + \
        " counts records (the counts tier did not run: --no-counts, or a file older than schema version 3)"


def _figure(rows: pd.DataFrame, field: str) -> float:
    column = f"counts.{field}"
    if rows.empty or column not in rows:
        return math.nan
    value = rows[column].iloc[0]
    return math.nan if value is None or pd.isna(value) else float(value)


def _side_reason(rows: pd.DataFrame, run: str) -> str:
    if rows.empty:
        return f"absent from {run}"
    if rows["status"].iloc[0] != "ok":
        reason = rows["reason"].iloc[0]
        return f"{rows['status'].iloc[0]} in {run}" + (f": {reason}" if isinstance(reason, str) and reason else "")
    return ""


def _row(key: CellKey, a: pd.DataFrame, b: pd.DataFrame, names: list[str], threshold: float) -> dict:
    row = {"workload": key.workload, "allocator": key.allocator, "threads": key.threads}
    for field, _ in FIGURES:
        va, vb = _figure(a, field), _figure(b, field)
        row.update({f"{field}_a": va, f"{field}_b": vb, f"{field}_delta": vb - va,
                    f"{field}_ratio": vb / va if va > 0 and vb >= 0 else math.nan})
    reason = _side_reason(a, names[0]) or _side_reason(b, names[1])
    if not reason and key.allocator == BASELINE:
        reason = "void is the baseline: its net counts are 0 by definition"
    if not reason and catalogue.is_program(key.workload):
        reason = ("a program has no void baseline, so no net counts per pair: its counts (estimated_cycles, instructions "
                  "of the whole run) are ranked by the verdict's counts line, not compared here")
    if not reason and "op_stream_hash" in a and a["op_stream_hash"].iloc[0] != b["op_stream_hash"].iloc[0]:
        reason = "A and B counted different op streams (op_stream_hash differs: parameters or seed differ)"
    if not reason:
        for run, value in zip(names, (row[f"{DECIDING_FIGURE}_a"], row[f"{DECIDING_FIGURE}_b"])):
            if math.isnan(value):
                reason = f"no {DECIDING_FIGURE} in {run} (no void counts record of the same op stream)"
                break
    if not reason and math.isnan(row[f"{DECIDING_FIGURE}_ratio"]):
        reason = f"A's {DECIDING_FIGURE} is <= 0: no ratio (the exact delta is shown)"
    if reason:
        return {**row, "decision": rule.NOT_AVAILABLE, "reason": reason}
    ratio = row[f"{DECIDING_FIGURE}_ratio"]
    decision, why = rule.decide(ratio, ratio, threshold)
    return {**row, "decision": decision, "reason": why + " (exact)"}


def compare_counts(runs, threshold: float) -> pd.DataFrame:
    """One row per counts cell of either run (COLUMNS): per figure of FIGURES its value in A and
    B, the exact delta B - A and the ratio B / A (NaN where A <= 0), and the decision on
    DECIDING_FIGURE with its reason, worst first.  Empty when either run has no counts tier
    (availability() says why)."""
    if availability(runs):
        return pd.DataFrame(columns=COLUMNS)
    names = runs.run_names()
    a, b = (counts_records(runs, run) for run in names)
    cells_a, cells_b = rows_by_cell(a), rows_by_cell(b)
    keys = dict.fromkeys([*cells_a, *cells_b])
    table = pd.DataFrame([_row(k, cells_a.get(k, a.iloc[:0]), cells_b.get(k, b.iloc[:0]), names, threshold) for k in keys],
                         columns=COLUMNS)
    table["order"] = table["decision"].map(rule.ORDER)
    table = table.sort_values(["order", f"{DECIDING_FIGURE}_ratio"], ascending=[True, False], kind="stable")
    return table.drop(columns="order").reset_index(drop=True)
