"""Thread sweeps of one workload, drawn only when it ran at MIN_THREAD_COUNTS or more thread
counts (with fewer, a line is two dots and the bar figures say more): cost relative to the
reference allocator (left; whiskers the quotient of the two medians' intervals) and
median memory overhead (right; whiskers its order-statistic interval) against threads, one line
per allocator, log axes where the values span more than plots.LOG_SPAN, the legend outside."""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import numpy as np

from ..stats import statistics as st
from .figure_data import ORDER_STATISTIC, Panel, ratio_interval_text
from .plots import allocator_colours, legend_outside, levels_text, save, set_ratio_axis

MIN_THREAD_COUNTS = 3


def has_sweep(panels: list[Panel]) -> bool:
    return len({p.threads for p in panels}) >= MIN_THREAD_COUNTS


def _series(panels: list[Panel], name: str):
    """(threads, cost ratio, low, high, overhead median, low, high, level) per panel where `name` ran."""
    out = []
    for p in panels:
        c = p.cell(name)
        if c is None:
            continue
        r = c.ratio
        if c.overhead.size:
            lo, hi, level = st.median_ci(c.overhead)
            over = (float(np.median(c.overhead)), lo, hi, level)
        else:
            over = (math.nan,) * 4
        out.append((p.threads, r.get("ratio", math.nan), r.get("ci_low", math.nan), r.get("ci_high", math.nan)) + over)
    return np.array(out, dtype=float).reshape(-1, 8)


def _line(ax, x, y, low, high, colour, label):
    keep = np.isfinite(y)
    if not keep.any():
        return
    x, y, low, high = x[keep], y[keep], low[keep], high[keep]
    ax.plot(x, y, marker="o", markersize=4, linewidth=1.3, color=colour, label=label)
    bounded = np.isfinite(low)
    if bounded.any():
        ax.errorbar(x[bounded], y[bounded], yerr=[y[bounded] - low[bounded], high[bounded] - y[bounded]], fmt="none",
                    ecolor=colour, capsize=2, linewidth=0.8)


def plot_thread_sweep(panels: list[Panel], stem: str) -> str:
    """pre: has_sweep(panels); panels of one (run, workload)."""
    names = list(dict.fromkeys(c.allocator for p in panels for c in p.cells))
    colours = allocator_colours(names)
    fig, (cost, memory) = plt.subplots(1, 2, figsize=(12.5, 4.8))
    cost_values, memory_values, levels = [], [], []
    for name in names:
        s = _series(panels, name)
        _line(cost, s[:, 0], s[:, 1], s[:, 2], s[:, 3], colours[name], name)
        _line(memory, s[:, 0], s[:, 4], s[:, 5], s[:, 6], colours[name], name)
        cost_values += list(s[:, 1:4].ravel())
        memory_values += list(s[:, 4:7].ravel())
        levels += [(level, ORDER_STATISTIC) for level in s[:, 7] if math.isfinite(level)]
    threads = sorted({p.threads for p in panels})
    log_cost = set_ratio_axis(cost, cost_values, axis="y")
    log_memory = set_ratio_axis(memory, memory_values, axis="y")
    references = ", ".join(sorted({p.reference_note for p in panels}))
    cost.set_title(f"cost relative to {references}\nwhiskers: {ratio_interval_text(panels)}", fontsize=8)
    cost.set_ylabel(f"{panels[0].metric} / the reference's" + (" (log axis)" if log_cost else ""), fontsize=8)
    cost.axhline(1, color="black", linewidth=0.8)
    memory.set_title("memory overhead, median\nwhiskers: " + levels_text(levels) + " of the median", fontsize=8)
    memory.set_ylabel("overhead_ratio" + (" (log axis)" if log_memory else ""), fontsize=8)
    for ax in (cost, memory):
        ax.set_xlabel("threads", fontsize=8)
        ax.set_xticks(threads)
        ax.grid(True, alpha=0.3)
    legend_outside(memory, title="allocator")
    fig.suptitle(f"{panels[0].workload}, run {panels[0].run}: thread sweep", fontsize=9)
    fig.tight_layout()
    return save(fig, stem)
