"""The comparison table: one row per (run, workload, allocator, threads) with the allocator's own
cost and the interval of its median, memory overhead, and both relative to the system allocator
with their intervals and a verdict.  Every column is documented in COLUMNS.  The renderings
(Markdown, LaTeX, CSV, the report's HTML) are all drawn from one display model
(summary_display.py, table_model.py), so they cannot disagree.

Model: a row is the C++ row's (`_core.summary_rows` `columns`, results/tables/summary_columns.cpp:
every column but run and the p-values) wherever the file's entries describe the cell's
repetitions; only for other cells (older files, edited ones) is it computed here, as follows.
The interval of a median is the one the C++ aggregates recorded (`intervals.<metric>` of
the median entry, with its level and method) when the file has it, else the same
distribution-free order-statistic interval computed here.  Likewise the median, the cv, the ratio
to system and the verdict are the C++ aggregates' (the median entry's net_cycles_per_pair,
speed_vs_system, vs_system; the cv entry's) wherever the file carries them for the cell's
repetitions (results/aggregates.py), computed here only where it does not (older files).  A cell is *unstable* when that
interval's relative half-width ((high - low) / 2 / |median|) exceeds UNSTABLE_HALF_WIDTH, the
C++ tables' rule.  "vs system" is *indistinguishable* when the two medians' intervals overlap
(the C++ `vs_system` field, or the same test here)."""

from __future__ import annotations

import json
import math

import pandas as pd

import allocstress._core as _core

from ..results import catalogue, safety
from ..stats import geomean
from . import latex_table, summary_display, table_model
from ..stats import statistics as st
from .table_model import DisplayTable
from ..results.loading import Runs, measured_timing
from ..results.aggregates import RecordedAggregates, recorded_figure
from ..stats.median_intervals import median_interval, overlap_verdict, ratio_interval, recorded_interval
from ..stats.statistics import UNSTABLE_HALF_WIDTH

from ..results.records import BASELINE, REFERENCE
BASELINE_NO_OVERHEAD = ("void baseline: one aliased buffer, so its RSS is not memory use and it has no overhead ratio")
# Workloads whose timing records have no net cost, so no row here: every registry entry without a
# void baseline -- the data structures (structures.py), the false-sharing kernels (their
# baseline, private cache-line-aligned objects, is measured inside the cell: workload_metrics.py)
# and the real programs (every program's name resolves to the `program` entry: has_net_cost).
FALSE_SHARING_WORKLOADS = catalogue.workload_names(family="false-sharing")
WITHOUT_NET_COST = catalogue.workload_names(void_baseline=False)


def has_net_cost(workload) -> bool:
    """Whether `workload`'s timing records belong in this table: its registry entry (as C++
    resolves the name: a program's name is the `program` entry, which has no void baseline) has
    a void baseline; a workload this build does not know is kept."""
    entry = catalogue.workload(workload) if isinstance(workload, str) else None
    return entry is None or bool(entry["void_baseline"])

