"""Tables of the data-structure workloads (the registry's "structure" table kind): what the allocator's
block placement costs when a program later walks its nodes.  These figures are raw -- no void
baseline exists for a structure -- and are compared with the system allocator on the search
phase.  The Gleipnir-style table lists the simulated demand fetches and misses of the search phase
(callgrind, from `--cache-sim` records) beside the measured search cost.

The rows are C++'s (_core.structure_rows, results/tables/structure_rows.hpp; one call per results
file): every median, interval, cv, unstable mark and ratio to system with its interval is the one
the file's aggregate entries recorded (C++ aggregates the records itself where the file has none
for a cell, and takes the median of the repetitions that have a figure where one lacks it).  This
module adds the run, the Mann-Whitney p-value against system and its significance mark (a test that
exists in this package alone, stats/statistics.py, from the repetitions' search costs) and renders."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

import allocstress._core as _core
from ..results import catalogue
from ..stats import statistics as st
from ..results.loading import Runs
from ..results.records import REFERENCE
from .core_rows import core_rows, figure, interval_high
from .tables import number_text, with_interval

STRUCTURE_WORKLOADS = catalogue.workload_names(table="structure")  # the one definition (compare.py imports it)


def _median_of(name: str, place: str = "record", note: str = "") -> tuple[str, str, str]:
    """(column, unit, meaning) of the column that is the median of a catalogued metric."""
    return catalogue.column_doc(name, place, "Median over the ok repetitions of", note)


# (column, unit, meaning): the metric columns' units and definitions from the metric catalogue
STRUCTURE_COLUMNS = [
    ("run", "-", "Results file the row comes from."),
    ("workload", "-", "One of " + ", ".join(STRUCTURE_WORKLOADS) + "."),
    ("allocator", "-", "Allocator name."),
    ("threads", "threads", "Worker threads; each builds and searches its own structure."),
    ("reps_ok", "count", "Timing repetitions with status ok (every search result verified)."),
    _median_of("build_cycles_per_node"),
    _median_of("search_cycles_per_visit"),
    ("search_ci_low", "TSC cycles", "Lower end of the distribution-free interval of that median (as in the alloc-test table)."),
    ("search_ci_high", "TSC cycles", "Upper end of that interval."),
    ("search_cv", "fraction", "Coefficient of variation of search cycles/visit over repetitions."),
    ("unstable", "bool", "The interval of the median search cycles/visit is wider than +-10% of it (relative half-width "
     "> 0.10, the unstable mark of every table; platform/statistics.hpp)."),
    ("search_vs_system", "ratio", "median search cycles/visit of system / of this allocator: > 1 walks faster."),
    ("search_vs_system_ci_low", "ratio", "Lower end of the interval of search_vs_system: the two medians' order-statistic "
     "intervals divided (system's low / this high: the results file's speed_vs_system_interval, or C++'s where it has none), "
     "level at least "
     "the sum of their levels minus 1 (Bonferroni)."),
    ("search_vs_system_ci_high", "ratio", "Upper end of that interval."),
    ("search_p", "p-value", "Two-sided Mann-Whitney U test against system's search cycles/visit."),
    ("search_significance", "mark", "'**' p < 0.01, '*' p < 0.05, '' not significant, 'n/a' too few repetitions."),
    _median_of("cache_line_utilisation", "placement_metrics"),
    _median_of("page_utilisation", "placement_metrics"),
    _median_of("set_histogram_max_over_mean", "placement_metrics"),
    _median_of("overhead_ratio", note="Nodes and interleaved blocks are the live bytes."),
]

SIM_COLUMNS = [
    ("run", "-", "Results file."), ("workload", "-", "Workload."), ("allocator", "-", "Allocator."),
    ("threads", "threads", "Worker threads."),
    ("data_refs", "count", "Demand fetches: data reads + writes of the search loop (callgrind)."),
    ("d1_misses", "count", "Simulated L1 data misses of the search loop."),
    ("d1_miss_rate", "fraction", "d1_misses / data_refs."),
    ("ll_misses", "count", "Simulated last-level data misses of the search loop."),
    ("search_cycles_per_visit", "TSC cycles", "Median measured search cycles per node visited (timing runs)."),
    ("hw_l1d_read_misses", "count", "Hardware L1d read misses of the search phase (first timing repetition), or "
     "n/a where perf_event_open has no such counter."),
    ("hw_reason", "text", "Why the hardware count is n/a (perf_event_open's error), else empty."),
]


def _timing(cells: pd.DataFrame) -> pd.DataFrame:
    mode = cells["mode"].fillna("timing") if "mode" in cells else pd.Series("timing", index=cells.index)
    return cells[(mode == "timing") & cells["workload"].isin(STRUCTURE_WORKLOADS)]


PLACEMENT_COLUMNS = ("cache_line_utilisation", "page_utilisation", "set_histogram_max_over_mean")


def _search_values(cells: pd.DataFrame) -> dict[tuple, np.ndarray]:
    """(run, workload, threads, allocator) -> the search cycles/visit of the cell's ok, undisturbed
    timing repetitions: the values the Mann-Whitney test compares (the only figure of the table
    computed here: the test exists in this package alone, stats/statistics.py)."""
    ok = _timing(cells)
    ok = ok[(ok["status"] == "ok") & ~ok["disturbed"]]
    return {(run, workload, int(threads), allocator): st.clean(g["search_cycles_per_visit"].to_numpy())
            for (run, workload, threads, allocator), g in ok.groupby(["run", "workload", "threads", "allocator"], sort=False)}


def structure_table(runs: Runs) -> pd.DataFrame:
    """The table's rows as C++ builds them (_core.structure_rows, results/tables/structure_rows.hpp),
    with the run and the Mann-Whitney test against system added."""
    names = [c[0] for c in STRUCTURE_COLUMNS]
    values = _search_values(runs.cells)
    rows = []
    for run, r in core_rows(runs, _core.structure_rows):
        search = values.get((run, r["workload"], r["threads"], r["allocator"]), st.clean([]))
        ref = values.get((run, r["workload"], r["threads"], REFERENCE), st.clean([]))
        p, mark = math.nan, ""
        if ref.size and r["allocator"] != REFERENCE:
            p = st.mann_whitney_p(search, ref)
            mark = st.significance_mark(p, search.size, ref.size)
        row = {name: figure(r[name]) for name in names if name in _FIGURES}
        row.update({"run": run, "workload": r["workload"], "allocator": r["allocator"], "threads": int(r["threads"]),
                    "reps_ok": int(r["reps_ok"]), "unstable": bool(r["unstable"]), "search_p": p, "search_significance": mark,
                    "search_vs_system_ci_high": interval_high(r["search_vs_system_ci_low"], r["search_vs_system_ci_high"])})
        rows.append(row)
    return pd.DataFrame(rows, columns=names)


# The columns whose figures are C++'s numbers (null: NaN).
_FIGURES = {"build_cycles_per_node", "search_cycles_per_visit", "search_ci_low", "search_ci_high", "search_cv",
            "search_vs_system", "search_vs_system_ci_low", *PLACEMENT_COLUMNS, "overhead_ratio"}


def cache_sim_table(runs: Runs, structures: pd.DataFrame) -> pd.DataFrame:
    names = [c[0] for c in SIM_COLUMNS]
    cells = runs.cells
    if "mode" not in cells:
        return pd.DataFrame(columns=names)
    sims = cells[(cells["mode"] == "simulate") & (cells["status"] == "ok")]
    timing = _timing(cells)
    rows = []
    for _, rec in sims.iterrows():  # column names hold dots: not itertuples
        key = (rec["run"], rec["workload"], rec["allocator"], rec["threads"])
        measured = structures[(structures["run"] == key[0]) & (structures["workload"] == key[1]) &
                              (structures["allocator"] == key[2]) & (structures["threads"] == key[3])]
        same = timing[(timing["run"] == key[0]) & (timing["workload"] == key[1]) & (timing["allocator"] == key[2]) &
                      (timing["threads"] == key[3])]
        hw, reason = "n/a", "no timing record of this cell"
        if len(same) and "hardware_cache_misses.status" in same:
            first = same.iloc[0]
            if first["hardware_cache_misses.status"] == "measured":
                hw, reason = str(int(first["hardware_cache_misses.values.l1d_read_misses"])), ""
            else:
                reason = str(first["hardware_cache_misses.reason"])
        rows.append({"run": key[0], "workload": key[1], "allocator": key[2], "threads": int(key[3]),
                     "data_refs": int(rec["simulated_cache.data_refs"]), "d1_misses": int(rec["simulated_cache.d1_misses"]),
                     "d1_miss_rate": float(rec["simulated_cache.d1_miss_rate"]), "ll_misses": int(rec["simulated_cache.ll_misses"]),
                     "search_cycles_per_visit": float(measured["search_cycles_per_visit"].iloc[0]) if len(measured) else math.nan,
                     "hw_l1d_read_misses": hw, "hw_reason": reason})
    return pd.DataFrame(rows, columns=names)


STRUCTURE_LEGEND = ("Raw figures: a structure cannot be built on the void allocator, so nothing is subtracted. "
                    "Medians over repetitions, the search cost with its distribution-free interval of the median (order "
                    "statistics at 95% or more; [min, max] with 5 or fewer repetitions, 93.8% at 5, 75% at 3); search vs system "
                    "> 1 = walks faster than on glibc (interval: the two medians' intervals divided, level at least the sum of theirs "
                    "minus 1; ** p < 0.01, * p < 0.05, Mann-Whitney). " +
                    " ".join(f"{m['label']}: {m['definition']}" for m in map(catalogue.metric, (
                        "build_cycles_per_node", "search_cycles_per_visit", *PLACEMENT_COLUMNS))))

SIM_LEGEND = ("Search phase only: callgrind's cache simulator with collection switched on around the search loop, after "
              "one uncollected warm-up search, with address randomisation off, so the counts are identical on every run at "
              "one thread.  Demand fetches = data reads + "
              "writes; misses of the simulated L1 data and last-level caches (geometry in each record).  Real search "
              "cycles/visit are the timing runs' medians; hardware counts are n/a where the machine has no PMU.")


def structure_display(table: pd.DataFrame) -> tuple[list[str], list[list[str]]]:
    multi_run = table["run"].nunique() > 1
    shown = {name: catalogue.shown(name) for name in ("build_cycles_per_node", "search_cycles_per_visit", *PLACEMENT_COLUMNS,
                                              "overhead_ratio")}
    headers = (["run"] if multi_run else []) + [
        "workload", "allocator", "threads", "reps", shown["build_cycles_per_node"][0],
        shown["search_cycles_per_visit"][0] + " [interval of the median, order statistics]", "CV", "search vs system [quotient of the medians' intervals]"] + [
        shown[n][0] for n in (*PLACEMENT_COLUMNS, "overhead_ratio")]
    fmt = {name: f for name, (_, f) in shown.items()}
    rows = []
    for r in table.itertuples():
        speed = with_interval(r.search_vs_system, r.search_vs_system_ci_low, r.search_vs_system_ci_high, "{:.2f}")
        if r.allocator == REFERENCE:
            speed = "1 (reference)"
        elif r.search_significance and speed != "n/a":
            speed += " " + r.search_significance if r.search_significance != "n/a" else " (test n/a)"
        rows.append(([r.run] if multi_run else []) + [
            r.workload, r.allocator, str(r.threads), str(r.reps_ok), number_text(r.build_cycles_per_node, fmt["build_cycles_per_node"]),
            with_interval(r.search_cycles_per_visit, r.search_ci_low, r.search_ci_high, fmt["search_cycles_per_visit"]),
            number_text(r.search_cv, "{:.3f}") + (" (unstable)" if r.unstable else ""), speed] + [
            number_text(getattr(r, n), fmt[n]) for n in (*PLACEMENT_COLUMNS, "overhead_ratio")])
    return headers, rows


def sim_display(table: pd.DataFrame) -> tuple[list[str], list[list[str]]]:
    multi_run = table["run"].nunique() > 1
    headers = (["run"] if multi_run else []) + [
        "workload", "allocator", "threads", "demand fetches", "L1 misses", "L1 miss rate", "LL misses",
        "search cycles/visit (real)", "HW L1d read misses"]
    rows = [([r.run] if multi_run else []) + [
        r.workload, r.allocator, str(r.threads), str(r.data_refs), str(r.d1_misses), f"{r.d1_miss_rate:.4f}",
        str(r.ll_misses), number_text(r.search_cycles_per_visit, "{:.2f}"), r.hw_l1d_read_misses] for r in table.itertuples()]
    return headers, rows


def hardware_notes(sims: pd.DataFrame) -> list[str]:
    """The distinct reasons why hardware counts are n/a, once each."""
    return [f"hardware counts n/a: {r}" for r in dict.fromkeys(sims["hw_reason"]) if r]


def to_markdown(headers: list[str], rows: list[list[str]], legend: str) -> str:
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines) + "\n\n" + legend + "\n"
