"""Allocator x workload heatmaps of one run, drawn when it ran several workloads: one column per
(workload, threads) panel, one row per allocator (cheapest geometric mean of its ratios at the
top; non-conforming allocators last, not ranked, labelled so), the colour the log2 of a ratio to
the column's reference allocator on a diverging scale around 1 (blue cheaper or leaner, red
costlier or fatter), every cell annotated; a cell that cannot be formed is grey and says n/a.

- relative cost: the ratio of medians of the headline metric, annotated with the quotient
  of the two medians' intervals (figure_data.ratio_to_reference);
- memory overhead: the ratio of median overhead_ratio to the reference's, annotated with the
  allocator's own median overhead_ratio in parentheses."""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import TwoSlopeNorm

from ..stats import statistics as st
from .figure_data import Panel, ratio_interval_text
from .plots import save

MAX_LOG2 = 3.0  # colours saturate at 8x either way
MIN_LOG2 = 1.0  # and span at least 0.5x..2x, so that a few percent do not look like a lot


def _columns(panels: list[Panel]) -> list[str]:
    several_threads = len({p.threads for p in panels}) > 1
    return [f"{p.workload}\n{p.threads}t" if several_threads else p.workload for p in panels]


def _row_order(panels: list[Panel], ratios: dict) -> list[str]:
    names = list(dict.fromkeys(c.allocator for p in panels for c in p.cells))
    unranked = {c.allocator for p in panels for c in p.cells if c.nonconforming}
    def key(name):
        g = st.geometric_mean([ratios[(i, name)] for i in range(len(panels)) if (i, name) in ratios])
        return (name in unranked, math.isnan(g), g if not math.isnan(g) else 0.0)
    return sorted(names, key=key)


def _labels(panels: list[Panel], rows: list[str]) -> list[str]:
    """The rows' labels: each allocator's name, marked when it is non-conforming (Cell.label)."""
    labels = {c.allocator: c.label for p in panels for c in p.cells}
    return [labels.get(name, name) for name in rows]


def _draw(grid: np.ndarray, notes: list[list[str]], rows: list[str], columns: list[str], title: str, colourbar: str,
          stem: str) -> str:
    fig, ax = plt.subplots(figsize=(1.5 * len(columns) + 3.2, 0.5 * len(rows) + 1.8))
    with np.errstate(divide="ignore", invalid="ignore"):
        logs = np.where(grid > 0, np.log2(grid), np.nan)
    limit = min(MAX_LOG2, max(MIN_LOG2, float(np.nanmax(np.abs(logs))) if np.isfinite(logs).any() else 1.0))
    cmap = plt.get_cmap("RdBu_r").copy()
    cmap.set_bad("#dddddd")
    image = ax.imshow(np.ma.masked_invalid(logs), cmap=cmap, norm=TwoSlopeNorm(0.0, -limit, limit), aspect="auto")
    for (i, j), text in np.ndenumerate(np.array(notes, dtype=object)):
        strong = np.isfinite(logs[i, j]) and abs(logs[i, j]) > 0.6 * limit
        ax.text(j, i, text, ha="center", va="center", fontsize=7, color="white" if strong else "black")
    ax.set_xticks(range(len(columns)), columns, fontsize=8)
    ax.set_yticks(range(len(rows)), rows, fontsize=8)
    ax.tick_params(top=True, bottom=False, labeltop=True, labelbottom=False)
    ticks = [t for t in range(-int(limit), int(limit) + 1)]
    bar = fig.colorbar(image, ax=ax, ticks=ticks, fraction=0.05, pad=0.03)
    bar.ax.set_yticklabels([f"{2.0 ** t:g}×" for t in ticks], fontsize=7)
    bar.set_label(colourbar, fontsize=8)
    ax.set_title(title, fontsize=9)
    fig.tight_layout()
    return save(fig, stem)


def plot_cost_heatmap(panels: list[Panel], stem: str) -> str:
    """Relative cost of every allocator in every panel of one run (pre: panels non-empty)."""
    ratios = {(i, c.allocator): c.ratio.get("ratio", math.nan) for i, p in enumerate(panels) for c in p.cells}
    rows, columns = _row_order(panels, ratios), _columns(panels)
    grid = np.full((len(rows), len(columns)), np.nan)
    notes = [["n/a"] * len(columns) for _ in rows]
    for j, p in enumerate(panels):
        for c in p.cells:
            i, r = rows.index(c.allocator), c.ratio
            if c.allocator == p.reference:
                grid[i, j], notes[i][j] = 1.0, "1\n(reference)"
            elif math.isfinite(r.get("ratio", math.nan)):
                grid[i, j] = r["ratio"]
                ci = f"\n[{r['ci_low']:.2f}, {r['ci_high']:.2f}]" if math.isfinite(r.get("ci_low", math.nan)) else "\n(no interval)"
                notes[i][j] = f"{r['ratio']:.2f}×{ci}"
    references = ", ".join(sorted({p.reference_note for p in panels}))
    title = (f"run {panels[0].run}: headline cost relative to {references}\n"
             f"cells: ratio of medians [{ratio_interval_text(panels)}]; rows: cheapest geometric mean first")
    return _draw(grid, notes, _labels(panels, rows), columns, title, "cost / the reference's (log scale)", stem)


def plot_overhead_heatmap(panels: list[Panel], stem: str) -> str:
    """Memory overhead relative to each panel's reference, with the own overhead annotated."""
    medians = {(i, c.allocator): float(np.median(c.overhead)) for i, p in enumerate(panels) for c in p.cells if c.overhead.size}
    ratios = {}
    for i, p in enumerate(panels):
        ref = medians.get((i, p.reference))
        for c in p.cells:
            if ref and (i, c.allocator) in medians:
                ratios[(i, c.allocator)] = medians[(i, c.allocator)] / ref
    rows, columns = _row_order(panels, ratios), _columns(panels)
    grid = np.full((len(rows), len(columns)), np.nan)
    notes = [["n/a"] * len(columns) for _ in rows]
    for (j, name), ratio in ratios.items():
        grid[rows.index(name), j] = ratio
        own = medians[(j, name)]
        notes[rows.index(name)][j] = f"1 (reference)\n({own:.2f})" if name == panels[j].reference else f"{ratio:.2f}×\n({own:.2f})"
    for (j, name), own in medians.items():  # no reference overhead: the own figure still shows
        if (j, name) not in ratios:
            notes[rows.index(name)][j] = f"n/a\n({own:.2f})"
    title = (f"run {panels[0].run}: memory overhead relative to the same reference\n"
             "cells: median overhead_ratio / the reference's (the allocator's own median overhead_ratio); "
             "n/a: no valid overhead")
    return _draw(grid, notes, _labels(panels, rows), columns, title, "overhead / the reference's (log scale)", stem)
