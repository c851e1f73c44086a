#!/usr/bin/python3
"""Holds every shared rule to one definition: C++ owns it, Python calls it through _core.

Model: a rule (the interval of a median, the unstable mark, a ratio's interval, ...) is computed
in C++ and may be needed in Python to render figures the results file does not carry.  The table
rules.txt names, per rule, the one C++ definition and the Python names that stand for it:

    rule name | C++ definition: a regular expression | Python names: FILE:NAME, ...

and the check holds the tree to it:
  - the regular expression matches exactly one line of the tracked C++ sources (.hpp/.cpp/.h/.c
    outside tests/): the rule is defined once, and defined where the table says;
  - each Python name is defined (a def, or an assignment at module level) exactly once in the
    package analysis/allocstress, in FILE, and that definition refers to `_core` (a function whose
    body calls into the extension, a constant assigned from it): a wrapper, not a second copy;
  - the names of rules.txt's `removed` line are defined nowhere in the package (a rule that was
    given up, such as a second interval for one ratio, does not come back under its old name).
Prints one line per violation (the rule, the file and what is wrong) and exits 1 if there is any.

usage: check_rules.py [REPOSITORY_ROOT]   (default: two folders above this file)"""

import ast
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE_DIR = "analysis/allocstress"
CPP_SUFFIXES = (".hpp", ".cpp", ".h", ".c")


def read_rules(path: str) -> tuple[list[tuple[str, str, list[str]]], list[str]]:
    """([(rule, C++ pattern, [FILE:NAME...])], removed names); a malformed line ends the check."""
    rules, removed = [], []
    for number, line in enumerate(open(path, encoding="utf-8"), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        parts = [p.strip() for p in line.split("|")]
        if parts[0] == "removed" and len(parts) == 2:
            removed += [n.strip() for n in parts[1].split(",") if n.strip()]
            continue
        if len(parts) != 3 or not parts[0] or not parts[1]:
            sys.exit(f"{path}:{number}: expected 'rule | C++ pattern | FILE:NAME, ...' or 'removed | NAME, ...', got {line!r}")
        names = [n.strip() for n in parts[2].split(",") if n.strip()]
        if any(n.count(":") != 1 for n in names):
            sys.exit(f"{path}:{number}: Python names are FILE:NAME (FILE relative to {PACKAGE_DIR}), got {parts[2]!r}")
        rules.append((parts[0], parts[1], names))
    return rules, removed


def tracked_files(root: str) -> list[str]:
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "-z"], capture_output=True, check=True).stdout
        return sorted(f for f in out.decode().split("\0") if f)
    except (OSError, subprocess.CalledProcessError):
        files = []
        for base, dirs, names in os.walk(root):
            dirs[:] = [d for d in dirs if not d.startswith(".") and d != "build"]
            files += [os.path.relpath(os.path.join(base, n), root).replace(os.sep, "/") for n in names]
        return sorted(files)


def python_definitions(root: str, files: list[str]) -> dict[str, list[tuple[str, ast.AST]]]:
    """Name -> [(file relative to the package, its def or module-level assignment node)]."""
    out: dict[str, list[tuple[str, ast.AST]]] = {}
    prefix = PACKAGE_DIR + "/"
    for f in files:
        if not (f.startswith(prefix) and f.endswith(".py")):
            continue
        tree = ast.parse(open(os.path.join(root, f), encoding="utf-8").read(), f)
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                out.setdefault(node.name, []).append((f[len(prefix):], node))
        for node in tree.body:  # constants: module-level assignments only
            targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
            for t in targets:
                if isinstance(t, ast.Name):
                    out.setdefault(t.id, []).append((f[len(prefix):], node))
    return out


def refers_to_core(node: ast.AST) -> bool:
    """The definition reads something of the extension (`_core.x`, or a name imported from it)."""
    return any(isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "_core" for n in ast.walk(node))


def violations(root: str) -> list[str]:
    rules, removed = read_rules(os.path.join(HERE, "rules.txt"))
    files = tracked_files(root)
    cpp = [f for f in files if f.endswith(CPP_SUFFIXES) and not f.startswith(("tests/", "build/"))]
    lines = [(f, n, text) for f in cpp for n, text in enumerate(open(os.path.join(root, f), encoding="utf-8", errors="replace"), 1)]
    defs = python_definitions(root, files)
    out = []
    for rule, pattern, names in rules:
        found = [f"{f}:{n}" for f, n, text in lines if re.search(pattern, text)]
        if len(found) != 1:
            where = ", ".join(found) if found else "nowhere"
            out.append(f"rule '{rule}': its C++ definition /{pattern}/ must match exactly one line of the C++ sources, "
                       f"matched {len(found)}: {where}")
        for entry in names:
            file, name = entry.split(":")
            seen = defs.get(name, [])
            for where, node in seen:
                if where != file:
                    out.append(f"rule '{rule}': {PACKAGE_DIR}/{where}:{node.lineno} defines {name} again "
                               f"(its one definition is {PACKAGE_DIR}/{file}, a call into _core)")
                elif not refers_to_core(node):
                    out.append(f"rule '{rule}': {PACKAGE_DIR}/{where}:{node.lineno}: {name} computes the rule in Python; "
                               f"it must call the C++ definition through _core")
            if not any(where == file for where, _ in seen):
                out.append(f"rule '{rule}': {PACKAGE_DIR}/{file} does not define {name} (rules.txt names it)")
    for name in removed:
        for where, node in defs.get(name, []):
            out.append(f"removed rule: {PACKAGE_DIR}/{where}:{node.lineno} defines {name} again (rules.txt lists it as removed)")
    return out


def main() -> int:
    root = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(HERE))
    found = violations(root)
    for line in found:
        print(line)
    rules, _ = read_rules(os.path.join(HERE, "rules.txt"))
    print(f"rules: {len(found)} problem(s) in {len(rules)} rules", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
