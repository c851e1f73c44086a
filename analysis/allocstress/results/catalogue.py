"""The C++ workload registry and metric catalogue (cells/workload_registry.hpp,
cells/metrics/metric_catalogue.hpp) as the rest of the package reads them: which workloads exist, which
table each belongs in, and what every metric a record carries is called, in which unit, with how
many decimals and what it means.  Nothing here defines a workload or a metric: both come from
allocstress._core, read once on first use; the other modules derive their lists and column
documentation from these functions instead of writing them again.

Program workloads are named by their definitions, not by the registry: "prog-lua" (the shipped
programs file), a user's programs-file entry, `allocstress bench --name churn`.  Each is an
instance of the registry's one `program` entry, which C++ resolves once the name is declared
(workload(), is_program()); what a program's definition adds -- the figures it reads from its
output, with their unit and direction -- is read from its records (definition_metrics()).

A metric lives in one of three places of a record (its `place`): a top-level field ("record"),
a field of `workload_metrics`, or a field of `placement_metrics` (data structures); loading.py
flattens the last two into columns "workload_metrics.NAME" and "placement_metrics.NAME"."""

from __future__ import annotations

import json
from functools import lru_cache

import allocstress._core as _core

FALLBACK_HEADLINE = "net_cycles_per_pair"  # the headline of a workload this build does not know
MIB = 1048576.0


@lru_cache(maxsize=None)
def workloads() -> tuple[dict, ...]:
    """Every registry entry (name, family, summary, void_baseline, table, companions, metrics, ...),
    in registry order."""
    return tuple(_core.workloads())


@lru_cache(maxsize=None)
def metric_entries() -> tuple[dict, ...]:
    """Every catalogue entry (name, place, unit, label, decimals, mib, definition, headline,
    in_table, workloads), in catalogue order."""
    return tuple(_core.metric_catalogue())


def base_name(name: str) -> str:
    """The registry name of a workload instance: "replay" for "replay:prog-python3" (a label
    tells instances of one workload apart, cells/workload_registry.hpp)."""
    return name.split(":", 1)[0]


def workload(name: str) -> dict | None:
    """The registry entry of `name` (BASE or BASE:LABEL, or a program's name), or None for a
    workload this build does not know.  C++ resolves the name (_core.resolve_workload, i.e.
    find_workload): a program workload -- "prog-lua", a programs file's "jq-sort", `allocstress
    bench --name churn` -- is an instance of the registry's one `program` entry once declared:
    the shipped programs file's names are declared when _core is imported, the others by reading
    a results file that carries them (a record whose params hold a `program` definition, or
    context.plan.workload_params[NAME].program; cells/programs/program_workloads.hpp)."""
    resolved = _core.resolve_workload(name)
    return None if resolved is None else _by_name().get(resolved)


@lru_cache(maxsize=None)
def _by_name() -> dict[str, dict]:
    return {w["name"]: w for w in workloads()}


def entry_name(name: str) -> str | None:
    """The name of the registry entry `name` resolves to ("program" for "prog-lua" or "churn",
    "replay" for "replay:prog-lua"), or None."""
    entry = workload(name)
    return entry["name"] if entry else None


def is_program(name: str) -> bool:
    """Whether `name` is a program workload (it resolves to the registry's `program` entry; C++'s
    is_program_workload).  A model instance "replay:prog-lua" is not: its entry is replay."""
    return bool(_core.is_program_workload(name))


def declared_programs() -> tuple[str, ...]:
    """Every program workload name this process knows: the shipped file's and those of the results
    read so far (sorted)."""
    return tuple(_core.declared_programs())


def declare_programs(document: dict) -> None:
    """Declares the program workloads of a results document built in Python (results read with
    loading.read_results are declared by the C++ reader already)."""
    _core.declare_programs(json.dumps(document))


def program_definition(records) -> dict:
    """The program definition (params.program) of the first of `records` (iteration records of one
    program workload) that carries one; {} when none does (a file of schema older than programs as data)."""
    for r in records:
        definition = (r.get("params") or {}).get("program") if isinstance(r, dict) else None
        if isinstance(definition, dict):
            return definition
    return {}


