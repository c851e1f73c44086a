"""A Google Benchmark view of a results file, so that Google Benchmark's `tools/compare.py` compares
the allocator's own cost instead of the raw time.

A results file follows Google Benchmark's layout, but its `real_time` is the raw ns per pair
*with* the harness cost inside (55-90 ns of loop, slot array and random numbers on the project's
VM), so compare.py, which reads `real_time` and `cpu_time`, dilutes every change: a -49% change
of the net cost shows as about -5%.  The view is a JSON file in Google Benchmark's documented
output format (a `context` object and a `benchmarks` array) in which `real_time` and `cpu_time`
of every entry are the headline figure of the workload (or `metric`) in nanoseconds:

- one `iteration` entry per ok, undisturbed timing repetition of every cell, named as the cell's
  repetitions are (`<workload>/<allocator>/threads:<n>`), with `run_type`, `repetitions`,
  `repetition_index` (renumbered 0..n-1 over the kept repetitions), `threads`, `iterations`,
  `family_index`, `per_family_instance_index`, `time_unit` "ns" and a `label` naming the figure;
- per cell with >= 2 repetitions, the aggregates Google Benchmark writes by default: `_mean`,
  `_median`, `_stddev` (n - 1) with `aggregate_unit` "time" and `_cv` (stddev / mean, a fraction)
  with `aggregate_unit` "percentage", as Google Benchmark does.

The figure in ns: the metric itself when its unit is ns (seconds: a program's wall_s, times 1e9); for a TSC-cycle metric its ns twin
field of the record (net_cycles_per_pair -> net_ns_per_pair, search_cycles_per_visit ->
search_ns_per_visit), else cycles / the record's tsc_hz.  `cpu_time` is the same figure: there is
no net CPU time.  Cells whose figure is no time (e.g. a slowdown ratio), void for a net figure
(0 by definition) and cells without an undisturbed repetition are left out and listed with their
reason in `context.allocstress_left_out`.  A single repetition's net figure can be <= 0 for an
allocator as cheap as the harness (bump): compare.py's OVERALL_GEOMEAN is then undefined."""

from __future__ import annotations

import math
import statistics as pystats

from ..results import catalogue
from ..results.records import BASELINE, CellKey, cell_key
from ..results.loading import is_disturbed

# Context fields Google Benchmark writes that a results context also has (copied as they are).
GBENCH_CONTEXT = ("date", "host_name", "executable", "num_cpus", "mhz_per_cpu", "cpu_scaling_enabled", "caches",
                  "library_build_type")


def _ns_figure(entry: dict, metric: str) -> tuple[float | None, str]:
    """(the record's figure of `metric` in ns, "") or (None, why it has none)."""
    m = catalogue.metric(metric)
    unit = m["unit"] if m else "TSC cycles" if "cycles" in metric else ""
    place = entry.get(m["place"], {}) if m and m["place"] != "record" else entry
    if unit == "ns":
        value = place.get(metric)
    elif unit == "s":  # a real program's wall time
        value = place.get(metric)
        value = value * 1e9 if isinstance(value, (int, float)) and not isinstance(value, bool) else None
    elif unit == "TSC cycles":
        twin = metric.replace("cycles", "ns")
        value = place.get(twin) if twin != metric and twin in place else None
        if value is None and place.get(metric) is not None and entry.get("tsc_hz"):
            value = place[metric] / entry["tsc_hz"] * 1e9
    else:
        return None, f"{metric} is not a time (unit: {unit or 'unknown'})"
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value):
        return None, f"no value of {metric}"
    return float(value), ""


def _aggregates(base: dict, values: list[float]) -> list[dict]:
    mean, median, stddev = pystats.fmean(values), pystats.median(values), pystats.stdev(values)
    out = []
    for name, value, unit in (("mean", mean, "time"), ("median", median, "time"), ("stddev", stddev, "time"),
                              ("cv", stddev / mean if mean else math.nan, "percentage")):
        if math.isfinite(value):
            out.append({**base, "name": f"{base['run_name']}_{name}", "run_type": "aggregate", "aggregate_name": name,
                        "aggregate_unit": unit, "real_time": value, "cpu_time": value})
    return out


def gbench_view(document: dict, source: str = "", metric: str | None = None) -> dict:
    """The Google Benchmark JSON document (see the module text) of a results document."""
    cells: dict[CellKey, list[dict]] = {}
    for e in document["benchmarks"]:
        if e.get("run_type") == "iteration" and (e.get("mode") or "timing") == "timing":
            cells.setdefault(cell_key(e), []).append(e)
    benchmarks, left_out = [], []
    for key, entries in cells.items():
        name = metric or catalogue.headline_metric(key.workload)
        run_name, threads = key.name, key.threads
        if key.allocator == BASELINE and name.startswith("net_"):
            left_out.append(f"{run_name}: void is the baseline ({name} is 0 by definition)")
            continue
        kept, why = [], "no ok, undisturbed repetition"
        for e in entries:
            if e.get("status") == "ok" and not is_disturbed(e):
                value, why_not = _ns_figure(e, name)
                kept += [(e, value)] if value is not None else []
                why = why_not or why
        if not kept:
            left_out.append(f"{run_name}: {why}")
            continue
        base = {"family_index": len({b["family_index"] for b in benchmarks}), "per_family_instance_index": 0, "run_name": run_name, "repetitions": len(kept),
                "threads": threads, "time_unit": "ns", "label": f"{name} in ns (allocstress headline, harness cost excluded)"}
        for index, (e, value) in enumerate(kept):
            benchmarks.append({**base, "name": run_name, "run_type": "iteration", "repetition_index": index,
                               "iterations": int(e.get("iterations") or 0), "real_time": value, "cpu_time": value})
        if len(kept) >= 2:
            benchmarks += _aggregates({**base, "iterations": len(kept)}, [v for _, v in kept])
    context = {k: document["context"][k] for k in GBENCH_CONTEXT if k in document["context"]}
    if "load_avg_1min" in document["context"]:
        context["load_avg"] = [document["context"]["load_avg_1min"]]
    context.update(allocstress_view=("real_time and cpu_time are each workload's headline figure in ns "
                                     f"({metric or 'the catalogue headline'}), not the raw time per pair"),
                   allocstress_source=source, allocstress_left_out=left_out)
    return {"context": context, "benchmarks": benchmarks}
