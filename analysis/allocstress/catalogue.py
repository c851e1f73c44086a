"""The C++ workload registry and metric catalogue (cells/workload_registry.hpp,
cells/metrics/metric_catalogue.hpp) as the rest of the package reads them: which workloads exist, which
table each belongs in, and what every metric a record carries is called, in which unit, with how
many decimals and what it means.  Nothing here defines a workload or a metric: both come from
allocstress._core, read once on first use; the other modules derive their lists and column
documentation from these functions instead of writing them again.

A metric lives in one of three places of a record (its `place`): a top-level field ("record"),
a field of `workload_metrics`, or a field of `placement_metrics` (data structures); loading.py
flattens the last two into columns "workload_metrics.NAME" and "placement_metrics.NAME"."""

from __future__ import annotations

from functools import lru_cache

from . import _core

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
    """The registry entry of `name` (BASE or BASE:LABEL), or None for a workload this build does not know."""
    base = base_name(name)
    return next((w for w in workloads() if w["name"] == base), None)


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
