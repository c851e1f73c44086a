"""Holds the imports of the Python package analysis/allocstress to its layer table (python_layers.txt).

Model: a *unit* is a subpackage of allocstress (stats, results, ...) or a module at the package
root (api, version, _core, ...); `__init__` is the root package itself.  Every import and
from-import of a package module, absolute or relative, at module level or inside a function, is
read with `ast` and resolved to the module it names.  A module may import its own unit and the
units the table lists for it, nothing else.  Three more rules:
  - no private name (a leading underscore, not a module) is imported from another module;
  - no import circle between modules (lazy imports inside functions count);
  - every unit is in the table.
violations(root) returns one line per violation: the file, what it imports and the rule."""

import ast
import os

from layer_table import read_table

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE = "allocstress"
PACKAGE_DIR = os.path.join("analysis", PACKAGE)


def package_modules(package_dir: str) -> dict[str, str]:
    """Dotted module name -> file (relative to package_dir) of every .py of the package."""
    out = {}
    for base, dirs, files in os.walk(package_dir):
        dirs[:] = sorted(d for d in dirs if not d.startswith((".", "__pycache__")))
        for f in sorted(files):
            if f.endswith(".py"):
                rel = os.path.relpath(os.path.join(base, f), package_dir)
                parts = [PACKAGE] + rel[:-3].split(os.sep)
                if parts[-1] == "__init__":
                    parts.pop()
                out[".".join(parts)] = rel
    return out


def unit_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def imported_modules(node, own: str, is_package: bool, known) -> list[tuple[str, str | None]]:
    """(module, name or None) of each package module an import statement names: for `from M
    import n`, M.n when that is a module (known(M.n)), else M with the name n."""
    if isinstance(node, ast.Import):
        return [(a.name, None) for a in node.names if a.name.split(".")[0] == PACKAGE]
    base = own.split(".") if is_package else own.split(".")[:-1]
    if node.level:
        base = base[:len(base) - (node.level - 1)]
        module = ".".join(base + ([node.module] if node.module else []))
    else:
        module = node.module or ""
    if module.split(".")[0] != PACKAGE:
        return []
    return [(f"{module}.{a.name}", None) if known(f"{module}.{a.name}") else (module, a.name) for a in node.names]


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def violations(root: str) -> tuple[list[str], int]:
    """(one line per violation, number of files read) of the package under root."""
    package_dir = os.path.join(root, PACKAGE_DIR)
    if not os.path.isdir(package_dir):
        return [], 0
    table = read_table(os.path.join(HERE, "python_layers.txt"), "unit may-import")
    modules = package_modules(package_dir)

    def known(name: str) -> bool:  # a module of the package (the built _core and _version included)
        return name in modules or (name.count(".") == 1 and unit_of(name) in table)

    out, graph = [], {}
    for module, rel in sorted(modules.items()):
        shown = os.path.join(PACKAGE_DIR, rel)
        own = unit_of(module)
        if own not in table:
            out.append(f"{shown}: {own} is in no layer of tests/layering/python_layers.txt")
            continue
        tree = ast.parse(open(os.path.join(package_dir, rel)).read(), shown)
        for node in ast.walk(tree):
            if not isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            for target, name in imported_modules(node, module, rel.endswith("__init__.py"), known):
                graph.setdefault(module, set()).add(target)
                what = target + (f" ({name})" if name else "")
                layer = unit_of(target)
                if name and name.startswith("_") and not name.startswith("__"):
                    out.append(f"{shown}:{node.lineno}: imports the private name {name} from {target}: make it public "
                               "where it belongs, or move the code")
                if layer == own:
                    continue
                if layer not in table:
                    out.append(f"{shown}:{node.lineno}: imports {what}, which is in no layer of tests/layering/python_layers.txt")
                elif layer not in table[own]:
                    rule = ", ".join(table[own]) if table[own] else "nothing of the package"
                    out.append(f"{shown}:{node.lineno}: imports {what}: {own} may import only {rule} "
                               "(tests/layering/python_layers.txt)")
    for component in circles(graph):
        out.append(f"{PACKAGE_DIR}: import circle: {' <-> '.join(component)}")
    return out, len(modules)
