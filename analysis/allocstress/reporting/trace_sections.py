"""The report's trace sections: per replay group, memory over the trace (the allocstats series) and
the heap maps of `replay --heap-map`; per trace given with --trace, its summary, sizes, threads,
live bytes and lifetimes.  Contract: HTML parts (lists of strings) for report.py's page; the
figures are written into out_dir by trace_plots.py."""

from __future__ import annotations

import os

import numpy as np

from ..figures import trace_plots
from ..tabulation import tables
from ..tracing import traces
from .html_parts import escape as _e, figure as _figure, file_stem as _file_stem, html_table as _html_table


ALLOCSTATS_CAPTION = ("Memory over the trace, replayed: used = live requested bytes in recorded order (the theoretical "
                      "heap); RSS = RSS growth since the start of the measured phase (solid); maxmem = the largest RSS "
                      "so far (dashed); below, mean TSC cycles per op over the last K ops of the sampling thread.  "
                      "First ok repetition of each allocator; sampled every {every} ops.")


HEAP_MAP_CAPTION = ("Heap map of {allocator}: where the blocks live at each of {frames} evenly spaced points of the trace "
                    "(recorded order) lay in this replay's address space.  Address axis compacted: only the 64 KiB chunks "
                    "some block touched, in address order ({chunks} chunks, {spans} run(s) of adjacent chunks; thin red "
                    "lines where a gap of the address space was left out).  Colour = share of each bin's bytes live; white "
                    "= nothing live.  Below: fragmentation = 1 - live bytes / bytes of the 4 KiB pages the live blocks "
                    "touch, with live and spanned MiB.  Sizes are the requested ones.  First ok repetition.")


def _heap_map_parts(g: traces.AllocstatsGroup, number: int, out_dir: str) -> list[str]:
    """A heap-map figure per allocator of the group that has one; a line for those that could not."""
    parts = []
    for allocator, hm in g.heap_maps.items():
        if hm.unavailable is not None:
            if allocator != tables.BASELINE:
                parts.append(f'<p class="legend">Heap map of {_e(allocator)}: n/a ({_e(hm.unavailable)}).</p>')
            continue
        title = f"{os.path.basename(g.trace)}: heap map of {allocator}"
        stem = os.path.join(out_dir, _file_stem(g.run, f"replay{number}", os.path.basename(g.trace), f"{g.threads}t", allocator, "heap-map"))
        caption = HEAP_MAP_CAPTION.format(allocator=allocator, frames=hm.frames, chunks=hm.chunks, spans=hm.spans_total)
        if hm.overlapped_frames:
            caption += (f"  In {hm.overlapped_frames} frame(s) blocks live together in the recorded order shared addresses in "
                        "this replay (its threads interleaved otherwise): those bytes are counted once.")
        parts.append(_figure(trace_plots.plot_heap_map(hm, title, stem), caption))
    if parts:
        parts.insert(0, '<h4>Heap maps</h4>')
    return parts


def replay_sections(groups: list[traces.AllocstatsGroup], out_dir: str) -> list[str]:
    """Memory over the trace for every (run, trace, threads) with replay allocstats series."""
    if not groups:
        return []
    parts = ['<h2 id="replay">Replay: memory over the trace</h2>']
    for number, g in enumerate(groups, 1):
        title = f"{os.path.basename(g.trace)}, {g.threads} thread(s), run {g.run}"
        stem = os.path.join(out_dir, _file_stem(g.run, f"replay{number}", os.path.basename(g.trace), f"{g.threads}t", "memory"))
        every = ", ".join(sorted({str(k) for k in g.every.values()})) or "?"
        parts += [f"<h3>{_e(title)}</h3>", f'<p class="legend">Trace: <code>{_e(g.trace)}</code></p>',
                  _figure(trace_plots.plot_allocstats(g, title, stem), ALLOCSTATS_CAPTION.format(every=every))]
        parts += _heap_map_parts(g, number, out_dir)
    return parts


