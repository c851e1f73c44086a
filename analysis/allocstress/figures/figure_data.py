"""The numbers the report's figures draw, per (run, workload, threads) panel and allocator, from
the ok, undisturbed timing repetitions (loading.measured_timing):

- the workload's headline metric (catalogue.headline_metric: net cycles per pair for alloc-test)
  per repetition, its median and an interval of the median: the record's own `intervals.<metric>`
  from the results' median aggregate when there is one (its level and method as recorded), else
  the distribution-free order-statistic interval of statistics.median_ci (its achieved level:
  [min, max] below 95% with 5 or fewer repetitions);
- cost relative to a reference allocator: median / the reference's median, with the quotient of
  the two medians' intervals (median_intervals.ratio_interval, the interval the tables and the
  verdict give the same ratio: the reference's interval over this cell's is the recorded
  speed_vs_system_interval where it applies, inverted here, [1 / high, 1 / low]; its level is at
  least the sum of the two medians' levels minus 1, Bonferroni; a lower end of 0 is unbounded,
  where this cell's interval of the median reaches 0).  The reference is REFERENCE (`system`, glibc's malloc) when the panel has it
  with a positive median, else the most expensive allocator of the panel;
- memory overhead (overhead_ratio) per repetition, its median and order-statistic interval; a
  cell one of whose repetitions has an invalid overhead has none (tables.overhead_ratios).

The void baseline is left out (its net cost is 0 by definition).  Disturbed repetitions are kept
apart (`disturbed`) so a figure can show them without counting them.  A non-conforming allocator
(safety.nonconforming_allocators: it breaks malloc's contract) is drawn but not ranked: its cells
carry the reason (`nonconforming`), the figures put them after the ranked ones and label them
with NOT_RANKED."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..results import catalogue, safety
from ..stats import statistics as st
from ..results.loading import Runs, measured_timing
from ..results.aggregates import RecordedAggregates
from ..stats.median_intervals import median_interval, ratio_interval, recorded_interval
from ..results.records import BASELINE, REFERENCE, timing_cell
from ..tabulation.tables import overhead_ratios
from .plots import percent

ORDER_STATISTIC = "order-statistic"
QUOTIENT = "quotient of the medians' intervals"  # the ratio's interval: median_intervals.ratio_interval
IN_TREE = "reference allocators built in (allocator_kind in_tree: bump, eqclass, pool)"
NOT_RANKED = " (non-conforming, not ranked)"  # after a non-conforming allocator's name in the figures


@dataclass
class Cell:
    """One allocator in one panel."""
    allocator: str
    kind: str                     # allocator_kind: "drop_in" or "in_tree"
    values: np.ndarray            # headline metric, one per ok undisturbed repetition
    disturbed: np.ndarray         # the same metric of disturbed repetitions (not counted)
    median: float
    low: float                    # interval of the median
    high: float
    level: float
    method: str
    overhead: np.ndarray          # overhead_ratio per repetition (empty when invalid or absent)
    overhead_note: str = ""       # why there is no overhead
    ratio: dict = field(default_factory=dict)  # ratio, ci_low, ci_high, level, method, note: to the panel's reference
    nonconforming: str = ""       # why it breaks malloc's contract ("" = it conforms): not ranked

    @property
    def in_tree(self) -> bool:
        return self.kind != "drop_in"

    @property
    def label(self) -> str:
        """The allocator's name, with NOT_RANKED when it is non-conforming."""
        return self.allocator + (NOT_RANKED if self.nonconforming else "")


@dataclass
class Panel:
    run: str
    workload: str
    threads: int
    metric: str                   # the headline metric's name
    reference: str                # the allocator the ratios divide by ("" when none)
    reference_note: str           # why it is that one
    cells: list[Cell]

    def sorted_by_ratio(self) -> list[Cell]:
        """Cheapest first; cells without a ratio, then non-conforming ones (not ranked) last, in panel order."""
        key = [c.ratio.get("ratio", math.nan) for c in self.cells]
        order = sorted(range(len(self.cells)), key=lambda i: (bool(self.cells[i].nonconforming), math.isnan(key[i]),
                                                              0 if math.isnan(key[i]) else key[i], i))
        return [self.cells[i] for i in order]

    def cell(self, allocator: str) -> Cell | None:
        return next((c for c in self.cells if c.allocator == allocator), None)


def metric_axis_label(metric: str) -> str:
    """'net_cycles_per_pair (TSC cycles)': the metric and its unit from the catalogue."""
    m = catalogue.metric(metric)
    return f"{metric} ({m['unit']})" if m and m.get("unit") else metric


def _column(frame: pd.DataFrame, name: str) -> np.ndarray:
    return st.clean(frame[name].to_numpy()) if name in frame else st.clean([])


def choose_reference(cells: list[Cell], preferred: str = REFERENCE) -> tuple[str, str]:
    """(reference allocator, why): `preferred` when present with a positive median, else the most
    expensive allocator with a positive median; ("", reason) when none has one."""
    usable = [c for c in cells if c.values.size and c.median > 0]
    if any(c.allocator == preferred for c in usable):
        return preferred, f"{preferred} (glibc's malloc)" if preferred == REFERENCE else preferred
    if not usable:
        return "", "no allocator has a positive median: no ratios"
    worst = max(usable, key=lambda c: c.median)
    return worst.allocator, f"{worst.allocator}, the most expensive ({preferred} did not run or has no positive median)"


