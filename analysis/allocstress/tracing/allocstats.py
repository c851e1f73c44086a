"""The replay records' allocstats series: every K-th operation of a replay (`replay --allocstats`),
the allocator's used, RSS, overhead and max-memory bytes and the operation's cycles, as a DataFrame
per record and grouped per (run, trace, threads) for the report's trace section.

Contract: one series per allocator, its first ok repetition, in file order; a malformed series
raises ResultsError naming the record before anything is drawn.  Re-exported by traces.py."""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from .heap_maps import HeapMap, heap_map_of
from ..results.loading import ResultsError, Runs
from ..results.records import series_columns

ALLOCSTATS_COLUMNS = ("op_index", "used_bytes", "rss_bytes", "overhead_bytes", "maxmem_bytes", "op_cycles")


def allocstats_frame(record: dict, where: str = "record") -> pd.DataFrame:
    """A replay record's allocstats rows as a DataFrame (columns as the record names them; the
    ALLOCSTATS_COLUMNS must be among them).  ResultsError naming `where` when the field is malformed."""
    columns = series_columns(record, "allocstats", ALLOCSTATS_COLUMNS, where, "{'every', 'columns': [...], 'rows': [[...]]}")
    stats = record["allocstats"]
    for i, row in enumerate(stats["rows"]):
        if not isinstance(row, list) or len(row) != len(columns) or not all(
                isinstance(v, (int, float)) and not isinstance(v, bool) for v in row):
            raise ResultsError(f"{where}: allocstats row {i} is not {len(columns)} numbers (the file is damaged)")
    return pd.DataFrame(stats["rows"], columns=columns, dtype=float)


@dataclass
class AllocstatsGroup:
    """The allocstats series of one (run, trace, threads): per allocator, its first ok repetition."""
    run: str
    trace: str
    threads: int
    series: dict[str, pd.DataFrame]  # allocator -> allocstats_frame, in file order
    every: dict[str, int]           # allocator -> sampling period K
    heap_maps: dict[str, HeapMap] = field(default_factory=dict)  # allocator -> its heap map (replay --heap-map)


def allocstats_groups(runs: Runs) -> list[AllocstatsGroup]:
    """The ok replay records with an allocstats series, grouped by (run, trace, threads)."""
    groups: dict[tuple, AllocstatsGroup] = {}
    for run, path, doc in zip(runs.run_names(), runs.paths, runs.documents):
        chosen: dict[tuple, tuple[int, dict, int]] = {}
        for i, e in enumerate(doc["benchmarks"]):
            if (str(e.get("workload")).split(":")[0] != "replay" or e.get("run_type") != "iteration" or e.get("status") != "ok"
                    or "allocstats" not in e):
                continue
            trace = str((e.get("params") or {}).get("trace", "?"))
            key = (run, trace, e["threads"], e["allocator"])
            rep = e.get("repetition_index", 0)
            if key not in chosen or rep < chosen[key][0]:
                chosen[key] = (rep, e, i)
        for (run_, trace, threads, allocator), (_, e, i) in chosen.items():
            g = groups.setdefault((run_, trace, threads), AllocstatsGroup(run_, trace, int(threads), {}, {}))
            g.series[allocator] = allocstats_frame(e, f"{path}: benchmarks[{i}]")
            g.every[allocator] = int(e["allocstats"].get("every", 0) or 0)
            if "heap_map" in e:
                g.heap_maps[allocator] = heap_map_of(e["heap_map"], f"{path}: benchmarks[{i}]")
    return list(groups.values())
