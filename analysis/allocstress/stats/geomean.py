"""The geometric-mean table: per run and allocator, the geometric mean over cells (workload x
thread count) of speed_vs_system and of overhead_vs_system, with the bootstrap interval of the
geometric mean (95% percentile over repetitions: every cell's repetitions of the allocator and of
system resampled, statistics.geomean_ratio_interval; a mean over many cells, not a per-cell ratio),
sorted cheapest first (highest speed vs system).

Every allocator of a run is averaged over the same cells: those where every listed allocator has
the ratio.  An allocator with no ratio anywhere is left out of the table instead (it would leave
no common cell); both kinds of omission are listed with their reason in `attrs["left_out"]`."""

from __future__ import annotations

import math
import warnings

import pandas as pd

from . import statistics as st

GEOMEAN_COLUMNS = ["run", "allocator", "rows", "geomean_speed_vs_system", "speed_ci_low", "speed_ci_high",
                   "overhead_rows", "geomean_overhead_vs_system", "overhead_ci_low", "overhead_ci_high"]
INTERVAL = "bootstrap interval of the geometric mean, 95% percentile over repetitions"


def _common_cells(g: pd.DataFrame, column: str, left_out: list, run: str, what: str) -> tuple[set, list]:
    """(the (workload, threads) cells every allocator of `g` has `column` at, the allocators kept).
    (workload, threads) names the slot each allocator's timing cell of one run fills in the table,
    across allocators (stats sits below the record key of results.records); kept positional, as
    the sorted(key=str) order of these tuples fixes the order the resamples are drawn in."""
    has = g[g[column].notna()]
    keep = [a for a in g["allocator"].unique() if (has["allocator"] == a).any()]
    for a in g["allocator"].unique():
        if a not in keep:
            left_out.append(f"{run}: {a} has no {what} ratio in any cell: left out of the {what} geometric mean")
    cells = {(w, t) for w, t in g[["workload", "threads"]].drop_duplicates().itertuples(index=False)}
    common = set(cells)
    for a in keep:
        mine = {(r.workload, r.threads) for r in has[has["allocator"] == a].itertuples()}
        for cell in sorted(cells - mine, key=str):
            if cell in common:
                left_out.append(f"{run}: {what} at {cell[0]}, {cell[1]} threads left out for every allocator: "
                                f"{a} has no {what} ratio there")
        common &= mine
    return common, keep


def _mean(g: pd.DataFrame, allocator: str, common: set, keep: list, column: str, values: dict, run: str,
          reference: str, speed: bool) -> tuple[float, float, float, int]:
    if allocator not in keep or not common:
        return math.nan, math.nan, math.nan, 0
    mine = g[(g["allocator"] == allocator) & g[["workload", "threads"]].apply(tuple, axis=1).isin(common)]
    mean = st.geometric_mean(mine[column])
    if allocator == reference or not values:
        return mean, math.nan, math.nan, len(mine)
    k = 0 if speed else 1  # values: (net cycles, overhead ratios) per (run, workload, allocator, threads)
    pairs = []
    for w, t in sorted(common, key=str):  # a fixed order: the resamples are drawn cell by cell from one seeded stream
        own, ref = values.get((run, w, allocator, t)), values.get((run, w, reference, t))
        if own is None or ref is None:
            return mean, math.nan, math.nan, len(mine)
        pairs.append((own[k], ref[k]) if speed else (ref[k], own[k]))
    with warnings.catch_warnings():  # a resample where every cell's median is <= 0 is dropped (nanmean of nothing)
        warnings.simplefilter("ignore", RuntimeWarning)
        low, high = st.geomean_ratio_interval(pairs)
    return mean, low, high, len(mine)


def geomean_table(table: pd.DataFrame, baseline: str, reference: str) -> pd.DataFrame:
    """Per (run, allocator) but the baseline: the geometric means, their intervals and how many
    cells went into each; cheapest first within each run."""
    values = table.attrs.get("values", {})
    rows, left_out = [], []
    for run, g in table[table["allocator"] != baseline].groupby("run", sort=False):
        speed_cells, speed_keep = _common_cells(g, "speed_vs_system", left_out, run, "speed")
        over_cells, over_keep = _common_cells(g, "overhead_vs_system", left_out, run, "overhead")
        out = []
        for allocator in g["allocator"].unique():
            s, s_lo, s_hi, n = _mean(g, allocator, speed_cells, speed_keep, "speed_vs_system", values, run, reference, True)
            o, o_lo, o_hi, m = _mean(g, allocator, over_cells, over_keep, "overhead_vs_system", values, run, reference, False)
            out.append({"run": run, "allocator": allocator, "rows": n, "geomean_speed_vs_system": s, "speed_ci_low": s_lo,
                        "speed_ci_high": s_hi, "overhead_rows": m, "geomean_overhead_vs_system": o,
                        "overhead_ci_low": o_lo, "overhead_ci_high": o_hi})
        rows += sorted(out, key=lambda r: -r["geomean_speed_vs_system"] if math.isfinite(r["geomean_speed_vs_system"]) else math.inf)
    geo = pd.DataFrame(rows, columns=GEOMEAN_COLUMNS)
    geo.attrs["left_out"] = left_out
    return geo


def _with_interval(value: float, low: float, high: float, reference: bool) -> str:
    if not math.isfinite(value):
        return "n/a"
    if reference:
        return f"{value:.2f} (reference)"
    return f"{value:.2f} [{low:.2f}, {high:.2f}]" if math.isfinite(low) else "n/a (no interval: fewer than 2 repetitions)"


def geomean_rows(geo: pd.DataFrame, reference: str) -> tuple[list[str], list[list[str]]]:
    """Headers and text cells of the geometric-mean table (no ratio without its interval)."""
    headers = ["run", "allocator", "cells", f"speed vs system [{INTERVAL}]", "overhead cells",
               f"overhead vs system [{INTERVAL}]"]
    rows = [[r.run, r.allocator, str(r.rows),
             _with_interval(r.geomean_speed_vs_system, r.speed_ci_low, r.speed_ci_high, r.allocator == reference),
             str(r.overhead_rows),
             _with_interval(r.geomean_overhead_vs_system, r.overhead_ci_low, r.overhead_ci_high, r.allocator == reference)]
            for r in geo.itertuples()]
    return headers, rows


def geomean_markdown(geo: pd.DataFrame, reference: str) -> str:
    headers, rows = geomean_rows(geo, reference)
    lines = ["| " + " | ".join(headers) + " |", "|---|---|---:|---:|---:|---:|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    notes = ["Cheapest first. Each allocator of a run is averaged over the same cells (workload x threads): those "
             "where every allocator listed has the ratio."] + [f"Left out: {x}" for x in geo.attrs.get("left_out", [])]
    return "\n".join(lines) + "\n\n" + "  \n".join(notes) + "\n"
