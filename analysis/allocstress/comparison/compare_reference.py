"""Did the machine itself change between the two runs `compare` compares?

The model: `void` runs each workload's op stream (same seed, same sizes, same slot choices, every
block written and read back) with an allocator that hands every request one cache-hot buffer and
frees nothing (allocators/README.md), so its raw cost -- `cycles_per_pair`, the baseline every allocator's net figure
is taken against -- depends on the machine, the harness and the parameters, never on an
allocator.  Two runs of the same commit and plan on a steady machine give the same void figure
up to the noise between its processes (about 1% here).  When it differs beyond the threshold,
the machine ran at another speed (a noisy neighbour on a VM, a frequency change, another host)
or the harness changed, and that shift is in every allocator's figure too: the net figure does
not cancel it, because allocators' memory-bound work scales with the machine more than void's
(measured on the project's VM: void 24% slower in one run, the allocators' net figures 18-68%).

The check, per void cell (records.cell_key: one per workload and threads) in both runs with a void baseline
(the registry's `void_baseline`): the ratio B / A of void's median `cycles_per_pair` over its
undisturbed repetitions, with the quotient of the two runs' intervals of the median
(sides.quotient_of_medians) aimed at a Bonferroni level over the checks (95% for all together;
ci_level the level achieved), decided by the same rule as a cell (compare_decision.decide).
`moved` is a `worse` or `better` decision: the whole interval lies outside ±threshold.  Then the
comparison's cells cannot be attributed to the allocators alone, and `compare` exits with
EXIT_REFERENCE_MOVED (3) instead of 0 or 4 (compare_result.py).  Workloads without a void
baseline (data structures, false sharing, real programs) have no reference: nothing is checked
for them, and the check says so."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ..results import catalogue
from ..results.records import BASELINE, rows_by_cell
from . import compare_decision as rule
from ..stats import statistics as st
from .sides import quotient_of_medians, side_values
from ..results.loading import Runs

COLUMNS = ["workload", "threads", "reps_a", "reps_b", "median_a", "median_b", "ratio", "ci_low", "ci_high",
           "ci_level", "moved", "reason"]
FIGURE = "cycles_per_pair"  # void's raw cost per malloc/free pair: the baseline of every net figure


def reference_shifts(runs: Runs, threshold: float, familywise: float = st.CONFIDENCE) -> pd.DataFrame:
    """One row (COLUMNS) per (workload, threads) whose void cell ran in both runs, for workloads
    with a void baseline: void's medians per run, ratio B / A with its interval, `moved` (the whole
    interval outside ±threshold) and the reason of the decision.  A check without an interval (void
    failed or every process disturbed in a run: sides.side_values's reason; fewer than 2 undisturbed
    repetitions) has moved False and says why.  pre: two runs."""
    names = tuple(runs.run_names())
    cells = runs.cells
    mode = cells["mode"].fillna("timing")
    timing = cells[(mode == "timing") & (cells["allocator"] == BASELINE)]
    checks = {key: here for key, here in rows_by_cell(timing).items()  # void's cells: one per (workload, threads)
              if (catalogue.workload(key.workload) or {}).get("void_baseline") and all((here["run"] == run).any() for run in names)}
    level = st.familywise_level(len(checks), familywise)
    rows = []
    for key, here in checks.items():
        (va, why_a), (vb, why_b) = (side_values(here[here["run"] == run], run, BASELINE, FIGURE) for run in names)
        row = {"workload": key.workload, "threads": key.threads, "reps_a": int(va.size), "reps_b": int(vb.size),
               "median_a": float(np.median(va)) if va.size else math.nan,
               "median_b": float(np.median(vb)) if vb.size else math.nan}
        short = [run for values, run in zip((va, vb), names) if values.size < 2]
        ratio = quotient_of_medians(va, vb, level)
        row.update(ratio=ratio["ratio"], ci_low=ratio["ci_low"], ci_high=ratio["ci_high"], ci_level=ratio["ci_level"])
        if why_a or why_b:
            row.update(moved=False, reason="; ".join(w for w in (why_a, why_b) if w) + ": not checked")
        elif short:
            row.update(moved=False, reason=f"fewer than 2 undisturbed void repetitions in {short[0]}: not checked")
        elif math.isnan(ratio["ci_low"]):
            row.update(moved=False, reason=f"no interval ({ratio['note'] or 'no values'}): not checked")
        else:
            decision, reason = rule.decide(ratio["ci_low"], ratio["ci_high"], threshold)
            row.update(moved=decision in (rule.WORSE, rule.BETTER), reason=reason)
        rows.append(row)
    return pd.DataFrame(rows, columns=COLUMNS)


def moved(table: pd.DataFrame) -> pd.DataFrame:
    """The checks whose void figure moved beyond the threshold."""
    return table[table["moved"].astype(bool)] if not table.empty else table


def summary(table: pd.DataFrame, names, threshold: float) -> str:
    """One line: which references moved and by how much, or that none did, or why none was checked."""
    unseen = "a shift of the whole machine between the runs would not be seen"
    if table.empty:
        return f"reference: not checked (no workload with a void baseline ran void in both runs): {unseen}"
    shifted, checked = moved(table), table[table["ci_low"].notna()]
    if shifted.empty and checked.empty:
        return f"reference: not checked ({table['reason'].iloc[0]}): {unseen}"
    t = rule.percent(threshold)
    if shifted.empty:
        within = int(checked["reason"].str.startswith("within").sum())
        parts = [f"within ±{t} in {within}", f"inconclusive in {len(checked) - within}"]
        if len(table) > len(checked):
            parts.append(f"not checked in {len(table) - len(checked)}")
        return (f"reference: void (the op stream with no allocator) moved beyond ±{t} in none of {len(table)} checks "
                f"({', '.join(parts)}): no shift of the machine beyond the threshold was seen")
    worst = shifted.loc[shifted["ratio"].apply(lambda r: abs(math.log(r))).idxmax()]
    plural = "s" if worst["threads"] != 1 else ""
    return (f"reference moved: void (the op stream with no allocator) took {worst['ratio']:.3f}x "
            f"[{worst['ci_low']:.3f}, {worst['ci_high']:.3f}] as long in {names[1]} as in {names[0]} "
            f"({worst['workload']} at {worst['threads']} thread{plural}; {len(shifted)} of {len(table)} checks "
            f"beyond ±{t}): the machine's speed (or the harness) differed between the runs, so the cells' "
            f"decisions are not the allocators' alone")
