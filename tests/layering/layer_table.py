"""Reads a layer table (layers.txt, python_layers.txt): one line per layer, its name then the
layers it may use ('-' for none); '#' starts a comment.  A malformed line ends the check with the
file, the line and what was expected."""

import sys


def read_table(path: str, what: str = "folder may-include") -> dict[str, list[str]]:
    """layer -> the layers it may use, in the table's order."""
    table = {}
    for number, line in enumerate(open(path), 1):
        words = line.split("#", 1)[0].split()
        if not words:
            continue
        if len(words) < 2:
            sys.exit(f"{path}:{number}: expected '{what}...' (or '-' for nothing), got {line.strip()!r}")
        table[words[0]] = [] if words[1:] == ["-"] else words[1:]
    return table
