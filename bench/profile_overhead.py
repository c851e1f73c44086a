#!/usr/bin/python3
"""Overhead of profile runs: wall time of the measured phase of a profile run's sample pass (1 in
N operations timed, every malloc's address recorded, perf counters on) and of its strace pass,
each divided by the same cell's timing run (quick preset, 1 thread).  Medians over --reps runs of
each; run it alone (other load disturbs it).  Target for the sample pass: <= 1.3x.

    bench/profile_overhead.py [--allocators system,jemalloc,mimalloc] [--reps 3] [--sample-every 64]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

EXE = os.environ.get("ALLOCSTRESS", os.path.join(os.path.dirname(__file__), "..", "build", "release", "allocstress"))


def record(args):
    out = subprocess.run([EXE, "run", *args], capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--allocators", default="system,jemalloc,mimalloc")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--sample-every", type=int, default=64)
    a = parser.parse_args()
    print("| allocator | timing wall ms | sample pass wall ms | sample / timing | strace pass wall ms | strace / timing |")
    print("|---|---:|---:|---:|---:|---:|")
    for allocator in a.allocators.split(","):
        timing, sample, traced = [], [], []
        for _ in range(a.reps):  # interleaved, so that drift hits both alike
            timing.append(record(["--allocator", allocator])["wall_time_ns"] / 1e6)
            p = record(["--allocator", allocator, "--profile", "--sample-every", str(a.sample_every)])
            sample.append(p["wall_time_ns"] / 1e6)
            traced.append(p["profile"]["syscalls"]["pass_wall_time_ns"] / 1e6)
        t, s, x = statistics.median(timing), statistics.median(sample), statistics.median(traced)
        print(f"| {allocator} | {t:.0f} | {s:.0f} | {s / t:.2f} | {x:.0f} | {x / t:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
