"""The C++ aggregate entries of loaded results files (results/README.md: `run_type` aggregate, one
per statistic -- median, min, max, cv -- of each timing cell), looked up by cell, so that a table
shows the figures C++ computed and recorded instead of computing them again.

`tidy` (frame.py) attaches one to the DataFrame it builds, as `df.attrs["aggregates"]`.  An entry
summarises every ok, undisturbed repetition of its cell: a reader may take its figures only for
that same set of repetitions (`entry` checks the count: a filtered frame's group with fewer
repetitions gets None, and is computed).  Copying a frame shares the object (it never changes)."""

from __future__ import annotations

import allocstress._core as _core
from .records import CellKey, cell_key


def recorded_figure(entry: dict | None, field: str) -> float | None:
    """The number an aggregate `entry` recorded at `field` ("a.b" is entry["a"]["b"], as frame
    columns name nested fields); None without one (no entry, no field, null, not a number)."""
    value = entry
    for part in field.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


class RecordedAggregates:
    """(run, the cell's key: records.cell_key, statistic) -> the aggregate entries of the files."""

    def __init__(self, run_names: list[str], documents: list[dict]):
        self._entries: dict[tuple, list[dict]] = {}
        for run, doc in zip(run_names, documents):
            for e in doc.get("benchmarks", []):
                if e.get("run_type") != "aggregate" or not isinstance(e.get("threads"), int):
                    continue
                self._entries.setdefault((run, cell_key(e), e.get("aggregate_name")), []).append(e)

    def entry(self, run: str, key: CellKey, statistic: str, repetitions: int) -> dict | None:
        """The one `statistic` entry of cell `key` of `run` when it summarised `repetitions`
        repetitions; None when the file has none, several, or one over another count."""
        found = self._entries.get((run, key, statistic), [])
        if len(found) != 1 or not _core.entry_describes(found[0], repetitions):
            return None
        return found[0]

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self
