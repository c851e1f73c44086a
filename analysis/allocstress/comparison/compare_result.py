"""The whole comparison of two runs as one object: the timing cells with their decisions
(compare.py), the counts tier (compare_counts.py), the geometric mean, the reference check (did
void itself move: compare_reference.py), the context differences (compare_context.py), the misuse
battery's lost and gained detections when both files have a `safety` section (compare_safety.py),
the threshold, the interval used and the exit status.  `to_dict()` is what
`compare --json` writes; compare_text.py renders it for the console.

Exit status (compare_decision.exit_status): EXIT_WORSE (4) when a counts figure is worse beyond
the threshold or the misuse battery lost a detection or a conformance (exact: the machine's speed
moves neither); else EXIT_REFERENCE_MOVED (3) when
void moved beyond the threshold between the runs; else EXIT_WORSE when a timing cell is worse
beyond the threshold; else 0.  Bad input is 2 and an unexpected error 1
(`__main__`), as for every command."""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field

import pandas as pd

from . import compare as cells_compare
from . import compare_decision as rule
from . import compare_reference as reference
from .compare_context import context_differences, heading
from .compare_counts import DECIDING_FIGURE, FIGURES, availability, compare_counts
from .compare_safety import SafetyComparison, compare_safety
from ..results.loading import Runs, load_runs

JSON_SCHEMA = "allocstress-compare"
JSON_SCHEMA_VERSION = 1
EXIT_MEANING = {"0": "no cell and no counts figure is worse beyond the threshold",
                str(rule.EXIT_WORSE): "at least one cell or counts figure is worse beyond the threshold, or the misuse "
                "battery lost a detection (a scored case caught in A, not in B) or an allocator's conformance",
                str(rule.EXIT_REFERENCE_MOVED): "void (the op stream with no allocator) moved beyond the threshold "
                "between the runs: the machine's speed or the harness differed, so no decision is the allocators' "
                "alone; rerun both on a steady machine",
                "1": "an unexpected error (one line on stderr)",
                "2": "bad input: a results file or an option (one line on stderr, nothing written)"}
RULE = ("worse when the whole interval of B / A lies above 1 + threshold, better when it lies wholly below "
        "1 - threshold, otherwise no change (within the threshold, or inconclusive when the interval crosses "
        "1 +- threshold); counts figures are exact: their B / A itself is compared")


@dataclass
class Comparison:
    paths: list[str]
    names: list[str]
    headings: list[str]
    metric: str | None
    threshold: float
    cells: pd.DataFrame = field(repr=False)
    counts: pd.DataFrame = field(repr=False)
    counts_note: str
    geomean: dict = field(repr=False)
    context: list[dict] = field(repr=False)
    reference: pd.DataFrame = field(repr=False)  # compare_reference.reference_shifts
    safety: SafetyComparison = field(default_factory=SafetyComparison, repr=False)  # compare_safety.py

    @property
    def interval(self) -> cells_compare.Interval:
        return self.cells.attrs["interval"]

    @property
    def verdict(self) -> dict[str, int]:
        return rule.verdict_counts(self.cells["decision"])

    @property
    def counts_verdict(self) -> dict[str, int]:
        return rule.verdict_counts(self.counts["decision"])

    @property
    def reference_moved(self) -> bool:
        return not reference.moved(self.reference).empty

    @property
    def reference_line(self) -> str:
        return reference.summary(self.reference, self.names, self.threshold)

    @property
    def exit_status(self) -> int:
        return rule.exit_status(self.verdict[rule.WORSE], self.reference_moved, self.counts_verdict[rule.WORSE] + self.safety.worse)

    @property
    def metric_name(self) -> str:
        return cells_compare.metric_label(self.cells, self.metric)

    def __repr__(self) -> str:
        v = self.verdict
        return (f"<Comparison {self.names[1]} vs {self.names[0]}: {v[rule.WORSE]} worse, {v[rule.BETTER]} better, "
                f"{v[rule.NO_CHANGE]} no change, {v[rule.NOT_AVAILABLE]} n/a (threshold ±{rule.percent(self.threshold)}); "
                f"{len(self.counts)} counts cells; {self.safety.worse} safety changes worse; {len(self.context)} context "
                f"differences; exit {self.exit_status}>")

    def to_dict(self) -> dict:
        """The whole comparison, JSON-ready (NaN as None)."""
        interval = self.interval
        return _clean({
            "schema": JSON_SCHEMA, "schema_version": JSON_SCHEMA_VERSION,
            "a": {"path": self.paths[0], "name": self.names[0], "heading": self.headings[0]},
            "b": {"path": self.paths[1], "name": self.names[1], "heading": self.headings[1]},
            "metric": self.metric or "headline", "threshold": self.threshold,
            "threshold_percent": self.threshold * 100, "rule": RULE,
            "interval": {"method": interval.method, "level": interval.level, "familywise_level": interval.familywise,
                         "cells": interval.cells, "median_level": interval.side_level,
                         "achieved_level_at_least": interval.achieved, "name": interval.name()},
            "verdict": self.verdict, "exit_status": self.exit_status, "exit_status_meaning": EXIT_MEANING,
            "cells": [_cell(r) for r in self.cells.to_dict("records")],
            "counts": {"compared": not self.counts_note, "reason": self.counts_note or None,
                       "deciding_figure": DECIDING_FIGURE, "exact": True, "verdict": self.counts_verdict,
                       "cells": [_counts_cell(r) for r in self.counts.to_dict("records")]},
            "geomean": self.geomean,
            "reference": {"figure": f"void's {reference.FIGURE}", "moved": self.reference_moved,
                          "summary": self.reference_line, "checks": [_reference_check(r) for r in self.reference.to_dict("records")]},
            "context_differences": self.context,
            "safety": self.safety.to_dict(),
        })