# (column, unit, what it is and how it is computed).  The columns that are medians of a record
# metric take unit and definition from the metric catalogue; the statistics are computed here.
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
     "of its raw cycles/pair, computed here): the precision of the median."),
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
        return st.clean([]), "overhead invalid (< 1, not ranked): " + reasons[0]
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
    # alloc-test-like rows only: timing records of workloads with a void baseline
    ok = measured_timing(cells)
    ok = ok[ok["workload"].isin([w for w in ok["workload"].unique() if has_net_cost(w)])]
    recorded = RecordedAggregates(runs.run_names(), runs.documents)
    cpp = cpp_columns(runs)
    rows, values = [], {}  # values: each cell's (net cycles, overhead ratios) per repetition, for geomean_table
    for (run, workload, threads), group in ok.groupby(["run", "workload", "threads"], sort=False):
        ref = group[group["allocator"] == REFERENCE]
        ref_net, (ref_over, _) = _values(ref, "net_cycles_per_pair"), cell_overhead(ref)
        ref_entry = recorded.entry(run, workload, REFERENCE, threads, "timing", "median", len(ref))
        ref_iv = _with_recorded_median(median_interval(ref_net, recorded_interval(ref_entry, "net_cycles_per_pair")), ref_entry)
        ref_over_iv = median_interval(ref_over, recorded_interval(ref_entry, "overhead_ratio"))
        for allocator, g in group.groupby("allocator", sort=False):
            values[(run, workload, allocator, int(threads))] = (_values(g, "net_cycles_per_pair"), cell_overhead(g)[0])
            if (columns := cpp.get((run, workload, allocator, int(threads)))) is not None:
                rows.append(_cpp_row(run, workload, allocator, int(threads), columns, g, ref_net, ref_over))
                continue
            rows.append(_row(run, workload, allocator, int(threads), g, ref_net, ref_over, ref_iv, ref_over_iv,
                             *(recorded.entry(run, workload, allocator, threads, "timing", stat, len(g)) for stat in ("median", "cv"))))
    table = pd.DataFrame(rows, columns=COLUMN_NAMES)
    table.attrs["values"] = values
    table.attrs["nonconforming"] = safety.nonconforming_by_run(runs)  # (run, allocator) -> reason: never ranked
    return table


def cpp_columns(runs: Runs) -> dict:
    """(run, workload, allocator, threads) -> the C++ row's columns (_core.summary_rows: every
    column but run and the p-values), for the cells whose recorded entries describe their records."""
    out = {}
    for run, doc in zip(runs.run_names(), runs.documents):
        for r in _core.summary_rows(json.dumps(doc)):
            if r.get("columns") is not None:
                out[(run, r["workload"], r["allocator"], int(r["threads"]))] = r["columns"]
    return out


def _cpp_row(run, workload, allocator, threads, columns: dict, g, ref_net, ref_over) -> dict:
    """One row of summary_table from the C++ row's `columns` (null: n/a; a ratio interval's null
    high under a low: unbounded), with the Mann-Whitney p-values of the repetitions `g` against system's."""
    row = {"run": run, "workload": workload, "allocator": allocator, "threads": threads}
    for name, value in columns.items():
        if value is None:
            unbounded = name in ("speed_ci_high", "overhead_ci_high") and columns[name[:-4] + "low"] is not None
            value = math.inf if unbounded else math.nan
        row[name] = value
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


def _ratio(num: dict, den: dict, what: str) -> tuple[float, str]:
    """(median of num / median of den, "" or why there is none)."""
    if not (num["median"] > 0 and den["median"] > 0):
        return math.nan, f"{what}: a median is <= 0 or missing (cost indistinguishable from the baseline): no ratio"
    return num["median"] / den["median"], ""


def _with_recorded_median(iv: dict, entry: dict | None) -> dict:
    """`iv` (median_interval) with the median the C++ median `entry` recorded, when it has one."""
    median = recorded_figure(entry, "net_cycles_per_pair")
    return iv if median is None else {**iv, "median": median}


def _cv(values, cv_entry: dict | None, field: str) -> float:
    """The cv the C++ `cv_entry` recorded for `field` (null there: undefined, NaN), else computed."""
    if cv_entry is None or len(values) < 2:
        return st.coefficient_of_variation(values)
    value = recorded_figure(cv_entry, field)
    return math.nan if value is None else value


