"""Reading the records of a results file that the loaders and the tables share: which records are
the ok timing iterations of a workload, what counts as a number in a record, and the
{'columns': [...], 'rows': [[...]]} series fields some records carry (phase_series, allocstats).

Contract: nothing here changes a value; a malformed field raises ResultsError naming the record
(`where`, "FILE: benchmarks[i]") and what is wrong, with "(the file is damaged)"."""

from __future__ import annotations

import allocstress._core as _core
from .loading import ResultsError, Runs, is_disturbed

# The baseline and reference allocators' names, as the C++ defines them (cells/record_identity.hpp).
BASELINE = _core.baseline_allocator    # the subtracted baseline: its net cost is 0 by definition
REFERENCE = _core.reference_allocator  # what "relative to system" compares against


def is_number(v) -> bool:
    """An int or float of a record (a bool is not a number here)."""
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def timing_records(runs: Runs, workload: str):
    """(run, where, record) of every ok timing iteration record of `workload`; `where` names the
    record for error messages ("FILE: benchmarks[i]")."""
    for run, path, doc in zip(runs.run_names(), runs.paths, runs.documents):
        for i, e in enumerate(doc["benchmarks"]):
            if (e.get("run_type") == "iteration" and e.get("workload") == workload and e.get("status") == "ok"
                    and (e.get("mode") or "timing") == "timing" and not is_disturbed(e)):
                yield run, f"{path}: benchmarks[{i}]", e


def series_columns(record: dict, name: str, required, where: str, shape: str) -> list:
    """The column names of the record's series field `name` ({'columns': [...], 'rows': [[...]]}),
    checked to hold every name of `required`; ResultsError naming `where` otherwise (`shape`: how
    the message spells the expected field)."""
    series = record.get(name)
    if not isinstance(series, dict) or not isinstance(series.get("columns"), list) or not isinstance(series.get("rows"), list):
        raise ResultsError(f"{where}: {name} is not {shape} (the file is damaged)")
    columns = series["columns"]
    missing = [c for c in required if c not in columns]
    if missing:
        raise ResultsError(f"{where}: {name} lacks column(s) {', '.join(missing)} (the file is damaged)")
    return columns
