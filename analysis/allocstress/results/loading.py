"""Reading results files (through the C++ reader, so that Python and C++ reject the same files
the same way) into pandas: one row per measured repetition of a cell."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import pandas as pd

import allocstress._core as _core


class ResultsError(Exception):
    """A results file that cannot be used; the message is one line naming the file and the problem."""


def read_results(path: str) -> dict:
    """The parsed results document; ResultsError if it is missing, truncated, foreign or of
    another schema version."""
    try:
        doc = _core.read_results(os.fspath(path))
    except ValueError as e:
        raise ResultsError(str(e)) from None
    for i, entry in enumerate(doc["benchmarks"]):
        if not isinstance(entry, dict):
            raise ResultsError(f"{path}: benchmarks[{i}] is not an object (the file is damaged)")
        for key, kinds in REQUIRED_ENTRY_FIELDS.items():
            if not isinstance(entry.get(key), kinds) or isinstance(entry.get(key), bool):
                raise ResultsError(f"{path}: benchmarks[{i}] lacks a valid '{key}' (the file is damaged)")
    return doc


# Fields every entry must have for the analysis to work, with their JSON types.
REQUIRED_ENTRY_FIELDS = {"run_type": str, "workload": str, "allocator": str, "threads": int, "status": str}
# Columns every `cells` frame has, filled with NaN/None where entries lack them (failed cells).
CELL_COLUMNS = ["run", "workload", "allocator", "threads", "repetition_index", "status", "reason", "command", "mode",
                "cycles_per_pair", "net_cycles_per_pair", "ns_per_pair", "net_ns_per_pair", "overhead_ratio",
                "overhead_ratio_invalid", "peak_rss_bytes", "thp_coverage", "build_cycles_per_node", "search_cycles_per_visit"]


@dataclass
class Runs:
    """One or more results files.  `cells` has one row per iteration entry (every status), with
    the run it came from in column `run` (the file name without .json)."""
    paths: list[str]
    documents: list[dict]
    cells: pd.DataFrame = field(repr=False)

    def run_names(self) -> list[str]:
        return run_names(self.paths)

    def context(self, run: str) -> dict:
        return self.documents[self.run_names().index(run)]["context"]

    def __repr__(self) -> str:
        """One line: files, records and what they cover (the documents are too big to print)."""
        c = self.cells
        files = f"{len(self.paths)} file{'s' * (len(self.paths) != 1)}"
        if c.empty:
            return f"<Runs {files}, 0 records>"
        workloads = list(dict.fromkeys(c["workload"].dropna()))
        shown = ", ".join(workloads[:3]) + (f" and {len(workloads) - 3} more" if len(workloads) > 3 else "")
        allocators = c["allocator"].nunique()
        counts = sorted(int(t) for t in c["threads"].dropna().unique())
        threads = ",".join(map(str, counts)) if len(counts) <= 6 else f"{counts[0]}..{counts[-1]} ({len(counts)} counts)"
        return (f"<Runs {files}, {len(c)} records: {shown} × {allocators} allocator{'s' * (allocators != 1)}"
                f" × threads {threads}>")


def run_name(path: str, parents: int = 0) -> str:
    """The file name without .json, preceded by `parents` folder names (to tell apart
    machineA/results.json and machineB/results.json)."""
    parts = os.path.normpath(os.path.abspath(os.fspath(path))).split(os.sep)
    base = parts[-1][:-5] if parts[-1].endswith(".json") else parts[-1]
    return "/".join(parts[-1 - parents:-1] + [base]) if parents else base


def run_names(paths: list[str]) -> list[str]:
    """Distinct names for the runs: file names, with as many parent folders as needed."""
    for parents in range(0, 4):
        names = [run_name(p, parents) for p in paths]
        if len(set(names)) == len(names):
            return names
    raise ResultsError("the same results file is given twice: " + ", ".join(paths))


def load_runs(paths: list[str]) -> Runs:
    """Loads results files; ResultsError on the first bad one, or when two have the same name."""
    documents = [read_results(p) for p in paths]
    names = run_names(paths)
    frames = []
    for name, doc in zip(names, documents):
        rows = [e for e in doc["benchmarks"] if e["run_type"] == "iteration"]
        frame = pd.json_normalize(rows, sep=".") if rows else pd.DataFrame(columns=CELL_COLUMNS[1:])
        frame.insert(0, "run", name)
        frames.append(frame)
    cells = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=CELL_COLUMNS)
    missing = [c for c in CELL_COLUMNS if c not in cells]  # added at once: one by one fragments the frame
    cells = pd.concat([cells, pd.DataFrame({c: [None] * len(cells) for c in missing}, index=cells.index, dtype=object)],
                      axis=1).copy()  # copy: one block per dtype
    disturbed = cells["interference.disturbed"] if "interference.disturbed" in cells else pd.Series(False, index=cells.index)
    cells["disturbed"] = disturbed.fillna(False).astype(bool)
    return Runs(list(map(os.fspath, paths)), documents, cells)


def is_disturbed(entry: dict) -> bool:
    """Whether another task ran on a worker's CPU while the record was timed (cells/modes/interference.hpp):
    such records are left out of every figure, as the C++ aggregates leave them out."""
    return bool((entry.get("interference") or {}).get("disturbed"))


def measured_timing(cells: pd.DataFrame) -> pd.DataFrame:
    """The ok, undisturbed timing rows of a `cells` frame (files without modes are timing)."""
    mode = cells["mode"].fillna("timing") if "mode" in cells else pd.Series("timing", index=cells.index)
    return cells[(cells["status"] == "ok") & (mode == "timing") & ~cells["disturbed"]]
