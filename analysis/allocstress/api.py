"""The report, the comparison, the fidelity table and the misuse battery as plain functions, for notebooks and
scripts: thin wrappers over reporting.report.write_report and comparison.compare_result.compare_loaded (what
`allocstress report` and `allocstress compare` run), fidelity_study.fidelity.fidelity_table (`allocstress
fidelity`) and results.safety.safety_frame (the `safety` section of `allocstress misuse` / `matrix --misuse`),
taking the same inputs as allocstress.load.  The package root exports them as allocstress.report, .compare,
.fidelity and .safety; the modules behind them keep their own paths (allocstress.reporting.report, ...)."""

from __future__ import annotations

import os

from .comparison import compare_decision, compare_result
from .fidelity_study import fidelity as _fidelity
from .fidelity_study import fidelity_text
from .reporting import report as _report
from .results import safety as _safety
from .results.frame import resolve_paths
from .results.loading import ResultsError, load_runs


def report(source, out_dir: str, traces=()) -> str:
    """Writes the HTML report of the results files `source` (a path, glob or list, as for load) into
    out_dir and returns the path of its index.html; `traces`: trace files to analyse as well."""
    paths = resolve_paths(source)
    command = "allocstress.report(" + ", ".join(map(repr, paths)) + f", out_dir={out_dir!r})"
    trace_paths = [traces] if isinstance(traces, (str, os.PathLike)) else list(traces)
    return _report.write_report(paths, os.fspath(out_dir), command, [os.fspath(t) for t in trace_paths])


def compare(a, b, metric: str | None = None, threshold=compare_decision.DEFAULT_THRESHOLD_PERCENT):
    """Run b against run a (two results files, each a path, glob or one-element list), as
    `allocstress compare A B --threshold PCT` decides it: a comparison.compare_result.Comparison (per-cell
    better / worse / no change in `.cells`, the exact counts in `.counts`, `.geomean`, `.context`
    differences, `.exit_status`, `.to_dict()`).  metric None = each workload's headline metric;
    threshold in percent (5, "5" or "5%")."""
    paths = resolve_paths(a) + resolve_paths(b)
    if len(paths) != 2:
        raise ResultsError(f"compare takes two results files, one per side; got {len(paths)}: " + ", ".join(paths))
    return compare_result.compare_loaded(load_runs(paths), metric, compare_decision.parse_threshold(threshold))


def fidelity(source, model_memory: str = "peak_rss_bytes"):
    """The fidelity table of the results files `source` (a path, glob or list, as for load): a
    DataFrame with one row per program x model x aspect (speed, memory; counts where the study ran
    counts cells: one figure per allocator, no interval) holding Spearman's rho of
    the allocators' medians, its bootstrap interval, n, the too-few flag, the verdict and the
    allocator that moved most (columns: allocstress.fidelity_study.fidelity.COLUMNS); `df.attrs["readings"]`:
    [(run, program, reading)].  model_memory: the models' memory figure, peak_rss_bytes or
    overhead_ratio.  ResultsError when the files hold no real-program records."""
    table = _fidelity.fidelity_table(load_runs(resolve_paths(source)), model_memory)
    table.attrs["readings"] = fidelity_text.readings(table)
    return table


def safety(source):
    """The misuse battery of the results files `source` (a path, glob or list, as for load; or a
    results document as a dict): a DataFrame with one row per run x allocator x case (columns
    allocstress.results.safety.FRAME_COLUMNS: run, allocator, case, group, scored, outcome, symbol, caught,
    detail, message).  The score and conformance per allocator: allocstress.results.safety.scores(source);
    the sampled properties: allocstress.results.safety.properties(source).  ResultsError when no file
    given has a `safety` section."""
    return _safety.safety_frame(source)
