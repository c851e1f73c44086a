"""allocstress analysis: results files as pandas DataFrames, their summary with honest intervals,
the HTML report, run-to-run comparisons, figures and allocation traces.

    import allocstress
    df = allocstress.load("out/*.json")                 # one row per repetition, headline columns first
    df = df[(df["mode"] == "timing") & (df["threads"] == 2)]
    s = allocstress.summary(df)                          # per cell: median, order-statistic interval, n, CV
    allocstress.plot_summary(s)                          # sorted bars with the interval as whiskers

    allocstress.report("out/run.json", "out/run-report")  # the HTML report; returns index.html
    allocstress.compare("a.json", "b.json", threshold=5)  # `allocstress compare`: a Comparison (.cells, .exit_status)
    allocstress.fidelity("out/programs.json")              # `allocstress fidelity`: rho of programs vs models
    allocstress.safety("out/misuse.json")                  # the misuse battery: outcome per allocator x case
    t = allocstress.traces.load_trace("prog.ast"); t.to_dataframe()   # events with op names

Exported: load, summary, plot_summary, report, compare (compare_files, Comparison), fidelity, safety, the figure functions of allocstress.plots
(figure_panels, then plot_relative_cost, plot_repetitions, plot_overhead, ...: every plot_* of the figures/figure_* modules), traces, ResultsError, Runs, load_runs and
read_results (the files as the package reads them internally), the statistics (median_ci, ...), the
tables (summary_table, to_markdown, ...), __version__ and build_info().  The C++ core is
allocstress._core (workload distributions, results reader, trace reader and writer).

The package is layered (tests/layering/layers.txt; each subpackage imports only those below it):
stats, results, tracing, tabulation, figures, comparison and fidelity_study, reporting, then this
root (api.py: report, compare, fidelity and safety as plain functions; __main__.py: the CLI).
"""

import importlib
import pkgutil

from . import figures
from .api import compare, fidelity, report, safety
from .comparison.compare_result import Comparison, compare_files
from .figures import plots
from .results.frame import load
from .results.loading import ResultsError, Runs, load_runs, read_results
from .stats.statistics import (ALPHA, UNSTABLE_HALF_WIDTH, coefficient_of_variation, geometric_mean, mann_whitney_p, median_ci,
                               min_achievable_p, summarise_cell)
from .tabulation.cell_summary import plot_summary, summary
from .tabulation.tables import COLUMNS, geomean_table, summary_table, to_csv, to_latex, to_markdown
from .tracing import traces
from .version import VERSION as __version__, build_info

# The report's figure functions, taken by name from the figure_* modules of figures/ so that new
# ones are exported as they are added: each takes (panels, stem) and returns the PNG path (an SVG
# beside it); figure_panels(runs, run, workload) gives the panels, one per thread count.
from .figures.figure_data import panels as figure_panels
_FIGURE_MODULES = [importlib.import_module(f"{figures.__name__}.{m.name}") for m in pkgutil.iter_modules(figures.__path__)
                   if m.name.startswith("figure_")]
_FIGURE_FUNCTIONS = {name: getattr(module, name) for module in _FIGURE_MODULES for name in dir(module)
                     if name.startswith("plot_") and callable(getattr(module, name))}
FIGURES = tuple(sorted(_FIGURE_FUNCTIONS))
globals().update(_FIGURE_FUNCTIONS)

__all__ = [
    "ALPHA", "COLUMNS", "Comparison", "FIGURES", "ResultsError", "Runs", "UNSTABLE_HALF_WIDTH", "__version__", "build_info",
    "coefficient_of_variation", "compare", "fidelity", "figure_panels", "compare_files", "geomean_table", "geometric_mean", "load", "load_runs", "mann_whitney_p",
    "median_ci", "min_achievable_p", "plot_summary", "plots", "read_results", "report",
    "safety", "summarise_cell", "summary", "summary_table", "to_csv", "to_latex", "to_markdown", "traces", *FIGURES,
]
