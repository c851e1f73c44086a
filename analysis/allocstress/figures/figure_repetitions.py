"""Every repetition, per workload: one panel per thread count, one row per allocator (cheapest
median at the top; non-conforming allocators last, not ranked), each ok undisturbed repetition's headline value as a jittered point, the
median as a black tick and its interval as a bar (the record's own interval when the results have
one, with its level and method; else the order-statistic interval), disturbed repetitions as grey
crosses (left out of medians and intervals).  The spread of the points is part of the answer: two
allocators whose clouds overlap are not told apart by this run."""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.lines import Line2D

from .figure_data import Panel, metric_axis_label
from .plots import allocator_colours, legend_outside, levels_text, plain_log_ticks, save, wants_log

JITTER = 0.28  # half-height of a row's cloud
SEED = 16      # fixed: the same file gives the same picture


def _draw_panel(ax, panel: Panel, colours: dict, log: bool) -> None:
    rng = np.random.default_rng(SEED)
    cells = sorted(panel.cells, key=lambda c: (bool(c.nonconforming), c.median))  # non-conforming last: not ranked
    for y, c in enumerate(cells):
        ax.scatter(c.values, y + rng.uniform(-JITTER, JITTER, c.values.size), s=9, alpha=0.6, color=colours[c.allocator],
                   linewidths=0)
        if c.disturbed.size:
            ax.scatter(c.disturbed, y + rng.uniform(-JITTER, JITTER, c.disturbed.size), s=14, marker="x", color="#888888",
                       linewidths=0.8)
        if math.isfinite(c.low):
            ax.plot([c.low, c.high], [y, y], color="black", linewidth=3, alpha=0.45, solid_capstyle="butt")
        ax.plot([c.median], [y], marker="|", markersize=16, markeredgewidth=2, color="black")
    ax.set_yticks(range(len(cells)), [f"{c.label} (n={c.values.size})" for c in cells], fontsize=8)
    ax.set_ylim(len(cells) - 0.5, -0.5)
    if log:
        ax.set_xscale("log")
        plain_log_ticks(ax.xaxis)
    ax.grid(True, axis="x", which="both", alpha=0.25)
    ax.set_title(f"{panel.threads} thread(s)", fontsize=9)
    ax.set_xlabel(metric_axis_label(panel.metric) + (", log axis" if log else ""), fontsize=8)


def plot_repetitions(panels: list[Panel], stem: str) -> str:
    """The strip plot of one (run, workload); pre: panels non-empty, same run and workload."""
    cells = [c for p in panels for c in p.cells]
    colours = allocator_colours(c.allocator for c in cells)
    values = np.concatenate([np.concatenate([c.values, c.disturbed]) for c in cells])
    log = bool(values.size) and bool((values > 0).all()) and wants_log([values.min(), values.max()])
    columns = min(len(panels), 2)
    rows = math.ceil(len(panels) / columns)
    height = max(len(p.cells) for p in panels) * 0.36 + 1.4
    fig, axes = plt.subplots(rows, columns, figsize=(6.4 * columns + 2.2, height * rows), squeeze=False, sharex=True)
    for ax, panel in zip(axes.flat, panels):
        _draw_panel(ax, panel, colours, log)
    for ax in list(axes.flat)[len(panels):]:
        ax.set_visible(False)
    intervals = levels_text((c.level, c.method) for c in cells)
    handles = [Line2D([], [], marker="o", linestyle="", color="#555555", markersize=4, label="one repetition"),
               Line2D([], [], marker="|", linestyle="", color="black", markersize=12, markeredgewidth=2, label="median"),
               Line2D([], [], color="black", linewidth=3, alpha=0.45, label=intervals.replace("; ", ";\n") + "\nof the median")]
    if any(c.disturbed.size for c in cells):
        handles.append(Line2D([], [], marker="x", linestyle="", color="#888888", label="disturbed repetition\n(not counted)"))
    legend_outside(axes.flat[columns - 1], handles=handles)
    first = panels[0]
    fig.suptitle(f"{first.workload}, run {first.run}: {first.metric} of every repetition (ok, undisturbed)", fontsize=9)
    fig.tight_layout()
    return save(fig, stem)
