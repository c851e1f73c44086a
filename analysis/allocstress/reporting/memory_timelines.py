"""Memory over time: RSS and hugepage coverage per allocator, as small multiples.

Model: every ok timing record (and every thp record of `--thp A,B`: the same cell under another
THP mode, named by its `thp_mode`) carries `hugepages.samples`, parallel lists of readings of
/proc/self/smaps_rollup taken every 50 ms or slower during the measured phase: `t_s` (seconds
since the phase started), `rss_bytes`, `anon_bytes`, `anon_huge_bytes`.  Coverage at a reading is
anon_huge_bytes / anon_bytes (n/a where anon_bytes is 0).  A cell here is (run, workload, threads,
allocator, THP mode); the void baseline is left out, as in the other figures.  Each cell is drawn
from ONE repetition, its representative: among the ok, undisturbed repetitions with at least
MIN_READINGS readings, the one whose peak RSS (the record's peak_rss_bytes, else its largest RSS
reading) is the median -- the lower middle one for an even count, ties by repetition index.

Contract: timelines_section(runs, out_dir, soak_parts) returns the report's HTML parts: [] when the
runs have no ok timing or thp record and soak_parts is empty; else a heading and, per (run,
workload, threads) with a drawable cell, one figure (a panel per allocator, shared axes: RSS in MiB
on the left, coverage 0..1 on the right, a line style per THP mode) written as PNG and SVG into
out_dir, followed by a line naming the cells left out and why; when no cell at all can be drawn,
one line saying why instead of any figure; then soak_parts (the soak cells' figures,
soak_timelines.soak_parts).  Malformed samples never raise: such a record counts as one without
readings."""

from __future__ import annotations

import math
import os

import numpy as np
import pandas as pd
from matplotlib.lines import Line2D

from .html_parts import escape, figure, file_stem
from ..results.loading import Runs, is_disturbed
from ..figures.plots import save  # plots selects the Agg backend before pyplot is imported
from ..results.records import BASELINE, cell_key

import matplotlib.pyplot as plt  # noqa: E402  (after plots)

MIN_READINGS = 2   # a timeline needs two points
MIB = 1024.0 * 1024.0
COLUMNS = 3        # panels per row
RSS_COLOUR, COVERAGE_COLOUR = "tab:blue", "tab:orange"
STYLES = {"-": "solid", "--": "dashed", ":": "dotted", "-.": "dash-dot"}  # one per THP mode: the timing cells' first
HEADING = '<h2 id="memory-timelines">Memory over time (RSS and hugepage coverage)</h2>'
CAPTION = ("{title}: RSS (MiB, left axis, blue) and hugepage coverage (AnonHugePages / Anonymous of "
           "/proc/self/smaps_rollup, 0..1, right axis, orange; gaps where Anonymous is 0) against seconds since the "
           "measured phase started, one panel per allocator (void baseline left out), shared axes; dots are the "
           "readings, every 50 ms or slower.  {modes}Each line is ONE repetition of the cell: among its ok, undisturbed "
           "repetitions with at least " + str(MIN_READINGS) + " readings, the one whose peak RSS (peak_rss_bytes) is the "
           "median (the lower middle one for an even count); its index is in the panel title.")


def samples_frame(record: dict) -> pd.DataFrame:
    """The record's hugepage readings in time order (t_s, rss_bytes, anon_bytes, anon_huge_bytes,
    coverage; coverage NaN where anon_bytes is 0); empty when it has none or they are malformed."""
    block = record.get("hugepages")
    samples = block.get("samples") if isinstance(block, dict) else None
    keys = ("t_s", "rss_bytes", "anon_bytes", "anon_huge_bytes")
    if not isinstance(samples, dict) or not all(isinstance(samples.get(k), list) for k in keys):
        return pd.DataFrame(columns=[*keys, "coverage"])
    if len({len(samples[k]) for k in keys}) != 1:
        return pd.DataFrame(columns=[*keys, "coverage"])
    frame = pd.DataFrame({k: pd.to_numeric(pd.Series(samples[k], dtype=object), errors="coerce") for k in keys},
                         dtype=float).dropna()
    anon = frame["anon_bytes"].to_numpy()
    frame["coverage"] = np.where(anon > 0, frame["anon_huge_bytes"].to_numpy() / np.where(anon > 0, anon, 1), np.nan)
    return frame.sort_values("t_s", kind="stable").reset_index(drop=True)


def peak_rss(record: dict, samples: pd.DataFrame | None = None) -> float:
    """peak_rss_bytes of the record, else its largest RSS reading (samples: its samples_frame, if
    already made), else NaN."""
    peak = record.get("peak_rss_bytes")
    if isinstance(peak, (int, float)) and not isinstance(peak, bool) and math.isfinite(peak):
        return float(peak)
    rss = (samples_frame(record) if samples is None else samples)["rss_bytes"]
    return float(rss.max()) if len(rss) else math.nan


