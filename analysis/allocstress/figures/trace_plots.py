"""Figures of a trace (as in the CERN MemProf report) and of the replays' allocstats series.

Trace figures: block sizes in log2 bins, ops per thread, live requested bytes over the trace,
lifetime against allocation time (a reproducible random subsample of the blocks) and the
lifetime x size 2D histogram.  Replay figures: memory over the trace (used vs RSS vs maxmem, one
colour per allocator) above the mean cycles per op; a heap map (time x compacted address, colour =
live share of each bin) above its fragmentation curve.  Every function writes `stem`.png and
`stem`.svg (point clouds rasterised inside the SVG to keep it small) and returns the PNG path."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.colors import LogNorm

from ..tracing import traces
from ..tracing.heap_maps import HeapMap
from .plots import MAX_LEGEND_ENTRIES, save, legend_outside  # plots selects the Agg backend before pyplot is imported
from ..results.records import BASELINE

import matplotlib.pyplot as plt  # noqa: E402  (after plots)

MAX_SCATTER_POINTS = 10_000  # blocks drawn in the lifetime scatter (subsampled beyond)
MAX_CURVE_POINTS = 4_000     # chunks of the live-bytes curve (each drawn as its min..max)
_UNITS = ("B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB")


def format_bytes(n: float) -> str:
    """1536 -> '1.5 KiB'; exact below 1 KiB."""
    n = float(n)
    for unit in _UNITS:
        if abs(n) < 1024 or unit == _UNITS[-1]:
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    raise AssertionError("unreachable")


def _short(n: int) -> str:
    """Compact power-of-two labels for axis ticks: 1024 -> '1K', 2**20 -> '1M'."""
    for shift, suffix in ((60, "E"), (50, "P"), (40, "T"), (30, "G"), (20, "M"), (10, "K")):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift}{suffix}"
    return str(n)


def bin_label(k: int) -> str:
    """Axis label of log2 bin k (traces.log2_bin_edges): its lower edge ('0', '1', '2', '4', ..., '1K')."""
    return _short(traces.log2_bin_edges(int(k))[0])


BIN_AXIS = "log2 bins [2^(k-1), 2^k), labelled by their lower edge"


def plot_size_histogram(histogram: pd.DataFrame, title: str, stem: str) -> str:
    """Bars of traces.log2_histogram(block sizes), counts on a log axis."""
    fig, ax = plt.subplots(figsize=(7.5, 4.2))
    ax.bar(range(len(histogram)), histogram["count"], color="#4477aa", log=True)
    ax.set_ylim(bottom=0.7)  # bars start below 1 block: a log axis must not start at the smallest bar
    ax.set_xticks(range(len(histogram)), [bin_label(k) for k in histogram["bin"]], rotation=60, ha="right", fontsize=7)
    ax.set_xlabel(f"bytes requested ({BIN_AXIS})")
    ax.set_ylabel("blocks")
    ax.set_title(title)
    ax.grid(True, axis="y", alpha=0.3)
    return save(fig, stem)


def plot_thread_ops(counts: pd.DataFrame, title: str, stem: str) -> str:
    """Stacked bars of traces.thread_op_counts: allocation, free and realloc ops per thread."""
    fig, ax = plt.subplots(figsize=(7.5, 4.2))
    x = np.arange(len(counts))
    bottom = np.zeros(len(counts))
    for column, colour in zip(traces.CLASS_COLUMNS, ("#4477aa", "#ee6677", "#228833")):
        values = counts[column].to_numpy(dtype=float)
        if values.any():
            ax.bar(x, values, bottom=bottom, label=column, color=colour)
            bottom += values
    ticks = x if len(x) <= 32 else x[:: int(np.ceil(len(x) / 32))]
    ax.set_xticks(ticks, [str(counts.index[i]) for i in ticks], fontsize=7)
    ax.set_xlabel("thread (index in the trace)")
    ax.set_ylabel("events")
    ax.set_title(title)
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=3)
    return save(fig, stem)


def chunk_envelope(values: np.ndarray, max_points: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(first index, min, max) of consecutive chunks of `values`, at most max_points chunks: a
    curve of millions of points drawn without hiding its peaks."""
    n = len(values)
    step = max(1, int(np.ceil(n / max_points)))
    starts = np.arange(0, n, step)
    return starts, np.minimum.reduceat(values, starts), np.maximum.reduceat(values, starts)


def plot_live_bytes(lifetimes: traces.Lifetimes, title: str, stem: str, max_points: int = MAX_CURVE_POINTS) -> str:
    """Live requested bytes after each event (traces.Lifetimes.live_bytes) with its peak marked."""
    fig, ax = plt.subplots(figsize=(7.5, 4.2))
    live = lifetimes.live_bytes
    if len(live):
        x, low, high = chunk_envelope(live, max_points)
        mib = 1024.0 * 1024.0
        ax.fill_between(x, low / mib, high / mib, step="post", color="#4477aa", alpha=0.35, linewidth=0,
                        rasterized=True)
        ax.step(x, high / mib, where="post", color="#4477aa", linewidth=0.9, label="live requested bytes")
        peak = int(np.argmax(live))
        ax.plot([peak], [live[peak] / mib], "o", color="#cc3311", label=f"peak {format_bytes(live[peak])} at event {peak}")
        legend_outside(ax)
    ax.set_xlabel("event index (merged order)")
    ax.set_ylabel("MiB")
    ax.set_title(title)
    ax.grid(True, alpha=0.3)
    return save(fig, stem)


