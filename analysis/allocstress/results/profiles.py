"""Tables of profile runs (mode "profile", `matrix --profile`): latency percentiles by class,
memory system calls, and the memory breakdown with each figure's provenance.  Profile runs are a
separate, labelled measurement of the same alloc-test cells; nothing here mixes with timing runs."""

from __future__ import annotations

import math

from .loading import Runs

LATENCY_HEADERS = ["run", "allocator", "threads", "op", "size class", "address", "phase", "sampled", "p50 ns", "p90 ns",
                   "p99 ns", "p99.9 ns", "max ns"]
SYSCALLS = ["mmap", "munmap", "mremap", "madvise", "brk", "mprotect", "futex"]
MEMORY_FIELDS = ["requested", "usable", "allocated", "active", "resident", "mapped", "metadata", "retained", "rss_growth",
                 "internal_fragmentation", "external_fragmentation"]


def profile_records(runs: Runs) -> list[tuple[str, dict]]:
    """(run name, record) of every ok profile record, in file order."""
    out = []
    for name, doc in zip(runs.run_names(), runs.documents):
        out += [(name, e) for e in doc["benchmarks"]
                if e.get("mode") == "profile" and e.get("run_type") == "iteration" and e.get("status") == "ok"]
    return out


def _ns(x) -> str:
    return "n/a" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.0f}"


def _latency(row: dict, key: str) -> str:
    """A percentile in ns, or "< R" where it is below the cycle counter's resolution R ns."""
    if key in row.get("below_resolution", []):
        return f"< {row['resolution_ns']:.0f}"
    return _ns(row[key])


def latency_rows(records: list[tuple[str, dict]]) -> list[list[str]]:
    return [[run, r["allocator"], str(r["threads"]), row["op"], row["size_class"], row["address"], row["phase"],
             str(row["sampled"])] + [_latency(row, k) for k in ("p50_ns", "p90_ns", "p99_ns", "p999_ns", "max_ns")]
            for run, r in records for row in r["profile"]["latency"]]


def syscall_rows(records: list[tuple[str, dict]]) -> tuple[list[str], list[list[str]]]:
    headers = ["run", "allocator", "threads"] + SYSCALLS
    rows = []
    for run, r in records:
        counts = r["profile"]["syscalls"].get("counts")
        rows.append([run, r["allocator"], str(r["threads"])] + [str(counts[s]) if counts else "n/a" for s in SYSCALLS])
    return headers, rows


def _figure(f: dict) -> str:
    if f.get("value") is None:
        return "n/a"
    return f"{f['value'] / 1048576:.2f}"


def memory_rows(records: list[tuple[str, dict]]) -> tuple[list[str], list[list[str]]]:
    """MiB at the end of the loop (all blocks live); the provenance of each figure is in the legend."""
    headers = ["run", "allocator", "threads"] + MEMORY_FIELDS + ["blowup"]
    rows = []
    for run, r in records:
        m = r["profile"]["memory"]["at_peak"]
        figures = {**{k: m[k] for k in ("requested", "usable", "rss_growth", "internal_fragmentation", "external_fragmentation")},
                   **{k: m["allocator"][k] for k in ("allocated", "active", "resident", "mapped", "metadata", "retained")}}
        blowup = r["profile"].get("blowup", {}).get("value")
        rows.append([run, r["allocator"], str(r["threads"])] + [_figure(figures[k]) for k in MEMORY_FIELDS] +
                    ["n/a" if blowup is None else f"{blowup:.2f}"])
    return headers, rows


LEGEND = ("Profile runs: latency sampled 1 in N operations (share in each record), empty timer bracket subtracted, "
          "percentiles at the lower edge of log-linear buckets (within 6.25%), \"< R\" where a figure is below the cycle "
          "counter's resolution R ns (the record's below_resolution); system calls counted by strace in the "
          "measured phase (exact; futex includes the harness's barrier waits); memory in MiB at the end of the loop with all "
          "blocks live: requested, usable and RSS growth since before the phase exact, the rest as the allocator's own API "
          "reports it (process-wide; n/a where it has none); blowup = RSS growth per live byte at N threads / at 1 thread.")
