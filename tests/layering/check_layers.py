#!/usr/bin/python3
"""Holds the repository to its layer tables: the includes of the C and C++ sources and the CMake
target links (cmake_links.py) to layers.txt, the imports of the Python package analysis/allocstress
(python_layers.py) to python_layers.txt, all beside this file.

Every `#include "..."` that names a file of the repository (resolved against the including file's
folder, then the repository root, the build's include folder) is checked: a file in folder F may
include files of F itself and of the folders layers.txt lists for F, nothing else.  Prints one line
per violation -- the file, the include (import, link) and the rule it breaks -- and exits 1 if
there is any.

usage: check_layers.py [REPOSITORY_ROOT]   (default: two folders above this file)"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cmake_links  # noqa: E402
import layer_table  # noqa: E402
import python_layers  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(HERE))
SOURCE_SUFFIXES = (".c", ".h", ".cpp", ".hpp")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def read_layers(path: str) -> dict[str, list[str]]:
    return layer_table.read_table(path)


def sources(root: str, folders) -> list[str]:
    out = []
    for folder in folders:
        for base, dirs, files in os.walk(os.path.join(root, folder)):
            dirs[:] = [d for d in dirs if not d.startswith(".")]
            out += [os.path.join(base, f) for f in files if f.endswith(SOURCE_SUFFIXES)]
    return sorted(out)


def resolve(root: str, including: str, name: str) -> str | None:
    for candidate in (os.path.join(os.path.dirname(including), name), os.path.join(root, name)):
        candidate = os.path.normpath(candidate)
        if os.path.isfile(candidate) and candidate.startswith(root + os.sep):
            return os.path.relpath(candidate, root)
    return None


def main() -> int:
    layers = read_layers(os.path.join(HERE, "layers.txt"))
    violations = []
    for path in sources(ROOT, layers):
        rel = os.path.relpath(path, ROOT)
        own = rel.split(os.sep)[0]
        allowed = layers[own]
        for name in INCLUDE.findall(open(path, errors="replace").read()):
            target = resolve(ROOT, path, name)
            if target is None:
                continue  # a system or generated header
            layer = target.split(os.sep)[0]
            if layer == own:
                continue
            if layer not in layers:
                violations.append(f"{rel}: includes \"{name}\" ({target}), which is in no layer of layers.txt")
            elif layer not in allowed:
                rule = ", ".join(allowed) if allowed else "nothing of the project's"
                violations.append(f"{rel}: includes \"{name}\" ({target}): {own}/ may include only {rule} (tests/layering/layers.txt)")
    python_violations, python_files = python_layers.violations(ROOT)
    cmake_violations, cmake_files = cmake_links.violations(ROOT, layers)
    violations += python_violations + cmake_violations
    for v in violations:
        print(v)
    print(f"layering: {len(violations)} violation(s) in {len(sources(ROOT, layers))} C/C++ files, {python_files} Python "
          f"modules, {cmake_files} CMake files", file=sys.stderr)
    return 1 if violations else 0


if __name__ == "__main__":
    sys.exit(main())