def _cell(r: dict) -> dict:
    keys = ("workload", "allocator", "threads", "metric", "decision", "reason", "reps_a", "reps_b", "median_a",
            "median_b", "ratio", "p", "p_adjusted")
    out = {k: r[k] for k in keys}
    out["interval"] = None if pd.isna(r["ci_low"]) else {"low": r["ci_low"], "high": r["ci_high"], "level": r["ci_level"]}
    return out


def _reference_check(r: dict) -> dict:
    out = {k: r[k] for k in ("workload", "threads", "reps_a", "reps_b", "median_a", "median_b", "ratio", "moved", "reason")}
    out["moved"] = bool(out["moved"])
    out["interval"] = None if pd.isna(r["ci_low"]) else {"low": r["ci_low"], "high": r["ci_high"], "level": r["ci_level"]}
    return out


def _counts_cell(r: dict) -> dict:
    out = {k: r[k] for k in ("workload", "allocator", "threads", "decision", "reason")}
    out["figures"] = {f: {side: r[f"{f}_{side}"] for side in ("a", "b", "delta", "ratio")} for f, _ in FIGURES}
    return out


def _clean(value):
    """NaN -> None and numpy scalars -> Python numbers, recursively (strict JSON)."""
    if isinstance(value, dict):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def compare_loaded(runs: Runs, metric: str | None = None, threshold: float = rule.DEFAULT_THRESHOLD_PERCENT / 100,
                   cells: pd.DataFrame | None = None) -> Comparison:
    """The comparison of the two runs in `runs` (A first); threshold a fraction (0.05); `cells`
    the timing cells when already computed (compare.compare_runs with the same metric and threshold)."""
    names = runs.run_names()
    cells = cells_compare.compare_runs(runs, metric, threshold) if cells is None else cells
    return Comparison(paths=list(runs.paths), names=names,
                      headings=[heading(doc, name) for doc, name in zip(runs.documents, names)],
                      metric=metric, threshold=threshold, cells=cells, counts=compare_counts(runs, threshold),
                      counts_note=availability(runs),
                      geomean=cells_compare.geomean(cells, threshold, metric in rule.HIGHER_IS_BETTER),
                      context=context_differences(runs.documents),
                      reference=reference.reference_shifts(runs, threshold),
                      safety=compare_safety(runs.documents, names, runs.paths))


def compare_files(a: str | os.PathLike, b: str | os.PathLike, metric: str | None = None,
                  threshold: float | str = rule.DEFAULT_THRESHOLD_PERCENT) -> Comparison:
    """`allocstress compare A B` in Python: threshold in percent (5, "5" or "5%")."""
    return compare_loaded(load_runs([a, b]), metric, rule.parse_threshold(threshold))
