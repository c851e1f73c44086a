"""Tables of the workloads beyond alloc-test (xthread, larson, lifetime, phase-*, false-sharing-*).

Each of these workloads' ok timing records carries `workload_metrics`, {name: number or null}: the
figures its model adds (remote-free share, achieved live bytes, RSS after a drop, shared cache
lines, ...).  Per workload, one table with a row per (run, allocator, threads): the median over
the ok repetitions of every metric the records hold -- whatever names they carry, ordered and
labelled by METRICS where known -- beside the median overhead ratio; for xthread also its blowup
against alloc-test (the same operation stream with no remote frees, run beside it by the matrix).
The medians are computed here from the iteration records, not taken from the C++ aggregates.

Net cycles per pair of xthread, larson, lifetime and phase-* are in the alloc-test comparison
table (tables.py): they have a void baseline.  The false-sharing kernels have none -- their
baseline, the same writes on private cache-line-aligned objects, is measured inside the cell and
shows here as `slowdown`.

The phase workloads' RSS-over-time series are read in phase_series.py."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from . import statistics as st
from .loading import ResultsError, Runs
from .structures import to_markdown as _markdown_table
from .tables import BASELINE, FALSE_SHARING_WORKLOADS, _median, _num, _with_ci

PHASE_WORKLOADS = ("phase-ramp", "phase-plateau", "phase-peak")
WORKLOADS = ("xthread", "larson", "lifetime") + PHASE_WORKLOADS + FALSE_SHARING_WORKLOADS  # report order
BLOWUP_WORKLOAD, BLOWUP_REFERENCE = "xthread", "alloc-test"

# (column, unit, meaning) of the columns every workload table has, before its metrics.
FIXED_COLUMNS = [
    ("run", "-", "Results file the row comes from."),
    ("workload", "-", "One of the workloads beyond alloc-test (xthread, larson, lifetime, phase-*, false-sharing-*)."),
    ("allocator", "-", "Allocator name."),
    ("threads", "threads", "Worker threads of the cell."),
    ("reps_ok", "count", "Timing repetitions with status ok; every median of the row is over these (a metric that is "
     "null in a repetition is left out of that metric's median; null in all of them: n/a)."),
    ("overhead_ratio", "ratio", "Median (peak RSS - RSS before the first allocation) / peak live requested bytes, as in "
     "the alloc-test table; n/a for the false-sharing kernels, whose records have none."),
]
# (column, unit, meaning) of the columns only the xthread table has, after its metrics.
BLOWUP_COLUMNS = [
    ("blowup_vs_alloc_test", "ratio", "xthread only: median overhead_ratio of the xthread cell / median overhead_ratio "
     "of alloc-test at the same run, allocator and threads (the same operation stream and live bytes with no remote "
     "frees, which the matrix runs beside xthread).  > 1: handing frees to other threads costs memory.  n/a without an "
     "ok alloc-test cell, or when a median overhead is <= 0 (void)."),
    ("blowup_ci_low", "ratio", "Lower end of the 95% percentile-bootstrap interval of blowup_vs_alloc_test (both "
     "groups resampled, as speed_vs_system)."),
    ("blowup_ci_high", "ratio", "Upper end of that interval."),
]
NOTES_COLUMN = ("notes", "text", "Why the blowup is missing, if it is.")

# name -> (label, unit, format, meaning) of the metrics the C++ cells write, in display order.  Only
# labels and order: a table shows every key its records hold, these and any other.  Format "MiB":
# bytes shown in MiB with two decimals.
METRICS = {
    # xthread, larson
    "remote_free_share": ("remote-free share", "fraction", "{:.3f}", "xthread, larson: frees of blocks another thread "
                          "allocated / all frees, as achieved (xthread: blocks handed over through the queues; larson: "
                          "blocks left in the slot array a thread took over)."),
    "remote_frees": ("remote frees", "count", "{:,.0f}", "xthread, larson: frees of blocks another thread allocated, all threads."),
    "local_frees": ("local frees", "count", "{:,.0f}", "xthread, larson: frees by the thread that allocated the block."),
    "queue_full_waits": ("queue-full waits", "count", "{:,.0f}", "xthread: hand-offs that found the next thread's queue "
                         "full (the producer then drained its own queue while waiting)."),
    "max_queue_backlog": ("max backlog", "blocks", "{:,.0f}", "xthread: the most blocks one drain of a queue found."),
    "rounds": ("rounds", "count", "{:,.0f}", "larson: times the slot arrays passed to the next thread, plus one."),
    "wait_share": ("wait share", "fraction", "{:.3f}", "xthread, larson: time spent waiting for other threads / the "
                   "workers' measured time; left out of every cycle figure."),
    # lifetime
    "target_live_bytes": ("target live MiB", "bytes", "MiB", "lifetime: the live-heap size the model targets (Little's "
                          "law: live = allocation rate x mean lifetime)."),
    "model_mean_live_bytes": ("model mean live MiB", "bytes", "MiB", "lifetime: the mean live requested bytes the "
                              "model's size and lifetime laws imply, all threads."),
    "achieved_mean_live_bytes": ("achieved mean live MiB", "bytes", "MiB", "lifetime: live requested bytes averaged over "
                                 "the allocation clock in the measured window, all threads."),
    "achieved_over_target": ("achieved / target", "ratio", "{:.3f}", "lifetime: achieved_mean_live_bytes / target_live_bytes."),
    "mean_lifetime_allocations": ("mean lifetime (allocs)", "allocations", "{:,.0f}", "lifetime: the model's mean "
                                  "lifetime, in allocations made in between."),
    "lifetime_cv": ("lifetime CV", "fraction", "{:.2f}", "lifetime: coefficient of variation of the model's lifetimes."),
    "mean_size_bytes": ("mean size B", "bytes", "{:,.0f}", "lifetime: the model's mean block size."),
    "achieved_sd_estimate_bytes": ("live sd estimate MiB", "bytes", "MiB", "lifetime: an estimate of the standard deviation "
                                   "of achieved_mean_live_bytes from the model's randomness alone (time average over the "
                                   "measured window), treating allocations as independent: the real seed-to-seed spread "
                                   "can be larger (1.4x measured for exponential lifetimes with fleet sizes)."),
    # phase-*
    "rss_at_peak_ratio": ("RSS/live at peak", "ratio", "{:.2f}", "phase-peak: RSS growth at the last peak / live "
                          "requested bytes then."),
    "rss_after_drop_ratio": ("RSS/live after drop", "ratio", "{:.2f}", "phase-peak: RSS growth right after the last "
                             "drop / live requested bytes after it.  Near rss_at_peak_ratio x live-at-peak / live-after: "
                             "nothing was returned."),
    "rss_after_pause_ratio": ("RSS/live after pause", "ratio", "{:.2f}", "phase-peak: RSS growth at the end of the "
                              "untimed pause after the last drop / live requested bytes after the drop (memory returned "
                              "late, e.g. by a decay timer, shows here)."),
    "freed_share": ("freed share", "fraction", "{:.2f}", "phase-peak: (live at the last peak - live after its drop) / "
                    "live at the peak: the most an allocator could return."),
    "returned_share_after_drop": ("returned after drop", "fraction", "{:.2f}", "phase-peak: (RSS growth at the last "
                                  "peak - right after the drop) / RSS growth at the peak."),
    "returned_share_after_pause": ("returned after pause", "fraction", "{:.2f}", "phase-peak: (RSS growth at the last "
                                   "peak - at the end of the pause after its drop) / RSS growth at the peak."),
    "return_ms": ("return ms", "ms", "{:.1f}", "phase-peak: ms from the end of the last drop until RSS came within 10% "
                  "of the amount returned of its end-of-pause value (0 = returned during the drop); n/a when less than "
                  "5% of the peak's RSS growth was returned by the end of the pause."),
    "drop_ms": ("drop ms", "ms", "{:.1f}", "phase-peak: ms from the last peak to the end of its drop."),
    "regrowth_rss_ratio": ("regrowth RSS ratio", "ratio", "{:.2f}", "phase-peak: RSS growth at the end / at the first "
                           "peak; above 1: the regrowth did not fit in the memory kept."),
    "rss_per_live_at_half": ("RSS/live at half", "ratio", "{:.2f}", "phase-ramp: RSS growth / live requested bytes at "
                             "the checkpoint halfway through."),
    "rss_per_live_after_rise": ("RSS/live after rise", "ratio", "{:.2f}", "phase-plateau: RSS growth / live requested "
                                "bytes at the end of the rise."),
    "hold_rss_growth_share": ("RSS growth in hold", "fraction", "{:.3f}", "phase-plateau: (RSS growth at the end - at "
                              "the end of the rise) / RSS growth at the end of the rise: creep while the live heap is steady."),
    "rss_per_live_at_end": ("RSS/live at end", "ratio", "{:.2f}", "phase-*: RSS growth at the end of the loop / live "
                            "requested bytes then, all threads."),
    # false-sharing-*
    "shared_lines_mean": ("shared lines (mean)", "lines", "{:.1f}", "false-sharing-*: cache lines holding live objects "
                          "of two or more threads after a round's allocations, mean over rounds."),
    "shared_lines_max": ("shared lines (max)", "lines", "{:.0f}", "false-sharing-*: the most cache lines shared between "
                         "threads' live objects in one round."),
    "shared_object_share": ("objects on shared lines", "fraction", "{:.3f}", "false-sharing-*: objects on a shared "
                            "line / objects, over all rounds."),
    "slowdown": ("write slowdown", "ratio", "{:.2f}", "false-sharing-*: the write cycles of each round on the "
                 "allocator's objects / on private cache-line-aligned ones, median over rounds (robust to a preempted "
                 "round): what the allocator's placement costs the writes (1 = none)."),
    "write_cycles_per_write": ("write cycles/write", "TSC cycles", "{:.2f}", "false-sharing-*: median over rounds "
                               "of the cycles per write to the allocator's objects."),
    "private_write_cycles_per_write": ("private cycles/write", "TSC cycles", "{:.2f}", "false-sharing-*: median over "
                                       "rounds of the cycles per write of the same write loop on private cache-line-aligned objects of each thread, "
                                       "measured in the same cell: the baseline."),
    "alloc_cycles_per_pair": ("alloc cycles/pair", "TSC cycles", "{:.1f}", "false-sharing-*: raw cycles per malloc/free "
                              "pair of the kernel's allocations (no void baseline)."),
}
UNKNOWN_FORMAT = "{:.4g}"

WORKLOAD_LEGENDS = {
    "xthread": "Producer threads allocate and write blocks and hand a share of them (remote_share) to the next thread, "
               "which reads and frees them; the rest are freed locally.  Net cycles/pair are in the Summary table (the "
               "void baseline runs the same queues and memory accesses).",
    "larson": "Each thread works on a slot array, then passes it on: the next thread frees the blocks it finds there "
              "(larson-style).  Net cycles/pair are in the Summary table; barrier waits are not timed.",
    "lifetime": "Blocks live for a drawn lifetime (explicit lifetime law) instead of alloc-test's slot popularity; the "
                "model targets a live-heap size.  Net cycles/pair are in the Summary table.",
    "phase-ramp": "The live heap grows steadily.  Net cycles/pair are in the Summary table.",
    "phase-plateau": "The live heap rises, then holds steady.  Net cycles/pair are in the Summary table.",
    "phase-peak": "The live heap grows to a peak, most of it is freed, an untimed pause follows, then it grows again "
                  "(the 'document opened and closed' pattern): the table says who returns memory to the OS after the "
                  "drop; the figures show when.  Net cycles/pair are in the Summary table.",
    "false-sharing-active": "Threads allocate small objects at once and write them: an allocator that hands objects of "
                            "different threads out of one cache line makes them share it.  No void baseline: the "
                            "slowdown is against private cache-line-aligned objects measured in the same cell.",
    "false-sharing-passive": "Objects freed by one thread are reused by another: false sharing the program never asked "
                             "for.  No void baseline: the slowdown is against private cache-line-aligned objects "
                             "measured in the same cell.",
}
LEGEND = ("Medians over the ok repetitions of each record's workload_metrics (computed from the iteration records); "
          "n/a = null in every repetition (undefined, e.g. a denominator of 0).  overhead ratio = (peak RSS - RSS "
          "before) / peak live requested bytes.  Raw figures: no interval or test is given for the metrics.")


@dataclass
class WorkloadTable:
    """One workload's table: `frame` has the FIXED_COLUMNS, then one column per name in `metrics`,
    then (xthread only) the BLOWUP_COLUMNS, then `notes`."""
    workload: str
    frame: pd.DataFrame
    metrics: dict[str, str]  # column -> workload_metrics key, in display order; a key is its own column name,
                             # prefixed metric_ where the table has a column of that name already
    means: dict[str, str]    # key -> what the records themselves say it means (workload_metrics_means), where they do


def _is_number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _timing_records(runs: Runs, workload: str):
    """(run, where, record) of every ok timing iteration record of `workload`; `where` names the
    record for error messages ("FILE: benchmarks[i]")."""
    for run, path, doc in zip(runs.run_names(), runs.paths, runs.documents):
        for i, e in enumerate(doc["benchmarks"]):
            if (e.get("run_type") == "iteration" and e.get("workload") == workload and e.get("status") == "ok"
                    and (e.get("mode") or "timing") == "timing"):
                yield run, f"{path}: benchmarks[{i}]", e


def _metrics_of(record: dict, where: str) -> dict:
    """The record's workload_metrics, checked to be {name: number or null}; ResultsError otherwise."""
    metrics = record.get("workload_metrics")
    if metrics is None:
        return {}
    if not isinstance(metrics, dict) or not all(v is None or _is_number(v) for v in metrics.values()):
        raise ResultsError(f"{where}: workload_metrics is not {{name: number or null}} (the file is damaged)")
    return metrics


