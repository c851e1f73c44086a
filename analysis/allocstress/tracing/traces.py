"""Allocation traces (trace/trace_format.hpp) in Python; the replay records' allocstats series are
in allocstats.py (re-exported here).

    from allocstress import traces
    t = traces.load_trace("prog.trace")          # numpy arrays, all threads merged
    lt = traces.block_lifetimes(t)               # one entry per block: size, lifetime, how it ended
    traces.log2_histogram(lt.size)               # sizes in power-of-two bins
    traces.trace_summary(t, lt)["peak_live_bytes"]

The model.  Events are taken in the *merged order* the reader gives, the trace's recorded order
that C++'s replay, fit and block lifetimes walk too (trace/recorded_order.hpp): the threads merged
by TSC, ties to the lower thread index, each thread's own order kept (a thread whose clock steps
back is not reordered within itself).  The tracer stamps an allocation right after the allocator
returned and a free right before it hands the block back, so in that order a free precedes the
reuse of its address.  A *block* is the result of a successful allocation (address != 0) or of a
successful realloc.  Frees and reallocs are matched to blocks by address in merged order, whatever
thread made them (cross-thread frees are counted); the matching is C++'s (trace/block_lifetimes.hpp,
_core.block_lifetimes: the one definition replay, trace-info and fit use too):

  allocation, address != 0        starts a block of `size` bytes at `address`
  allocation, address == 0        a failed allocation: no block (counted)
  free of a live address          ends that block (FREED)
  free(NULL)                      ignored (counted as null_frees)
  free of an address not live     unmatched (counted): freed memory the trace never saw allocated
  realloc(old, n) -> new          ends the block at old (REALLOCATED) and starts a new block of n
                                  bytes at new, also when new == old (in place)
  realloc(NULL, n) -> new         starts a block, like malloc
  realloc(old, 0) -> 0            ends the block at old (the C library freed it)
  realloc(old, n > 0) -> 0        failed (counted): the block at old stays live
  realloc of an old not live      the old side is unmatched (counted); the new block starts
  an allocation returning an address that is still live
                                  the earlier block is LOST: its free was never seen (not traced,
                                  or in a part of another thread's trace that was cut off); its
                                  lifetime is censored at that point and its bytes stop counting

Blocks still live when the trace ends are LIVE_AT_END: their lifetimes are censored (a lower bound
measured to the last event), so lifetime statistics and histograms use complete lifetimes only
(FREED, REALLOCATED) and say how many were left out.

Lifetimes are given on two clocks: TSC ticks (and seconds = ticks / tsc_hz when the trace knows its
TSC rate; imported and written-from-Python traces do not) and *allocations in between*: the number
of blocks started strictly between the block's start and its end, the op-count clock the fitted
synthetic workload uses (it does not depend on timing)."""

from __future__ import annotations

import enum
import math
import os
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

import allocstress._core as _core
from .allocstats import ALLOCSTATS_COLUMNS, AllocstatsGroup, allocstats_frame, allocstats_groups  # noqa: F401 -- re-exported

TraceFormatError = _core.TraceFormatError  # a ValueError: "FILE: offset N: what is wrong"
OP_NAMES: tuple[str, ...] = tuple(_core.trace_op_names)  # indexed by op code
OP_CLASSES: tuple[str, ...] = tuple(_core.trace_op_classes)  # "allocation" | "free" | "realloc", by op code
ALLOCATION, FREE, REALLOC = 0, 1, 2  # op class codes (Trace.op_class)
_CLASS_OF_OP = np.array([("allocation", "free", "realloc").index(c) for c in OP_CLASSES], dtype=np.uint8)
EVENT_FIELDS = ("thread", "op", "tsc", "address", "old_address", "size", "alignment", "call_site", "seq")


