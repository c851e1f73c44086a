"""Reading the records of a results file that the loaders and the tables share: a record's identity
(CellKey, from C++), which records are the ok timing iterations of a workload, what counts as a
number in a record, and the {'columns': [...], 'rows': [[...]]} series fields some records carry
(phase_series, allocstats).

A record's identity is C++'s (cells/record_identity.hpp, through _core.record_key and
_core.record_name): CellKey (workload, allocator, threads, mode, instance); two records are of one
cell when their keys are equal, and every part of the package that groups or matches records by
cell keys them with cell_key / cell_keys (a record dict, a pandas row, or every row of a frame).

Contract: nothing here changes a value; a malformed field raises ResultsError naming the record
(`where`, "FILE: benchmarks[i]") and what is wrong, with "(the file is damaged)"."""

from __future__ import annotations

from typing import NamedTuple

import allocstress._core as _core
from .loading import ResultsError, Runs, is_disturbed

# The baseline and reference allocators' names, as the C++ defines them (cells/record_identity.hpp).
BASELINE = _core.baseline_allocator    # the subtracted baseline: its net cost is 0 by definition
REFERENCE = _core.reference_allocator  # what "relative to system" compares against


class CellKey(NamedTuple):
    """A record's identity as C++ builds it (_core.record_key): mode "timing" for files older than
    modes; instance "" unless the mode takes a value (a thp cell's THP mode, "warmed")."""
    workload: str
    allocator: str
    threads: int
    mode: str
    instance: str

    @property
    def name(self) -> str:
        """The record name C++ gives the cell ("alloc-test/system/threads:1/thp:always")."""
        return record_name(self)


class RunCellKey(NamedTuple):
    """A cell of one run (results file): records of several files are of one cell per file."""
    run: str
    cell: CellKey


# The record fields _core.record_key reads (a frame's columns of them, where present).
IDENTITY_FIELDS = ("workload", "allocator", "threads", "mode", "run_name", "name")


def cell_key(record) -> CellKey:
    """The key of a record or aggregate entry: a dict, or a pandas row (a missing or NaN mode is timing)."""
    return CellKey(*_core.record_key(record))


def cell_keys(frame) -> list[CellKey]:
    """The key of every row of a records frame (loading.Runs.cells, allocstress.load), in row order."""
    columns = [c for c in IDENTITY_FIELDS if c in frame]
    return [CellKey(*_core.record_key(row)) for row in frame[columns].to_dict("records")]


def rows_by_cell(frame) -> dict:
    """{CellKey: the frame's rows of that cell (every run's, in frame order)}, cells in order of first appearance."""
    at: dict[CellKey, list[int]] = {}
    for position, key in enumerate(cell_keys(frame)):
        at.setdefault(key, []).append(position)
    return {key: frame.iloc[positions] for key, positions in at.items()}


def timing_cell(workload: str, allocator: str, threads) -> CellKey:
    """The key of a timing cell: mode timing has no instance."""
    return CellKey(workload, allocator, int(threads), "timing", "")


def record_name(key: CellKey) -> str:
    """"<workload>/<allocator>/threads:<n>", the mode's suffix and ":<instance>" (_core.record_name)."""
    return _core.record_name(*key)


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