def _display_order(names) -> list[str]:
    """METRICS' order first, then the names it does not know, as first seen."""
    known = [n for n in METRICS if n in names]
    return known + [n for n in names if n not in METRICS]


def _blowup(overhead: np.ndarray, reference: np.ndarray | None) -> dict:
    """blowup_vs_alloc_test with its interval and, when it is missing, why."""
    nan = {"ratio": math.nan, "ci_low": math.nan, "ci_high": math.nan}
    if reference is None or reference.size == 0:
        return {**nan, "note": f"no ok {BLOWUP_REFERENCE} cell at this allocator and threads: no blowup"}
    if overhead.size == 0 or _median(overhead) <= 0 or _median(reference) <= 0:
        return {**nan, "note": "a median overhead ratio is missing or <= 0 (no RSS growth, e.g. void): no blowup"}
    ratio = st.ratio_of_medians(overhead, reference)
    return {**ratio, "note": "blowup: " + ratio["note"] if ratio["note"] else ""}


def workload_table(runs: Runs, workload: str) -> WorkloadTable:
    """The table of one workload over every ok timing repetition in `runs` (rows in the order
    (run, threads) first appear, allocators in file order within).  ResultsError on a record whose
    workload_metrics is not {name: number or null}."""
    cells: dict[tuple, dict[str, list[dict]]] = {}  # (run, threads) -> allocator -> records
    names: dict[str, None] = {}  # ordered set
    means: dict[str, str] = {}
    for run, where, e in _timing_records(runs, workload):
        names.update(dict.fromkeys(_metrics_of(e, where)))
        described = e.get("workload_metrics_means")
        if isinstance(described, dict):
            means.update({k: str(v) for k, v in described.items() if k not in means})
        cells.setdefault((run, e["threads"]), {}).setdefault(e["allocator"], []).append(e)
    blowup = workload == BLOWUP_WORKLOAD
    own = [c[0] for c in FIXED_COLUMNS + BLOWUP_COLUMNS + [NOTES_COLUMN]]
    metrics = {"metric_" + k if k in own else k: k for k in _display_order(names)}
    if blowup:  # alloc-test's overhead ratios at the same (run, allocator, threads)
        reference: dict[tuple, list] = {}
        for run, _, e in _timing_records(runs, BLOWUP_REFERENCE):
            reference.setdefault((run, e["allocator"], e["threads"]), []).append(e.get("overhead_ratio"))
    rows = []
    for (run, threads), allocators in cells.items():
        for allocator, records in allocators.items():
            overhead = st.clean([e.get("overhead_ratio") for e in records])
            row = {"run": run, "workload": workload, "allocator": allocator, "threads": int(threads),
                   "reps_ok": len(records), "overhead_ratio": _median(overhead)}
            for column, key in metrics.items():
                row[column] = _median(st.clean([(e.get("workload_metrics") or {}).get(key) for e in records]))
            if blowup:
                ref = reference.get((run, allocator, threads))
                b = _blowup(overhead, None if ref is None else st.clean(ref))
                row.update({"blowup_vs_alloc_test": b["ratio"], "blowup_ci_low": b["ci_low"], "blowup_ci_high": b["ci_high"],
                            "notes": b["note"]})
            else:
                row["notes"] = ""
            rows.append(row)
    columns = [c[0] for c in FIXED_COLUMNS] + list(metrics) + ([c[0] for c in BLOWUP_COLUMNS] if blowup else []) + [NOTES_COLUMN[0]]
    return WorkloadTable(workload, pd.DataFrame(rows, columns=columns), metrics, means)