@dataclass
class Trace:
    """One trace file: `meta` is the file's metadata (see _core.read_trace: pid, command_line,
    tsc_hz, blocks, truncation, ...) and the events are equally long numpy arrays in merged order."""
    path: str
    meta: dict = field(repr=False)
    thread: np.ndarray = field(repr=False)
    op: np.ndarray = field(repr=False)
    tsc: np.ndarray = field(repr=False)
    address: np.ndarray = field(repr=False)
    old_address: np.ndarray = field(repr=False)
    size: np.ndarray = field(repr=False)
    alignment: np.ndarray = field(repr=False)
    call_site: np.ndarray = field(repr=False)
    seq: np.ndarray = field(repr=False)

    def __len__(self) -> int:
        return len(self.op)

    @property
    def tsc_hz(self) -> float | None:
        """The TSC rate recorded in the file, or None when unknown."""
        hz = self.meta.get("tsc_hz") or 0.0
        return float(hz) if hz > 0 else None

    @property
    def op_class(self) -> np.ndarray:
        """Per event: ALLOCATION, FREE or REALLOC."""
        return _CLASS_OF_OP[self.op]

    @property
    def threads(self) -> np.ndarray:
        """The thread indexes that have events, ascending."""
        return np.unique(self.thread)

    def __repr__(self) -> str:
        """One line: file, events, threads and the commonest ops (the arrays are too big to print)."""
        ops = sorted(op_counts(self).items(), key=lambda kv: -kv[1])
        shown = ", ".join(f"{name} {n:,}" for name, n in ops[:4]) + (", ..." if len(ops) > 4 else "")
        cut = "; cut short" if self.meta.get("truncation") else ""
        return (f"<Trace {os.path.basename(self.path)}: {len(self):,} events, {len(self.threads)} "
                f"thread{'s' * (len(self.threads) != 1)}{': ' + shown if shown else ''}{cut}>")

    def to_dataframe(self) -> pd.DataFrame:
        """One row per event in merged order: thread (int64), op (categorical of OP_NAMES: "malloc",
        "free", "calloc", "realloc", ...), op_class (categorical: allocation / free / realloc), tsc
        (uint64), seconds since the first event (float64, NaN when the trace does not know its TSC
        rate), address, old_address (realloc's input), size, alignment, call_site (uint64) and seq
        (the event's index in its thread's own order).  `pd.DataFrame(trace)` cannot be supported
        (pandas 1.5 takes no conversion protocol from an object), so call this."""
        hz = self.tsc_hz
        tsc = self.tsc.astype(np.uint64)
        seconds = (tsc - tsc[0]).astype(float) / hz if hz and len(self) else np.full(len(self), math.nan)
        return pd.DataFrame({
            "thread": self.thread.astype(np.int64),
            "op": pd.Categorical.from_codes(self.op.astype(np.int64), categories=list(OP_NAMES)),
            "op_class": pd.Categorical.from_codes(self.op_class.astype(np.int64), categories=["allocation", "free", "realloc"]),
            "tsc": tsc, "seconds": seconds,
            **{name: getattr(self, name).astype(np.uint64) for name in ("address", "old_address", "size", "alignment", "call_site")},
            "seq": self.seq.astype(np.int64)})


def load_trace(path: str) -> Trace:
    """Reads a trace with the C++ reader.  TraceFormatError (one line naming the file and the
    offset) for a foreign, corrupt or truncated-header file; OSError when it cannot be opened.  A
    file cut inside a block is not an error: meta["truncation"] says where it was cut."""
    raw = _core.read_trace(os.fspath(path))
    events = {k: raw.pop(k) for k in EVENT_FIELDS}
    return Trace(os.fspath(path), raw, **events)


# --- block lifetimes -----------------------------------------------------------------------

class End(enum.IntEnum):
    """How a block's life ended."""
    FREED = 0
    REALLOCATED = 1
    LIVE_AT_END = 2  # censored: still live when the trace ends
    LOST = 3         # censored: its address was returned again before any free of it was seen


@dataclass
class Lifetimes:
    """One entry per block, in the order the blocks start (see the module docstring for the model).

    start, end        event indexes (merged order) of the block's start and end; LIVE_AT_END: len(trace)
    how               End code
    size, address     bytes requested, address returned
    thread            thread that allocated it; end_thread: thread whose event ended it (-1 if live at end)
    start_clock       allocation time on the op-count clock: blocks started before this one
    allocations_between  lifetime on the op-count clock: blocks started strictly between start and end
    ticks             lifetime in TSC ticks (censored ones: up to the last event / the reuse)
    seconds           ticks / tsc_hz, NaN when the TSC rate is unknown
    start_seconds     allocation time since the first event, NaN when the TSC rate is unknown
    live_bytes        per event of the trace: live requested bytes right after it (the theoretical heap)
    counts            unmatched_frees, unmatched_reallocs, null_frees, failed_allocations,
                                        failed_reallocs, cross_thread_frees (blocks ended by a free or realloc of
                      another thread than the one that allocated them)"""
    start: np.ndarray
    end: np.ndarray
    how: np.ndarray
    size: np.ndarray
    address: np.ndarray
    thread: np.ndarray
    end_thread: np.ndarray
    start_clock: np.ndarray
    allocations_between: np.ndarray
    ticks: np.ndarray
    seconds: np.ndarray
    start_seconds: np.ndarray
    live_bytes: np.ndarray = field(repr=False)
    counts: dict

    def __len__(self) -> int:
        return len(self.start)

    @property
    def complete(self) -> np.ndarray:
        """Mask of the blocks whose lifetime is known (FREED or REALLOCATED)."""
        return self.how <= End.REALLOCATED


