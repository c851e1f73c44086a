"""Memory over a soak: per-bin RSS growth and hugepage coverage per allocator, as small multiples.

Model: a soak record (mode soak, cells/modes/soak.hpp; one process per (workload, allocator, threads),
its measured phase lasting the --soak duration) carries `soak.bins`: per complete bin of `bin_s`
seconds, the medians of its readings of RSS growth (RSS minus RSS before the measured phase,
bytes) and hugepage coverage (AnonHugePages / Anonymous, null where no reading had anonymous
memory); and `soak.drift`: their Theil-Sen slope per hour over the bins from the second on (the
first is the warm-up) with Sen's distribution-free interval (null bounds: fewer than 5 bins
fitted).  Bins of one process may have correlated noise: the interval is optimistic.

Contract: soak_parts(runs, out_dir) returns HTML parts without a heading (the report puts them
under memory_timelines' "Memory over time"): [] when the runs have no ok soak record (void aside);
else, per (run, workload, threads), one figure -- a panel per allocator, shared axes, the RSS
growth in MiB (left) and the coverage 0..1 (right) at each bin's middle, the warm-up bin hollow,
the RSS drift per hour with its interval in the panel's title -- written as PNG and SVG into
out_dir, then a line naming the records without bins and why (one line instead of the figure
when none has bins).  Malformed soak blocks never raise: such a record counts as one without bins."""

from __future__ import annotations

import math
import os

import pandas as pd

from .html_parts import escape, figure, file_stem
from ..results.loading import Runs
from .memory_timelines import COLUMNS, COVERAGE_COLOUR, MIB, RSS_COLOUR, label_time_axes, style_panel
from ..figures.plots import save  # plots selects the Agg backend before pyplot is imported
from ..results.records import BASELINE, cell_key

import matplotlib.pyplot as plt  # noqa: E402  (after plots)

CAPTION = ("{title}: a soak of {duration} (--soak {spec}), one process per panel (void baseline left out), shared axes: per "
           "bin the median RSS growth (RSS minus RSS before the measured phase, MiB, left axis, blue) and hugepage coverage "
           "(AnonHugePages / Anonymous, 0..1, right axis, orange) at the bin's middle; the first bin (hollow) is the warm-up, "
           "left out of the drift.  Panel titles: the RSS drift per hour, the Theil-Sen slope over the other bins with Sen's "
           "distribution-free interval (n/a: fewer than 5 bins fitted); consecutive bins of one process may be correlated, so "
           "the interval is optimistic.")


def _number(v) -> float:
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) else math.nan


def soak_block(record: dict) -> dict:
    """The record's soak block, {} when it has none."""
    block = record.get("soak")
    return block if isinstance(block, dict) else {}


def soak_bins(record: dict) -> pd.DataFrame:
    """The record's complete bins in time order: mid_s (the bin's middle, seconds since the measured
    phase started), rss_growth_bytes, coverage (NaN where null); empty when it has none or the
    block is malformed."""
    block = soak_block(record)
    bins, width = block.get("bins"), _number(block.get("bin_s"))
    columns = ["mid_s", "rss_growth_bytes", "coverage"]
    if not isinstance(bins, list) or not math.isfinite(width) or not all(isinstance(b, dict) for b in bins):
        return pd.DataFrame(columns=columns, dtype=float)
    frame = pd.DataFrame({"mid_s": [_number(b.get("start_s")) + width / 2 for b in bins],
                          "rss_growth_bytes": [_number(b.get("rss_growth_bytes")) for b in bins],
                          "coverage": [_number(b.get("coverage")) for b in bins]}, columns=columns, dtype=float)
    return frame[frame["mid_s"].notna()].sort_values("mid_s", kind="stable").reset_index(drop=True)


def drift_text(record: dict) -> str:
    """The RSS drift per hour in MiB with Sen's interval ("+60.0 [55.0, 65.0] MiB/h"), or why it is n/a."""
    drift = soak_block(record).get("drift")
    trend = drift.get("rss_growth_bytes") if isinstance(drift, dict) else None
    values = [_number(trend.get(k)) / MIB for k in ("per_hour", "low", "high")] if isinstance(trend, dict) else [math.nan] * 3
    if all(math.isfinite(v) for v in values):
        return "{:+.1f} [{:.1f}, {:.1f}] MiB/h".format(*values)
    fitted = drift.get("fitted_bins") if isinstance(drift, dict) else None
    return f"drift n/a ({fitted} bins fitted)" if isinstance(fitted, int) else "drift n/a"


