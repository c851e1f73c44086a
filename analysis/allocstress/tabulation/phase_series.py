"""The phase workloads' RSS-over-time series (phase-ramp, phase-plateau, phase-peak).

Each ok timing record of a phase workload carries `phase_series` (columns by name: thread,
op_index, elapsed_ms, live_bytes, rss_bytes, stage; extra columns are ignored).  phase_groups
reads the first ok repetition of each allocator for phase_plots, and rejects a malformed series
with ResultsError before anything is written."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..results.loading import ResultsError, Runs
from ..results.records import is_number, series_columns, timing_records
from .workload_metrics import PHASE_WORKLOADS

SERIES_COLUMNS = ("thread", "elapsed_ms", "live_bytes", "rss_bytes", "stage")  # read by name; others are ignored
_NUMBER_COLUMNS = ("thread", "elapsed_ms", "live_bytes")  # must be numbers; rss_bytes may be null, stage is text


def phase_series_frame(record: dict, where: str = "record") -> pd.DataFrame:
    """A phase record's phase_series as a DataFrame of the SERIES_COLUMNS in time order, plus
    `total_live_bytes` (all threads' live requested bytes at each row, see total_live_bytes).
    rss_bytes is NaN where the row has no reading.  ResultsError naming `where` when the field is
    malformed: not {'columns': [...], 'rows': [[...]]}, a column missing, a row of the wrong length,
    a non-number where a number belongs, or a stage that is not text."""
    columns = series_columns(record, "phase_series", SERIES_COLUMNS, where, "{'columns': [...], 'rows': [[...]]}")
    series = record["phase_series"]
    at = {c: columns.index(c) for c in SERIES_COLUMNS}
    for i, row in enumerate(series["rows"]):
        if not isinstance(row, list) or len(row) != len(columns):
            raise ResultsError(f"{where}: phase_series row {i} is not a list of {len(columns)} values (the file is damaged)")
        bad = [c for c in _NUMBER_COLUMNS if not is_number(row[at[c]])]
        if not (row[at["rss_bytes"]] is None or is_number(row[at["rss_bytes"]])):
            bad.append("rss_bytes")
        if not isinstance(row[at["stage"]], str):
            bad.append("stage")
        if bad:
            raise ResultsError(f"{where}: phase_series row {i} has a bad {', '.join(bad)} (the file is damaged)")
    rows = series["rows"]
    frame = pd.DataFrame({c: [r[at[c]] for r in rows] for c in SERIES_COLUMNS})
    for c in ("thread", "elapsed_ms", "live_bytes", "rss_bytes"):
        frame[c] = pd.to_numeric(frame[c], errors="coerce").astype(float)
    frame["stage"] = frame["stage"].astype(str)
    frame = frame.sort_values("elapsed_ms", kind="stable").reset_index(drop=True)
    frame["total_live_bytes"] = total_live_bytes(frame)
    return frame


def total_live_bytes(frame: pd.DataFrame) -> np.ndarray:
    """All threads' live requested bytes at each row of a time-ordered series.  A worker's row
    (thread >= 0) holds that thread's own live bytes, so the total there is the sum of every
    thread's latest sample; a pause row (thread < 0) holds the measured total itself.  Samples
    come every `every` ops of a thread, so a thread's latest one may predate the end of a drop:
    at a pause row every thread's latest sample is scaled so that together they add up to the
    measured total (otherwise the curve would jump back up after each pause)."""
    latest: dict[float, float] = {}
    out = np.empty(len(frame))
    for i, (thread, live) in enumerate(zip(frame["thread"].to_numpy(), frame["live_bytes"].to_numpy(dtype=float))):
        if thread >= 0:
            latest[thread] = live
            out[i] = sum(latest.values())
        else:
            out[i] = live
            known = sum(latest.values())
            latest = {t: v * live / known for t, v in latest.items()} if known > 0 else latest
    return out


@dataclass
class PhaseGroup:
    """The phase series of one (run, phase workload, threads): per allocator, its first ok repetition."""
    run: str
    workload: str
    threads: int
    series: dict[str, pd.DataFrame]  # allocator -> phase_series_frame, in file order
    every: dict[str, int]            # allocator -> ops of a thread between two of its rows (0: not recorded)


def phase_groups(runs: Runs) -> list[PhaseGroup]:
    """The ok phase-* timing records with a phase_series, grouped by (run, workload, threads);
    ResultsError on the first malformed series among those drawn."""
    groups: dict[tuple, PhaseGroup] = {}
    for workload in PHASE_WORKLOADS:
        chosen: dict[tuple, tuple[int, str, dict]] = {}
        for run, where, e in timing_records(runs, workload):
            if "phase_series" not in e:
                continue
            key = (run, e["threads"], e["allocator"])
            rep = e.get("repetition_index", 0)
            if key not in chosen or rep < chosen[key][0]:
                chosen[key] = (rep, where, e)
        for (run, threads, allocator), (_, where, e) in chosen.items():
            g = groups.setdefault((run, workload, threads), PhaseGroup(run, workload, int(threads), {}, {}))
            g.series[allocator] = phase_series_frame(e, where)
            every = e["phase_series"].get("every")
            g.every[allocator] = int(every) if is_number(every) else 0
    return list(groups.values())
