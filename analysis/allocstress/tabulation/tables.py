"""The comparison table: one row per (run, workload, allocator, threads) with the allocator's own
cost and the interval of its median, memory overhead, and both relative to the system allocator
with their intervals and a verdict.  Every column is documented in COLUMNS.  The renderings
(Markdown, LaTeX, CSV, the report's HTML) are all drawn from one display model
(summary_display.py, table_model.py), so they cannot disagree.

Model: a row is the C++ row's (`_core.summary_rows` `columns`, results/tables/summary_columns.cpp):
every column but run and the Mann-Whitney p-values, from the aggregate entries the file records
where they summarised the cell's repetitions, else from entries C++ recomputes from the records
(timing_cells.hpp chosen_aggregates).  Nothing here computes a figure C++ gives: this module adds
the run, the p-values and significance marks (statistics.py, over the frame's repetitions),
attrs["values"] and attrs["nonconforming"], and renders.  A cell is *unstable* when its interval's
relative half-width exceeds UNSTABLE_HALF_WIDTH; "vs system" is *indistinguishable* when the two
medians' intervals overlap (both C++ rules)."""

from __future__ import annotations

import math

import pandas as pd

import allocstress._core as _core

from ..results import catalogue, safety
from ..stats import geomean
from . import latex_table, summary_display, table_model
from ..stats import statistics as st
from .core_rows import core_rows, interval_high
from .table_model import DisplayTable
from ..results.loading import Runs, measured_timing
from ..stats.statistics import UNSTABLE_HALF_WIDTH

from ..results.records import BASELINE, REFERENCE
BASELINE_NO_OVERHEAD = _core.baseline_no_overhead_note  # the void row's note, as the C++ row carries it
# Workloads whose timing records have no net cost, so no row here: every registry entry without a
# void baseline -- the data structures (structures.py), the false-sharing kernels (their
# baseline, private cache-line-aligned objects, is measured inside the cell: workload_metrics.py)
# and the real programs (every program's name resolves to the `program` entry).  The C++ rows
# (summary_rows) carry columns only for the other ones that this build knows, as the Markdown.
FALSE_SHARING_WORKLOADS = catalogue.workload_names(family="false-sharing")
WITHOUT_NET_COST = catalogue.workload_names(void_baseline=False)