TRACE_LEGEND = ("Events are in merged order (by TSC, ties by thread, then each thread's own order).  A block is the result "
                "of a successful allocation or realloc; frees and reallocs are matched to blocks by address in that order, "
                "whatever thread makes them.  A realloc ends the old block and starts a new one.  Unmatched frees/reallocs "
                "free an address the trace never saw allocated.  Lost blocks: their address was returned again before any "
                "free of it was seen.  Lost blocks and blocks live at the end are censored: their lifetimes are lower bounds "
                "and are left out of the lifetime statistics and the 2D histogram.  Lifetime in allocations = blocks "
                "allocated in between (the op-count clock the fit uses); in seconds = TSC ticks / the trace's TSC rate, "
                "when the trace records one.")
MAX_THREAD_ROWS = 64  # the per-thread table lists the busiest threads beyond this


def _quantile_text(q: dict, unit: str) -> str:
    if not q:
        return "n/a"
    fmt = (lambda v: f"{v:.3g}") if unit == "s" else (lambda v: f"{v:,.0f}")
    return f"median {fmt(q[0.5])}, p90 {fmt(q[0.9])}, max {fmt(q[1.0])} {unit}"


def _bytes_text(n: int) -> str:
    """'350 B', '14,834,574 B (14.1 MiB)'."""
    return f"{n:,} B" + (f" ({trace_plots.format_bytes(n)})" if n >= 1024 else "")


def _trace_summary_rows(trace: traces.Trace, s: dict) -> list[list[str]]:
    meta = trace.meta
    flags = [name for name, on in (("call sites", meta["call_sites"]), ("imported", meta["imported"])) if on]
    rows = [("command line", " ".join(meta["command_line"]) or "(not recorded)"),
            ("pid / ppid", f"{meta['pid']} / {meta['ppid']}" + (f" ({', '.join(flags)})" if flags else "")),
            ("file", f"{s['file_bytes']:,} B, {s['blocks_in_file']:,} blocks"),
            ("truncation", s["truncation"] or "none: every block complete"),
            ("events", f"{s['events']:,}"), ("threads", str(s["threads"])),
            ("ops by kind", ", ".join(f"{k} {v:,}" for k, v in s["ops"].items()) or "none"),
            ("allocation / free / realloc events", f"{s['allocation_events']:,} / {s['free_events']:,} / {s['realloc_events']:,}"),
            ("blocks allocated", f"{s['blocks']:,}"),
            ("peak live requested bytes", _bytes_text(s["peak_live_bytes"])
             + (f" after event {s['peak_live_event']:,}" if s["peak_live_event"] >= 0 else "")),
            ("live at the end (censored)", f"{s['live_at_end']:,} blocks, {_bytes_text(s['live_at_end_bytes'])}"),
            ("lost blocks (censored)", f"{s['lost_blocks']:,}"),
            ("unmatched frees", f"{s['unmatched_frees']:,}"), ("unmatched reallocs", f"{s['unmatched_reallocs']:,}"),
            ("frees of NULL", f"{s['null_frees']:,}"), ("failed allocations", f"{s['failed_allocations']:,}"),
            ("failed reallocs", f"{s['failed_reallocs']:,}"), ("cross-thread frees", f"{s['cross_thread_frees']:,}"),
            ("TSC rate", f"{s['tsc_hz'] / 1e9:.3f} GHz" if s["tsc_hz"] else "unknown (imported or written without timing)"),
            ("duration", f"{s['duration_seconds']:.3f} s" if s["duration_seconds"] is not None else "n/a"),
            ("lifetime, allocations in between", _quantile_text(s["lifetime_allocations_quantiles"], "blocks")),
            ("lifetime, seconds", _quantile_text(s["lifetime_seconds_quantiles"], "s"))]
    return [[k, v] for k, v in rows]


