"""Tables of the workloads beyond alloc-test: every registry workload whose records carry
`workload_metrics` and that is not a data structure (xthread, larson, lifetime, phase-*,
false-sharing-*, program: allocstress._core.workloads(), through catalogue.py), each followed by
its instances: labelled ones ("replay:prog-lua") and, for the `program` entry, every program
workload ("prog-lua", a programs file's "jq-sort", a bench's "churn": names C++ resolves to it).

A program's table has, after the registry's program figures, one column per metric of its
definition (params.program.metrics: the figures it reads from its output), labelled by name and
unit, its direction (higher or lower is better) noted, as the C++ verdict ranks them.

Each of these workloads' ok timing records carries `workload_metrics`, {name: number or null}: the
figures its model adds (remote-free share, achieved live bytes, RSS after a drop, shared cache
lines, ...).  Per workload, one table with a row per (run, allocator, threads): the median over
the ok repetitions of every metric the records hold -- whatever names they carry, ordered,
labelled, rounded and defined by the metric catalogue where it knows them -- beside the median
overhead ratio; for a workload the matrix runs beside a companion (xthread: alloc-test, the same
operation stream with no remote frees) also its blowup against that companion.  The figures are
C++'s rows (_core.workload_metric_rows, results/tables/metric_rows.hpp; one call per results file):
the medians the file's aggregate entries recorded (C++ aggregates the records itself where the
file has none for a cell, and takes the median of the repetitions that have a number where some
repetition's is null), the blowup with its interval and the notes; this module chooses, orders,
labels and renders the columns.

Net cycles per pair of the workloads with a void baseline (xthread, larson, lifetime, phase-*) are
in the alloc-test comparison table (tables.py).  The false-sharing kernels have none -- their
baseline, the same writes on private cache-line-aligned objects, is measured inside the cell and
shows here as `slowdown`.

The phase workloads' RSS-over-time series are read in phase_series.py."""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

import allocstress._core as _core
from ..results import catalogue
from ..results.loading import ResultsError, Runs
from ..results.records import BASELINE, is_number, timing_records
from .core_rows import core_rows, figure, interval_high
from .structures import to_markdown as _markdown_table
from .tables import FALSE_SHARING_WORKLOADS, number_text, with_interval

# name -> catalogue entry of every workload_metrics key the C++ cells write, in catalogue order
METRICS = catalogue.metrics("workload_metrics")
# The workloads with a section of their own, in registry (= report) order.
WORKLOADS = tuple(w["name"] for w in catalogue.workloads() if w["table"] != "structure" and
                  any(w["name"] in m["workloads"] for m in METRICS.values()))
PHASE_WORKLOADS = catalogue.workload_names(family="phases")
# workload -> the companion the matrix runs beside it, whose overhead its blowup is relative to
COMPANIONS = {w["name"]: w["companions"][0] for w in catalogue.workloads() if w["name"] in WORKLOADS and w["companions"]}
UNKNOWN_FORMAT = "{:.4g}"  # a workload_metrics key the catalogue does not know (older or newer files)


def _overhead_column() -> tuple[str, str, str]:
    without = [w for w in WORKLOADS if w not in catalogue.metric("overhead_ratio", "record")["workloads"]]
    return catalogue.column_doc("overhead_ratio", how="Median over the ok repetitions of",
                                note="n/a for " + ", ".join(without) + ", whose records have none." if without else "")


# (column, unit, meaning) of the columns every workload table has, before its metrics.
FIXED_COLUMNS = [
    ("run", "-", "Results file the row comes from."),
    ("workload", "-", "One of the workloads beyond alloc-test (" + ", ".join(WORKLOADS) + "; a program by its own name: "
     "prog-lua, a programs file's entry, bench's --name)."),
    ("allocator", "-", "Allocator name."),
    ("threads", "threads", "Worker threads of the cell."),
    ("reps_ok", "count", "Timing repetitions with status ok; every median of the row is over these (a metric that is "
     "null in a repetition is left out of that metric's median; null in all of them: n/a)."),
    _overhead_column(),
]
NOTES_COLUMN = ("notes", "text", "Why the blowup is missing, if it is.")


