"""`allocstress.load`: results files as one tidy pandas DataFrame, for notebooks and scripts.

The model.  One row per iteration record (one measured repetition of a cell, of every status and
mode: timing, counts, simulated caches, profile), from one or more results files.  Nothing is
dropped: filter on `status == "ok"`, `~disturbed` and `mode == "timing"` for the repetitions the
C++ aggregates summarise.  Columns, the headline ones first (HEAD_COLUMNS):

  run               the results file's name without .json (with parent folders when two files share a name)
  workload, allocator, threads, repetition (the record's repetition_index), mode ("timing" for
                    files older than modes), instance (of a mode that takes a value: a thp cell's
                    THP mode, "warmed" for aged; "" otherwise: results.records.cell_key), status,
                    disturbed (another task ran on a worker's CPU while the record was timed;
                    aggregates leave such records out)
  headline_metric   the metric this row's allocators are ranked by: the metric catalogue's headline of
                    the workload for timing rows (net_cycles_per_pair for alloc-test, wall_s for
                    a program), and net_estimated_cycles_per_unit (from `counts`: deterministic
                    figures priced at this host's machine costs, as the verdict ranks them) for counts
                    rows; a program's counts rows (no void baseline): estimated_cycles, its whole run
  headline          that metric's value in this row
  net_ns_per_pair, overhead_ratio, peak_rss_bytes, reason
  program.name, program.command, program.exit_code, program.stdout_hash, program.origin
                    (PROGRAM_COLUMNS; only when some row is a program workload: a name that
                    resolves to the registry's `program` entry, e.g. prog-lua or bench's churn)
                    the program's name (= workload), the command line it ran, its exit code
                    (NaN when killed by a signal, see program.signal), the hash of its standard
                    output ("fnv1a64:..."), and where its definition comes from (the programs
                    file, "allocstress bench"); NaN/None in the rows of other workloads
  ...               every other field, nested objects flattened with "." (workload_metrics.NAME,
                    counts.instructions, interference.steal_ns, ...); lists stay Python lists.
                    A program's rows have its figures in workload_metrics.wall_s, .user_s,
                    .sys_s, .peak_rss_mib, .tree_peak_rss_mib, .minor_faults, .major_faults,
                    .context_switches, .processes, .throughput and one workload_metrics.NAME per
                    metric of its definition (e.g. workload_metrics.score); the rest of its
                    `program` block (program.preload.*, program.metric_units.NAME, ...) and its
                    whole definition (params.program.*: params.program.metrics is a list of
                    {name, regex, better, combine, unit, stream}) follow like every field.

Types: run, workload, allocator, mode, status and headline_metric are categoricals (categories in
order of first appearance); numbers are int64 or float64 (NaN where a record has null or lacks the
field); true/false fields are bool (pandas "boolean" where some record lacks them); text stays
str objects.  A file without records (`allocstress misuse`: only a `safety` section) gives no rows;
the misuse battery's outcomes are allocstress.safety(...) (safety.py).  `df.attrs["aggregates"]`
holds the files' C++ aggregate entries (aggregates.py), which allocstress.summary reads."""

from __future__ import annotations

import glob
import os
import re
from collections.abc import Iterable

import numpy as np
import pandas as pd

from . import catalogue
from .aggregates import RecordedAggregates
from .loading import ResultsError, Runs, load_runs
from .records import cell_keys

HEAD_COLUMNS = ["run", "workload", "allocator", "threads", "repetition", "mode", "instance", "status", "disturbed", "headline_metric",
                "headline", "net_ns_per_pair", "overhead_ratio", "peak_rss_bytes", "reason"]
CATEGORY_COLUMNS = ["run", "workload", "allocator", "mode", "status", "headline_metric"]
TEXT_COLUMNS = ["instance", "reason", "program.name", "program.command", "program.stdout_hash", "program.origin"]  # text even when all null
# A program's columns worth having at hand (module docstring), right after HEAD_COLUMNS when the rows have programs.
PROGRAM_COLUMNS = ["program.name", "program.command", "program.exit_code", "program.stdout_hash", "program.origin"]
COUNTS_HEADLINE = "net_estimated_cycles_per_unit"  # the counts tier's ranking figure (the C++ verdict's), net of void
PROGRAM_COUNTS_HEADLINE = "estimated_cycles"  # a program's (no void baseline): its whole run, every process
_GLOB = re.compile(r"[*?[]")


