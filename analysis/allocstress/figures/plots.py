"""What every figure of the report shares: the Agg backend (files only), saving as PNG and SVG,
one colour per allocator across figures, the log-or-linear axis rule, legends outside the data
area, and the text of an interval's level and method.  The figures themselves are in the
figure_*.py modules (named after what they draw), phase_plots.py and trace_plots.py; each
function writes PNG and SVG and returns the PNG path."""

from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")  # files only: no display needed
matplotlib.rcParams["svg.fonttype"] = "none"  # SVG text stays text: searchable, editable for a paper
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import FuncFormatter, LogLocator, NullLocator  # noqa: E402

MAX_LEGEND_ENTRIES = 16  # beyond this a legend hides the plot; the table names every line
LOG_SPAN = 3.0           # an axis whose values span more than this factor is drawn logarithmic
DPI = 130


def save(fig, stem: str) -> str:
    bbox = fig.get_tightbbox(fig.canvas.get_renderer()).padded(0.1)  # once for both files (legends outside)
    fig.savefig(stem + ".png", dpi=DPI, bbox_inches=bbox)
    fig.savefig(stem + ".svg", bbox_inches=bbox)
    plt.close(fig)
    return stem + ".png"



def wants_log(values) -> bool:
    """Whether positive values span more than LOG_SPAN (max / min): then a log axis shows them all."""
    finite = [v for v in values if v is not None and math.isfinite(v) and v > 0]
    return len(finite) >= 2 and max(finite) / min(finite) > LOG_SPAN


def plain_log_ticks(axis) -> None:
    """Ticks 1, 2, 5 per decade of a log axis, labelled as plain numbers (0.5, 20), not 10^x."""
    axis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    axis.set_minor_locator(NullLocator())


def set_ratio_axis(ax, values, axis: str = "x") -> bool:
    """Log scale with plain tick labels (0.5, 1, 2) when `values` span more than LOG_SPAN, else
    linear; limits padded around every value and 1.  Returns whether the axis is logarithmic."""
    finite = [v for v in values if v is not None and math.isfinite(v) and v > 0] + [1.0]
    log = wants_log(finite)
    low, high = min(finite), max(finite)
    if log:
        getattr(ax, f"set_{axis}scale")("log")
        limits = (low / 1.25, high * 1.25)
        plain_log_ticks(getattr(ax, f"{axis}axis"))
    else:
        pad = (high - low) * 0.08 or 0.1
        limits = (max(0.0, low - pad), high + pad)
    getattr(ax, f"set_{axis}lim")(*limits)
    return log


def allocator_colours(names) -> dict[str, tuple]:
    """One colour per allocator, the same in every figure of a report: names sorted, tab10 up to
    ten, tab20 beyond."""
    names = sorted(set(names))
    cmap = plt.get_cmap("tab10" if len(names) <= 10 else "tab20")
    return {n: cmap(i % cmap.N) for i, n in enumerate(names)}


def legend_outside(ax, handles=None, title: str | None = None, fontsize: int = 8) -> None:
    """A legend right of the axes (never over the data); a note instead beyond MAX_LEGEND_ENTRIES."""
    if handles is None:
        handles, _ = ax.get_legend_handles_labels()
    if not handles:
        return
    if len(handles) > MAX_LEGEND_ENTRIES:
        ax.annotate(f"{len(handles)} entries: legend omitted, see the table", xy=(1.02, 1.0), xycoords="axes fraction",
                    va="top", fontsize=fontsize)
        return
    ax.legend(handles=handles, title=title, fontsize=fontsize, title_fontsize=fontsize, loc="upper left",
              bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0, frameon=False)


def percent(level: float) -> str:
    """0.95 -> '95%', 0.9375 -> '93.8%'."""
    text = f"{level * 100:.1f}".rstrip("0").rstrip(".")
    return text + "%"


def interval_name(level: float, method: str) -> str:
    """How an interval is named in titles, legends and captions: its real level and its method,
    e.g. '95% batch-means interval', '93.8% order-statistic interval ([min, max])'."""
    if level is None or not math.isfinite(level):
        return "no interval"
    return f"{percent(level)} {method} interval"


def levels_text(pairs) -> str:
    """One phrase for the (level, method) pairs of a figure's intervals: the single name when all
    agree, else each method with its range of levels."""
    by_method: dict[str, list[float]] = {}
    for level, method in pairs:
        if level is not None and math.isfinite(level):
            by_method.setdefault(method, []).append(level)
    if not by_method:
        return "no intervals (fewer than 2 repetitions)"
    parts = []
    for method, levels in by_method.items():
        low, high = min(levels), max(levels)
        span = percent(low) if low == high else f"{percent(low)} to {percent(high)}"
        parts.append(f"{span} {method} interval")
    return "; ".join(parts)
