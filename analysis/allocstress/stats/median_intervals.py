"""The interval of a cell's median, and whether two cells can be told apart.

The interval is the one the C++ median aggregate recorded for the cell (`intervals.<metric>`:
low, high, real level, and `method` where the file names it; results/README.md) when the file
has one, else the distribution-free order-statistic interval of the values (statistics.median_ci:
the narrowest reaching 95%, or [min, max] below 6 values).  Its relative half-width,
(high - low) / 2 / |median|, is the median's precision: the tables call a cell unstable above 10%.
Two cells are indistinguishable when their intervals overlap (the C++ `vs_system` rule).  The rules
(the interval, its relative half-width, the overlap, the quotient interval) are C++'s
(platform/statistics.hpp), called through `allocstress._core`."""

from __future__ import annotations

import math

import numpy as np

import allocstress._core as _core

from . import statistics as st


def recorded_interval(entry: dict | None, metric: str) -> dict | None:
    """The entry's `intervals.<metric>` when it is a complete one ({low, high, level, ...}), else None."""
    interval = ((entry or {}).get("intervals") or {}).get(metric)
    ok = isinstance(interval, dict) and all(isinstance(interval.get(k), (int, float)) for k in ("low", "high", "level"))
    return interval if ok else None


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
    rel = st.relative_half_width(low, high, median)
    if recorded and isinstance(recorded.get("relative_half_width"), (int, float)):
        rel = float(recorded["relative_half_width"])  # the C++ figure, so both tables mark the same cells
    return {"median": median, "low": low, "high": high, "level": level, "method": method, "rel_half_width": rel}


def overlap_verdict(mine: dict, ref: dict, below: str, above: str) -> str:
    """`below` / `above` when `mine`'s interval lies wholly below / above `ref`'s,
    'indistinguishable' when they overlap, '' when either is missing (the C++ interval_order)."""
    order = _core.interval_order(float(mine["low"]), float(mine["high"]), float(ref["low"]), float(ref["high"]))
    return {None: "", "below": below, "above": above, "overlap": "indistinguishable"}[order]


RATIO_METHOD = "the two medians' intervals divided (Bonferroni)"


def ratio_interval(num: dict, den: dict, recorded: dict | None = None) -> dict:
    """{low, high, level, method} of median(num) / median(den) from the two medians' intervals:
    [num low / den high, num high / den low], which holds the ratio whenever both intervals hold
    their medians, so its level is at least level(num) + level(den) - 1 (Bonferroni) -- the C++
    `speed_vs_system_interval`, taken as recorded when given.  high is inf where den's interval
    reaches 0; all NaN where a ratio means nothing (num low or den high not above 0) or an
    interval is missing."""
    nan = {"low": math.nan, "high": math.nan, "level": math.nan, "method": ""}
    if recorded and isinstance(recorded.get("low"), (int, float)):
        high = recorded.get("high")
        return {"low": float(recorded["low"]), "high": float(high) if isinstance(high, (int, float)) else math.inf,
                "level": float(recorded.get("level_at_least", math.nan)), "method": RATIO_METHOD}
    quotient = _core.ratio_interval(*(float(side[k]) for side in (num, den) for k in ("low", "high", "level")))
    if quotient is None:
        return nan
    low, high, level = quotient
    return {"low": low, "high": high, "level": level, "method": RATIO_METHOD}