def plot_lifetime_scatter(lifetimes: traces.Lifetimes, title: str, stem: str, clock: str = "allocations",
                          max_points: int = MAX_SCATTER_POINTS, seed: int = 0) -> str:
    """Lifetime against allocation time, one dot per block of a reproducible subsample
    (traces.subsample); censored blocks (live at the end, lost) in another colour, as lower bounds.
    clock "allocations": both axes on the op-count clock (y on a symlog axis, so 0 shows);
    clock "seconds": seconds since the first event (needs the TSC rate; zero lifetimes not drawn)."""
    if clock not in ("allocations", "seconds"):
        raise ValueError(f"clock must be 'allocations' or 'seconds', not {clock!r}")
    if clock == "seconds" and len(lifetimes) and np.isnan(lifetimes.seconds).all():
        raise ValueError("clock 'seconds' needs a trace with a known TSC rate")
    pick = traces.subsample(len(lifetimes), max_points, seed)
    if clock == "allocations":
        x, y = lifetimes.start_clock[pick], lifetimes.allocations_between[pick]
    else:
        x, y = lifetimes.start_seconds[pick], lifetimes.seconds[pick]
    complete = lifetimes.complete[pick]
    fig, ax = plt.subplots(figsize=(7.5, 4.5))
    for mask, colour, label in ((complete, "#4477aa", "freed or reallocated"),
                                (~complete, "#ee7733", "censored (live at end or lost): lower bound")):
        if mask.any():
            ax.scatter(x[mask], y[mask], s=3, alpha=0.5, color=colour, label=label, linewidths=0, rasterized=True)
    if clock == "allocations":
        ax.set_yscale("symlog", linthresh=1)
        ax.set_xlabel("allocation time (blocks allocated before)")
        ax.set_ylabel("lifetime (blocks allocated in between)")
    else:
        ax.set_yscale("log")
        ax.set_xlabel("allocation time (s since the first event)")
        ax.set_ylabel("lifetime (s)")
    shown = f"{len(pick)} of {len(lifetimes)} blocks" if len(pick) < len(lifetimes) else f"{len(pick)} blocks"
    ax.set_title(f"{title} ({shown})")
    ax.grid(True, alpha=0.3)
    if len(pick):
        legend_outside(ax)
    return save(fig, stem)


def plot_lifetime_size(histogram: traces.Histogram2D, title: str, stem: str) -> str:
    """traces.lifetime_size_histogram as a heat map (log colour scale, empty cells blank)."""
    fig, ax = plt.subplots(figsize=(7.5, 5))
    counts = histogram.counts
    if counts.size:
        shown = np.ma.masked_equal(counts, 0)
        mesh = ax.pcolormesh(np.arange(counts.shape[1] + 1), np.arange(counts.shape[0] + 1), shown,
                             norm=LogNorm(vmin=1, vmax=max(1, int(counts.max()))), cmap="viridis", rasterized=True)
        fig.colorbar(mesh, ax=ax, label="blocks")
        ax.set_xticks(np.arange(counts.shape[1]) + 0.5, [bin_label(k) for k in histogram.size_bins], rotation=60, ha="right",
                      fontsize=7)
        ax.set_yticks(np.arange(counts.shape[0]) + 0.5, [bin_label(k) for k in histogram.lifetime_bins], fontsize=7)
    ax.set_xlabel(f"bytes requested ({BIN_AXIS})")
    ax.set_ylabel("lifetime: blocks allocated in between (log2 bins)", fontsize=9)
    note = f"; {histogram.left_out} censored blocks left out" if histogram.left_out else ""
    ax.set_title(f"{title}{note}", fontsize=10)
    return save(fig, stem)


