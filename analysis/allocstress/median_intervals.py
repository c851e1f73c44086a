"""The interval of a cell's median, and whether two cells can be told apart.

The interval is the one the C++ median aggregate recorded for the cell (`intervals.<metric>`:
low, high, real level, and `method` where the file names it; results/README.md) when the file
has one, else the distribution-free order-statistic interval of the values (statistics.median_ci:
the narrowest reaching 95%, or [min, max] below 6 values).  Its relative half-width,
(high - low) / 2 / |median|, is the median's precision: the tables call a cell unstable above 10%.
Two cells are indistinguishable when their intervals overlap (the C++ `vs_system` rule)."""

from __future__ import annotations

import math

import numpy as np

from . import statistics as st


def recorded_intervals(runs) -> dict:
    """(run, workload, allocator, threads) -> the net_cycles_per_pair interval the C++ median
    aggregate entry recorded ({low, high, level, method?, ...}), for files that have them."""
    out = {}
    for run, doc in zip(runs.run_names(), runs.documents):
        for e in doc["benchmarks"]:
            if e.get("run_type") == "aggregate" and e.get("aggregate_name") == "median" and e.get("mode", "timing") == "timing":
                interval = (e.get("intervals") or {}).get("net_cycles_per_pair")
                if isinstance(interval, dict) and all(isinstance(interval.get(k), (int, float)) for k in ("low", "high", "level")):
                    out[(run, e["workload"], e["allocator"], int(e["threads"]))] = interval
    return out


def median_interval(values, recorded: dict | None = None) -> dict:
    """{median, low, high, level, method, rel_half_width} of a cell: the recorded interval when
    given, else the order-statistic one of `values` (NaN ends below 2 values)."""
    a = st.clean(values)
    median = float(np.median(a)) if a.size else math.nan
    if recorded:
        low, high, level = float(recorded["low"]), float(recorded["high"]), float(recorded["level"])
        method = recorded.get("method") or "order statistics"
    else:
        (low, high, level), method = st.median_ci(a), "order statistics"
    rel = (high - low) / 2 / abs(median) if math.isfinite(low) and math.isfinite(median) and median != 0 else math.nan
    if recorded and isinstance(recorded.get("relative_half_width"), (int, float)):
        rel = float(recorded["relative_half_width"])  # the C++ figure, so both tables mark the same cells
    return {"median": median, "low": low, "high": high, "level": level, "method": method, "rel_half_width": rel}


def overlap_verdict(mine: dict, ref: dict, below: str, above: str) -> str:
    """`below` / `above` when `mine`'s interval lies wholly below / above `ref`'s,
    'indistinguishable' when they overlap, '' when either is missing."""
    if not all(math.isfinite(x) for x in (mine["low"], mine["high"], ref["low"], ref["high"])):
        return ""
    return below if mine["high"] < ref["low"] else above if mine["low"] > ref["high"] else "indistinguishable"