# (column, unit, what it is and how it is computed).  The columns that are medians of a record
# metric take unit and definition from the metric catalogue; the statistics are the C++ rows' (summary_columns.cpp).
COLUMNS = [
    ("run", "-", "Results file the row comes from (file name without .json)."),
    ("workload", "-", "Workload of the cell (e.g. alloc-test)."),
    ("allocator", "-", "Allocator name as in the results file."),
    ("threads", "threads", "Worker threads of the cell."),
    ("reps_ok", "count", "Repetitions with status ok, undisturbed, and a net cost (baseline matched); only these are summarised."),
    catalogue.column_doc("net_cycles_per_pair"),
    ("net_cycles_ci_low", "TSC cycles", "Lower end of the interval of that median: the one the results file's median "
     "entry recorded (intervals.net_cycles_per_pair) when it has one, else a distribution-free interval from order "
     "statistics (binomial: the narrowest reaching 95%, or [min, max] when the repetitions are too few). Void: none."),
    ("net_cycles_ci_high", "TSC cycles", "Upper end of the same interval."),
    ("net_cycles_ci_level", "fraction", "The interval's real confidence level (e.g. 0.9375 for [min, max] of 5 values)."),
    ("net_cycles_ci_method", "text", "How the interval was computed (e.g. 'order statistics')."),
    ("net_cycles_rel_half_width", "fraction", "(high - low) / 2 / |median| of that interval (void: of the interval "
     "of its raw cycles/pair, computed from its repetitions): the precision of the median."),
    ("net_cycles_cv", "fraction", "Coefficient of variation of net_cycles_per_pair over repetitions: sample sd / |mean| "
     "(void: of its raw cycles). Shown as '%' in the rendered tables."),
    ("unstable", "bool", f"True when net_cycles_rel_half_width > {UNSTABLE_HALF_WIDTH:.2f}: the median is known to no "
     f"better than +-{UNSTABLE_HALF_WIDTH:.0%} (marked with a dagger in the rendered tables)."),
    catalogue.column_doc("cycles_per_pair", note="For void: the baseline's own cost."),
    catalogue.column_doc("net_ns_per_pair"),
    catalogue.column_doc("overhead_ratio", note="Void: n/a (its RSS is one aliased buffer, not memory use)."),
    ("overhead_ratio_ci_low", "ratio", "Lower end of the interval of that median: the recorded intervals.overhead_ratio, "
     "else order statistics as for net_cycles_ci_low."),
    ("overhead_ratio_ci_high", "ratio", "Upper end of the same interval."),
    ("overhead_ratio_ci_level", "fraction", "That interval's real level."),
    catalogue.column_doc("thp_coverage", how="Median over the ok repetitions of"),
    ("speed_vs_system", "ratio", "median net cycles/pair of system / of this allocator, same run, workload and threads: "
     "> 1 is faster than the system allocator."),
    ("speed_ci_low", "ratio", "Lower end of the interval of speed_vs_system from the two medians' intervals: system's low / "
     "this cell's high (the recorded speed_vs_system_interval when the file has it; the same computation otherwise)."),
    ("speed_ci_high", "ratio", "Upper end: system's high / this cell's low; inf where this cell's interval reaches 0."),
    ("speed_vs_system_verdict", "text", "'faster' / 'slower' when the intervals of the two medians (net_cycles_ci_*) do "
     "not overlap, 'indistinguishable' when they do (then the ratio's interval holds 1; the rendered tables show that "
     "word, not the ratio), 'reference' for system, '' when there is no interval."),
    ("speed_ci_level", "fraction", "The level that interval has at least: level(this) + level(system) - 1 (Bonferroni)."),
    ("speed_p", "p-value", "Two-sided Mann-Whitney U test of this allocator's net cycles/pair against system's (exact "
     "permutation test with mid-ranks up to 20 values in all)."),
    ("speed_significance", "mark", "'**' p < 0.01, '*' p < 0.05, '' not significant, 'n/a' too few repetitions for the "
     "test to ever reach p < 0.05."),
    ("overhead_vs_system", "ratio", "median overhead_ratio of this allocator / of system: < 1 uses less memory."),
    ("overhead_ci_low", "ratio", "Lower end of the interval of overhead_vs_system: overhead_ratio_ci_low / system's high."),
    ("overhead_ci_high", "ratio", "Upper end: overhead_ratio_ci_high / system's low."),
    ("overhead_vs_system_verdict", "text", "'leaner' / 'larger' when the intervals of the two overhead medians do not "
     "overlap, 'indistinguishable' when they do, 'reference' for system."),
    ("overhead_ci_level", "fraction", "The level that interval has at least (Bonferroni, as speed_ci_level)."),
    ("overhead_p", "p-value", "Two-sided Mann-Whitney U test of overhead_ratio against system's."),
    ("overhead_significance", "mark", "As speed_significance, for overhead_p.  Overhead is nearly deterministic for one "
     "operation stream, so even small differences test as significant: they hold for this seed."),
    ("notes", "text", "Why a figure, ratio or interval is missing (e.g. a median net cost <= 0), if it is."),
]
COLUMN_NAMES = [c[0] for c in COLUMNS]


def _values(frame: pd.DataFrame, column: str):
    """The column's finite values (missing, None and NaN dropped)."""
    return st.clean(frame[column].to_numpy()) if column in frame else st.clean([])


def overhead_ratios(ratios, invalid_reasons) -> tuple:
    """(the finite overhead ratios of a cell's repetitions, "" or why there are none).  One
    repetition whose RSS grew by less than was live (its overhead_ratio_invalid) makes the whole
    cell's overhead invalid, as in the C++ aggregates: never ranked."""
    reasons = [r for r in invalid_reasons if isinstance(r, str) and r]
    if reasons:
        return st.clean([]), _core.overhead_invalid_note + reasons[0]
    return st.clean(ratios), ""


def cell_overhead(frame: pd.DataFrame) -> tuple:
    reasons = frame["overhead_ratio_invalid"].tolist() if "overhead_ratio_invalid" in frame else []
    return overhead_ratios(frame["overhead_ratio"].to_numpy() if "overhead_ratio" in frame else [], reasons)


def median_of(values) -> float:
    return float(pd.Series(values, dtype=float).median()) if len(values) else math.nan


def summary_table(runs: Runs) -> pd.DataFrame:
    """The table over every ok, undisturbed repetition in `runs`, in the order cells first appear.
    `attrs["nonconforming"]`: (run, allocator) -> why it breaks malloc's contract
    (safety.nonconforming_by_run); such allocators keep their rows but are left out of the ranking
    (geomean_table)."""
    cells = runs.cells
    if cells.empty or "status" not in cells:
        table = pd.DataFrame(columns=COLUMN_NAMES)
        table.attrs["nonconforming"] = {}
        return table
    # alloc-test-like rows only: timing records of the workloads with a void baseline (the C++ rows' cells)
    cpp = cpp_columns(runs)
    ok = measured_timing(cells)
    ok = ok[ok["workload"].isin({key[1] for key in cpp})]
    rows, values = [], {}  # values: each cell's (net cycles, overhead ratios) per repetition, for geomean_table
    for (run, workload, threads), group in ok.groupby(["run", "workload", "threads"], sort=False):
        ref = group[group["allocator"] == REFERENCE]
        ref_net, (ref_over, _) = _values(ref, "net_cycles_per_pair"), cell_overhead(ref)
        for allocator, g in group.groupby("allocator", sort=False):
            key = (run, workload, allocator, int(threads))
            if key not in cpp:  # a workload this build does not know: no table, as in the Markdown
                continue
            values[key] = (_values(g, "net_cycles_per_pair"), cell_overhead(g)[0])
            rows.append(_cpp_row(*key, cpp[key], g, ref_net, ref_over))
    table = pd.DataFrame(rows, columns=COLUMN_NAMES)
    table.attrs["values"] = values
    table.attrs["nonconforming"] = safety.nonconforming_by_run(runs)  # (run, allocator) -> reason: never ranked
    return table