def workload_tables(runs: Runs) -> list[WorkloadTable]:
    """The tables of the WORKLOADS that have ok timing records in `runs`, in WORKLOADS order."""
    tables = [workload_table(runs, w) for w in WORKLOADS]
    return [t for t in tables if not t.frame.empty]


def column_docs(tables: list[WorkloadTable]) -> list[tuple[str, str, str]]:
    """(column, unit, meaning) of every column of `tables`, each once: for the report's Columns table."""
    if not tables:
        return []
    docs = list(FIXED_COLUMNS)
    seen = {c[0] for c in docs}
    for t in tables:
        for name, key in t.metrics.items():
            if name in seen:
                continue
            seen.add(name)
            if key in METRICS:
                _, unit, _, meaning = METRICS[key]
            else:
                unit = "-"
                meaning = (f"{t.means.get(key, '')} ({t.workload}: the median of the records' workload_metrics "
                           f"entry '{key}', not described by the analysis package)").strip()
            docs.append((name, unit, meaning))
    if any(t.workload == BLOWUP_WORKLOAD for t in tables):
        docs += BLOWUP_COLUMNS
    return docs + [NOTES_COLUMN]


# ---- rendering -------------------------------------------------------------------------------

def _label(key: str) -> str:
    return METRICS[key][0] if key in METRICS else key