def _thread_table(trace: traces.Trace) -> str:
    counts = traces.thread_op_counts(trace)
    note = ""
    if len(counts) > MAX_THREAD_ROWS:
        note = f'<p class="legend">The {MAX_THREAD_ROWS} busiest of {len(counts)} threads.</p>'
        counts = counts.sort_values("total", ascending=False, kind="stable").head(MAX_THREAD_ROWS)
    tids = trace.meta["thread_tids"]
    rows = [[str(t), str(tids.get(int(t), "?"))] + [f"{int(v):,}" for v in r] for t, r in zip(counts.index, counts.to_numpy())]
    return _html_table(["thread", "tid"] + list(counts.columns), rows, left=2) + note


def trace_section(number: int, trace: traces.Trace, replays: list[traces.AllocstatsGroup], out_dir: str) -> list[str]:
    """Summary, per-thread counts and figures of one trace given with --trace; `replays`: the
    allocstats groups of the results, to point at those that replayed this trace."""
    lifetimes = traces.block_lifetimes(trace)
    summary = traces.trace_summary(trace, lifetimes)
    name = os.path.basename(trace.path)
    parts = [f"<h2>Trace: {_e(name)}</h2>", f"<p><code>{_e(trace.path)}</code></p>",
             _html_table(["", "value"], _trace_summary_rows(trace, summary), left=2)]
    mine = [g for g in replays if os.path.realpath(g.trace) == os.path.realpath(trace.path)]
    if mine:
        parts.append('<p>Replayed in the results: ' + ", ".join(f"run {_e(g.run)} at {g.threads} thread(s)" for g in mine)
                     + ' (<a href="#replay">memory over the trace</a>).</p>')
    if summary["truncation"]:
        parts.append(f'<div class="warn">The trace was cut short: {_e(summary["truncation"])}.  Everything before the '
                     "incomplete block is analysed; frees missing from it show up as lost or live-at-end blocks.</div>")
    if not len(trace):
        return parts + ['<p class="legend">The trace has no events: no figures.</p>']
    parts += ["<h3>Ops per thread</h3>", _thread_table(trace)]
    stem = os.path.join(out_dir, _file_stem(f"trace{number}", name))
    figures = [
        (trace_plots.plot_size_histogram(traces.log2_histogram(lifetimes.size), f"{name}: block sizes", stem + "-sizes"),
         "Block sizes: blocks per power-of-two bin of the bytes requested (log scale)."),
        (trace_plots.plot_thread_ops(traces.thread_op_counts(trace), f"{name}: ops per thread", stem + "-threads"),
         "Allocation, free and realloc events per thread."),
        (trace_plots.plot_live_bytes(lifetimes, f"{name}: live requested bytes", stem + "-live"),
         "Live requested bytes after each event in merged order (the theoretical heap a replay's 'used' follows); "
         "the band spans each chunk's min..max."),
        (trace_plots.plot_lifetime_scatter(lifetimes, f"{name}: lifetime vs allocation time", stem + "-lifetimes"),
         f"Lifetime against allocation time on the op-count clock, a fixed-seed sample of at most "
         f"{trace_plots.MAX_SCATTER_POINTS:,} blocks; censored blocks are lower bounds."),
        (trace_plots.plot_lifetime_size(traces.lifetime_size_histogram(lifetimes), f"{name}: lifetime x size",
                                        stem + "-lifetime-size"),
         "Blocks by lifetime (allocations in between) and size, log2 bins, complete lifetimes only."),
    ]
    if trace.tsc_hz and np.isfinite(lifetimes.seconds).any():
        figures.insert(4, (trace_plots.plot_lifetime_scatter(lifetimes, f"{name}: lifetime vs allocation time (s)",
                                                             stem + "-lifetimes-seconds", clock="seconds"),
                           "The same in seconds (TSC ticks / the trace's TSC rate); zero lifetimes are not drawn."))
    parts += ["<h3>Figures</h3>"] + [_figure(png, caption) for png, caption in figures]
    parts.append(f'<p class="legend">{_e(TRACE_LEGEND)}</p>')
    return parts
