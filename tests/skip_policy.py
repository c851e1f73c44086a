#!/usr/bin/env python3
"""Skips the test suite may take, and the check that no other skip passes silently.

Every skip has an id:
  - a CTest test name (a GoogleTest case is `Suite.Case`, a script `cli.NAME`, `slurm.smoke`),
    from CTest's JUnit file: a whole test skipped (GTEST_SKIP, exit 77);
  - `unit.sanitized:Suite.Case`: a case skipped inside the sanitized build's one unit test;
  - `python:FILE::TEST`: a pytest test skipped inside `python.pytest`;
  - `cli.NAME:PART`: a part of a CLI script skipped (tests/cli/lib.sh `skip_part`).
Parts of tests record their skips in the file named by ALLOCSTRESS_SKIP_LOG (one "ID<TAB>REASON"
line each; scripts/run-tests.sh sets it); CTest's JUnit file gives the whole-test skips.

tests/skips.allowed lists the skips accepted, each with its reason: "PATTERN  REASON" (an
fnmatch pattern over ids, two or more spaces, the reason).  `check` prints every skip of a run,
allowed or not; under CI=true (or --strict) an unexplained skip fails the run (exit 1), naming it.

Usage:
  skip_policy.py print                          the allowlist, as the test run shows it
  skip_policy.py record ID REASON               a part of a test was skipped (appends to the log)
  skip_policy.py record-gtest PREFIX XML...     the skipped cases of GoogleTest XML reports
  skip_policy.py check [--strict] [--junit FILE] [--log FILE]
"""

import fnmatch
import os
import re
import sys
import xml.etree.ElementTree as ET

ALLOWLIST = os.path.join(os.path.dirname(os.path.abspath(__file__)), "skips.allowed")


def read_allowlist(path=ALLOWLIST):
    """[(pattern, reason)]; a line without a reason is an error, since the reason is the point."""
    entries = []
    with open(path) as f:
        for number, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            parts = re.split(r"\s{2,}|\t", line.strip(), maxsplit=1)
            if len(parts) != 2 or not parts[1].strip():
                raise SystemExit(f"{path}:{number}: an entry is 'PATTERN  REASON' (two spaces or a tab between): {line!r}")
            entries.append((parts[0], parts[1].strip()))
    return entries


def allowed_reason(skip_id, entries):
    """The allowlist's reason for this id, or None."""
    for pattern, reason in entries:
        if fnmatch.fnmatchcase(skip_id, pattern):
            return reason
    return None


def record(skip_id, reason, log=None):
    """Notes a skipped part of a test: printed always, appended to the log when there is one."""
    reason = " ".join(reason.split())
    print(f"skipped: {skip_id}: {reason}")
    log = log or os.environ.get("ALLOCSTRESS_SKIP_LOG")
    if log:
        with open(log, "a") as f:
            f.write(f"{skip_id}\t{reason}\n")


def junit_skips(path):
    """[(test name, reason)] of the tests CTest reports as skipped in its JUnit file."""
    skips = []
    for case in ET.parse(path).getroot().iter("testcase"):
        if case.find("skipped") is None:
            continue
        out = case.findtext("system-out") or ""
        # GoogleTest prints "FILE:LINE: Skipped" then the message; a script prints its own "SKIP: why".
        why = re.search(r": Skipped\n(.*)", out) or re.search(r"^SKIP: (.*)$", out, re.M)
        skips.append((case.get("name"), why.group(1) if why else case.find("skipped").get("message", "")))
    return skips


def gtest_skips(path):
    """[(Suite.Case, reason)] skipped in a GoogleTest XML report (--gtest_output=xml)."""
    skips = []
    for case in ET.parse(path).getroot().iter("testcase"):
        node = case.find("skipped")
        if node is not None or case.get("result") == "skipped":
            reason = (node.get("message", "") if node is not None else "").split("\n")[-1]
            skips.append((f"{case.get('classname')}.{case.get('name')}", re.sub(r"^.*: Skipped\s*", "", reason)))
    return skips


def log_skips(path):
    if not path or not os.path.exists(path):
        return []
    with open(path) as f:
        return [tuple(line.rstrip("\n").split("\t", 1)) for line in f if "\t" in line]


def check(junit, log, strict):
    entries = read_allowlist()
    skips = (junit_skips(junit) if junit else []) + log_skips(log)
    unexplained = []
    for skip_id, why in skips:
        reason = allowed_reason(skip_id, entries)
        if reason is None:
            unexplained.append(skip_id)
            print(f"skip NOT in tests/skips.allowed: {skip_id}: {why}")
        else:
            print(f"skip allowed: {skip_id}: {reason}")
    print(f"skips: {len(skips)} in all, {len(skips) - len(unexplained)} allowed, {len(unexplained)} unexplained")
    if unexplained and strict:
        print(f"FAILED: {len(unexplained)} unexplained skip(s) under CI: {', '.join(unexplained)} "
              f"(install what it needs, or list it with its reason in tests/skips.allowed)")
        return 1
    return 0


def main(argv):
    if not argv:
        print(__doc__.split("Usage:")[1], file=sys.stderr)
        return 2
    command, args = argv[0], argv[1:]
    if command == "print":
        entries = read_allowlist()
        print(f"skips allowed on CI (tests/skips.allowed, {len(entries)}):")
        for pattern, reason in entries:
            print(f"  {pattern}: {reason}")
        return 0
    if command == "record" and len(args) == 2:
        record(*args)
        return 0
    if command == "record-gtest" and len(args) >= 1:
        for path in args[1:]:
            for name, why in gtest_skips(path):
                record(args[0] + name, why)
        return 0
    if command == "check":
        strict = os.environ.get("CI") == "true"
        files = {"--junit": None, "--log": None}
        rest = list(args)
        while rest:
            flag = rest.pop(0)
            if flag == "--strict":
                strict = True
            elif flag in files and rest:
                files[flag] = rest.pop(0)
            else:
                print(f"skip_policy.py check: unexpected {flag!r} (accepted: --strict, --junit FILE, --log FILE)", file=sys.stderr)
                return 2
        return check(files["--junit"], files["--log"], strict)
    print(f"skip_policy.py: unknown command or arguments: {' '.join(argv)} (accepted: print, record ID REASON, "
          "record-gtest PREFIX XML..., check [--strict] [--junit FILE] [--log FILE])", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
