"""The misuse battery (`allocstress misuse`, `allocstress matrix --misuse`; run/misuse_battery.hpp):
a results file's top-level `safety` section read into plain rows, and `allocstress.safety(...)`,
the same as one pandas DataFrame.

The section (written by C++, read here as it is; no figure it carries is recomputed):
  probe, timeout_s, property_processes, elapsed_s
  outcome_classes  [{name, symbol, meaning}]: the legend, in the order C++ lists it
  cases            [{name, group, description, scored}]: every case of the probe; scored false =
                   an edge case (behaviour the C standard leaves to the implementation): shown, not counted
  allocators       [{allocator, outcomes: [{case, outcome, detail, message}], conforming (null when
                   not run), nonconforming (the reason, when conforming is false), not_run (why the
                   battery could not run under it; then outcomes is []), caught, scored (the
                   scored cases caught of those run: C++'s figures), properties ({processes,
                   address_entropy_bits, placement_entropy_bits, guard_page {bytes: what}, inline_metadata}
                   or {"n/a": reason})}]
A case is caught when its outcome class says `caught` (C++ owns that rule: detected and error returned).

A non-conforming allocator (it breaks malloc's contract, e.g. misaligned blocks) is measured but
left out of every ranking: nonconforming_allocators() names them from the records' `nonconforming`,
the plan's allocators and the section, as the C++ verdict does (results/tables/safety_tables.cpp)."""

from __future__ import annotations

import os

import pandas as pd

from .loading import ResultsError, Runs, load_runs

NOT_RUN_SYMBOL = "–"  # a case with no outcome for the allocator (the battery did not run it)
FRAME_COLUMNS = ["run", "allocator", "case", "group", "scored", "outcome", "symbol", "caught", "detail", "message"]
SCORE_COLUMNS = ["run", "allocator", "caught", "scored", "conforming", "nonconforming", "not_run"]
PROPERTY_COLUMNS = ["run", "allocator", "processes", "address_entropy_bits", "placement_entropy_bits", "guard_page",
                    "inline_metadata", "n/a"]


def is_caught(safety: dict, outcome) -> bool:
    """Whether an outcome name counts as caught, as the section's outcome classes say."""
    return any(c.get("name") == outcome and c.get("caught") is True for c in safety.get("outcome_classes", []))


def section(document: dict, name: str = "results") -> dict | None:
    """The document's `safety` section, or None when it has none.  ResultsError (one line naming
    `name`) when it is there but not of the shape above: not an object, or its cases, allocators,
    outcome classes or an allocator's outcomes not lists of objects."""
    found = document.get("safety")
    if found is None:
        return None
    if not isinstance(found, dict):
        raise ResultsError(f"{name}: its 'safety' section is not an object (the file is damaged)")
    for key in ("cases", "allocators", "outcome_classes"):
        if not _objects(found.get(key, [])):
            raise ResultsError(f"{name}: safety.{key} is not a list of objects (the file is damaged)")
    for i, a in enumerate(found.get("allocators", [])):
        if not isinstance(a.get("allocator"), str) or not _objects(a.get("outcomes", [])):
            raise ResultsError(f"{name}: safety.allocators[{i}] lacks a valid 'allocator' or 'outcomes' (the file is damaged)")
    return found


def _objects(value) -> bool:
    return isinstance(value, list) and all(isinstance(v, dict) for v in value)


def symbols(safety: dict) -> dict[str, str]:
    """outcome name -> its symbol, from the section's own legend."""
    return {c.get("name", ""): str(c.get("symbol", "?")) for c in safety.get("outcome_classes", [])}


def legend(safety: dict) -> list[tuple[str, str, str]]:
    """[(symbol, name, meaning)] of the outcome classes, in the section's order."""
    return [(str(c.get("symbol", "?")), str(c.get("name", "?")), str(c.get("meaning", ""))) for c in safety.get("outcome_classes", [])]


def cases(safety: dict) -> list[dict]:
    """[{name, group, description, scored}] in the section's order (scored defaults to true)."""
    return [{"name": str(c.get("name", "?")), "group": str(c.get("group", "")), "description": str(c.get("description", "")),
             "scored": bool(c.get("scored", True))} for c in safety.get("cases", [])]


