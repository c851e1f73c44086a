"""One run's side of a compared cell: the undisturbed `ok` timing values of a metric, or why there
are none, and the ratio B / A of two sides' medians with its interval.  Read by compare.py (every
cell) and compare_reference.py (void's raw figures); kept apart so that neither imports the other.  Model: a net figure of void is 0 by definition, so it
has no side; a run whose cell failed, was skipped or was disturbed in every process has none."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ..results import catalogue
from ..results.records import BASELINE
from ..stats import statistics as st
from ..results.loading import measured_timing
from ..stats.median_intervals import ratio_interval


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


def side_level(level: float) -> float:
    """The level each run's interval of the median is asked at so that their quotient holds with at
    least `level` (Bonferroni over the two: 1 - (1 - level) / 2)."""
    return 1 - (1 - level) / 2


def quotient_of_medians(va: np.ndarray, vb: np.ndarray, level: float) -> dict:
    """{ratio, ci_low, ci_high, ci_level, note}: median(vb) / median(va), its interval the quotient
    of the two runs' order-statistic intervals of the median (statistics.median_ci at
    side_level(level); median_intervals.ratio_interval: [B low / A high, B high / A low]), ci_level
    the level it achieves -- at least the two achieved levels summed minus 1, below `level` where
    the repetitions are too few to reach it.  NaN figures carry a note."""
    out = {"ratio": math.nan, "ci_low": math.nan, "ci_high": math.nan, "ci_level": math.nan, "note": ""}
    if va.size == 0 or vb.size == 0:
        return out
    ma, mb = float(np.median(va)), float(np.median(vb))
    if ma <= 0 or mb <= 0:
        return {**out, "note": "a median is <= 0 (cost indistinguishable from the baseline): no ratio"}
    out["ratio"] = mb / ma
    if va.size < 2 or vb.size < 2:
        return {**out, "note": "fewer than 2 values: no interval"}
    (a_low, a_high, a_level), (b_low, b_high, b_level) = (st.median_ci(v, side_level(level)) for v in (va, vb))
    q = ratio_interval({"low": b_low, "high": b_high, "level": b_level}, {"low": a_low, "high": a_high, "level": a_level})
    if not math.isfinite(q["low"]):
        return {**out, "note": "an interval of a median is not above 0: no interval"}
    return {**out, "ci_low": q["low"], "ci_high": q["high"], "ci_level": q["level"]}
