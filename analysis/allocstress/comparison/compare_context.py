"""What differs between the two runs `compare` compares, besides the allocators' code: the
machine, the build, the environment, the plan, and each allocator's library and version.  Any of
these can move every cell at once, so `compare` lists them after its tables.  A difference is
{"field", "a", "b"}; a nested object (the plan's params, the allocator environment) is compared
field by field ("plan.params.iterations_per_thread").  The dates always differ and are shown in
the heading instead; machine warnings are compared with their numbers masked (the load warning
quotes the load, which has its own line)."""

from __future__ import annotations

import re

# Context fields compared, in the order listed (results/README.md "context").
MACHINE = ("host_name", "cpu_model", "num_cpus", "kernel", "load_avg_1min", "cycle_counter", "tsc_invariant",
           "governor", "turbo", "thp_mode", "thp_defrag", "aslr", "hw_counters_available")
BUILD = ("git_commit", "allocstress_version", "build_type", "library_build_type", "compiler")
ENVIRONMENT = ("allocator_environment",)
PLAN = ("preset", "workloads", "thread_counts", "repetitions", "placement", "reserve_os_pu", "oversubscribe",
        "params", "workload_params", "structure_params", "counts", "counts_iterations", "target_ci",
        "time_budget_s", "cache_sim", "profile")
PLAN_DEFAULTS = {"workload_params": {}}  # absent from files older than the registry
ALLOCATOR_FIELDS = ("allocator_version", "allocator_library")


def _flatten(prefix: str, value, out: dict) -> dict:
    if isinstance(value, dict):
        for key, inner in value.items():
            _flatten(f"{prefix}.{key}", inner, out)
        if not value:
            out[prefix] = {}
    else:
        out[prefix] = value
    return out


def _differences(a: dict, b: dict) -> list[dict]:
    fields = list(dict.fromkeys(list(a) + list(b)))
    return [{"field": f, "a": a.get(f), "b": b.get(f)} for f in fields if a.get(f) != b.get(f)]


def _plain(context: dict) -> dict:
    out: dict = {}
    for field in MACHINE + BUILD + ENVIRONMENT:
        if field in context:
            _flatten(field, context[field], out)
    plan = context.get("plan", {})
    for field in PLAN:
        if field in plan or field in PLAN_DEFAULTS:
            _flatten(f"plan.{field}", plan.get(field, PLAN_DEFAULTS.get(field)), out)
    return out


def _allocators(document: dict) -> dict:
    """allocator -> {allocator_version, allocator_library} from its first timing or counts record."""
    out: dict = {}
    for entry in document["benchmarks"]:
        if entry.get("run_type") == "iteration" and entry["allocator"] not in out:
            out[entry["allocator"]] = {f: entry.get(f) for f in ALLOCATOR_FIELDS}
    return out


def _masked_warnings(context: dict) -> dict:
    return {re.sub(r"\d+(\.\d+)?", "#", w): w for w in context.get("warnings", []) if isinstance(w, str)}


def context_differences(documents: list[dict]) -> list[dict]:
    """Every difference between the contexts (and allocator versions) of two results documents:
    [{"field", "a", "b"}], machine, build, environment and plan first, then per allocator
    ("allocator jemalloc: allocator_version"; "allocator X" with a / b None when it ran in one
    run only), then "warning" entries for machine warnings only one run has."""
    a, b = (doc["context"] for doc in documents)
    out = _differences(_plain(a), _plain(b))
    alloc_a, alloc_b = (_allocators(doc) for doc in documents)
    for name in dict.fromkeys(list(alloc_a) + list(alloc_b)):
        if name not in alloc_a or name not in alloc_b:
            out.append({"field": f"allocator {name}", "a": "ran" if name in alloc_a else None,
                        "b": "ran" if name in alloc_b else None})
            continue
        out += [{**d, "field": f"allocator {name}: {d['field']}"} for d in _differences(alloc_a[name], alloc_b[name])]
    warn_a, warn_b = _masked_warnings(a), _masked_warnings(b)
    out += [{"field": "warning", "a": warn_a[k], "b": None} for k in warn_a if k not in warn_b]
    out += [{"field": "warning", "a": None, "b": warn_b[k]} for k in warn_b if k not in warn_a]
    return out


def heading(document: dict, name: str) -> str:
    """One line naming a run: name (date, host, commit)."""
    c = document["context"]
    commit = str(c.get("git_commit", "unknown"))
    commit = commit[:12] + ("-dirty" if commit.endswith("-dirty") and len(commit) > 18 else "")
    return f"{name} ({c.get('date', 'no date')}, host {c.get('host_name', '?')}, commit {commit})"
