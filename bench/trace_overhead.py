#!/usr/bin/python3
"""Overhead of the allocation tracer (liballocstress_trace.so) next to heaptrack's.

An allocation-heavy program (bench/alloc_test_direct.cpp: the alloc-test workload on the process's
own malloc, blocks written whole and read back; --access none for allocation calls only) runs at 1 and 2 threads untraced, under our tracer (LD_PRELOAD) and
under heaptrack, --reps times each, interleaved so that drift hits all three alike.  Reported:
medians of wall time and of CPU time (user + sys of the program and everything it started, e.g.
heaptrack's interpreter), slowdown vs untraced, tracer vs heaptrack speed ratio, and the trace
file bytes per event of both (events: ours from the block headers; heaptrack's: the program's
own count of malloc + free calls).  Targets: tracer slowdown <= 2x, >= 5x faster than heaptrack.

CPU time is the primary figure: on the shared 2-core machine wall time also measures whatever
else runs.  Run it under the measurement lock, from the source folder:

    flock /tmp/allocstress-measure.lock /usr/bin/python3 bench/trace_overhead.py \\
        --build build/release [--iterations 4000000] [--access write_read|none] [--reps 5] [--threads 1,2]
        [--level N] [--call-sites] [--no-heaptrack]
"""
import argparse
import glob
import os
import resource
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import time

FILE_HEADER = struct.Struct("<8sHHIIIQQQII Q")  # trace_format.hpp FileHeader (64 bytes)
BLOCK_HEADER = struct.Struct("<IIIIIIIIQQ")     # trace_format.hpp BlockHeader (48 bytes)


def trace_events(path):
    """Events in an allocstress trace, summed from its block headers (no decompression)."""
    with open(path, "rb") as f:
        data = f.read()
    fields = FILE_HEADER.unpack_from(data, 0)
    if fields[0] != b"ASTRACE1":
        raise ValueError(f"{path}: not an allocstress trace")
    at, events = fields[2] + fields[9], 0
    while at + BLOCK_HEADER.size <= len(data):
        block = BLOCK_HEADER.unpack_from(data, at)
        events += block[4]
        at += BLOCK_HEADER.size + block[6]
    return events


def timed(argv, env, cwd):
    """(wall s, CPU s of the process tree, stdout)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    out = subprocess.run(argv, env=env, cwd=cwd, check=True, capture_output=True, text=True).stdout
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, out


def calls_of(stdout):
    for line in stdout.splitlines():
        if line.startswith("calls "):
            return int(line.split()[1])
    raise ValueError("alloc_test_direct printed no call count")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default="build/release", help="build folder with liballocstress_trace.so and bench/")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--iterations", type=int, default=4_000_000, help="alloc-test iterations (calls) per thread")
    parser.add_argument("--slots", type=int, default=65536, help="alloc-test slots (split across threads)")
    parser.add_argument("--max-size-exp", type=int, default=12, help="block sizes below 2^E")
    parser.add_argument("--access", default="write_read", help="none, touch, write or write_read")
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--level", type=int, help="ALLOCSTRESS_TRACE_LEVEL (default: the tracer's)")
    parser.add_argument("--call-sites", action="store_true", help="ALLOCSTRESS_TRACE_CALL_SITES=1")
    parser.add_argument("--no-heaptrack", action="store_true")
    a = parser.parse_args()
    tracer = os.path.abspath(os.path.join(a.build, "liballocstress_trace.so"))
    program = os.path.abspath(os.path.join(a.build, "bench", "allocstress_alloc_test_direct"))
    for path in (tracer, program):
        if not os.path.exists(path):
            print(f"trace_overhead: error: {path} not found (build the allocstress_trace and allocstress_alloc_test_direct targets)", file=sys.stderr)
            return 2
    heaptrack = None if a.no_heaptrack else shutil.which("heaptrack")
    base_env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD" and not k.startswith("ALLOCSTRESS_TRACE_")}
    traced_env = dict(base_env, LD_PRELOAD=tracer, ALLOCSTRESS_TRACE_CALL_SITES="1" if a.call_sites else "0")
    if a.level is not None:
        traced_env["ALLOCSTRESS_TRACE_LEVEL"] = str(a.level)

    print(f"alloc-test on glibc malloc: {a.iterations} iterations per thread, {a.slots} slots, sizes < 2^{a.max_size_exp}, "
          f"access {a.access}; medians of {a.reps} runs"
          f"{'; call sites on' if a.call_sites else ''}{'' if a.level is None else f'; zstd level {a.level}'}\n")
    print("| threads | untraced CPU s | tracer CPU s | slowdown (CPU) | slowdown (wall) | heaptrack CPU s | heaptrack slowdown (CPU) "
          "| tracer faster than heaptrack (CPU) | tracer B/event | heaptrack B/call |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for threads in [int(t) for t in a.threads.split(",")]:
        argv = [program, str(threads), str(a.iterations), str(a.slots), str(a.max_size_exp), a.access]
        runs = {"plain": [], "tracer": [], "heaptrack": []}
        trace_bytes, heaptrack_bytes = [], []
        with tempfile.TemporaryDirectory(prefix="trace-overhead-") as tmp:
            for rep in range(a.reps):
                wall, cpu, out = timed(argv, base_env, tmp)
                runs["plain"].append((wall, cpu))
                calls = calls_of(out)
                prefix = os.path.join(tmp, f"t{rep}")
                wall, cpu, _ = timed(argv, dict(traced_env, ALLOCSTRESS_TRACE_OUT=prefix), tmp)
                runs["tracer"].append((wall, cpu))
                files = glob.glob(prefix + ".*.ast")
                size = sum(os.path.getsize(f) for f in files)
                trace_bytes.append(size / sum(trace_events(f) for f in files))
                for f in files:
                    os.remove(f)
                if heaptrack:
                    out_file = os.path.join(tmp, f"h{rep}")
                    wall, cpu, _ = timed([heaptrack, "-o", out_file, *argv], base_env, tmp)
                    runs["heaptrack"].append((wall, cpu))
                    files = glob.glob(out_file + "*")
                    heaptrack_bytes.append(sum(os.path.getsize(f) for f in files) / calls)
                    for f in files:
                        os.remove(f)
        med = {k: (statistics.median(w for w, _ in v), statistics.median(c for _, c in v)) if v else (None, None) for k, v in runs.items()}
        plain, traced, ht = med["plain"], med["tracer"], med["heaptrack"]
        ht_cells = (f"{ht[1]:.2f} | {ht[1] / plain[1]:.1f}x | {ht[1] / traced[1]:.1f}x" if heaptrack else "n/a | n/a | n/a")
        ht_bytes = f"{statistics.median(heaptrack_bytes):.2f}" if heaptrack else "n/a"
        print(f"| {threads} | {plain[1]:.2f} | {traced[1]:.2f} | {traced[1] / plain[1]:.2f}x | {traced[0] / plain[0]:.2f}x | {ht_cells} "
              f"| {statistics.median(trace_bytes):.2f} | {ht_bytes} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