def cpp_columns(runs: Runs) -> dict:
    """(run, workload, allocator, threads) -> the C++ row's columns (_core.summary_rows: every
    column but run and the p-values) of each timing cell of a workload net of void."""
    return {(run, r["workload"], r["allocator"], int(r["threads"])): r["columns"]
            for run, r in core_rows(runs, _core.summary_rows) if r.get("columns")}


def _cpp_row(run, workload, allocator, threads, columns: dict, g, ref_net, ref_over) -> dict:
    """One row of summary_table from the C++ row's `columns` (null: n/a; a ratio interval's null
    high under a low: unbounded), with the Mann-Whitney p-values of the repetitions `g` against system's."""
    row = {"run": run, "workload": workload, "allocator": allocator, "threads": threads}
    for name, value in columns.items():
        is_high = name in ("speed_ci_high", "overhead_ci_high")
        row[name] = interval_high(columns[name[:-4] + "low"], value) if is_high else math.nan if value is None else value
    row["reps_ok"] = int(row["reps_ok"])
    speed_p = over_p = math.nan
    speed_mark = over_mark = ""
    if allocator not in (BASELINE, REFERENCE) and ref_net.size:
        net, over = _values(g, "net_cycles_per_pair"), cell_overhead(g)[0]
        speed_p, over_p = st.mann_whitney_p(net, ref_net), st.mann_whitney_p(over, ref_over)
        speed_mark = st.significance_mark(speed_p, net.size, ref_net.size)
        over_mark = st.significance_mark(over_p, over.size, ref_over.size)
    row.update({"speed_p": speed_p, "speed_significance": speed_mark, "overhead_p": over_p, "overhead_significance": over_mark})
    return row


def geomean_table(table: pd.DataFrame) -> pd.DataFrame:
    """Per (run, allocator): geometric means of speed_vs_system and overhead_vs_system over the cells
    every allocator has, with bootstrap intervals, cheapest first (geomean.py); `attrs["left_out"]`
    lists the cells and allocators left out and why.  Non-conforming allocators
    (table.attrs["nonconforming"]) are not ranked: left out, with their reason."""
    nonconforming = table.attrs.get("nonconforming", {})
    keys = list(zip(table["run"], table["allocator"]))
    if not nonconforming:
        return geomean.geomean_table(table, BASELINE, REFERENCE)
    ranked = table[[key not in nonconforming for key in keys]]
    ranked.attrs = dict(table.attrs)
    geo = geomean.geomean_table(ranked, BASELINE, REFERENCE)
    present = set(keys)
    geo.attrs["left_out"] = [f"{run}: {allocator} is non-conforming ({reason}): not ranked"
                             for (run, allocator), reason in nonconforming.items() if (run, allocator) in present
                             ] + geo.attrs.get("left_out", [])
    return geo


def nonconforming_markdown(table: pd.DataFrame) -> str:
    """The non-conforming allocators of the table's runs (attrs["nonconforming"]) with their reasons,
    as Markdown lines followed by a blank line; '' when there are none."""
    runs = set(table["run"])
    lines = [f"- {allocator}" + (f" (run {run})" if len(runs) > 1 else "") + f": {reason}"
             for (run, allocator), reason in table.attrs.get("nonconforming", {}).items() if run in runs]
    if not lines:
        return ""
    return "Non-conforming allocators (they break malloc's contract: measured, left out of the ranking):\n" + "\n".join(lines) + "\n\n"


def geomean_markdown(table: pd.DataFrame) -> str:
    """The geometric-mean table of a summary table as Markdown, with what was left out."""
    return geomean.geomean_markdown(geomean_table(table), REFERENCE)