def blowup_columns(workload: str, companion: str) -> list[tuple[str, str, str]]:
    """(column, unit, meaning) of the columns only a workload with a companion has, after its
    metrics: for xthread blowup_vs_alloc_test, blowup_ci_low, blowup_ci_high."""
    ratio = "blowup_vs_" + companion.replace("-", "_")
    entry = catalogue.workload(workload)
    why = f": {entry['companion_reason']}" if entry and entry.get("companion_reason") else ""
    return [
        (ratio, "ratio", f"{workload} only: median overhead_ratio of the {workload} cell / median overhead_ratio of "
         f"{companion} at the same run, allocator and threads (the matrix runs {companion} beside {workload}{why}).  > 1: "
         f"{workload} costs more memory than {companion}.  n/a without an ok {companion} cell, or when a median "
         "overhead is <= 0 (void)."),
        ("blowup_ci_low", "ratio", f"Lower end of the interval of {ratio}: the two medians' order-statistic intervals "
         "divided (this low / the companion's high; results_summary.hpp quotient_interval, as speed_vs_system), level at least "
         "the sum of their levels minus 1 (Bonferroni)."),
        ("blowup_ci_high", "ratio", "Upper end of that interval."),
    ]


# Column names a workload_metrics key may not take (it is prefixed metric_ instead).
RESERVED = {c[0] for c in FIXED_COLUMNS + [NOTES_COLUMN]} | {
    c[0] for w, companion in COMPANIONS.items() for c in blowup_columns(w, companion)}


def _legend_text(entry: dict) -> str:
    """What a workload is (the registry's summary) and where its net cost is."""
    if entry["void_baseline"]:
        where = "Net cycles/pair are in the Summary table."
    elif entry["table"] == "program":
        where = ("No void baseline: a real program's own figures (wall, user and system time, peak RSS and faults of its "
                 "process tree, from wait4), one fresh process per repetition under each drop-in allocator.")
    elif entry["table"] == "false_sharing":
        where = "No void baseline: the slowdown is against private cache-line-aligned objects measured in the same cell."
    else:
        where = "No void baseline: its figures are raw."
    summary = entry["summary"] + ("" if entry["summary"].endswith((".", "?", "!")) else ".")
    return f"{entry['name']}: {summary}  {where}"


WORKLOAD_LEGENDS = {w: _legend_text(catalogue.workload(w)) for w in WORKLOADS}
LEGEND = ("Medians over the ok repetitions of each record's workload_metrics (the results file's aggregates, else C++'s "
          "from its records); "
          "n/a = null in every repetition (undefined, e.g. a denominator of 0).  overhead ratio = (peak RSS - RSS "
          "before) / peak live requested bytes.  Raw figures: no interval or test is given for the metrics.")


@dataclass
class WorkloadTable:
    """One workload's table: `frame` has the FIXED_COLUMNS, then one column per name in `metrics`,
    then (a workload with a companion only) its blowup_columns, then `notes`."""
    workload: str
    frame: pd.DataFrame
    metrics: dict[str, str]  # column -> workload_metrics key, in display order; a key is its own column name,
                             # prefixed metric_ where it is one of the RESERVED names
    means: dict[str, str]    # key -> what the records themselves say it means (workload_metrics_means), where they do
    companion: str | None = None  # the workload its blowup is against (COMPANIONS), if any
    # a program workload's definition metrics (catalogue.definition_metrics): key -> {name, unit, better, regex, ...}
    definition: dict[str, dict] = field(default_factory=dict)
    program: dict = field(default_factory=dict)  # a program workload's definition (params.program), {} else


def _metrics_of(record: dict, where: str) -> dict:
    """The record's workload_metrics, checked to be {name: number or null}; ResultsError otherwise."""
    metrics = record.get("workload_metrics")
    if metrics is None:
        return {}
    if not isinstance(metrics, dict) or not all(v is None or is_number(v) for v in metrics.values()):
        raise ResultsError(f"{where}: workload_metrics is not {{name: number or null}} (the file is damaged)")
    return metrics


def _display_order(workload: str, names, definition: dict | None = None) -> list[str]:
    """The workload's registry order of its metrics first, then the catalogue's order of the other
    catalogued names, then a program's definition metrics in its definition's order, then the
    names neither knows, as first seen."""
    entry = catalogue.workload(workload)
    own = [n for n in (definition or {}) if n in names]
    order = [n for n in (entry["metrics"] if entry else []) if n in METRICS] + list(METRICS)
    known = [n for n in dict.fromkeys(order) if n in names and n not in own]
    return known + own + [n for n in names if n not in METRICS and n not in own]


