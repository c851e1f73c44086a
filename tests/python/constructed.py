"""Constructed inputs several test modules share (TEST FIXTURES, constructed, not measured): a
trace written from event tuples and the hand-built trace of the lifetime tests, a golden file
with replay records carrying allocstats, and a results file of the workloads beyond alloc-test
whose medians are known.  Each states what it holds; the tests that read them assert on it.

The test files live in one subfolder per layer of the package; what two of them share stands
here, beside conftest.py, rather than in one of them."""

import copy
import json
import os

import numpy as np

from allocstress import _core
from allocstress.tracing import traces

from conftest import GOLDEN, iteration_entries, write_doc

OPS = list(_core.trace_op_names)
STRUCTURES = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "data", "structures-tiny.json"))


def write(path, events, **kwargs):
    """Writes events given as (tsc, thread, op name, address, old_address, size[, alignment]) tuples."""
    rows = [tuple(e) + (0,) * (7 - len(e)) for e in events]
    col = lambda i: np.array([r[i] for r in rows], dtype=np.uint64)  # noqa: E731
    _core.write_trace(str(path), col(1), np.array([OPS.index(r[2]) for r in rows], dtype=np.uint64), col(0), col(3), col(4),
                      col(5), col(6), **kwargs)
    return str(path)


# The hand-built trace of the lifetime tests: two threads, every matching rule once.
#   (tsc, thread, op, address, old_address, size)
HAND = [
    (10, 0, "malloc", 0x1000, 0, 100),        # 0  b0
    (20, 0, "malloc", 0x2000, 0, 200),        # 1  b1
    (30, 1, "free", 0x1000, 0, 0),            # 2  b0 freed by the other thread
    (40, 0, "realloc", 0x3000, 0x2000, 300),  # 3  b1 reallocated -> b2
    (50, 0, "free", 0x9999, 0, 0),            # 4  unmatched free
    (60, 1, "malloc", 0x1000, 0, 50),         # 5  b3 (address of b0 reused), live at the end
    (70, 0, "free", 0, 0, 0),                 # 6  free(NULL)
    (80, 1, "malloc", 0, 0, 1 << 40),         # 7  failed allocation
    (90, 0, "realloc", 0, 0x3000, 0),         # 8  realloc(b2, 0): b2 ends
    (100, 1, "malloc", 0x4000, 0, 8),         # 9  b4, lost at event 10
    (110, 0, "malloc", 0x4000, 0, 16),        # 10 b5 at a live address, live at the end
    (120, 1, "realloc", 0x5000, 0x7777, 64),  # 11 unmatched realloc -> b6, live at the end
    (130, 0, "realloc", 0, 0x1000, 10),       # 12 failed realloc: b3 stays live
    (140, 1, "realloc", 0x5000, 0x5000, 128), # 13 in place: b6 reallocated -> b7, live at the end
]


def replay_results(tmp_path, trace_path, change=None):
    """TEST FIXTURE (constructed, not measured): the golden file plus replay records with
    allocstats rows of the documented shape, for void, system and jemalloc, two repetitions."""
    doc = json.load(open(GOLDEN))
    columns = list(traces.ALLOCSTATS_COLUMNS)
    for allocator, factor in (("void", 0.0), ("system", 1.5), ("jemalloc", 1.2)):
        for rep in range(2):
            rows, maxmem = [], 0
            for k in range(0, 13, 2):
                used = 100 * k + rep  # rep shifts the series: the report must take repetition 0
                rss = used * factor
                maxmem = max(maxmem, rss)
                rows.append([k, used, rss, rss - used, maxmem, 40 + 10 * factor])
            doc["benchmarks"].append({
                "run_type": "iteration", "workload": "replay", "allocator": allocator, "threads": 2, "repetition_index": rep,
                "status": "ok", "reason": None, "params": {"trace": trace_path}, "cycles_per_op": 100.0,
                "allocstats": {"every": 2, "columns": columns, "rows": rows}})
    if change:
        change(doc)
    path = tmp_path / "replay.json"
    path.write_text(json.dumps(doc))
    return str(path)


SERIES_COLUMNS = ["thread", "op_index", "elapsed_ms", "live_bytes", "rss_bytes", "stage", "extra"]


