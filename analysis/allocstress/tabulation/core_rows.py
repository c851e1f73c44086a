"""The rows C++ builds for the tables (results/tables: _core.summary_rows, structure_rows,
workload_metric_rows), fetched per results document and read as Python numbers.

Contract: a C++ row's null figure is n/a (NaN here); a quotient interval with a lower end and a
null upper end is unbounded (its denominator's interval reaches 0: inf here)."""

from __future__ import annotations

import json
import math

from ..results.loading import Runs


def core_rows(runs: Runs, rows_of) -> list[tuple[str, dict]]:
    """(run, row) of the rows C++ builds for each results document (`rows_of`: a _core function
    taking a document as JSON text, e.g. _core.structure_rows), one call per document."""
    return [(run, row) for run, doc in zip(runs.run_names(), runs.documents) for row in rows_of(json.dumps(doc))]


def figure(value) -> float:
    """A row's figure as a float: NaN where C++ gives none (null)."""
    return math.nan if value is None else float(value)


def interval_high(low, high) -> float:
    """The upper end of a C++ row's quotient interval: inf where it has a lower end but no upper
    one (unbounded), NaN without an interval."""
    return figure(high) if high is not None or low is None else math.inf
