"""The study's two figures, per run and workload: net cycles per malloc/free pair against threads
(one line per allocator, its 95% CI as a band) and memory overhead against threads.  Each is
written as PNG and SVG; the functions return the PNG path.

Plots of latency distributions, RSS over time, cache-set histograms and syscall counts need
fields that profiling and placement runs will add to the records; they are not drawn yet."""

from __future__ import annotations

import os

import matplotlib

matplotlib.use("Agg")  # files only: no display needed
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

from .tables import BASELINE  # noqa: E402


MAX_LEGEND_ENTRIES = 16  # beyond this a legend hides the plot; the table names every line


def _save(fig, stem: str) -> str:
    fig.savefig(stem + ".png", dpi=130, bbox_inches="tight")
    fig.savefig(stem + ".svg", bbox_inches="tight")
    plt.close(fig)
    return stem + ".png"


def _lines(table: pd.DataFrame, value: str, low: str | None, high: str | None, ylabel: str, title: str, stem: str) -> str:
    fig, ax = plt.subplots(figsize=(7.5, 4.5))
    for allocator, g in table.groupby("allocator", sort=False):
        if allocator == BASELINE:
            continue
        g = g.sort_values("threads")
        line, = ax.plot(g["threads"], g[value], marker="o", label=allocator)
        if low and high and g[low].notna().all():
            ax.fill_between(g["threads"], g[low], g[high], color=line.get_color(), alpha=0.18, linewidth=0)
    ax.set_xlabel("threads")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.set_xticks(sorted(table["threads"].unique()))
    ax.grid(True, alpha=0.3)
    if len(ax.get_lines()) <= MAX_LEGEND_ENTRIES:
        ax.legend(fontsize=8, ncol=2)
    else:
        ax.text(0.99, 0.99, f"{len(ax.get_lines())} allocators: legend omitted, see the table", transform=ax.transAxes,
                ha="right", va="top", fontsize=8)
    return _save(fig, stem)


def plot_net_cycles(table: pd.DataFrame, run: str, workload: str, out_dir: str) -> str:
    rows = table[(table["run"] == run) & (table["workload"] == workload)]
    stem = os.path.join(out_dir, f"{run}-{workload}-net-cycles")
    return _lines(rows, "net_cycles_per_pair", "net_cycles_ci_low", "net_cycles_ci_high",
                  "net TSC cycles per malloc/free pair", f"{workload}: allocator cost (median, 95% CI)", stem)


def plot_overhead(table: pd.DataFrame, run: str, workload: str, out_dir: str) -> str:
    rows = table[(table["run"] == run) & (table["workload"] == workload)]
    stem = os.path.join(out_dir, f"{run}-{workload}-overhead")
    return _lines(rows, "overhead_ratio", None, None, "(peak RSS - RSS before) / peak live bytes",
                  f"{workload}: memory overhead (median)", stem)