def allocators(safety: dict) -> list[str]:
    return [a["allocator"] for a in safety.get("allocators", [])]


def outcome_rows(safety: dict) -> list[dict]:
    """One row per allocator x case of the section (allocators, then cases, in its order):
    allocator, case, group, scored, outcome (None where the allocator has no outcome for the case),
    symbol (NOT_RUN_SYMBOL then), caught (is_caught; counted only where scored),
    detail and message (the allocator's own words, arbitrary text; "" when absent)."""
    marks, listed = symbols(safety), cases(safety)
    rows = []
    for a in safety.get("allocators", []):
        found = {o.get("case"): o for o in a.get("outcomes", [])}
        for c in listed:
            o = found.get(c["name"], {})
            outcome = o.get("outcome")
            rows.append({"allocator": a["allocator"], "case": c["name"], "group": c["group"], "scored": c["scored"],
                         "outcome": outcome, "symbol": marks.get(outcome, "?") if outcome is not None else NOT_RUN_SYMBOL,
                         "caught": is_caught(safety, outcome), "detail": str(o.get("detail") or ""),
                         "message": str(o.get("message") or "")})
    return rows


def outcomes_of(safety: dict, allocator: str) -> dict[str, str]:
    """case -> outcome name of one allocator (cases it has no outcome for are absent)."""
    for a in safety.get("allocators", []):
        if a["allocator"] == allocator:
            return {str(o.get("case")): str(o.get("outcome")) for o in a.get("outcomes", []) if o.get("outcome") is not None}
    return {}


def score_rows(safety: dict) -> list[dict]:
    """Per allocator: allocator, caught and scored (the file's figures), conforming (True, False,
    or None when the battery did not run), nonconforming (the reason, "" unless conforming is
    false), not_run (why the battery could not run, "" when it ran)."""
    out = []
    for a in safety.get("allocators", []):
        conforming = a.get("conforming")
        out.append({"allocator": a["allocator"], "caught": a.get("caught"), "scored": a.get("scored"),
                    "conforming": None if conforming is None else bool(conforming),
                    "nonconforming": str(a.get("nonconforming") or ("non-conforming" if conforming is False else "")),
                    "not_run": str(a.get("not_run") or "")})
    return out


def score_text(row: dict) -> str:
    """'caught N of M', or 'not run' (score_rows row)."""
    if row["not_run"]:
        return "not run"
    return f"caught {row['caught'] if row['caught'] is not None else '?'} of {row['scored'] if row['scored'] is not None else '?'}"


def property_rows(safety: dict) -> list[dict]:
    """Per allocator: allocator, processes, address_entropy_bits, placement_entropy_bits (None
    where the file has null), guard_page ({block bytes as int: "guard" | "unmapped" | "none"},
    ascending), inline_metadata, and "n/a" (why there are no properties, "" when there are)."""
    out = []
    for a in safety.get("allocators", []):
        p = a.get("properties") if isinstance(a.get("properties"), dict) else {"n/a": "no properties recorded"}
        guard = p.get("guard_page") if isinstance(p.get("guard_page"), dict) else {}
        out.append({"allocator": a["allocator"], "processes": p.get("processes"),
                    "address_entropy_bits": _number(p.get("address_entropy_bits")),
                    "placement_entropy_bits": _number(p.get("placement_entropy_bits")),
                    "guard_page": {int(k) if str(k).isdigit() else k: str(v) for k, v in sorted(guard.items(), key=_size_key)},
                    "inline_metadata": str(p.get("inline_metadata", "")) if "n/a" not in p else "",
                    "n/a": str(p["n/a"]) if "n/a" in p else ""})
    return out


def _number(value):
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _size_key(item) -> tuple:
    key = str(item[0])
    return (0, int(key), "") if key.isdigit() else (1, 0, key)


def size_text(size) -> str:
    """Bytes as the C++ table writes them: '256 KiB', '1 MiB', '100 B'."""
    if not isinstance(size, int):
        return str(size)
    return f"{size // 1048576} MiB" if size % 1048576 == 0 else f"{size // 1024} KiB" if size % 1024 == 0 else f"{size} B"


