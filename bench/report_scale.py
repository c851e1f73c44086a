#!/usr/bin/python3
"""How long `allocstress report` takes for a results file of N iteration cells (default 1000).

The input is made by replicating the real golden file's cells under new allocator names
(jemalloc -> jemalloc-17, ...) until N cells exist: realistic sizes and values, synthetic
allocator count.  It measures the report's cost only; its figures describe nothing.
Run: PYTHONPATH=build/release/python bench/report_scale.py [N]"""

import copy
import json
import os
import sys
import tempfile
import time

from allocstress.reporting.report import write_report

GOLDEN = os.path.join(os.path.dirname(__file__), "..", "tests", "data", "golden-tiny.json")


def scaled_document(cells: int) -> dict:
    with open(GOLDEN) as f:
        doc = json.load(f)
    iterations = [e for e in doc["benchmarks"] if e["run_type"] == "iteration"]
    keep = {"void", "system"}
    base = [e for e in iterations if e["allocator"] in keep]
    others = [e for e in iterations if e["allocator"] not in keep]
    out, copy_index = list(base), 0
    while len(out) < cells:
        copy_index += 1
        for e in others:
            if len(out) == cells:
                break
            clone = copy.deepcopy(e)
            clone["allocator"] = f"{e['allocator']}-{copy_index}"
            clone["name"] = clone["run_name"] = f"alloc-test/{clone['allocator']}/threads:{e['threads']}"
            out.append(clone)
    doc["benchmarks"] = out
    return doc


def main() -> int:
    cells = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, f"scale-{cells}.json")
        with open(path, "w") as f:
            json.dump(scaled_document(cells), f)
        start = time.perf_counter()
        write_report([path], os.path.join(tmp, "report"), "bench")
        elapsed = time.perf_counter() - start
    print(f"report for {cells} cells: {elapsed:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
