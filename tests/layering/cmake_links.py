"""Holds the CMake target links to the C++ layer table (layers.txt): the libraries a target of a
layer's folder links may be only libraries of that layer or of the layers it may include.

Model: every CMakeLists.txt and *.cmake file of the repository (build and hidden folders left out)
is read with its comments removed.  A library belongs to the layer of the folder whose CMake file
defines it (add_library, pybind11_add_module: allocstress_core is analysis's); a library defined
outside every layer (allocstress_warnings, at the top) or outside the project (Boost::headers) is
not checked.  For each target_link_libraries(T ...) whose T is defined in a layer's folder, each
project library named must be of T's layer or one that layer may include.
violations(root, layers) returns one line per violation: the file, the target, the library, the rule."""

import os
import re

CALL = re.compile(r"\b(add_library|add_executable|pybind11_add_module|target_link_libraries)\s*\(([^)]*)\)", re.S | re.I)
COMMENT = re.compile(r"#[^\n]*")


def cmake_files(root: str) -> list[str]:
    out = []
    for base, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and not (base == root and d == "build"))
        out += [os.path.join(base, f) for f in sorted(files) if f == "CMakeLists.txt" or f.endswith(".cmake")]
    return out


def calls(path: str) -> list[tuple[str, list[str], int]]:
    """(command, arguments, line) of the calls the check reads, in file order."""
    text = COMMENT.sub("", open(path, errors="replace").read())
    return [(m.group(1).lower(), m.group(2).split(), text.count("\n", 0, m.start()) + 1) for m in CALL.finditer(text)]


def violations(root: str, layers: dict[str, list[str]]) -> tuple[list[str], int]:
    """(one line per violation, number of CMake files read)."""
    files = cmake_files(root)
    layer_of = {}  # target -> the layer of the folder that defines it
    for path in files:
        folder = os.path.relpath(path, root).split(os.sep)[0]
        if folder not in layers:
            continue
        for command, args, _ in calls(path):
            if command != "target_link_libraries" and args and "$" not in args[0]:
                layer_of[args[0]] = folder
    out = []
    for path in files:
        rel = os.path.relpath(path, root)
        for command, args, line in calls(path):
            if command != "target_link_libraries" or not args or args[0] not in layer_of:
                continue
            own = layer_of[args[0]]
            for library in args[1:]:
                layer = layer_of.get(library)
                if layer is None or layer == own or layer in layers[own]:
                    continue
                rule = ", ".join(layers[own]) if layers[own] else "nothing of the project's"
                out.append(f"{rel}:{line}: {args[0]} links {library} ({layer}/): {own}/ may link only {rule} "
                           "(tests/layering/layers.txt)")
    return out, len(files)
