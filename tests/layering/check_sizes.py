#!/usr/bin/python3
"""Holds the sources to the project's size rules: no file over 400 lines, no folder over 20 concepts.

A source file is a tracked .c .h .cpp .hpp .py .sh .cmake file or a CMakeLists.txt.  A folder's
concepts are the stems of its source files (foo.hpp, foo.cpp and foo.c are one concept; a Python
module is one) plus its subfolders that hold any tracked file (a subfolder or subpackage is one
concept, whatever it holds: its own files count in it).  CMakeLists.txt counts for the line rule
only.  Left out: build/, tests/data/, the fuzzers' seed corpora, hidden folders and generated files
(a "Generated ... do not edit" line at the top).  Files are git's tracked ones where ROOT is a git
checkout, else every file below ROOT.  Prints one line per file or folder over a limit and exits 1
if there is any.

usage: check_sizes.py [REPOSITORY_ROOT]   (default: two folders above this file)"""

import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(HERE))
MAX_LINES = 400
MAX_CONCEPTS = 20
SOURCE_SUFFIXES = (".c", ".h", ".cpp", ".hpp", ".py", ".sh", ".cmake")
SKIPPED = ("build/", "tests/data/", "tests/fuzz/seeds/")


def tracked_files(root: str) -> list[str]:
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "-z"], capture_output=True, check=True).stdout
        files = [f for f in out.decode().split("\0") if f]
    except (OSError, subprocess.CalledProcessError):
        files = []
        for base, dirs, names in os.walk(root):
            dirs[:] = [d for d in dirs if not d.startswith(".")]
            files += [os.path.relpath(os.path.join(base, n), root) for n in names]
    return sorted(f.replace(os.sep, "/") for f in files
                  if not f.startswith(SKIPPED) and not any(p.startswith(".") for p in f.split("/")))


def is_source(path: str) -> bool:
    name = path.rsplit("/", 1)[-1]
    return name == "CMakeLists.txt" or name.endswith(SOURCE_SUFFIXES)


def generated(text: str) -> bool:
    top = "\n".join(text.splitlines()[:3]).lower()
    return "generated" in top and "do not edit" in top


def main() -> int:
    files = tracked_files(ROOT)
    problems = []
    stems: dict[str, set[str]] = {}      # folder -> its concepts
    has_source: set[str] = set()         # folders holding a source file
    for path in files:
        folder, _, name = path.rpartition("/")
        # every tracked file makes each folder on its way a concept of its parent
        parts = path.split("/")[:-1]
        for depth in range(1, len(parts) + 1):
            parent = "/".join(parts[:depth - 1])
            stems.setdefault(parent, set()).add(parts[depth - 1] + "/")
        if not is_source(path) or not os.path.isfile(os.path.join(ROOT, path)):
            continue
        text = open(os.path.join(ROOT, path), errors="replace").read()
        if generated(text):
            continue
        lines = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
        if lines > MAX_LINES:
            problems.append(f"{path}: {lines} lines (at most {MAX_LINES}: split it by what it holds)")
        if name != "CMakeLists.txt":
            stems.setdefault(folder, set()).add(name.split(".", 1)[0])
            has_source.add(folder)
    for folder in sorted(has_source):
        concepts = stems.get(folder, set())
        if len(concepts) > MAX_CONCEPTS:
            subfolders = sum(1 for c in concepts if c.endswith("/"))
            problems.append(f"{folder or '.'}/: {len(concepts)} concepts ({len(concepts) - subfolders} file stems, "
                            f"{subfolders} subfolders; at most {MAX_CONCEPTS}: group its files into subfolders)")
    print("".join(p + "\n" for p in problems), end="")
    sources = sum(1 for f in files if is_source(f))
    sys.stderr.write(f"sizes: {len(problems)} problem(s) in {sources} source files\n")
    return int(bool(problems))


if __name__ == "__main__":
    sys.exit(main())