def workload_table(runs: Runs, workload: str, rows: list[tuple[str, dict]] | None = None) -> WorkloadTable:
    """The table of one workload over every ok timing repetition in `runs` (rows in the order
    (run, threads) first appear, allocators in file order within): its figures are C++'s rows
    (`rows`: core_rows(runs, _core.workload_metric_rows), fetched here when not given).
    ResultsError on a record whose workload_metrics is not {name: number or null}."""
    names: dict[str, None] = {}  # ordered set
    means: dict[str, str] = {}
    timed = list(timing_records(runs, workload))
    definition = catalogue.definition_metrics(e for _, _, e in timed)
    for run, where, e in timed:
        names.update(dict.fromkeys(_metrics_of(e, where)))
        described = e.get("workload_metrics_means")
        if isinstance(described, dict):
            means.update({k: str(v) for k, v in described.items() if k not in means})
    companion = _companion_of(workload)
    blowup = blowup_columns(workload, companion) if companion else []
    metrics = {"metric_" + k if k in RESERVED else k: k for k in _display_order(workload, names, definition)}
    table_rows = []
    for run, r in core_rows(runs, _core.workload_metric_rows) if rows is None else rows:
        if r["workload"] != workload:
            continue
        row = {"run": run, "workload": workload, "allocator": r["allocator"], "threads": int(r["threads"]),
               "reps_ok": int(r["reps_ok"]), "overhead_ratio": figure(r["overhead_ratio"])}
        row.update({column: figure(r["metrics"].get(key)) for column, key in metrics.items()})
        if companion:
            row.update({blowup[0][0]: figure(r["blowup"]), "blowup_ci_low": figure(r["blowup_ci_low"]),
                        "blowup_ci_high": interval_high(r["blowup_ci_low"], r["blowup_ci_high"])})
        row["notes"] = r["notes"]
        table_rows.append(row)
    columns = [c[0] for c in FIXED_COLUMNS] + list(metrics) + [c[0] for c in blowup] + [NOTES_COLUMN[0]]
    program = catalogue.program_definition(e for _, _, e in timed) if catalogue.is_program(workload) else {}
    return WorkloadTable(workload, pd.DataFrame(table_rows, columns=columns), metrics, means, companion,
                         {k: m for k, m in definition.items() if k in metrics.values()}, program)


def _companion_of(workload: str) -> str | None:
    """The workload its blowup is taken against: the companion of its base, with the same label
    ("lifetime:prog-x" -> "alloc-test:prog-x")."""
    base = catalogue.base_name(workload)
    companion = COMPANIONS.get(base)
    return companion + workload[len(base):] if companion else None


def workload_tables(runs: Runs) -> list[WorkloadTable]:
    """The tables of the WORKLOADS that have ok timing records in `runs`, in WORKLOADS order, each
    followed by its instances in the order they first appear: labelled ones ("replay:prog-python3")
    and, after `program`, the program workloads (every name C++ resolves to it: catalogue.workload)."""
    present = list(dict.fromkeys(w for doc in runs.documents for w in dict.fromkeys(e.get("workload") for e in doc["benchmarks"])
                                 if isinstance(w, str)))
    entry_of = {p: catalogue.entry_name(p) for p in present}
    names = [i for w in WORKLOADS for i in [w] + [p for p in present if p != w and entry_of[p] == w]]
    rows = core_rows(runs, _core.workload_metric_rows)
    tables = [workload_table(runs, w, rows) for w in names]
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
            if key in t.definition:
                unit, meaning = t.definition[key]["unit"] or "-", f"{t.workload}: " + definition_meaning(t.definition[key])
            elif key in METRICS:
                unit, meaning = METRICS[key]["unit"], metric_meaning(key)
            else:
                unit = "-"
                meaning = (f"{t.means.get(key, '')} ({t.workload}: the median of the records' workload_metrics "
                           f"entry '{key}', not described by the analysis package)").strip()
            docs.append((name, unit, meaning))
    for t in tables:
        if t.companion:
            docs += [c for c in blowup_columns(t.workload, t.companion) if c[0] not in seen]
            seen.update(c[0] for c in docs)
    return docs + [NOTES_COLUMN]


def definition_meaning(m: dict) -> str:
    """What a program's definition metric is (the Columns table and the legend)."""
    unit = f" (unit: {m['unit']})" if m["unit"] else ""
    return (f"read from the program's {m['stream']} by its definition's regex '{m['regex']}' ({m['combine']} match), "
            f"{m['better']} is better{unit}; the verdict ranks the allocators by it.")


def definition_label(m: dict) -> str:
    """The column header of a program's definition metric: its name, its unit, the direction."""
    return f"{m['name']}{' ' + m['unit'] if m['unit'] else ''} ({m['better']} is better)"