def table_warnings(table: pd.DataFrame) -> list[str]:
    """What a reader of the table must know: unstable cells, intervals below 95%, missing
    reference, and the reason of every n/a the full table shows ("(a) n/a: ...")."""
    out = []
    unstable = table[table["unstable"].astype(bool)]
    if len(unstable):
        out.append(f"{len(unstable)} of {len(table)} cells are unstable (the interval of the median is wider than "
                   f"±{UNSTABLE_HALF_WIDTH:.0%} of it): " + ", ".join(f"{r.allocator}@{r.threads}" for r in unstable.itertuples()))
    if (table["reps_ok"] < 2).any():
        out.append("some cells have fewer than 2 usable repetitions: no interval, CV or ratio")
    if len(table) and not (table["allocator"] == REFERENCE).any():
        out.append(f"no '{REFERENCE}' allocator in these results: nothing is relative to system")
    levels = pd.to_numeric(table["net_cycles_ci_level"], errors="coerce").dropna()
    if len(levels) and levels.min() < st.CONFIDENCE:
        out.append(f"with this few repetitions the interval of a median is [min, max], a {levels.min():.2%} interval, "
                   f"not {st.CONFIDENCE:.0%}")
    model = display_model(table)
    out += [f"({letter}) n/a: {reason}" for reason, letter in model.na_reasons("full").items()]
    return out


# ---- rendering: every table below is drawn from one display model (summary_display.py) ----------

def number_text(x, fmt="{:.1f}") -> str:
    return "n/a" if x is None or (isinstance(x, float) and math.isnan(x)) else fmt.format(x)


def with_interval(value, lo, hi, fmt) -> str:
    if isinstance(value, float) and math.isnan(value):
        return "n/a"
    high = "unbounded" if math.isinf(hi) else fmt.format(hi)  # a quotient whose denominator's interval reaches 0, as the C++ tables say it
    ci = "" if math.isnan(lo) else f" [{fmt.format(lo)}, {high}]"
    return fmt.format(value) + ci


UNSTABLE_NOTE = (f"unstable: the interval of this median is wider than ±{UNSTABLE_HALF_WIDTH:.0%} of it (relative "
                 "half-width > 0.10; void: of its raw cycles/pair), too imprecise to rank on: run more repetitions "
                 "(--target-ci).")
LEGEND = ("net = allocator minus the void baseline (same threads, repetition, seed); medians over ok, undisturbed "
          "repetitions; the interval of a median is the one the results file recorded (its method and real level in "
          "the header), else a distribution-free order-statistic interval (95%, or [min, max] when the repetitions "
          "are too few: 93.75% for 5); the interval of a ratio to system is the two medians' intervals divided "
          "([system low / this high, system high / this low] for speed), so its level is at least the sum of their "
          "levels minus 1 (Bonferroni); speed vs system > 1 = faster than system, overhead vs system < 1 = leaner; "
          "indistinguishable = the two medians' intervals overlap (no ranking); CV = sample sd / mean, in % "
          "(the CSV also has Mann-Whitney p-values). Repetitions replay one seed: intervals describe run-to-run "
          "noise on that operation stream, not other seeds.")


def display_model(table: pd.DataFrame) -> DisplayTable:
    """The one model the Markdown, LaTeX, CSV and HTML renderings of `table` are drawn from."""
    return summary_display.display_model(table, BASELINE, BASELINE_NO_OVERHEAD, LEGEND)


def display_rows(table: pd.DataFrame, column_set: str = "full") -> tuple[list[str], list[list[str]]]:
    """Headers and text cells of the full column set (the report's HTML table)."""
    return table_model.text_rows(display_model(table), column_set)


def leading_text_columns(table: pd.DataFrame) -> int:
    """How many columns at the left of display_rows() hold text (run, workload, allocator)."""
    return 1 + int(table["run"].nunique() > 1) + int(table["workload"].nunique() > 1)


def to_markdown(table: pd.DataFrame, column_set: str = "full") -> str:
    """The Markdown table, the notes (dagger, n/a reasons) and the legend under it."""
    return table_model.to_markdown_text(display_model(table), column_set, UNSTABLE_NOTE)


def to_latex(table: pd.DataFrame, caption: str = latex_table.DEFAULT_CAPTION, label: str = latex_table.DEFAULT_LABEL,
             column_set: str = "compact") -> str:
    """A LaTeX `table` float (booktabs): the compact column set by default, column_set="full" for all."""
    return latex_table.render(display_model(table), column_set, caption, label, UNSTABLE_NOTE)


def to_csv(table: pd.DataFrame) -> str:
    """Every column (COLUMN_NAMES, documented in COLUMNS), numbers unformatted; n/a cells empty."""
    return table_model.to_csv_text(display_model(table))


def columns_markdown(columns=COLUMNS) -> str:
    """The (column, unit, meaning) list as a Markdown table (default: this table's COLUMNS)."""
    return "| column | unit | meaning |\n|---|---|---|\n" + "\n".join(f"| `{n}` | {u} | {d} |" for n, u, d in columns) + "\n"
