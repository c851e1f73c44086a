#!/usr/bin/env python3
"""The generated part of docs/testing.md: what the suite holds, read from CTest, and how long it took.

Two blocks between markers in docs/testing.md:
  - `testing-counts`: every CTest label with its number of tests, the GoogleTest cases and
    suites, the CLI scripts, the fuzz targets and the pytest test functions.  Derived from
    `ctest --show-only=json-v1` on a release build and from the test sources: the same on every
    run of the same tree, so `--check` (the CTest test docs.testing) fails when it is stale.
  - `testing-times`: measured seconds per label and the slowest tests, from CTest's own record of
    the last run (BUILD/Testing/Temporary/CTestCostData.txt).  Measured, so never checked.

Usage: testing_doc.py BUILD_DIR [--check]   (scripts/update-testing-docs.sh rewrites the doc)
"""

import collections
import datetime
import glob
import json
import os
import re
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
DOC = os.path.join(ROOT, "docs", "testing.md")
BLOCK = re.compile(r"(<!-- (testing-counts|testing-times):begin[^>]*-->\n).*?(<!-- \2:end -->)", re.S)


def ctest_tests(build):
    """[(name, [labels], command)] of every test CTest knows in BUILD."""
    out = subprocess.run(["ctest", "--test-dir", build, "--show-only=json-v1"], capture_output=True, text=True, check=True)
    tests = []
    for t in json.loads(out.stdout)["tests"]:
        labels = next((p["value"] for p in t.get("properties", []) if p["name"] == "LABELS"), [])
        tests.append((t["name"], labels, t.get("command", [])))
    return tests


def pytest_functions():
    """Test functions in tests/python (a parametrised function counts once)."""
    count = 0
    for path in glob.glob(os.path.join(ROOT, "tests", "python", "**", "test_*.py"), recursive=True):
        with open(path) as f:
            count += len(re.findall(r"^def test_", f.read(), re.M))
    return count


def counts_block(tests):
    labels = collections.Counter(label for _, ls, _ in tests for label in ls)
    gtest = [name for name, _, cmd in tests if cmd and cmd[0].endswith("_tests") and any(a.startswith("--gtest_filter") for a in cmd)]
    suites = {name.split(".")[0] for name in gtest}
    scripts = [name for name, _, cmd in tests if len(cmd) > 1 and cmd[-1].endswith(".sh") and "/tests/cli/" in cmd[-1]]
    fuzz = sorted(os.path.basename(p)[: -len("_fuzz.cpp")] for p in glob.glob(os.path.join(ROOT, "tests", "fuzz", "*_fuzz.cpp")))
    lines = [f"{len(tests)} CTest tests on the release build:", "", "| label | tests |", "|---|---:|"]
    lines += [f"| `{label}` | {n} |" for label, n in sorted(labels.items())]
    lines += ["",
              f"- GoogleTest: {len(gtest)} cases in {len(suites)} suites, one CTest test each (label `unit`);",
              f"- CLI scripts: {len(scripts)} (`tests/cli/`, one CTest test each);",
              f"- fuzz targets: {len(fuzz)} ({', '.join(fuzz)});",
              f"- pytest: {pytest_functions()} test functions in `tests/python/`, run as one CTest test (`python.pytest`)."]
    return "\n".join(lines)


def times_block(build, tests):
    path = os.path.join(build, "Testing", "Temporary", "CTestCostData.txt")
    if not os.path.exists(path):
        return "No measured times: CTest has not run on this build yet (n/a)."
    cost = {}
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) == 3:
                cost[parts[0]] = float(parts[2])
    when = datetime.datetime.fromtimestamp(os.path.getmtime(path), datetime.timezone.utc).strftime("%Y-%m-%d")
    per_label = collections.defaultdict(list)
    for name, labels, _ in tests:
        if name in cost:
            for label in labels:
                per_label[label].append((cost[name], name))
    lines = [f"Measured by CTest (its average per test over the runs it recorded, last run {when}, this project's "
             "2-core VM); a test with two labels counts in both:", "",
             "| label | seconds | slowest |", "|---|---:|---|"]
    for label, items in sorted(per_label.items()):
        slow = ", ".join(f"`{n}` {c:.0f} s" for c, n in sorted(items, reverse=True)[:3])
        lines.append(f"| `{label}` | {sum(c for c, _ in items):.0f} | {slow} |")
    total = sum(cost.get(name, 0) for name, _, _ in tests)
    lines += ["", f"All tests: {total:.0f} s of test time."]
    return "\n".join(lines)


def replace_blocks(text, blocks):
    found = set()

    def sub(m):
        found.add(m.group(2))
        return m.group(1) + blocks[m.group(2)].rstrip("\n") + "\n" + m.group(3)

    new = BLOCK.sub(sub, text)
    missing = set(blocks) - found
    if missing:
        raise SystemExit(f"testing_doc.py: {DOC} lacks the markers of {', '.join(sorted(missing))}")
    return new


def main(argv):
    if len(argv) not in (1, 2) or (len(argv) == 2 and argv[1] != "--check"):
        print("usage: testing_doc.py BUILD_DIR [--check]", file=sys.stderr)
        return 2
    build = argv[0]
    tests = ctest_tests(build)
    with open(DOC) as f:
        text = f.read()
    counts = counts_block(tests)
    if len(argv) == 2:
        now = re.search(r"<!-- testing-counts:begin[^>]*-->\n(.*?)<!-- testing-counts:end -->", text, re.S)
        if now and now.group(1).rstrip("\n") == counts:
            print("docs/testing.md: the suite's counts are current")
            return 0
        print("docs/testing.md is stale: its counts differ from CTest's; run scripts/update-testing-docs.sh. Now:")
        print(counts)
        return 1
    new = replace_blocks(text, {"testing-counts": counts, "testing-times": times_block(build, tests)})
    with open(DOC + ".tmp", "w") as f:
        f.write(new)
    os.replace(DOC + ".tmp", DOC)
    print(f"testing_doc.py: {DOC} updated")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