def _format_metric(key: str, value: float) -> str:
    fmt = METRICS[key][2] if key in METRICS else UNKNOWN_FORMAT
    if fmt == "MiB":
        return _num(value / 1048576.0, "{:.2f}")
    return _num(value, fmt)


def display_rows(table: WorkloadTable) -> tuple[list[str], list[list[str]]]:
    """Headers and formatted cells of one workload table (HTML and Markdown); the overhead column
    only when some row has one (the false-sharing kernels have none)."""
    frame = table.frame
    multi_run = frame["run"].nunique() > 1
    overhead = bool(frame["overhead_ratio"].notna().any())
    blowup = "blowup_vs_alloc_test" in frame
    void_baseline = table.workload not in FALSE_SHARING_WORKLOADS
    headers = (["run"] if multi_run else []) + ["allocator", "threads", "reps"] + (["overhead ratio"] if overhead else []) + [
        _label(k) for k in table.metrics.values()] + (["blowup vs alloc-test [95% CI]"] if blowup else [])
    rows = []
    for _, r in frame.iterrows():  # metric names need not be identifiers: not itertuples
        baseline = void_baseline and r["allocator"] == BASELINE
        row = ([r["run"]] if multi_run else []) + [r["allocator"] + (" (baseline)" if baseline else ""), str(r["threads"]),
                                                   str(r["reps_ok"])]
        row += [_num(r["overhead_ratio"], "{:.3f}")] if overhead else []
        row += [_format_metric(k, r[c]) for c, k in table.metrics.items()]
        if blowup:
            row.append("-" if baseline else _with_ci(r["blowup_vs_alloc_test"], r["blowup_ci_low"], r["blowup_ci_high"], "{:.3f}"))
        rows.append(row)
    return headers, rows


def legend(table: WorkloadTable) -> str:
    """What the table's workload is and how to read it."""
    text = WORKLOAD_LEGENDS.get(table.workload, "")
    if "blowup_vs_alloc_test" in table.frame:
        text += (f"  blowup vs alloc-test = median overhead ratio / {BLOWUP_REFERENCE}'s at the same allocator and threads "
                 "(equal live bytes, no remote frees) with a 95% bootstrap interval; n/a without that cell.")
    notes = [n for n in dict.fromkeys(table.frame["notes"]) if n]
    return " ".join(p for p in (text.strip(), LEGEND, *(f"Note: {n}." for n in notes)) if p)


def to_markdown(table: WorkloadTable) -> str:
    headers, rows = display_rows(table)
    return f"### {table.workload}\n\n" + _markdown_table(headers, rows, legend(table))