def block_lifetimes(trace: Trace) -> Lifetimes:
    """The blocks of `trace` as C++ matches them (_core.block_lifetimes, trace/block_lifetimes.hpp:
    the module docstring's model), with their clocks and the live bytes rendered here."""
    n = len(trace)
    if n == 0:
        return _no_blocks()
    m = _core.block_lifetimes(trace.thread, trace.op, trace.address, trace.old_address, trace.size)
    start, end, how, block_size, thread, end_thread = m["start"], m["end"], m["how"], m["size"], m["thread"], m["end_thread"]
    ended = end < n

    # The op-count clock: clock[i] = blocks started by events [0, i).
    clock = np.zeros(n + 1, dtype=np.int64)
    clock[start + 1] = 1  # an event starts at most one block
    np.cumsum(clock, out=clock)
    start_clock = clock[start]
    allocations_between = clock[end] - start_clock - 1
    tsc = trace.tsc.astype(np.int64)
    ticks = np.where(ended, tsc[np.minimum(end, n - 1)], tsc[-1]) - tsc[start]
    hz = trace.tsc_hz
    seconds = ticks / hz if hz else np.full(len(start), math.nan)
    start_seconds = (tsc[start] - tsc[0]) / hz if hz else np.full(len(start), math.nan)

    # Live bytes: + size at a block's start, - size where it ends (freed, reallocated or lost).
    delta = np.zeros(n, dtype=np.int64)
    np.add.at(delta, start, block_size.astype(np.int64))
    gone = how != End.LIVE_AT_END
    np.add.at(delta, end[gone], -block_size[gone].astype(np.int64))
    live_bytes = np.cumsum(delta)

    return Lifetimes(start=start, end=end, how=how, size=block_size, address=m["address"], thread=thread,
                     end_thread=end_thread, start_clock=start_clock, allocations_between=allocations_between,
                     ticks=ticks, seconds=seconds, start_seconds=start_seconds, live_bytes=live_bytes, counts=m["counts"])


def _no_blocks() -> Lifetimes:
    """The Lifetimes of a trace without events."""
    empty = {name: np.zeros(0, np.int64) for name in ("start", "end", "size", "address", "thread", "end_thread", "start_clock",
                                                     "allocations_between", "ticks", "live_bytes")}
    counts = dict.fromkeys(("unmatched_frees", "unmatched_reallocs", "null_frees", "failed_allocations", "failed_reallocs",
                            "cross_thread_frees"), 0)
    return Lifetimes(how=np.zeros(0, np.uint8), seconds=np.zeros(0), start_seconds=np.zeros(0), counts=counts, **empty)


# --- histograms and counts -----------------------------------------------------------------

def bit_length(values) -> np.ndarray:
    """Exact bit length of unsigned integers (0 -> 0, 1 -> 1, 2..3 -> 2, 4..7 -> 3, ...)."""
    x = np.array(values, dtype=np.uint64, copy=True)
    out = np.zeros(x.shape, dtype=np.int64)
    for shift in (32, 16, 8, 4, 2, 1):
        big = x >= (np.uint64(1) << np.uint64(shift))
        out[big] += shift
        x[big] >>= np.uint64(shift)
    return out + (x > 0)


def log2_bin_edges(k: int) -> tuple[int, int]:
    """[low, high) of log2 bin k: bin 0 holds only 0, bin k >= 1 holds [2^(k-1), 2^k)."""
    return (0, 1) if k == 0 else (1 << (k - 1), 1 << k)


def log2_histogram(values) -> pd.DataFrame:
    """Counts of non-negative integers in log2 bins (log2_bin_edges), one row per bin from the
    lowest to the highest non-empty one (empty bins between included): columns bin, low, high, count."""
    bins = bit_length(values)
    if bins.size == 0:
        return pd.DataFrame({"bin": pd.Series([], dtype=np.int64), "low": pd.Series([], dtype=object),
                             "high": pd.Series([], dtype=object), "count": pd.Series([], dtype=np.int64)})
    lo, hi = int(bins.min()), int(bins.max())
    counts = np.bincount(bins - lo, minlength=hi - lo + 1)
    ks = list(range(lo, hi + 1))
    edges = [log2_bin_edges(k) for k in ks]
    return pd.DataFrame({"bin": ks, "low": [e[0] for e in edges], "high": [e[1] for e in edges], "count": counts.astype(np.int64)})


