"""The report's Figures section: per run, the allocator x workload heatmaps when it ran several
workloads, then per workload the relative-cost bars, every repetition, memory overhead and --
with three or more thread counts -- the thread sweep (figure_*.py).  Every caption names what the
whiskers are, with level and method; a figure that cannot be drawn is replaced by 'n/a' and the
reason."""

from __future__ import annotations

import os

from ..figures import figure_heatmap, figure_overhead, figure_relative_cost, figure_repetitions, figure_thread_sweep
from ..figures.figure_data import QUOTIENT, figure_workloads, panels
from .html_parts import escape, figure, file_stem
from ..results.loading import Runs
from ..results.records import BASELINE

RATIO_INTERVAL = (f"{QUOTIENT} ([the reference's high / this low, ...] inverted: the interval the tables give "
                  "speed vs system, the recorded one where the results file has it), whose level is at least the two "
                  "medians' levels summed minus 1 (the lowest drawn is in the figure's title); a lower end of 0 is "
                  "unbounded")
CAPTIONS = {
    "cost": ("Cost relative to the reference allocator, one panel per thread count, cheapest at the top: bars from 1 to the "
             "ratio of the medians of the workload's headline metric (< 1 cheaper); whiskers and the bracket beside each "
             "name: the " + RATIO_INTERVAL + ".  The reference is system (glibc) where it ran, else the most expensive "
             "allocator of the panel."),
    "repetitions": ("Every ok, undisturbed repetition as a point (jittered vertically), the median as a black tick and its "
                    "interval as a grey bar: the interval the results record for the median (level and method in the "
                    "legend), else the distribution-free order-statistic interval of the median with its real level "
                    "([min, max] below 95% with 5 or fewer repetitions).  Grey crosses: disturbed repetitions, left out of "
                    "medians and intervals.  Clouds that overlap are not told apart by this run."),
    "overhead": ("Memory overhead, median over repetitions of (peak RSS − RSS before) / peak live bytes (1 = no overhead), "
                 "one marker per thread count; whiskers: the order-statistic interval of the median (level in the legend).  "
                 "The in-tree reference allocators (bump, eqclass, pool) have a panel and an axis of their own."),
    "sweep": ("Against threads: cost relative to the reference (left; whiskers the " + RATIO_INTERVAL + ") and median memory "
              "overhead (right; whiskers the order-statistic interval of the median)."),
    "cost-heatmap": ("Headline cost of every allocator in every workload, relative to the column's reference allocator: "
                     "ratio of medians and its " + RATIO_INTERVAL + "; colour log2 of the ratio, blue cheaper, red costlier."),
    "overhead-heatmap": ("Memory overhead relative to the column's reference allocator (median overhead_ratio / the "
                         "reference's), the allocator's own median overhead_ratio in parentheses; blue leaner, red fatter."),
}
INTRO = ("Figures are drawn from the ok, undisturbed timing repetitions, per run.  Each is also written beside this page as "
         "PNG and SVG (the SVG link under it).")


def _missing(runs: Runs, run: str, drawn: list[str]) -> list[str]:
    """'n/a' lines for the run's workloads with timing cells but no figure, with the reason."""
    cells = runs.cells[(runs.cells["run"] == run) & (runs.cells["allocator"] != BASELINE)]
    mode = cells["mode"].fillna("timing") if "mode" in cells else None
    timing = cells if mode is None else cells[mode == "timing"]
    out = []
    for workload in dict.fromkeys(timing["workload"]):
        if workload in drawn:
            continue
        g = timing[timing["workload"] == workload]
        ok = g[g["status"] == "ok"]
        reason = ("no ok repetition" if ok.empty else "every ok repetition was disturbed (another task ran on a worker's CPU)"
                  if ok["disturbed"].all() else "no repetition has a value of the workload's headline metric")
        out.append(f"<p>{escape(workload)}: figures n/a: {escape(reason)}.</p>")
    return out


def _workload_figures(workload_panels, run: str, workload: str, out_dir: str) -> list[str]:
    stem = lambda what: os.path.join(out_dir, file_stem(run, workload, what))  # noqa: E731
    parts = [figure(figure_relative_cost.plot_relative_cost(workload_panels, stem("relative-cost")),
                    f"{workload}: {CAPTIONS['cost']}"),
             figure(figure_repetitions.plot_repetitions(workload_panels, stem("repetitions")),
                    f"{workload}: {CAPTIONS['repetitions']}")]
    if any(c.overhead.size for p in workload_panels for c in p.cells):
        parts.append(figure(figure_overhead.plot_overhead(workload_panels, stem("overhead")),
                            f"{workload}: {CAPTIONS['overhead']}"))
    else:
        notes = sorted({c.overhead_note for p in workload_panels for c in p.cells if c.overhead_note})
        parts.append(f"<p>{escape(workload)}: memory overhead figure n/a: {escape('; '.join(notes) or 'no overhead_ratio')}.</p>")
    if figure_thread_sweep.has_sweep(workload_panels):
        parts.append(figure(figure_thread_sweep.plot_thread_sweep(workload_panels, stem("thread-sweep")),
                            f"{workload}: {CAPTIONS['sweep']}"))
    return parts


def _no_sweep_note(by_workload: dict) -> list[str]:
    """One line naming the workloads without a thread sweep and their thread counts."""
    without = [f"{w} ({', '.join(str(p.threads) for p in ps)})" for w, ps in by_workload.items()
               if not figure_thread_sweep.has_sweep(ps)]
    if not without:
        return []
    return [f'<p class="legend">Thread sweeps are drawn from {figure_thread_sweep.MIN_THREAD_COUNTS} thread counts on; '
            f"none for {escape(', '.join(without))}.</p>"]


def figures_section(runs: Runs, out_dir: str) -> list[str]:
    """HTML parts of the Figures section (none when no run has a figure or an n/a line); writes
    the figures into out_dir."""
    parts = []
    names = runs.run_names()
    for run in names:
        workloads = figure_workloads(runs, run)
        by_workload = {w: panels(runs, run, w) for w in workloads}
        run_parts = _missing(runs, run, workloads) + _no_sweep_note(by_workload)
        if len(workloads) > 1:
            every = [p for w in workloads for p in by_workload[w]]
            run_parts += [figure(figure_heatmap.plot_cost_heatmap(every, os.path.join(out_dir, file_stem(run, "cost-heatmap"))),
                                 CAPTIONS["cost-heatmap"]),
                          figure(figure_heatmap.plot_overhead_heatmap(every, os.path.join(out_dir, file_stem(run, "overhead-heatmap"))),
                                 CAPTIONS["overhead-heatmap"])]
        for workload in workloads:
            level = 4 if len(names) > 1 else 3
            run_parts += [f"<h{level}>{escape(workload)}</h{level}>"] + _workload_figures(by_workload[workload], run, workload, out_dir)
        if run_parts:
            parts += ([f"<h3>Run {escape(run)}</h3>"] if len(names) > 1 else []) + run_parts
    if not parts:
        return []
    return ['<h2 id="figures">Figures</h2>', f'<p class="legend">{escape(INTRO)}</p>'] + parts
