"""The fidelity table: does each model of a real program rank the allocators as the program does?
Per program P (a program workload: a name that resolves to the registry's `program` entry --
the shipped prog-*, a programs file's entry, `allocstress bench --name P`; catalogue.is_program)
and model (its labelled instances replay:P, fitted:P, alloc-test:P, lifetime:P, ...), on speed
and on memory: Spearman's rank correlation of
the per-allocator medians over the allocators both ran, with a bootstrap interval (docs/analysis.md#fidelity).

The figures: a program is ranked by its registry headline (wall_s when this build does not know
it) and by its peak RSS (peak_rss_mib); a model by its workload's headline (net cycles per pair)
and by its peak RSS (peak_rss_bytes: the same measurement, VmHWM, so like is ranked against like;
MODEL_MEMORY_CHOICES: or its overhead ratio, which leaves out the RSS held before the measured
phase).  Lower is better in every one of them."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy.stats import rankdata

from ..results import catalogue
from ..stats import statistics as st
from ..results.loading import ResultsError, Runs, is_disturbed, load_runs
from ..results.records import cell_key

MODEL_ORDER = ("replay", "fitted", "alloc-test", "lifetime")  # models of a program shown first, in this order
PROGRAM_SPEED = "wall_s"          # a program's speed figure when the registry does not name its headline
PROGRAM_MEMORY = "peak_rss_mib"   # a program's memory figure (else the first peak_rss* metric it carries)
MODEL_MEMORY = "peak_rss_bytes"   # a model's memory figure (default) ...
MODEL_MEMORY_CHOICES = ("peak_rss_bytes", "overhead_ratio")  # ... or the other, where its workload carries it
HIGHER_IS_BETTER = {"throughput"}  # figures ranked in reverse (none of the defaults)
MIN_ALLOCATORS = 4                # below this many allocators a rank correlation says little
TOO_FEW = "too few allocators to rank"
AGREES, FAILS = 0.7, 0.3          # reading: rho >= AGREES with the interval above 0 agrees; rho <= FAILS does not
LEVEL = st.CONFIDENCE
RESAMPLES = st.BOOTSTRAP_RESAMPLES
SEED = st.BOOTSTRAP_SEED
ASPECTS = ("speed", "memory")
COUNTS = "counts"  # the third aspect, where the results hold counts cells of the program (programs --counts)
ALL_ASPECTS = ASPECTS + (COUNTS,)
PROGRAM_COUNTS_FIELD = "estimated_cycles"             # a program's counts figure: its whole run, every process (no void baseline)
MODEL_COUNTS_FIELD = "net_estimated_cycles_per_unit"  # a model's: per pair, net of void
PROGRAM_COUNTS, MODEL_COUNTS = "counts." + PROGRAM_COUNTS_FIELD, "counts." + MODEL_COUNTS_FIELD  # as the rows name them
COUNTS_NOTE = "deterministic figures (one counts cell per allocator, the same on every run): no interval"
NO_PROGRAMS = ("no real-program timing records (a program workload: prog-P of the shipped programs file, an entry of "
               "a programs file, or allocstress bench's program): the fidelity table compares programs with their models "
               "(accepted: a results file of `allocstress programs` or `allocstress bench --trace`, holding P's records "
               "and model instances such as replay:P, fitted:P, alloc-test:P, lifetime:P)")

# (column, unit, meaning) of fidelity_table()'s DataFrame, one row per program x model x aspect.
COLUMNS = [
    ("run", "-", "Results file the rows come from."),
    ("program", "-", "The real-program workload P (its definition's name: prog-P, a programs file's entry, bench's --name)."),
    ("program_threads", "threads", "Threads of the program's records."),
    ("model", "-", "The model workload instance (BASE:P)."),
    ("model_base", "-", "Its registry workload (replay, fitted, alloc-test, lifetime, ...)."),
    ("model_threads", "threads", "Threads of the model's records compared."),
    ("aspect", "-", "speed, memory, or counts (the counts tier's estimated cycles, where the study ran counts cells: the same on every run)."),
    ("program_metric", "-", "The program's figure ranked (wall_s, peak_rss_mib; counts.estimated_cycles)."),
    ("model_metric", "-", "The model's figure ranked (net_cycles_per_pair; peak_rss_bytes, or overhead_ratio when chosen; "
     "counts.net_estimated_cycles_per_unit)."),
    ("n", "count", "Allocators with a value of both figures (ok, undisturbed timing repetitions): the allocators ranked."),
    ("allocators", "-", "Those allocators, by the program's rank (fastest / leanest first)."),
    ("rho", "[-1, 1]", "Spearman's rank correlation of the program's per-allocator medians with the model's: 1 = the "
     "same order, -1 = reversed, ~0 = unrelated; n/a below 2 allocators or when either side's medians are all equal."),
    ("ci_low", "[-1, 1]", "Lower end of the percentile-bootstrap interval of rho: every cell's repetitions resampled "
     "(program and model), medians and rho recomputed, 2000 resamples, fixed seed."),
    ("ci_high", "[-1, 1]", "Upper end of that interval."),
    ("ci_level", "fraction", "Its nominal level (0.95)."),
    ("undefined_resamples", "count", "Resamples in which rho was undefined (one side's medians all equal), left out of the interval."),
    ("too_few", "bool", f"n < {MIN_ALLOCATORS}: {TOO_FEW} (rho of 3 allocators is one of -1, -0.5, 0.5, 1)."),
    ("verdict", "text", f"'agrees' (rho >= {AGREES} and the interval, where there is one, above 0), 'fails' (rho <= {FAILS}), 'partly' "
     f"(between, or the interval reaches 0), '{TOO_FEW}', or 'n/a'."),
    ("moved", "-", "The allocator whose rank differs most between model and program."),
    ("moved_model_rank", "rank", "Its rank in the model (1 = fastest / leanest)."),
    ("moved_program_rank", "rank", "Its rank in the program."),
    ("program_ranks", "-", "allocator -> rank in the program (ties share the mean rank)."),
    ("model_ranks", "-", "allocator -> rank in the model."),
    ("program_medians", "-", "allocator -> the program's median of program_metric."),
    ("model_medians", "-", "allocator -> the model's median of model_metric."),
    ("left_out", "-", "Allocators the program ran that are not ranked, with why (the model has no valid figure)."),
    ("model_only", "-", "Allocators only the model ran (the in-tree ones: programs run drop-ins only)."),
    ("note", "text", "Why rho or its interval is n/a, if it is."),
]
COLUMN_NAMES = [c[0] for c in COLUMNS]


def is_program(workload: str) -> bool:
    """A real-program workload: a name without a label that resolves to the registry's `program`
    entry (catalogue.is_program: the shipped prog-*, a programs file's entry, a bench's program)."""
    return ":" not in workload and catalogue.is_program(workload)


def model_of(workload: str, programs) -> str | None:
    """The program a model instance BASE:LABEL belongs to (its label is the program's name), or None."""
    if ":" not in workload:
        return None
    label = workload.split(":", 1)[1]
    return label if label in programs else None


def _carried(workload: str) -> list[str]:
    entry = catalogue.workload(workload)
    return list(entry["metrics"]) if entry else []


def program_metrics(workload: str) -> tuple[str, str]:
    """(speed, memory) figure of a program: the metric catalogue's headline and memory headline
    among the metrics its registry entry lists; where the catalogue flags none, PROGRAM_SPEED and
    PROGRAM_MEMORY (or the first peak_rss* metric the entry lists) -- also when this build does not know it."""
    carried = _carried(workload)
    headline = catalogue.headline_metric(workload)
    speed = headline if headline in carried else PROGRAM_SPEED
    flagged = [m["name"] for m in catalogue.metric_entries() if m.get("memory_headline") and m["name"] in carried]
    memory = next(iter(flagged), next((m for m in [PROGRAM_MEMORY] + carried if m in carried and m.startswith("peak_rss")),
                                      PROGRAM_MEMORY))
    return speed, memory


def model_metrics(workload: str, memory: str = MODEL_MEMORY) -> tuple[str, str]:
    """(speed, memory) figure of a model: its workload's headline, and `memory` (one of
    MODEL_MEMORY_CHOICES) where its workload carries it, else the other choice."""
    carried = _carried(workload)
    other = next(m for m in MODEL_MEMORY_CHOICES if m != memory)
    return catalogue.headline_metric(workload), memory if memory in carried or not carried or other not in carried else other


def _is_number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def figure_of(record: dict, metric: str) -> float | None:
    """The record's value of `metric`: a top-level field, else a field of its workload_metrics; None if absent or null."""
    v = record.get(metric)
    if not _is_number(v):
        extra = record.get("workload_metrics")
        v = extra.get(metric) if isinstance(extra, dict) else None
    if not _is_number(v):
        return None
    return -float(v) if metric in HIGHER_IS_BETTER else float(v)


def timing_records(runs: Runs):
    """(run, record, usable) of every timing iteration record; usable: ok and undisturbed (the
    repetitions every median is taken over)."""
    for run, doc in zip(runs.run_names(), runs.documents):
        for e in doc["benchmarks"]:
            if (e.get("run_type") == "iteration" and (e.get("mode") or "timing") == "timing"
                    and isinstance(e.get("workload"), str)):
                yield run, e, e.get("status") == "ok" and not is_disturbed(e)


def counts_figures(runs: Runs) -> dict[tuple, dict[str, float]]:
    """(run, workload, threads) -> allocator -> the counts figure the fidelity table ranks
    (PROGRAM_COUNTS for a program, MODEL_COUNTS for a model), from the ok counts records."""
    out: dict[tuple, dict[str, float]] = {}
    for run, doc in zip(runs.run_names(), runs.documents):
        for e in doc["benchmarks"]:
            if e.get("run_type") != "iteration" or e.get("mode") != "counts" or e.get("status") != "ok":
                continue
            counts = e.get("counts") or {}
            key = cell_key(e)
            v = counts.get(PROGRAM_COUNTS_FIELD if is_program(key.workload) else MODEL_COUNTS_FIELD)
            if _is_number(v):
                out.setdefault((run, key.workload, key.threads), {})[key.allocator] = float(v)
    return out


def _counts_row(run, program, prog_threads, model, model_threads, prog_counts, model_counts) -> dict:
    """The counts aspect of one program x model: one value per allocator on each side, so rho has
    no interval (COUNTS_NOTE)."""
    result = correlate({a: np.array([v]) for a, v in prog_counts.items()}, {a: np.array([v]) for a, v in model_counts.items()})
    if not model_counts:
        result["note"] = f"the model has no counts cell at {model_threads} thread(s) (the counts tier runs it at 1 thread)"
    elif math.isfinite(result["rho"]):
        result["note"] = ""  # no interval by construction: the legend and the JSON ("counts") say why
    return {"run": run, "program": program, "program_threads": prog_threads, "model": model, "model_base": catalogue.base_name(model),
            "model_threads": model_threads, "aspect": COUNTS, "program_metric": PROGRAM_COUNTS, "model_metric": MODEL_COUNTS, **result}


def _cell_values(records: list[dict], metric: str) -> tuple[np.ndarray, str]:
    """(the cell's finite values of `metric`, "" or why it has no valid figure).  An overhead ratio
    is invalid for the whole cell when one repetition's is (overhead_ratio_invalid): never ranked."""
    if metric == "overhead_ratio":
        invalid = next((e["overhead_ratio_invalid"] for e in records if isinstance(e.get("overhead_ratio_invalid"), str)
                        and e["overhead_ratio_invalid"]), "")
        if invalid:
            return np.array([]), "overhead invalid (< 1): " + invalid
    values = np.array([v for v in (figure_of(e, metric) for e in records) if v is not None], dtype=float)
    return values, "" if values.size else f"no {metric} in its records"


def ordinal(rank: float) -> str:
    """'1st', '2nd', '2nd=' (a tie: the floor of the shared mean rank, marked '=')."""
    r = int(math.floor(rank))
    suffix = "th" if 10 <= r % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(r % 10, "th")
    return f"{r}{suffix}" + ("=" if rank != r else "")


def _bootstrap(prog: list[np.ndarray], model: list[np.ndarray]) -> tuple[float, float, int, str]:
    """(low, high, undefined resamples, note) of the percentile-bootstrap interval of rho: every
    cell's repetitions resampled with replacement (a fresh generator seeded with SEED per row, so a
    row's interval does not depend on the others), medians and rho recomputed."""
    if any(v.size < 2 for v in prog + model):
        return math.nan, math.nan, 0, "a cell has fewer than 2 repetitions: no interval"
    rng = np.random.default_rng(SEED)
    p = np.column_stack([st.resampled_medians(rng, v, RESAMPLES) for v in prog])
    m = np.column_stack([st.resampled_medians(rng, v, RESAMPLES) for v in model])
    rhos = st.spearman_rows(p, m)
    finite = rhos[np.isfinite(rhos)]
    undefined = int(RESAMPLES - finite.size)
    if finite.size < RESAMPLES / 2:
        return math.nan, math.nan, undefined, f"rho undefined in {undefined} of {RESAMPLES} resamples: no interval"
    tail = (1 - LEVEL) / 2 * 100
    low, high = np.percentile(finite, [tail, 100 - tail])
    return float(low), float(high), undefined, ""


def verdict(rho: float, low: float, n: int) -> str:
    """The reading of one correlation (COLUMNS: verdict)."""
    if not math.isfinite(rho):
        return "n/a"
    if n < MIN_ALLOCATORS:
        return TOO_FEW
    if rho >= AGREES and (not math.isfinite(low) or low > 0):
        return "agrees"
    return "fails" if rho <= FAILS else "partly"


def correlate(program_cells: dict[str, np.ndarray], model_cells: dict[str, np.ndarray],
              model_invalid: dict[str, str] | None = None) -> dict:
    """One correlation: `program_cells` and `model_cells` map allocator -> its repetitions' figures.
    Returns the COLUMNS from n to note (allocators ranked: those with values on both sides)."""
    model_invalid = model_invalid or {}
    common = [a for a in program_cells if program_cells[a].size and model_cells.get(a, np.array([])).size]
    left_out = [f"{a}: " + (model_invalid.get(a) or "not run by the model") for a in program_cells
                if program_cells[a].size and a not in common]
    model_only = [a for a in model_cells if a not in program_cells and model_cells[a].size]
    prog_medians = {a: float(np.median(program_cells[a])) for a in common}
    model_medians = {a: float(np.median(model_cells[a])) for a in common}
    common.sort(key=lambda a: (prog_medians[a], a))
    prog_medians, model_medians = ({a: m[a] for a in common} for m in (prog_medians, model_medians))
    out = {"n": len(common), "allocators": common, "rho": math.nan, "ci_low": math.nan, "ci_high": math.nan,
           "ci_level": LEVEL, "undefined_resamples": 0, "too_few": len(common) < MIN_ALLOCATORS, "moved": "",
           "moved_model_rank": math.nan, "moved_program_rank": math.nan, "program_ranks": {}, "model_ranks": {},
           "program_medians": prog_medians, "model_medians": model_medians, "left_out": left_out,
           "model_only": model_only, "note": ""}
    if len(common) < 2:
        out["note"] = f"{len(common)} allocator(s) in both: no rank correlation"
        out["verdict"] = "n/a"
        return out
    pm, mm = [prog_medians[a] for a in common], [model_medians[a] for a in common]
    rho = float(st.spearman_rows(pm, mm)[0])
    if not math.isfinite(rho):
        side = "program's" if len(set(pm)) == 1 else "model's"
        out["note"] = f"the {side} medians are all equal: no ranking"
        out["verdict"] = "n/a"
        return out
    pr, mr = rankdata(pm), rankdata(mm)
    moved = int(np.argmax(np.abs(pr - mr)))
    low, high, undefined, note = _bootstrap([program_cells[a] for a in common], [model_cells[a] for a in common])
    out.update({"rho": rho, "ci_low": low, "ci_high": high, "undefined_resamples": undefined, "note": note,
                "program_ranks": dict(zip(common, map(float, pr))), "model_ranks": dict(zip(common, map(float, mr)))})
    if pr[moved] != mr[moved]:
        out.update({"moved": common[moved], "moved_model_rank": float(mr[moved]), "moved_program_rank": float(pr[moved])})
    out["verdict"] = verdict(rho, low, len(common))
    return out


def _model_order(models: list[str]) -> list[str]:
    known = [m for base in MODEL_ORDER for m in models if catalogue.base_name(m) == base]
    return known + [m for m in models if m not in known]


def fidelity_table(runs: Runs, model_memory: str = MODEL_MEMORY) -> pd.DataFrame:
    """One row per run x program x model x model threads x aspect (COLUMNS), programs and models in
    the order they first appear (models: MODEL_ORDER first).  ResultsError when `runs` hold no
    real-program timing record; a program or model none of whose records is ok and undisturbed gets
    rows with rho n/a and that note.  A model is compared at every thread count it ran; the program
    at its own (when it ran several, each model thread count with the same count of the program).
    `model_memory`: the models' memory figure (MODEL_MEMORY_CHOICES)."""
    if model_memory not in MODEL_MEMORY_CHOICES:
        raise ValueError(f"model memory figure '{model_memory}' (accepted: {', '.join(MODEL_MEMORY_CHOICES)})")
    cells: dict[tuple, dict[str, list[dict]]] = {}  # (run, workload, threads) -> allocator -> usable records
    seen: dict[tuple, dict[int, None]] = {}  # (run, workload) -> its thread counts, whatever the records' status
    for run, e, usable in timing_records(runs):
        key = cell_key(e)
        seen.setdefault((run, key.workload), {})[key.threads] = None
        if usable:
            cells.setdefault((run, key.workload, key.threads), {}).setdefault(key.allocator, []).append(e)
    counted = counts_figures(runs)
    programs = [key for key in seen if is_program(key[1])]
    if not programs:
        raise ResultsError(", ".join(runs.paths) + ": " + NO_PROGRAMS)
    rows = []
    for run, program in programs:
        prog_threads = list(seen[(run, program)])
        models = _model_order([w for r, w in seen if r == run and model_of(w, [program])])
        if not models:
            for aspect in ASPECTS:
                rows.append(_empty_row(run, program, prog_threads[0], aspect, _why_no_model(runs.context(run), program)))
            continue
        for model in models:
            for model_threads in seen[(run, model)]:
                for pt in prog_threads:
                    if len(prog_threads) > 1 and pt != model_threads:
                        continue
                    rows += _rows(run, program, pt, model, model_threads, cells.get((run, program, pt), {}),
                                  cells.get((run, model, model_threads), {}), model_memory)
                    if (run, program, pt) in counted:
                        rows.append(_counts_row(run, program, pt, model, model_threads, counted[(run, program, pt)],
                                                counted.get((run, model, model_threads), {})))
    return pd.DataFrame(rows, columns=COLUMN_NAMES)


def _why_no_model(context: dict, program: str) -> str:
    """The note of a program without models: why `allocstress programs` ran none (its trace or fit
    failed, recorded in context.programs), else that the results hold none."""
    study = (context.get("programs") or {}).get(program) or {}
    for step in ("trace", "fit"):
        if study.get(f"{step}_failed"):
            return f"no model: the {step} of {program} failed: {study[f'{step}_failed']}"
    return (f"no model instance (replay:{program}, fitted:{program}, alloc-test:{program}, lifetime:{program}) "
            "in the results")


def _empty_row(run, program, threads, aspect, note) -> dict:
    row = {c: math.nan for c in COLUMN_NAMES}
    row.update({"run": run, "program": program, "program_threads": threads, "model": "", "model_base": "", "aspect": aspect,
                "program_metric": program_metrics(program)[ASPECTS.index(aspect)], "model_metric": "", "n": 0,
                "allocators": [], "too_few": True, "verdict": "n/a", "moved": "", "program_ranks": {}, "model_ranks": {},
                "program_medians": {}, "model_medians": {}, "left_out": [], "model_only": [], "note": note})
    return row


def _rows(run, program, prog_threads, model, model_threads, prog_records, model_records, model_memory) -> list[dict]:
    out = []
    for aspect, pmetric, mmetric in zip(ASPECTS, program_metrics(program), model_metrics(model, model_memory)):
        prog = {a: _cell_values(r, pmetric)[0] for a, r in prog_records.items()}
        model_values = {a: _cell_values(r, mmetric) for a, r in model_records.items()}
        result = correlate(prog, {a: v for a, (v, _) in model_values.items()},
                           {a: why for a, (_, why) in model_values.items() if why})
        if not prog_records or not model_records:
            result["note"] = f"no ok, undisturbed repetition of the {'program' if not prog_records else 'model'} (every " \
                             "record failed, skipped or disturbed: see the report's warnings)"
        elif not any(v.size for v in prog.values()):
            result["note"] = f"the program's records carry no {pmetric}" + (f"; {result['note']}" if result["note"] else "")
        out.append({"run": run, "program": program, "program_threads": prog_threads, "model": model,
                    "model_base": catalogue.base_name(model), "model_threads": model_threads, "aspect": aspect,
                    "program_metric": pmetric, "model_metric": mmetric, **result})
    return out


def load_fidelity(paths, model_memory: str = MODEL_MEMORY) -> pd.DataFrame:
    """fidelity_table of results files (paths); ResultsError for a bad file or one without programs."""
    return fidelity_table(load_runs(list(paths)), model_memory)