@dataclass
class Histogram2D:
    """counts[i, j] = blocks with lifetime in log2 bin lifetime_bins[i] and size in log2 bin size_bins[j]."""
    counts: np.ndarray
    lifetime_bins: np.ndarray
    size_bins: np.ndarray
    left_out: int  # censored blocks not counted


def lifetime_size_histogram(lifetimes: Lifetimes) -> Histogram2D:
    """Complete lifetimes (allocations in between) x block size, both in log2 bins."""
    keep = lifetimes.complete
    life = bit_length(lifetimes.allocations_between[keep])
    size = bit_length(lifetimes.size[keep])
    left_out = int(len(lifetimes) - np.count_nonzero(keep))
    if life.size == 0:
        return Histogram2D(np.zeros((0, 0), np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64), left_out)
    lbins = np.arange(life.min(), life.max() + 1)
    sbins = np.arange(size.min(), size.max() + 1)
    flat = (life - lbins[0]) * len(sbins) + (size - sbins[0])
    counts = np.bincount(flat, minlength=len(lbins) * len(sbins)).reshape(len(lbins), len(sbins)).astype(np.int64)
    return Histogram2D(counts, lbins, sbins, left_out)


def op_counts(trace: Trace) -> dict[str, int]:
    """Events per op name, for the ops that occur, in op-code order."""
    counts = np.bincount(trace.op, minlength=len(OP_NAMES))
    return {OP_NAMES[i]: int(c) for i, c in enumerate(counts) if c}


CLASS_COLUMNS = ("allocation ops", "free ops", "realloc ops")  # thread_op_counts' per-class columns, by class code


def thread_op_counts(trace: Trace) -> pd.DataFrame:
    """One row per thread (index 'thread'): events per op name (the ops that occur in the trace,
    in op-code order), per op class (CLASS_COLUMNS) and in total ('total')."""
    threads = trace.threads
    pos = np.searchsorted(threads, trace.thread)
    nops = len(OP_NAMES)
    grid = np.bincount(pos.astype(np.int64) * nops + trace.op, minlength=len(threads) * nops).reshape(len(threads), nops)
    used = [i for i in range(nops) if grid[:, i].any()]
    frame = pd.DataFrame(grid[:, used], index=pd.Index(threads.astype(np.int64), name="thread"),
                         columns=[OP_NAMES[i] for i in used])
    for code, name in enumerate(CLASS_COLUMNS):
        frame[name] = grid[:, _CLASS_OF_OP == code].sum(axis=1)
    frame["total"] = grid.sum(axis=1)
    return frame


def subsample(n: int, max_points: int, seed: int = 0) -> np.ndarray:
    """Sorted indexes of at most max_points of range(n), drawn without replacement with a fixed
    seed (the same trace gives the same points every time)."""
    if n <= max_points:
        return np.arange(n)
    return np.sort(np.random.default_rng(seed).choice(n, size=max_points, replace=False))


def trace_summary(trace: Trace, lifetimes: Lifetimes) -> dict:
    """The figures of the report's trace table (numbers, not text)."""
    n = len(trace)
    cls = trace.op_class
    complete = lifetimes.complete
    live_end = lifetimes.how == End.LIVE_AT_END
    peak_at = int(np.argmax(lifetimes.live_bytes)) if n else -1
    hz = trace.tsc_hz

    def quantiles(values) -> dict[float, float]:
        """Median, 90th percentile and maximum, or {} without values."""
        if not values.size:
            return {}
        return {0.5: float(np.quantile(values, 0.5)), 0.9: float(np.quantile(values, 0.9)), 1.0: float(values.max())}

    return {
        "events": n, "threads": len(trace.threads), "blocks_in_file": trace.meta["blocks"], "file_bytes": trace.meta["file_bytes"],
        "ops": op_counts(trace), "allocation_events": int(np.count_nonzero(cls == ALLOCATION)),
        "free_events": int(np.count_nonzero(cls == FREE)), "realloc_events": int(np.count_nonzero(cls == REALLOC)),
        "blocks": len(lifetimes), "peak_live_bytes": int(lifetimes.live_bytes[peak_at]) if n else 0, "peak_live_event": peak_at,
        "live_at_end": int(np.count_nonzero(live_end)), "live_at_end_bytes": int(lifetimes.size[live_end].sum()),
        "lost_blocks": int(np.count_nonzero(lifetimes.how == End.LOST)), **lifetimes.counts,
        "truncation": trace.meta["truncation"], "tsc_hz": hz,
        "duration_seconds": float(trace.tsc[-1] - trace.tsc[0]) / hz if hz and n else None,
        "lifetime_allocations_quantiles": quantiles(lifetimes.allocations_between[complete]),
        "lifetime_seconds_quantiles": quantiles(lifetimes.seconds[complete]) if hz else {},
    }
