"""allocstress analysis: load results files, summarise repetitions with their uncertainty, and
turn them into tables, plots and a self-contained HTML report.

    import allocstress
    runs = allocstress.load(["out/alloc-test-quick-....json"])
    table = allocstress.summary_table(runs)
    print(allocstress.to_markdown(table))

Traces (from `allocstress trace` or `allocstress import`) are read with allocstress.traces:

    from allocstress import traces
    t = traces.load_trace("prog.ast")
    lifetimes = traces.block_lifetimes(t)

The C++ core is available as allocstress._core (workload distributions, results reader, trace
reader and writer).
"""

from .loading import ResultsError, Runs, load, load_runs, read_results
from .statistics import (ALPHA, UNSTABLE_CV, coefficient_of_variation, geometric_mean, mann_whitney_p, median_ci,
                         min_achievable_p, ratio_of_medians, summarise_cell)
from .tables import COLUMNS, geomean_table, summary_table, to_csv, to_latex, to_markdown
from . import traces

__all__ = [
    "ALPHA", "COLUMNS", "ResultsError", "Runs", "UNSTABLE_CV", "coefficient_of_variation",
    "geomean_table", "geometric_mean", "load", "load_runs", "mann_whitney_p", "median_ci", "min_achievable_p", "ratio_of_medians",
    "read_results", "summarise_cell", "summary_table", "to_csv", "to_latex", "to_markdown", "traces",
]
