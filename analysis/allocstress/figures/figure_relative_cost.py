"""Cost relative to a reference allocator, per workload: one panel per thread count, one
horizontal bar per allocator from 1 (the reference) to its ratio of medians, cheapest at the top,
whiskers the quotient of the two medians' intervals (figure_data.ratio_to_reference; level in the title), the value and interval written beside the
allocator's name (non-conforming allocators last, not ranked: figure_data.NOT_RANKED); a log axis when the ratios span more than plots.LOG_SPAN.  A ratio that cannot
be formed is drawn as 'n/a' with its reason."""

from __future__ import annotations

import math
import textwrap

import matplotlib.pyplot as plt

from .figure_data import Panel, ratio_interval_text
from .plots import save, set_ratio_axis

CHEAPER, COSTLIER, REFERENCE_COLOUR = "#4c72b0", "#dd8452", "#999999"
LABEL_WIDTH = 48  # characters of an allocator's label before it wraps (long n/a reasons)


def ratio_text(ratio: dict) -> str:
    """'0.48× [0.45, 0.51]', '0.48× (no interval: why)' or 'n/a: why'."""
    r = ratio.get("ratio", math.nan)
    if math.isnan(r):
        return "n/a: " + (ratio.get("note") or "no ratio")
    if math.isnan(ratio.get("ci_low", math.nan)):
        return f"{r:.2f}× (" + (ratio.get("note") or "no interval") + ")"
    return f"{r:.2f}× [{ratio['ci_low']:.2f}, {ratio['ci_high']:.2f}]" + (" (no lower bound)" if ratio["ci_low"] <= 0 else "")


def _draw_panel(ax, panel: Panel, limits: list[float]) -> None:
    cells = panel.sorted_by_ratio()
    labels = []
    for y, c in enumerate(cells):
        r, lo, hi = c.ratio.get("ratio", math.nan), c.ratio.get("ci_low", math.nan), c.ratio.get("ci_high", math.nan)
        if c.allocator == panel.reference:
            labels.append(f"{c.label}  1 (reference)")
            ax.plot([1], [y], marker="|", markersize=14, color=REFERENCE_COLOUR)
            continue
        labels.append(textwrap.fill(f"{c.label}  {ratio_text(c.ratio)}", LABEL_WIDTH, subsequent_indent="    "))
        if math.isnan(r):  # the reason is in the label: nothing to draw
            continue
        ax.barh(y, r - 1, left=1, height=0.6, color=CHEAPER if r < 1 else COSTLIER)
        if not math.isnan(lo):
            ax.errorbar([r], [y], xerr=[[max(r - lo, 0)], [max(hi - r, 0)]], fmt="none", ecolor="black", elinewidth=1,
                        capsize=3)
    ax.set_yticks(range(len(cells)), labels, fontsize=8)
    ax.set_ylim(len(cells) - 0.5, -0.5)  # cheapest at the top
    ax.axvline(1, color="black", linewidth=0.8)
    ax.grid(True, axis="x", which="major", alpha=0.3)
    log = set_ratio_axis(ax, limits)
    ax.set_title(f"{panel.threads} thread(s): relative to {panel.reference or 'n/a'}", fontsize=9)
    ax.set_xlabel(f"{panel.metric} / the reference's\n(medians; {'log' if log else 'linear'} axis; < 1 is cheaper)",
                  fontsize=8)


def plot_relative_cost(panels: list[Panel], stem: str) -> str:
    """Bars of every panel of one (run, workload); pre: panels non-empty, same run and workload."""
    columns = min(len(panels), 2)
    rows = math.ceil(len(panels) / columns)
    height = max(len(p.cells) for p in panels) * 0.36 + 1.6
    fig, axes = plt.subplots(rows, columns, figsize=(7.2 * columns, height * rows), squeeze=False)
    limits = [v for p in panels for c in p.cells for v in (c.ratio.get("ratio"), c.ratio.get("ci_low"), c.ratio.get("ci_high"))
              if v is not None]
    for ax, panel in zip(axes.flat, panels):
        _draw_panel(ax, panel, limits)
    for ax in list(axes.flat)[len(panels):]:
        ax.set_visible(False)
    first = panels[0]
    references = sorted({p.reference_note for p in panels})
    fig.suptitle(f"{first.workload}, run {first.run}: cost relative to {'; '.join(references)}\n"
                 f"bars: ratio of medians of {first.metric}, cheapest first; whiskers: "
                 f"{ratio_interval_text(panels)}", fontsize=9)
    fig.tight_layout()
    return save(fig, stem)