def nonconforming_allocators(document: dict) -> dict[str, str]:
    """allocator -> why it is non-conforming, from the records' `nonconforming`, the plan's
    allocators (context.plan.allocators[i].nonconforming, "" = conforming) and the safety section
    (conforming false), in that order of precedence for the reason."""
    out: dict[str, str] = {}
    for entry in document.get("benchmarks", []):
        reason = entry.get("nonconforming") if isinstance(entry, dict) else None
        if isinstance(reason, str) and reason and entry.get("allocator") not in out:
            out[str(entry.get("allocator"))] = reason
    plan = (document.get("context") or {}).get("plan") or {}
    for a in plan.get("allocators") or []:
        if isinstance(a, dict) and isinstance(a.get("nonconforming"), str) and a["nonconforming"]:
            out.setdefault(str(a.get("name")), a["nonconforming"])
    safety = document.get("safety")
    if isinstance(safety, dict) and _objects(safety.get("allocators", [])):
        for a in safety["allocators"]:
            if a.get("conforming") is False:
                out.setdefault(str(a.get("allocator")), str(a.get("nonconforming") or "non-conforming"))
    return out


def nonconforming_by_run(runs: Runs) -> dict[tuple[str, str], str]:
    """(run, allocator) -> reason, over every document of `runs` (nonconforming_allocators)."""
    return {(run, name): reason for run, doc in zip(runs.run_names(), runs.documents)
            for name, reason in nonconforming_allocators(doc).items()}


def sections(runs: Runs) -> list[tuple[str, dict]]:
    """[(run, section)] of the runs that have a safety section, in file order (section() checks each)."""
    out = []
    for run, path, doc in zip(runs.run_names(), runs.paths, runs.documents):
        found = section(doc, path)
        if found is not None:
            out.append((run, found))
    return out


def _named_sections(source) -> list[tuple[str, dict]]:
    """[(run, section)] of `source`: a Runs, a results document (dict; run "results"), or what
    allocstress.load accepts (a path, a glob or a list of them)."""
    if isinstance(source, Runs):
        return sections(source)
    if isinstance(source, dict):
        found = section(source)
        return [] if found is None else [("results", found)]
    from .frame import resolve_paths
    return sections(load_runs(resolve_paths(source)))


def _require(named: list, source) -> list:
    if not named:
        what = source if isinstance(source, (str, os.PathLike)) else "the results given"
        raise ResultsError(f"{what}: no safety section (run `allocstress misuse` or `allocstress matrix --misuse`)")
    return named


def safety_frame(source) -> pd.DataFrame:
    """`allocstress.safety(source)`: one row per run x allocator x case (FRAME_COLUMNS: run,
    allocator, case, group, scored, outcome, symbol, caught, detail, message; outcome None and
    symbol NOT_RUN_SYMBOL where the allocator has no outcome for the case).  `source`: a path,
    glob or list as for allocstress.load, a results document (dict) or a loading.Runs.
    ResultsError when no file given has a safety section, or one is damaged."""
    rows = [{"run": run, **r} for run, s in _require(_named_sections(source), source) for r in outcome_rows(s)]
    frame = pd.DataFrame(rows, columns=FRAME_COLUMNS)
    frame["scored"] = frame["scored"].astype(bool)
    frame["caught"] = frame["caught"].astype(bool)
    return frame


def scores(source) -> pd.DataFrame:
    """Per run x allocator (SCORE_COLUMNS): caught of scored, conformance, why not run (score_rows)."""
    rows = [{"run": run, **r} for run, s in _require(_named_sections(source), source) for r in score_rows(s)]
    return pd.DataFrame(rows, columns=SCORE_COLUMNS)


def properties(source) -> pd.DataFrame:
    """Per run x allocator (PROPERTY_COLUMNS): the sampled properties (property_rows)."""
    rows = [{"run": run, **r} for run, s in _require(_named_sections(source), source) for r in property_rows(s)]
    return pd.DataFrame(rows, columns=PROPERTY_COLUMNS)

