"""Memory overhead per workload: the production (drop-in) allocators and the in-tree reference
allocators (bump, eqclass, pool: allocator_kind in_tree) in panels of their own, so that bump's
40-57 does not flatten the production allocators' 1.3-1.8 into one line.  One row per allocator
(leanest at the top, by its median over thread counts; non-conforming allocators last, not
ranked), one marker per thread count at the median overhead_ratio, whiskers its order-statistic
interval; each panel log-scaled when its values span more than plots.LOG_SPAN.  Allocators
without a valid overhead say n/a and why."""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.lines import Line2D

from ..stats import statistics as st
from .figure_data import IN_TREE, ORDER_STATISTIC, Panel
from .plots import legend_outside, levels_text, save, set_ratio_axis

PRODUCTION = "production allocators (drop-in)"


def _overhead_stats(values: np.ndarray) -> tuple[float, float, float, float]:
    """(median, low, high, level) of one cell's overhead ratios (NaN without values)."""
    if values.size == 0:
        return (math.nan,) * 4
    low, high, level = st.median_ci(values)
    return float(np.median(values)), low, high, level


def _rows(panels: list[Panel], in_tree: bool) -> list[tuple[str, dict, str]]:
    """(allocator's label, threads -> stats, n/a reason) of one panel group, leanest first, non-conforming last."""
    names = list(dict.fromkeys(c.allocator for p in panels for c in p.cells if c.in_tree == in_tree))
    rows, unranked = [], set()
    for name in names:
        stats, reasons, label = {}, [], name
        for p in panels:
            c = p.cell(name)
            if c is None:
                continue
            label = c.label
            if c.nonconforming:
                unranked.add(label)
            if c.overhead.size:
                stats[p.threads] = _overhead_stats(c.overhead)
            else:
                reasons.append(f"{p.threads}t: {c.overhead_note}")
        rows.append((label, stats, "; ".join(reasons)))
    return sorted(rows, key=lambda r: (r[0] in unranked, not r[1], float(np.median([s[0] for s in r[1].values()])) if r[1] else 0.0))


def _draw(ax, rows, threads: list[int], colours: dict, title: str) -> list[tuple[float, str]]:
    """Draws one panel; returns the (level, method) of its intervals."""
    offsets = {t: (i - (len(threads) - 1) / 2) * 0.22 for i, t in enumerate(threads)}
    values, levels = [], []
    for y, (name, stats, reason) in enumerate(rows):
        for t, (median, low, high, level) in stats.items():
            yy = y + offsets[t]
            ax.plot([median], [yy], marker="o", linestyle="", color=colours[t], markersize=5)
            if math.isfinite(low):
                ax.errorbar([median], [yy], xerr=[[median - low], [high - median]], fmt="none", ecolor=colours[t], capsize=2)
                levels.append((level, ORDER_STATISTIC))
            values += [median, low, high]
        if reason:
            ax.annotate("n/a: " + reason, xy=(0.01, y), xycoords=("axes fraction", "data"), va="center", fontsize=6.5,
                        color="#aa0000")
    ax.set_yticks(range(len(rows)), [r[0] for r in rows], fontsize=8)
    ax.set_ylim(len(rows) - 0.5, -0.5)
    log = set_ratio_axis(ax, [v for v in values if math.isfinite(v)])
    ax.grid(True, axis="x", which="major", alpha=0.3)
    ax.set_title(title, fontsize=9)
    ax.set_xlabel("overhead_ratio = (peak RSS − RSS before) / peak live bytes" + (", log axis" if log else ""), fontsize=8)
    return levels


def plot_overhead(panels: list[Panel], stem: str) -> str:
    """The overhead figure of one (run, workload); pre: panels non-empty, same run and workload."""
    threads = [p.threads for p in panels]
    cmap = plt.get_cmap("viridis")
    colours = {t: cmap(0.15 + 0.7 * i / max(len(threads) - 1, 1)) for i, t in enumerate(threads)}
    groups = [(False, PRODUCTION), (True, IN_TREE)]
    groups = [(flag, title, _rows(panels, flag)) for flag, title in groups]
    groups = [g for g in groups if g[2]]
    heights = [len(g[2]) * 0.42 + 0.9 for g in groups]
    fig, axes = plt.subplots(len(groups), 1, figsize=(8.6, sum(heights) + 1.0), squeeze=False,
                             gridspec_kw={"height_ratios": heights})
    levels = []
    for ax, (_, title, rows) in zip(axes.flat, groups):
        levels += _draw(ax, rows, threads, colours, title)
    handles = [Line2D([], [], marker="o", linestyle="", color=colours[t], label=f"{t} thread(s)") for t in threads]
    handles.append(Line2D([], [], color="#555555", label="median; whiskers:\n" + levels_text(levels).replace("; ", ";\n")
                          + "\nof the median"))
    legend_outside(axes.flat[0], handles=handles)
    fig.suptitle(f"{panels[0].workload}, run {panels[0].run}: memory overhead (median over repetitions)", fontsize=9)
    fig.tight_layout()
    return save(fig, stem)