def soak_cells(runs: Runs) -> dict[tuple, dict[str, dict]]:
    """{(run, workload, threads): {allocator: record}} of the ok soak iteration records but the void
    baseline, in file order (the first record of an allocator where a merged file has several)."""
    groups: dict[tuple, dict[str, dict]] = {}
    for run, doc in zip(runs.run_names(), runs.documents):
        for e in doc["benchmarks"]:
            if (e.get("run_type") == "iteration" and e.get("mode") == "soak" and e.get("status") == "ok"
                    and e.get("allocator") != BASELINE):
                key = cell_key(e)  # a figure per (run, workload, threads): its allocators' soak cells
                groups.setdefault((run, key.workload, key.threads), {}).setdefault(key.allocator, e)
    return groups


def _time_axis(seconds: float) -> tuple[float, str]:
    """(divisor, unit) of a time axis reaching `seconds`: seconds, minutes or hours."""
    return (3600.0, "hours") if seconds > 3 * 3600 else (60.0, "minutes") if seconds > 180 else (1.0, "seconds")


def plot_soak(chosen: dict[str, dict], title: str, stem: str) -> str:
    """Small multiples of one (run, workload, threads): chosen = {allocator: soak record}, a panel per
    allocator in the given order, each on its own RSS scale (one allocator's heap can be ten times
    another's and would flatten every other curve; the drift is in each title).  Writes PNG and
    SVG; returns the PNG."""
    n = len(chosen)
    columns = min(n, COLUMNS)
    rows = math.ceil(n / columns)
    frames = {a: soak_bins(r) for a, r in chosen.items()}
    divisor, unit = _time_axis(max(float(f["mid_s"].max()) for f in frames.values()))
    fig, axes = plt.subplots(rows, columns, figsize=(3.4 * columns + 0.8, 2.6 * rows + 0.6), squeeze=False, sharex=True, sharey=False)
    flat = list(axes.flat)
    for i, (ax, (allocator, bins)) in enumerate(zip(flat, frames.items())):
        cover = ax.twinx()
        t = bins["mid_s"] / divisor
        ax.plot(t, bins["rss_growth_bytes"] / MIB, "-", color=RSS_COLOUR, linewidth=1.2)
        cover.plot(t, bins["coverage"], "-", color=COVERAGE_COLOUR, linewidth=1.2)
        for axis, column, scale, colour in ((ax, "rss_growth_bytes", MIB, RSS_COLOUR), (cover, "coverage", 1.0, COVERAGE_COLOUR)):
            axis.scatter(t.iloc[1:], bins[column].iloc[1:] / scale, s=9, color=colour)
            axis.scatter(t.iloc[:1], bins[column].iloc[:1] / scale, s=14, facecolors="none", edgecolors=colour)  # the warm-up
        ax.set_title(f"{allocator}\n{drift_text(chosen[allocator])}", fontsize=8)
        style_panel(ax, cover, i, n, columns, "RSS growth (MiB)")
    label_time_axes(flat, n, columns, f"{unit} since the measured phase started")
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    return save(fig, stem)


def _why_not(record: dict) -> str:
    """Why a soak record has no bins to draw."""
    block = soak_block(record)
    if not block:
        return "no soak block"
    if isinstance(block.get("unavailable"), str) and block["unavailable"]:
        return "no timeline: " + block["unavailable"]
    return "no complete bin"


def soak_parts(runs: Runs, out_dir: str) -> list[str]:
    """The report's HTML parts for the soak records (module docstring); writes the figures into out_dir."""
    several_runs = len(runs.documents) > 1
    parts = []
    for (run, workload, threads), records in soak_cells(runs).items():
        chosen = {a: r for a, r in sorted(records.items()) if not soak_bins(r).empty}
        left_out = [f"{a}: {_why_not(r)}" for a, r in sorted(records.items()) if a not in chosen]
        name = f"{workload}, {threads} thread(s), soak" + (f", run {run}" if several_runs else "")
        if chosen:
            block = soak_block(next(iter(chosen.values())))
            duration = _number(block.get("duration_s"))
            divisor, unit = _time_axis(duration if math.isfinite(duration) else 0.0)
            stem = os.path.join(out_dir, file_stem(run, workload, f"{threads}t", "soak"))
            caption = CAPTION.format(title=name, duration=f"{duration / divisor:g} {unit}", spec=block.get("spec", "?"))
            parts.append(figure(plot_soak(chosen, name, stem), caption))
        if left_out:
            parts.append(f'<p class="legend">{escape(name)}: not drawn: {escape("; ".join(left_out))}.</p>')
    return parts
