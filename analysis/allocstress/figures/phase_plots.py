"""The memory-phase figure: for one (run, phase workload, threads), RSS growth (top) and all
threads' live requested bytes (bottom) over elapsed time, one colour per allocator (its first ok
repetition), with the untimed pauses after a drop shaded in the allocator's colour and their RSS
readings dotted -- so a reader sees which allocators give memory back after the live heap drops,
and how fast.  Written as PNG and SVG like plots.py; returns the PNG path."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.patches import Patch

from .plots import save, legend_outside  # plots selects the Agg backend before pyplot is imported
from ..results.records import BASELINE
from ..tabulation.phase_series import PhaseGroup

import matplotlib.pyplot as plt  # noqa: E402  (after plots)

PAUSE = "pause"  # the stage of the rows taken in an untimed pause after a drop
MIB = 1024.0 * 1024.0


def stage_spans(frame: pd.DataFrame, stage: str = PAUSE) -> list[tuple[float, float]]:
    """(first, last) elapsed_ms of each run of consecutive rows in `stage` (frame in time order)."""
    inside = (frame["stage"] == stage).to_numpy()
    if not inside.any():
        return []
    edges = np.diff(np.concatenate([[0], inside.astype(int), [0]]))
    starts, ends = np.flatnonzero(edges == 1), np.flatnonzero(edges == -1) - 1
    ms = frame["elapsed_ms"].to_numpy()
    return [(float(ms[a]), float(ms[b])) for a, b in zip(starts, ends)]


def plot_phase(group: PhaseGroup, title: str, stem: str) -> str:
    """RSS growth and live requested bytes against elapsed ms for every allocator of `group` but
    the void baseline.  RSS is drawn where the series has a reading (worker 0's rows and the
    pause rows); live bytes at every row, summed over threads (phase_series.total_live_bytes)."""
    fig, (rss, live) = plt.subplots(2, 1, figsize=(7.5, 6.5), sharex=True, gridspec_kw={"height_ratios": [3, 2]})
    paused = False
    for allocator, frame in group.series.items():
        if allocator == BASELINE:
            continue
        read = frame[frame["rss_bytes"].notna()]
        line, = rss.plot(read["elapsed_ms"], read["rss_bytes"] / MIB, linewidth=1.1, label=allocator)
        colour = line.get_color()
        live.plot(frame["elapsed_ms"], frame["total_live_bytes"] / MIB, linewidth=1.1, color=colour)
        pauses = read[read["stage"] == PAUSE]
        rss.plot(pauses["elapsed_ms"], pauses["rss_bytes"] / MIB, ".", markersize=3, color=colour)
        for first, last in stage_spans(frame):
            for ax in (rss, live):
                ax.axvspan(first, last, color=colour, alpha=0.12, linewidth=0)
            paused = True
    rss.set_ylabel("RSS growth (MiB)")
    rss.set_title(title)
    live.set_ylabel("live requested (MiB)")
    live.set_xlabel("elapsed ms since the first worker began (pauses included)")
    for ax in (rss, live):
        ax.grid(True, alpha=0.3)
    handles, _ = rss.get_legend_handles_labels()
    if paused:
        handles.append(Patch(color="grey", alpha=0.25, label="pause after a drop\n(untimed; dots: RSS readings)"))
    legend_outside(rss, handles=handles, fontsize=7)  # right of the axes, never over the curves
    return save(fig, stem)