def plot_allocstats(group: traces.AllocstatsGroup, title: str, stem: str) -> str:
    """Memory over the trace from replay records' allocstats: used (the theoretical heap, the same
    for every allocator: drawn once unless they differ), RSS (solid) and maxmem (dashed) per
    allocator; below, the mean cycles per op of the sampling thread.  The void baseline is left out."""
    fig, (mem, cyc) = plt.subplots(2, 1, figsize=(7.5, 6.5), sharex=True, gridspec_kw={"height_ratios": [2, 1]})
    mib = 1024.0 * 1024.0
    first_used = None
    drawn = 0
    for allocator, frame in group.series.items():
        if allocator == BASELINE:
            continue
        x = frame["op_index"]
        if first_used is None or not np.array_equal(frame["used_bytes"].to_numpy(), first_used["used_bytes"].to_numpy()):
            label = "used (live requested)" if first_used is None else f"used ({allocator})"
            mem.plot(x, frame["used_bytes"] / mib, color="black", linewidth=1.2, label=label)
            first_used = first_used if first_used is not None else frame
        line, = mem.plot(x, frame["rss_bytes"] / mib, linewidth=1, label=f"{allocator} RSS")
        mem.plot(x, frame["maxmem_bytes"] / mib, linewidth=1, linestyle="--", color=line.get_color(), label=f"{allocator} maxmem")
        cyc.plot(x, frame["op_cycles"], linewidth=1, color=line.get_color(), label=allocator)
        drawn += 1
    mem.set_ylabel("MiB")
    mem.set_title(title)
    mem.grid(True, alpha=0.3)
    cyc.set_ylabel("cycles per op (mean of last K)")
    cyc.set_xlabel("op index (recorded order)")
    cyc.grid(True, alpha=0.3)
    if 0 < 2 * drawn + 1 <= MAX_LEGEND_ENTRIES:
        legend_outside(mem, fontsize=7)
    elif drawn:
        mem.text(0.99, 0.99, f"{drawn} allocators: legend omitted", transform=mem.transAxes, ha="right", va="top", fontsize=8)
    return save(fig, stem)


MAX_SPAN_LABELS = 8  # address labels on a heap map's y axis (the largest spans)


def plot_heap_map(heap_map: HeapMap, title: str, stem: str) -> str:
    """A replay's heap map (heap_maps.HeapMap): time (frames) on x, the compacted address axis on
    y (touched 64 KiB chunks in address order; thin lines where a gap in the address space was
    left out, the largest spans labelled with their address), colour = the share of each bin's
    bytes live, bins with no live byte left white; below, fragmentation (1 - live / spanned pages)
    and live vs spanned MiB per frame."""
    if heap_map.unavailable is not None:
        raise ValueError(f"the heap map is unavailable: {heap_map.unavailable}")
    fig, (img, frag) = plt.subplots(2, 1, figsize=(7.5, 7), sharex=True, gridspec_kw={"height_ratios": [3, 1]})
    frames = heap_map.frames
    if heap_map.bins:
        shown = np.ma.masked_equal(heap_map.live_fraction.T, 0)
        cmap = plt.get_cmap("viridis").copy()
        cmap.set_bad("white")
        image = img.imshow(shown, origin="lower", aspect="auto", interpolation="nearest", cmap=cmap, vmin=0, vmax=1,
                           extent=(-0.5, frames - 0.5, 0, heap_map.bins))
        # The colour bar inside the figure's right margin, so that both panels keep the same x extent.
        fig.colorbar(image, cax=img.inset_axes((1.02, 0, 0.025, 1)), label="live share of the bin's bytes")
        spans = heap_map.spans or []
        for address, size, first_chunk in spans[1:]:
            img.axhline(heap_map.bin_of_chunk(first_chunk), color="#cc3311", linewidth=0.4, alpha=0.6)
        labelled = []  # the largest spans, none closer than 4% of the axis to a larger one (labels would overlap)
        for span in sorted(spans, key=lambda s: -s[1]):
            if len(labelled) < MAX_SPAN_LABELS and all(abs(span[2] - other[2]) / heap_map.chunks_per_bin >= 0.04 * heap_map.bins
                                                       for other in labelled):
                labelled.append(span)
        labelled.sort(key=lambda s: s[2])
        img.set_yticks([heap_map.bin_of_chunk(c) for _, _, c in labelled],
                       [f"{a:#x} ({format_bytes(n)})" for a, n, _ in labelled], fontsize=6)
    else:
        img.text(0.5, 0.5, "no block was live at any frame", transform=img.transAxes, ha="center", va="center")
    per_bin = format_bytes(heap_map.chunks_per_bin * heap_map.chunk_bytes)
    img.set_ylabel(f"address (compacted: {heap_map.chunks} touched chunks, {per_bin} per bin)", fontsize=8)
    img.set_title(title, fontsize=10)
    x = np.arange(frames)
    frag.plot(x, heap_map.fragmentation * 100, color="#cc3311", marker=".", linewidth=1, label="fragmentation")
    frag.set_ylabel("fragmentation %", fontsize=8)
    frag.set_ylim(0, 100)
    frag.grid(True, alpha=0.3)
    mib = frag.twinx()
    mib.plot(x, heap_map.live_bytes / 2**20, color="#4477aa", linewidth=1, label="live")
    mib.plot(x, heap_map.spanned_bytes / 2**20, color="#4477aa", linewidth=1, linestyle="--", label="spanned pages")
    mib.set_ylabel("MiB", fontsize=8)
    mib.set_ylim(bottom=0)
    lines = frag.get_lines() + mib.get_lines()
    frag.legend(lines, [line.get_label() for line in lines], fontsize=7, loc="upper left", ncol=3)
    ticks = x if frames <= 10 else np.unique(np.linspace(0, frames - 1, 10).round().astype(int))
    frag.set_xticks(ticks, [f"{int(heap_map.op_index[k]):,}" for k in ticks], rotation=30, ha="right", fontsize=7)
    frag.set_xlabel("frame: after op (recorded order)")
    return save(fig, stem)
