"""Reading results files (through the C++ reader, so that Python and C++ reject the same files
the same way) into pandas: one row per measured repetition of a cell."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import pandas as pd

from . import _core


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
        for key in ("run_type", "allocator", "threads", "status"):
            if not isinstance(entry, dict) or key not in entry:
                raise ResultsError(f"{path}: benchmarks[{i}] lacks '{key}' (the file is damaged)")
    return doc


@dataclass
class Runs:
    """One or more results files.  `cells` has one row per iteration entry (every status), with
    the run it came from in column `run` (the file name without .json)."""
    paths: list[str]
    documents: list[dict]
    cells: pd.DataFrame = field(repr=False)

    def run_names(self) -> list[str]:
        return [run_name(p) for p in self.paths]

    def context(self, run: str) -> dict:
        return self.documents[self.run_names().index(run)]["context"]


def run_name(path: str) -> str:
    base = os.path.basename(os.fspath(path))
    return base[:-5] if base.endswith(".json") else base


def load(paths: list[str]) -> Runs:
    """Loads results files; ResultsError on the first bad one, or when two have the same name."""
    documents = [read_results(p) for p in paths]
    names = [run_name(p) for p in paths]
    if len(set(names)) != len(names):
        raise ResultsError("two results files have the same name: " + ", ".join(sorted(paths)) +
                           " (rename one: runs are told apart by file name)")
    frames = []
    for name, doc in zip(names, documents):
        rows = [e for e in doc["benchmarks"] if e["run_type"] == "iteration"]
        frame = pd.json_normalize(rows, sep=".") if rows else pd.DataFrame()
        frame.insert(0, "run", name)
        frames.append(frame)
    cells = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    return Runs(list(map(os.fspath, paths)), documents, cells)