def panels(runs: Runs, run: str, workload: str, reference: str = REFERENCE) -> list[Panel]:
    """The run's panels of `workload`, by thread count; none when no repetition has the headline."""
    metric = catalogue.headline_metric(workload)
    column = catalogue.column_of(metric)
    ok = measured_timing(runs.cells)
    rows = runs.cells[(runs.cells["run"] == run) & (runs.cells["workload"] == workload) & (runs.cells["allocator"] != BASELINE)]
    mode = rows["mode"].fillna("timing") if "mode" in rows else pd.Series("timing", index=rows.index)
    recorded = RecordedAggregates(runs.run_names(), runs.documents)
    nonconforming = safety.nonconforming_allocators(runs.documents[runs.run_names().index(run)])
    out = []
    # A panel per thread count; in it each allocator's rows (every mode: its timing cell's repetitions are `good`).
    for threads, group in rows.groupby("threads", sort=True):
        cells, speed = [], {}  # speed: allocator -> its recorded speed_vs_system_interval, where it is this ratio's
        for allocator, g in group.groupby("allocator", sort=False):
            good = g[g.index.isin(ok.index)]
            values = _column(good, column)
            if values.size == 0:
                continue
            bad = g[(g["status"] == "ok") & (mode.loc[g.index] == "timing") & g["disturbed"]]
            entry = recorded.entry(run, timing_cell(workload, allocator, threads), "median", len(good))
            own = recorded_interval(entry, metric)
            iv = median_interval(values, own)
            low, high, level = iv["low"], iv["high"], iv["level"]
            method = (own.get("method") or ORDER_STATISTIC) if own else ORDER_STATISTIC
            reasons = good["overhead_ratio_invalid"].tolist() if "overhead_ratio_invalid" in good else []
            overhead, note = overhead_ratios(good["overhead_ratio"].to_numpy() if "overhead_ratio" in good else [], reasons)
            kind = next((k for k in g.get("allocator_kind", pd.Series(dtype=object)).dropna()), "drop_in")
            cells.append(Cell(allocator, kind, values, _column(bad, column), float(np.median(values)), low, high, level,
                              method, overhead, note or ("" if overhead.size else "no overhead_ratio recorded"),
                              nonconforming=nonconforming.get(allocator, "")))
            speed[allocator] = (entry or {}).get("speed_vs_system_interval") if own is not None and _is_speed_metric(workload, metric) else None
        if not cells:
            continue
        ref, why = choose_reference(cells, reference)
        ref_cell = next((c for c in cells if c.allocator == ref), None)
        for c in cells:
            c.ratio = ratio_to_reference(c, ref_cell, speed.get(c.allocator) if ref == REFERENCE else None, why)
        out.append(Panel(run, workload, int(threads), metric, ref, why, cells))
    return out


def _is_speed_metric(workload: str, metric: str) -> bool:
    """Whether `metric` is the one C++ records speed_vs_system of (results_summary speed_metric:
    the headline where it is a record field, or a program's)."""
    m = catalogue.metric(metric)
    return m is not None and (m["place"] == "record" or catalogue.is_program(workload))


def _bounds(c: Cell) -> dict:
    return {"low": c.low, "high": c.high, "level": c.level}


def ratio_to_reference(c: Cell, ref: Cell | None, recorded: dict | None, why: str) -> dict:
    """{ratio, ci_low, ci_high, level, method, note}: c's median / ref's, its interval the inverse of
    ratio_interval(ref, c) -- the recorded speed_vs_system_interval when given -- so that figures and
    tables show one interval for one ratio.  ci_low 0: no lower bound (c's interval reaches 0)."""
    out = {"ratio": math.nan, "ci_low": math.nan, "ci_high": math.nan, "level": math.nan, "method": QUOTIENT, "note": why}
    if ref is None:
        return out
    if not (c.median > 0 and ref.median > 0):
        return {**out, "note": "a median is <= 0 (cost indistinguishable from the baseline): no ratio"}
    out.update(ratio=c.median / ref.median, note="")
    if c is ref:
        return {**out, "note": "the reference"}
    if c.values.size < 2 or ref.values.size < 2:
        return {**out, "note": "fewer than 2 values: no interval"}
    q = ratio_interval(_bounds(ref), _bounds(c), recorded)
    if not math.isfinite(q["low"]) or q["low"] <= 0:
        return {**out, "note": "no interval: a median's interval is missing or not above 0"}
    out.update(ci_low=1 / q["high"] if math.isfinite(q["high"]) else 0.0, ci_high=1 / q["low"], level=q["level"])
    if out["ci_low"] == 0:
        out["note"] = "no lower bound: its interval of the median reaches 0"
    return out


def ratio_interval_text(panels: list[Panel]) -> str:
    """How the figures name the ratios' intervals: the method and the lowest level drawn."""
    levels = [c.ratio.get("level", math.nan) for p in panels for c in p.cells]
    levels = [x for x in levels if math.isfinite(x)]
    if not levels:
        return f"{QUOTIENT} (none drawn)"
    return f"{QUOTIENT}, level >= {percent(min(levels))} (Bonferroni: both medians' levels summed minus 1)"


def figure_workloads(runs: Runs, run: str) -> list[str]:
    """The run's workloads with a headline value in some ok undisturbed timing repetition, in order."""
    ok = measured_timing(runs.cells)
    ok = ok[(ok["run"] == run) & (ok["allocator"] != BASELINE)]
    out = []
    for workload in dict.fromkeys(ok["workload"]):
        column = catalogue.column_of(catalogue.headline_metric(workload))
        if column in ok and ok.loc[ok["workload"] == workload, column].notna().any():
            out.append(workload)
    return out
