"""One run's side of a compared cell: the undisturbed `ok` timing values of a metric, or why there
are none.  Read by compare.py (every cell) and compare_reference.py (void's raw figures); kept
apart so that neither imports the other.  Model: a net figure of void is 0 by definition, so it
has no side; a run whose cell failed, was skipped or was disturbed in every process has none."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..results import catalogue
from ..results.records import BASELINE
from ..stats import statistics as st
from ..results.loading import measured_timing


def side_values(rows: pd.DataFrame, run: str, allocator: str, name: str) -> tuple[np.ndarray, str]:
    """(values, "") of one run's side of a cell (`rows`: that run's timing rows of the cell), or
    (empty, why there are none).  Also what compare_reference.py reads void's figures with."""
    if rows.empty:
        return np.array([]), f"absent from {run}"
    if allocator == BASELINE and name.startswith("net_"):
        return np.array([]), "void is the baseline: its net figures are 0 by definition"
    ok = rows[rows["status"] == "ok"]
    if ok.empty:
        status = rows["status"].iloc[0]
        reasons = [r for r in rows["reason"] if isinstance(r, str) and r]
        return np.array([]), f"{status} in {run}" + (f": {reasons[0]}" if reasons else "")
    kept = measured_timing(ok)
    if kept.empty:
        return np.array([]), f"every process disturbed in {run} ({len(ok)} of {len(ok)})"
    column = catalogue.column_of(name)
    values = st.clean(kept[column].to_numpy()) if column in kept else np.array([])
    if values.size:
        return values, ""
    if name.startswith("net_") and "baseline_cycles_per_pair" in kept and kept["baseline_cycles_per_pair"].isna().all():
        return values, f"no void baseline in {run} (no ok void cell at the same threads and repetition)"
    return values, f"no value of {name} in {run}"
