#!/usr/bin/python3
"""Validate an allocstress results file against results/schema.json, then print one line per
planned iteration entry: allocator, threads, status, reason (tab-separated), for the CLI tests to
check; with --with-workload, the workload and mode come first.  Processes the matrix added
beyond the plan (a timing entry whose repetition_index reaches the plan's repetitions: adaptive
rounds, or the replacement of a disturbed process) are not listed: how many there are depends on
the machine's noise, and tests/cli/matrix/adaptive.sh checks them.
Usage: validate_results.py SCHEMA RESULTS [--with-workload]"""
import json
import sys

import jsonschema


def main() -> int:
    schema_path, results_path = sys.argv[1], sys.argv[2]
    with_workload = "--with-workload" in sys.argv[3:]
    with open(schema_path) as f:
        schema = json.load(f)
    with open(results_path) as f:
        results = json.load(f)
    validator = jsonschema.Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(results), key=lambda e: list(e.path))
    for e in errors[:20]:
        print(f"schema violation at {'/'.join(map(str, e.path))}: {e.message}", file=sys.stderr)
    if errors:
        return 1
    planned = results["context"].get("plan", {}).get("repetitions")
    for e in results["benchmarks"]:
        beyond_plan = planned is not None and e.get("mode", "timing") == "timing" and e.get("repetition_index", 0) >= planned
        if e["run_type"] == "iteration" and not beyond_plan:
            prefix = f'{e["workload"]}\t{e.get("mode", "timing")}\t' if with_workload else ""
            print(f'{prefix}{e["allocator"]}\t{e["threads"]}\t{e["status"]}\t{e.get("reason") or ""}')
    return 0


if __name__ == "__main__":
    sys.exit(main())