def definition_metrics(records) -> dict[str, dict]:
    """name -> {name, unit, better, regex, combine, stream} of the figures a program's definition
    reads from its output (params.program.metrics, as the C++ verdict ranks them), each a field of
    the records' workload_metrics; the unit from the definition, else from the record's
    program.metric_units; `better` "higher" or "lower" (the definition's default: higher).  {} for
    a workload that is not a program."""
    records = list(records)
    definition = program_definition(records)
    units: dict[str, str] = {}
    for r in records:
        given = ((r.get("program") or {}).get("metric_units") or {}) if isinstance(r, dict) else {}
        units.update({k: v for k, v in given.items() if isinstance(v, str) and v and k not in units})
    out = {}
    for m in definition.get("metrics") or []:
        if isinstance(m, dict) and isinstance(m.get("name"), str):
            out[m["name"]] = {"name": m["name"], "unit": m.get("unit") or units.get(m["name"], ""),
                              "better": "lower" if m.get("better") == "lower" else "higher",
                              "regex": m.get("regex", ""), "combine": m.get("combine", "last"),
                              "stream": m.get("stream", "stdout")}
    return out


def workload_names(**match) -> tuple[str, ...]:
    """Names of the registry entries whose fields equal `match` (e.g. table="structure",
    family="phases", void_baseline=False), in registry order."""
    return tuple(w["name"] for w in workloads() if all(w.get(k) == v for k, v in match.items()))


def metrics(place: str | None = None) -> dict[str, dict]:
    """name -> catalogue entry of the metrics in `place` (every place: None), in catalogue order."""
    return {m["name"]: m for m in metric_entries() if place is None or m["place"] == place}


def metric(name: str, place: str | None = None) -> dict | None:
    """The catalogue entry of `name` (in `place`, when given), or None."""
    return next((m for m in metric_entries() if m["name"] == name and place in (None, m["place"])), None)


def column_of(name: str) -> str:
    """The `cells` column (loading.py) holding metric `name`: NAME for a record field,
    PLACE.NAME for a field of workload_metrics or placement_metrics; NAME when not catalogued."""
    m = metric(name)
    return name if m is None or m["place"] == "record" else f"{m['place']}.{name}"


def headline_metric(name: str) -> str:
    """The metric the workload's allocators are ranked by (the catalogue's headline metric it
    carries); FALLBACK_HEADLINE for a workload the registry does not know."""
    entry = workload(name)
    carried = set(entry["metrics"]) if entry else set()
    return next((m["name"] for m in metric_entries() if m["headline"] and m["name"] in carried), FALLBACK_HEADLINE)


def number_format(m: dict) -> str:
    """The format of the catalogued metric's values (after to_display): `decimals` decimals, as
    the C++ Markdown tables show them."""
    return "{:.%df}" % m["decimals"]


def to_display(m: dict, value: float) -> float:
    """The value as a table shows it: bytes in MiB where the catalogue says so."""
    return value / MIB if m["mib"] else value


def column_doc(name: str, place: str = "record", how: str = "Median over repetitions of",
               note: str = "") -> tuple[str, str, str]:
    """(column, unit, meaning) of a table column that is the median of a catalogued metric: unit
    and definition from the catalogue, `how` the column summarises it, `note` added after."""
    m = metric(name, place)
    if m is None:  # cannot happen for the metrics this package names; a clear message if it does
        raise KeyError(f"metric '{name}' ({place}) is not in the metric catalogue of allocstress._core")
    meaning = f"{how} {name}: {m['definition']}" + (f"  {note}" if note else "")
    return (name, m["unit"], meaning)


def shown(name: str, place: str | None = None) -> tuple[str, str]:
    """(column header, number format) of a catalogued metric's column, as the C++ tables show it."""
    m = metric(name, place)
    return m["label"], number_format(m)