def _row(run, workload, allocator, threads, g, ref_net, ref_over, ref_iv, ref_over_iv, entry, cv_entry) -> dict:
    """One row of summary_table: the cell's repetitions `g` (and its C++ median and cv entries,
    `entry` and `cv_entry`, where the file carries them for these repetitions) against system's (ref_*)."""
    baseline, is_ref = allocator == BASELINE, allocator == REFERENCE
    (over, over_invalid), net, raw = cell_overhead(g), _values(g, "net_cycles_per_pair"), _values(g, "cycles_per_pair")
    # the baseline's precision is that of its raw cost (its net cost is 0 by definition)
    iv = median_interval(raw) if baseline else \
        _with_recorded_median(median_interval(net, recorded_interval(entry, "net_cycles_per_pair")), entry)
    over_iv = median_interval(over, None if over_invalid else recorded_interval(entry, "overhead_ratio"))
    nan = math.nan
    row = {"run": run, "workload": workload, "allocator": allocator, "threads": threads, "reps_ok": int(net.size),
           "net_cycles_per_pair": 0.0 if baseline else iv["median"],
           "net_cycles_ci_low": nan if baseline else iv["low"], "net_cycles_ci_high": nan if baseline else iv["high"],
           "net_cycles_ci_level": nan if baseline else iv["level"], "net_cycles_ci_method": "" if baseline else iv["method"],
           "net_cycles_rel_half_width": iv["rel_half_width"],
           "net_cycles_cv": _cv(raw, cv_entry, "cycles_per_pair") if baseline else _cv(net, cv_entry, "net_cycles_per_pair"),
           "unstable": st.is_unstable(iv["rel_half_width"]), "cycles_per_pair": median_of(raw),
           "net_ns_per_pair": 0.0 if baseline else median_of(_values(g, "net_ns_per_pair")),
           "overhead_ratio": nan if baseline else median_of(over), "thp_coverage": median_of(_values(g, "thp_coverage"))}
    row.update({"overhead_ratio_ci_low": nan if baseline else over_iv["low"],
                "overhead_ratio_ci_high": nan if baseline else over_iv["high"],
                "overhead_ratio_ci_level": nan if baseline else over_iv["level"]})
    notes = [BASELINE_NO_OVERHEAD] if baseline else [over_invalid] if over_invalid else []
    speed_ratio = over_ratio = nan
    speed_iv = over_vs = {"low": nan, "high": nan, "level": nan, "method": ""}
    speed_p = over_p = nan
    speed_mark = over_mark = speed_verdict = over_verdict = ""
    if not baseline and ref_net.size == 0:
        notes.append(f"no ok {REFERENCE} cell at these threads: nothing to compare with")
    elif not baseline:
        (speed_ratio, speed_note), (over_ratio, over_note) = _ratio(ref_iv, iv, "speed"), _ratio(over_iv, ref_over_iv, "overhead")
        if (recorded_ratio := recorded_figure(entry, "speed_vs_system")) is not None:
            speed_ratio, speed_note = recorded_ratio, ""
        notes += [n for n in (speed_note, "" if over_invalid else over_note) if n]
        if is_ref:
            speed_verdict = over_verdict = "reference"
        else:
            speed_iv = ratio_interval(ref_iv, iv, (entry or {}).get("speed_vs_system_interval"))
            over_vs = ratio_interval(over_iv, ref_over_iv)
            speed_p, over_p = st.mann_whitney_p(net, ref_net), st.mann_whitney_p(over, ref_over)
            speed_mark = st.significance_mark(speed_p, net.size, ref_net.size)
            over_mark = st.significance_mark(over_p, over.size, ref_over.size)
            recorded_verdict = (entry or {}).get("vs_system")
            speed_verdict = recorded_verdict if isinstance(recorded_verdict, str) else overlap_verdict(iv, ref_iv, "faster", "slower")
            over_verdict = "" if over_invalid else overlap_verdict(over_iv, ref_over_iv, "leaner", "larger")
            if math.isfinite(speed_ratio) and not math.isfinite(speed_iv["low"]) and speed_verdict != "indistinguishable":
                notes.append("speed: no interval of the ratio (a median's interval is missing or reaches 0)")
    row.update({"speed_vs_system": speed_ratio, "speed_ci_low": speed_iv["low"], "speed_ci_high": speed_iv["high"],
                "speed_ci_level": speed_iv["level"], "speed_vs_system_verdict": speed_verdict, "speed_p": speed_p,
                "speed_significance": speed_mark, "overhead_vs_system": over_ratio, "overhead_ci_low": over_vs["low"],
                "overhead_ci_high": over_vs["high"], "overhead_ci_level": over_vs["level"],
                "overhead_vs_system_verdict": over_verdict, "overhead_p": over_p, "overhead_significance": over_mark,
                "notes": "; ".join(notes)})
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