def resolve_paths(source) -> list[str]:
    """The results files named by `source`: a path (str or os.PathLike), a glob pattern ("out/*.json",
    expanded in sorted order), or an iterable of those.  A str is one name, never its characters.
    ResultsError when nothing is named or a pattern matches no file."""
    items = [source] if isinstance(source, (str, os.PathLike)) else source
    if isinstance(items, (bytes, dict)) or not isinstance(items, Iterable):
        raise TypeError(f"allocstress.load takes a path, a glob pattern or a list of them, not {type(source).__name__}")
    paths: list[str] = []
    for item in items:
        if not isinstance(item, (str, os.PathLike)):
            raise TypeError(f"allocstress.load: {item!r} is not a path (str or os.PathLike)")
        name = os.fspath(item)
        if _GLOB.search(name) and not os.path.exists(name):
            matches = sorted(glob.glob(os.path.expanduser(name)))
            if not matches:
                raise ResultsError(f"{name}: no file matches this pattern (give a results file, a glob pattern or a list of them)")
            paths += matches
        else:
            paths.append(os.path.expanduser(name))
    if not paths:
        raise ResultsError("no results file given (an empty list)")
    return paths


def load(source) -> pd.DataFrame:
    """Results files as one DataFrame, one row per repetition (module docstring).  `source`: a
    path, a glob pattern or a list of them (resolve_paths).  ResultsError (one line naming the file
    and the problem) for a missing, damaged or non-results file, or a pattern that matches nothing."""
    return tidy(load_runs(resolve_paths(source)))


def _headline(cells: pd.DataFrame) -> tuple[pd.Series, pd.Series]:
    """(headline_metric, headline) per row (module docstring)."""
    names = pd.Series(None, index=cells.index, dtype=object)
    values = pd.Series(np.nan, index=cells.index, dtype=float)
    counts = cells["mode"] == "counts"
    for workload in cells["workload"].dropna().unique():
        rows = cells["workload"] == workload
        counted = PROGRAM_COUNTS_HEADLINE if catalogue.is_program(workload) else COUNTS_HEADLINE
        for is_counts, metric in ((False, catalogue.headline_metric(workload)), (True, counted)):
            column = "counts." + metric if is_counts else catalogue.column_of(metric)
            part = rows & (counts == is_counts)
            names[part] = metric
            if column in cells:
                values[part] = pd.to_numeric(cells.loc[part, column], errors="coerce")
    return names, values


def _typed(column: pd.Series) -> pd.Series:
    """An object column as bool / int64 / float64 when every non-null value is one (module docstring)."""
    if column.dtype != object:
        return column
    present = column.dropna()
    if present.empty:
        return column.astype(float)
    kinds = {type(v) for v in present}
    if kinds == {bool}:
        return column.astype(bool) if len(present) == len(column) else column.astype("boolean")
    if kinds <= {int, float} and not any(isinstance(v, bool) for v in present):
        if kinds == {int} and len(present) == len(column):
            return column.astype(np.int64)
        return column.astype(float)
    return column


def _categorical(column: pd.Series) -> pd.Series:
    return pd.Series(pd.Categorical(column, categories=list(dict.fromkeys(column.dropna()))), index=column.index,
                     name=column.name)


def tidy(runs: Runs) -> pd.DataFrame:
    """The DataFrame of the module docstring, built from runs.cells."""
    cells = runs.cells.rename(columns={"repetition_index": "repetition"})
    cells = cells.drop(columns=["interference.disturbed"], errors="ignore")
    cells["mode"] = cells["mode"].fillna("timing")
    cells["instance"] = [key.instance for key in cell_keys(cells)]  # the record's identity, as C++ gives it
    cells["headline_metric"], cells["headline"] = _headline(cells)
    programs = [w for w in cells["workload"].dropna().unique() if catalogue.is_program(w)]
    head = HEAD_COLUMNS + (PROGRAM_COLUMNS if programs else [])
    if programs:
        missing = [c for c in PROGRAM_COLUMNS if c not in cells]  # records without a `program` block: skipped cells
        cells = pd.concat([cells, pd.DataFrame({c: [None] * len(cells) for c in missing}, index=cells.index, dtype=object)],
                          axis=1)
        unnamed = cells["workload"].isin(programs) & cells["program.name"].isna()
        cells.loc[unnamed, "program.name"] = cells.loc[unnamed, "workload"]
    order = head + [c for c in cells.columns if c not in head]
    frame = pd.DataFrame({c: cells[c].astype(object) if c in TEXT_COLUMNS else _typed(cells[c]) for c in order},
                         index=pd.RangeIndex(len(cells)))
    for c in ("threads", "repetition"):
        if frame[c].dtype == float:  # a record lacking it (cannot happen for iteration records)
            frame[c] = frame[c].astype("Int64")
    for c in CATEGORY_COLUMNS:
        frame[c] = _categorical(frame[c])
    frame["disturbed"] = frame["disturbed"].astype(bool)
    frame.attrs["aggregates"] = RecordedAggregates(runs.run_names(), runs.documents)  # the C++ figures, for summary()
    return frame