def representative(records: list[dict]) -> dict | None:
    """The record one cell's timeline is drawn from (records: the ok records of the cell): among
    the undisturbed ones with at least MIN_READINGS readings and a peak RSS, the one whose peak RSS
    is the median (lower middle one for an even count; ties by repetition_index); None if none."""
    usable = []
    for r in records:
        samples = None if is_disturbed(r) else samples_frame(r)
        if samples is not None and len(samples) >= MIN_READINGS and math.isfinite(peak := peak_rss(r, samples)):
            rep = r.get("repetition_index")
            usable.append((peak, rep if isinstance(rep, int) else -1, r))
    if not usable:
        return None
    usable.sort(key=lambda u: u[:2])
    return usable[(len(usable) - 1) // 2][2]


def _why_not(records: list[dict]) -> str:
    """Why no record of a cell can be drawn (records: its ok records, none usable)."""
    undisturbed = [r for r in records if not is_disturbed(r)]
    if not undisturbed:
        return "every ok repetition was disturbed"
    unavailable = sorted({str(r["hugepages"]["unavailable"]) for r in undisturbed
                          if isinstance(r.get("hugepages"), dict) and r["hugepages"].get("unavailable")})
    if unavailable:  # the C++ writes "n/a(<reason>)": the reason alone reads better after a colon
        return "no hugepage readings: " + "; ".join(u[4:-1] if u.startswith("n/a(") and u.endswith(")") else u
                                                     for u in unavailable)
    if not any(isinstance(r.get("hugepages"), dict) for r in undisturbed):
        return "no hugepage readings: the records have no hugepages block (written before the sampler existed)"
    return f"fewer than {MIN_READINGS} hugepage readings in every undisturbed repetition"


def _mode(record: dict) -> tuple[int, str]:
    """(0 for timing records, 1 for thp records; the THP mode the record ran under)."""
    thp = (record.get("mode") or "timing") == "thp"
    return int(thp), str(record.get("thp_mode") or "mode not recorded")


def cell_records(runs: Runs) -> dict[tuple, dict[tuple, list[dict]]]:
    """{(run, workload, threads): {(allocator, (0|1, thp_mode)): [ok records]}} of the ok timing and
    thp iteration records but the void baseline, in file order."""
    groups: dict[tuple, dict[tuple, list[dict]]] = {}
    for run, doc in zip(runs.run_names(), runs.documents):
        for e in doc["benchmarks"]:
            if (e.get("run_type") != "iteration" or e.get("status") != "ok" or e.get("allocator") == BASELINE
                    or (e.get("mode") or "timing") not in ("timing", "thp")):
                continue
            key = cell_key(e)  # a figure per (run, workload, threads): its allocators' timing and thp cells
            groups.setdefault((run, key.workload, key.threads), {}).setdefault((key.allocator, _mode(e)), []).append(e)
    return groups


def mode_styles(chosen: dict[str, dict[tuple, dict]]) -> dict[tuple, str]:
    """The line style of each THP mode of a figure (chosen as in plot_timelines): timing cells first."""
    modes = sorted({m for cells in chosen.values() for m in cells})
    return {m: list(STYLES)[i % len(STYLES)] for i, m in enumerate(modes)}


def style_panel(ax, cover, i: int, n: int, columns: int, rss_label: str) -> None:
    """The axes of panel i of n (columns a row) that draws RSS on `ax` (left) and hugepage coverage
    on its twin `cover` (right, 0..1): the coverage scale on the last panel of each row, the RSS
    label on the first."""
    cover.set_ylim(-0.03, 1.03)
    last_in_row = (i % columns == columns - 1) or i == n - 1
    cover.tick_params(axis="y", labelright=last_in_row, colors=COVERAGE_COLOUR, labelsize=8)
    if last_in_row:
        cover.set_ylabel("hugepage coverage", color=COVERAGE_COLOUR, fontsize=8)
    ax.tick_params(axis="y", colors=RSS_COLOUR, labelsize=8)
    ax.tick_params(axis="x", labelsize=8)
    ax.grid(True, alpha=0.3)
    if i % columns == 0:
        ax.set_ylabel(rss_label, color=RSS_COLOUR, fontsize=8)


def label_time_axes(flat: list, n: int, columns: int, label: str) -> None:
    """Hides the grid's unused panels and labels the time axis of the lowest panel of each column."""
    for i, ax in enumerate(flat):
        if i >= n:
            ax.set_visible(False)
        elif i + columns >= n:
            ax.tick_params(axis="x", labelbottom=True)
            ax.set_xlabel(label, fontsize=8)


def plot_timelines(chosen: dict[str, dict[tuple, dict]], title: str, stem: str) -> str:
    """Small multiples of one (run, workload, threads): chosen = {allocator: {mode: record}} (mode as
    in cell_records), a panel per allocator in the given order.  Writes PNG and SVG; returns the PNG."""
    style = mode_styles(chosen)
    modes = list(style)
    n = len(chosen)
    columns = min(n, COLUMNS)
    rows = math.ceil(n / columns)
    fig, axes = plt.subplots(rows, columns, figsize=(3.4 * columns + 0.8, 2.5 * rows + 0.9), squeeze=False,
                             sharex=True, sharey=True)
    flat = list(axes.flat)
    for i, (ax, (allocator, cells)) in enumerate(zip(flat, chosen.items())):
        cover = ax.twinx()
        for mode in modes:
            if mode not in cells:
                continue
            s = samples_frame(cells[mode])
            ax.plot(s["t_s"], s["rss_bytes"] / MIB, style[mode], color=RSS_COLOUR, linewidth=1.2, marker=".", markersize=3)
            cover.plot(s["t_s"], s["coverage"], style[mode], color=COVERAGE_COLOUR, linewidth=1.2, marker=".", markersize=3)
        reps = ", ".join(f"rep {cells[m].get('repetition_index', '?')}" + (f" {m[1]}" if len(modes) > 1 else "")
                         for m in modes if m in cells)  # which repetition each line is, per mode when several
        ax.set_title(f"{allocator} ({reps})", fontsize=9)
        style_panel(ax, cover, i, n, columns, "RSS (MiB)")
    label_time_axes(flat, n, columns, "seconds since the measured phase started")
    flat[0].set_ylim(bottom=0)
    handles = [Line2D([], [], color=RSS_COLOUR, label="RSS (left)"), Line2D([], [], color=COVERAGE_COLOUR, label="coverage (right)")]
    handles += [Line2D([], [], color="#555555", linestyle=style[m], label=f"THP {m[1]}" + (" (timing cells)" if not m[0] else ""))
                for m in modes]
    fig.suptitle(title, fontsize=10)
    fig.legend(handles=handles, loc="lower center", ncol=len(handles), fontsize=8, frameon=False, bbox_to_anchor=(0.5, 0.0))
    fig.tight_layout(rect=(0, 0.3 / (2.5 * rows + 0.9), 1, 1))  # room for the legend row at the bottom
    return save(fig, stem)


def timelines_section(runs: Runs, out_dir: str, soak_parts: list[str] = ()) -> list[str]:
    """The report's HTML parts (module docstring); writes the figures into out_dir."""
    groups = cell_records(runs)
    if not groups:
        return [HEADING, *soak_parts] if soak_parts else []
    several_runs = len(runs.documents) > 1
    parts, reasons = [], []
    for (run, workload, threads), cells in groups.items():
        chosen: dict[str, dict[tuple, dict]] = {}
        left_out: dict[str, list[str]] = {}  # reason -> the cells left out for it
        for (allocator, mode), records in sorted(cells.items(), key=lambda kv: kv[0]):  # by allocator, timing first
            pick = representative(records)
            if pick is None:
                left_out.setdefault(_why_not(records), []).append(f"{allocator} (THP {mode[1]})")
            else:
                chosen.setdefault(allocator, {})[mode] = pick
        reasons += left_out
        name = f"{workload}, {threads} thread(s)" + (f", run {run}" if several_runs else "")
        if not chosen:
            why = "; ".join(left_out) if len(left_out) == 1 else "; ".join(f"{w} ({', '.join(c)})" for w, c in left_out.items())
            parts.append(f'<p class="legend">{escape(name)}: not drawn: {escape(why)}.</p>')
            continue
        styles = mode_styles(chosen)
        mode_text = ("One line style per THP mode: " + ", ".join(f"{STYLES[st]} {m[1]} ({'thp' if m[0] else 'timing'} cells)"
                                                                for m, st in styles.items()) + ".  ") if len(styles) > 1 else ""
        stem = os.path.join(out_dir, file_stem(run, workload, f"{threads}t", "memory-timelines"))
        parts.append(figure(plot_timelines(chosen, name, stem), CAPTION.format(title=name, modes=mode_text)))
        if left_out:
            parts.append('<p class="legend">Not drawn: ' + escape("; ".join(f"{', '.join(c)}: {w}" for w, c in left_out.items()))
                         + ".</p>")
    if not any(p.startswith("<figure") for p in parts):  # nothing drawable anywhere: one line, no figure
        return [HEADING, f"<p>Memory over time n/a: {escape('; '.join(dict.fromkeys(reasons)))}.</p>", *soak_parts]
    return [HEADING, *parts, *soak_parts]