def phase_rows(rss_scale, rep):
    """A two-thread phase-peak series: grow, drop, a pause (thread -1 rows, half the threads' last
    samples: they predate the end of the drop), grow again.  rss_bytes
    only on worker 0's rows and the pause rows; `rss_scale` sets how much RSS follows the live bytes
    down (1: returns everything), `rep` shifts the times (the figure must use repetition 0)."""
    rows, t = [], float(rep)
    for op, (live0, live1, stage) in enumerate([(100, 200, "grow"), (400, 500, "grow"), (50, 60, "drop")]):
        t += 1
        rows.append([0, op * 10, t, live0 * 1024, 3 * live0 * 1024 * rss_scale + 1024, stage, "x"])
        rows.append([1, op * 10, t + 0.5, live1 * 1024, None, stage, "y"])
    for k in range(3):  # the pause: RSS falls (or not) while nothing runs
        rows.append([-1, None, t + 1 + k, 55 * 1024, (1500 - 400 * k * rss_scale) * 1024, "pause", None])
    rows.append([0, 40, t + 5, 300 * 1024, 2000 * 1024, "final", "z"])
    rows.append([1, 40, t + 5.5, 300 * 1024, None, "final", "z"])
    return rows


def constructed_results(tmp_path, change=None, name="beyond.json"):
    """TEST FIXTURE (constructed, not measured): the golden file's context and schema with
    records of alloc-test, xthread, phase-peak and false-sharing-active made from one of its
    iteration entries.  Values are chosen so that every median is known."""
    with open(GOLDEN) as f:
        doc = json.load(f)
    template = next(e for e in iteration_entries(doc) if e["allocator"] == "system" and e["workload"] == "alloc-test")
    records = []

    def add(workload, allocator, threads, rep, **fields):
        e = copy.deepcopy(template)
        e.update(workload=workload, allocator=allocator, threads=threads, repetition_index=rep, mode="timing",
                 name=f"{workload}/{allocator}/threads:{threads}", run_name=f"{workload}/{allocator}/threads:{threads}",
                 **fields)
        records.append(e)
        return e

    for threads in (1, 2):
        for rep in range(3):
            for allocator, over in (("void", 0.0), ("system", 1.0 + rep / 10), ("jemalloc", 2.0 + rep)):
                add("alloc-test", allocator, threads, rep, overhead_ratio=over, cycles_per_pair=100.0 + rep,
                    net_cycles_per_pair=0.0 if allocator == "void" else 50.0 + 10 * rep + threads)
    for threads in (1, 2):
        for rep in range(3):
            for allocator, over in (("void", 0.0), ("system", 2.0 + rep), ("jemalloc", 3.0 + rep / 2)):
                add("xthread", allocator, threads, rep, overhead_ratio=over, cycles_per_pair=150.0 + rep,
                    net_cycles_per_pair=0.0 if allocator == "void" else 70.0 + rep,
                    workload_metrics={"remote_free_share": 0.5 + rep / 100, "remote_frees": 1000 + 10 * rep,
                                      "local_frees": 900 - rep, "queue_full_waits": None if rep == 1 else 4 * rep,
                                      "new_metric": 7.0 * rep, "max_queue_backlog": None})
    # jemalloc's alloc-test cell at 2 threads failed: xthread's blowup there is n/a
    for e in records:
        if (e["workload"], e["allocator"], e["threads"]) == ("alloc-test", "jemalloc", 2):
            e.update(status="failed", reason="killed by signal 11 (SIGSEGV)")
    for allocator, scale in (("system", 0.0), ("jemalloc", 1.0)):
        for rep in range(2):
            add("phase-peak", allocator, 2, rep, overhead_ratio=1.5, net_cycles_per_pair=80.0,
                workload_metrics={"rss_after_drop_ratio": 4.0 - scale + rep, "return_ms": None if scale == 0 else 12.0 + rep,
                                  "returned_share_after_pause": 0.9 * scale},
                workload_metrics_means={"rss_after_drop_ratio": "as the C++ says"},
                phase_series={"every": 10, "columns": list(SERIES_COLUMNS), "rows": phase_rows(scale, rep), "means": "..."})
    for allocator, slowdown in (("system", 3.0), ("jemalloc", 1.0)):
        for rep in range(3):
            e = add("false-sharing-active", allocator, 2, rep, cycles_per_pair=30.0 + rep,
                    workload_metrics={"shared_lines_mean": 8.0 * slowdown + rep, "shared_lines_max": 16.0 * slowdown,
                                      "shared_object_share": 0.25 * slowdown, "slowdown": slowdown + rep / 10,
                                      "write_cycles_per_write": 3.0 * slowdown, "private_write_cycles_per_write": 3.0,
                                      "alloc_cycles_per_pair": 30.0 + rep})
            for key in ("net_cycles_per_pair", "net_ns_per_pair", "baseline_cycles_per_pair", "overhead_ratio"):
                e.pop(key, None)
    doc["benchmarks"] = records
    return write_doc(tmp_path, name, doc, change)