def metric_meaning(key: str) -> str:
    """A catalogued workload_metrics key's meaning in the Columns table: the workloads that carry
    it and the catalogue's definition."""
    m = METRICS[key]
    return f"{', '.join(m['workloads'])}: {m['definition']}"


# ---- rendering -------------------------------------------------------------------------------

def _label(key: str, definition: dict | None = None) -> str:
    """The label of a workload_metrics key: a program's definition metric by its name, unit and
    direction, a catalogued key by the catalogue's label, an unknown key by its name."""
    if definition and key in definition:
        return definition_label(definition[key])
    return METRICS[key]["label"] if key in METRICS else key


def _format_metric(key: str, value: float, definition: dict | None = None) -> str:
    """The value as the catalogue rounds it (bytes in MiB where it says so); UNKNOWN_FORMAT for a
    definition metric or a key the catalogue does not know."""
    if key not in METRICS or (definition and key in definition):
        return number_text(value, UNKNOWN_FORMAT)
    m = METRICS[key]
    return number_text(value if value is None else catalogue.to_display(m, value), catalogue.number_format(m))


def display_rows(table: WorkloadTable) -> tuple[list[str], list[list[str]]]:
    """Headers and formatted cells of one workload table (HTML and Markdown); the overhead column
    only when some row has one (the false-sharing kernels have none)."""
    frame = table.frame
    multi_run = frame["run"].nunique() > 1
    overhead = bool(frame["overhead_ratio"].notna().any())
    over = catalogue.metric("overhead_ratio", "record")
    blowup = blowup_columns(table.workload, table.companion)[0][0] if table.companion else None
    entry = catalogue.workload(table.workload)
    void_baseline = entry["void_baseline"] if entry else table.workload not in FALSE_SHARING_WORKLOADS
    headers = (["run"] if multi_run else []) + ["allocator", "threads", "reps"] + ([over["label"]] if overhead else []) + [
        _label(k, table.definition) for k in table.metrics.values()] + ([f"blowup vs {table.companion} [quotient of the medians' intervals]"] if blowup else [])
    rows = []
    for _, r in frame.iterrows():  # metric names need not be identifiers: not itertuples
        baseline = void_baseline and r["allocator"] == BASELINE
        row = ([r["run"]] if multi_run else []) + [r["allocator"] + (" (baseline)" if baseline else ""), str(r["threads"]),
                                                   str(r["reps_ok"])]
        row += [number_text(r["overhead_ratio"], catalogue.number_format(over))] if overhead else []
        row += [_format_metric(k, r[c], table.definition) for c, k in table.metrics.items()]
        if blowup:
            row.append("-" if baseline else with_interval(r[blowup], r["blowup_ci_low"], r["blowup_ci_high"], "{:.3f}"))
        rows.append(row)
    return headers, rows


def program_legend(workload: str, program: dict, definition: dict[str, dict]) -> str:
    """What a program workload is: its definition's summary (else its command) and where it comes
    from, the program entry's note on its figures, and how each definition metric is read."""
    entry = catalogue.workload("program") or {}
    command = program.get("command")
    summary = program.get("summary") or (" ".join(command) if isinstance(command, list) else str(command or ""))
    origin = f" (defined by {program['origin']})" if program.get("origin") else ""
    text = _legend_text({**entry, "name": workload, "summary": (summary or entry.get("summary", "")).rstrip(". ") + origin})
    return " ".join([text] + [f"{definition_label(m)}: {definition_meaning(m)}" for m in definition.values()])


def legend(table: WorkloadTable) -> str:
    """What the table's workload is and how to read it."""
    entry = catalogue.entry_name(table.workload)
    named = catalogue.is_program(table.workload) and table.workload != entry  # a program, by its definition's name
    text = (program_legend(table.workload, table.program, table.definition) if named
            else WORKLOAD_LEGENDS.get(entry or catalogue.base_name(table.workload), ""))
    if table.companion:
        text += (f"  blowup vs {table.companion} = median overhead ratio / {table.companion}'s at the same allocator and "
                 "threads (the matrix runs it beside this workload) with the quotient of the two medians' intervals (level at least "
                 "the sum of theirs minus 1); n/a without that cell.")
    notes = [n for n in dict.fromkeys(table.frame["notes"]) if n]
    return " ".join(p for p in (text.strip(), LEGEND, *(f"Note: {n}." for n in notes)) if p)


def to_markdown(table: WorkloadTable) -> str:
    headers, rows = display_rows(table)
    return f"### {table.workload}\n\n" + _markdown_table(headers, rows, legend(table))
