"""The fidelity table (fidelity.py) as people read it: one Markdown row per program x model with the
speed and memory correlations and their intervals, a one-line reading per program naming where a
model fails and which allocator moved most, and the same as JSON (`allocstress fidelity --json`)."""

from __future__ import annotations

import json
import math

import pandas as pd

from . import fidelity as fd

MEMORY_WORDS = {"peak_rss_bytes": "peak RSS", "overhead_ratio": "overhead ratio (leaving out the RSS held before its "
                "measured phase)"}


def legend(table: pd.DataFrame) -> str:
    """How to read the table; names the models' memory figure(s) the table used."""
    used = [m for m in dict.fromkeys(table.loc[table["aspect"] == "memory", "model_metric"]) if m]
    memory = " / ".join(MEMORY_WORDS.get(m, m) for m in used) or "peak RSS"
    return (f"rho = Spearman's rank correlation between the program's per-allocator medians and the model's, over the "
            f"allocators both ran (drop-ins: programs run no in-tree allocator): 1 = the model ranks the allocators in "
            f"the program's order, -1 = reversed, ~0 = unrelated.  Speed: the program's wall time against the model's "
            f"headline (net cycles per pair); memory: the program's peak RSS against the model's {memory}.  "
            f"[interval] = {fd.LEVEL:.0%} percentile bootstrap of rho ({fd.RESAMPLES} resamples of every cell's "
            f"repetitions, program and model, fixed seed).  n = allocators ranked.  † = {fd.TOO_FEW} (n < "
            f"{fd.MIN_ALLOCATORS}).  Moved most = the allocator whose rank differs most, rank 1 = fastest / leanest.  "
            f"A model agrees at rho >= {fd.AGREES} with the interval above 0, fails at rho <= {fd.FAILS}."
            + ("  Counts: the program's estimated cycles of one run under callgrind against the model's net estimated "
               "cycles per pair (the counts tier, priced at this machine's costs, the kernel's faults and calls included): "
               "one figure per allocator, the same on every run, so no interval."
               if (table["aspect"] == fd.COUNTS).any() else ""))


WORDS = {"agrees": " ranks like the program", "partly": " ranks partly like the program", "fails": " does not",
         fd.TOO_FEW: ": " + fd.TOO_FEW, "n/a": ": n/a"}


def _num(x: float, fmt: str = "{:.2f}") -> str:
    return "n/a" if x is None or (isinstance(x, float) and math.isnan(x)) else fmt.format(x)


def rho_text(r) -> str:
    """'0.90 [0.60, 1.00]', '0.50 [0.50, 1.00] †' (too few allocators), 'n/a'."""
    if not math.isfinite(r["rho"]):
        return "n/a"
    ci = f" [{_num(r['ci_low'])}, {_num(r['ci_high'])}]" if math.isfinite(r["ci_low"]) else ""
    return _num(r["rho"]) + ci + (" †" if r["too_few"] else "")


def moved_text(r) -> str:
    """'jemalloc 1st in the model, 6th in the program', or '' when every allocator keeps its rank."""
    if not r["moved"]:
        return ""
    return (f"{r['moved']} {fd.ordinal(r['moved_model_rank'])} in the model, {fd.ordinal(r['moved_program_rank'])} of "
            f"{r['n']} in the program")


def model_name(r) -> str:
    """The model's base name, with its threads where they differ from the program's."""
    if not r["model"]:
        return "-"
    threads = int(r["model_threads"])
    return r["model_base"] + ("" if threads == r["program_threads"] else f" ({threads} thread{'s' * (threads != 1)})")


def _pairs(table: pd.DataFrame):
    """(speed row, memory row, counts row or None) per run x program x model x threads, in table order."""
    keys = ["run", "program", "program_threads", "model", "model_threads"]
    for _, group in table.groupby(keys, sort=False, dropna=False):
        by = {r["aspect"]: r for _, r in group.iterrows()}
        yield by["speed"], by["memory"], by.get(fd.COUNTS)


def markdown_rows(table: pd.DataFrame) -> tuple[list[str], list[list[str]]]:
    """Headers and text cells: one row per program x model."""
    multi_run = table["run"].nunique() > 1
    counted = bool((table["aspect"] == fd.COUNTS).any())
    headers = ((["run"] if multi_run else []) + ["program", "model", "n", "speed rho [95% interval]", "speed: moved most",
                                                "memory rho [95% interval]", "memory: moved most"]
               + (["counts rho (same on every run)", "counts: moved most"] if counted else []))
    rows = []
    for speed, memory, counts in _pairs(table):
        n = str(speed["n"]) if speed["n"] == memory["n"] else f"{speed['n']} / {memory['n']}"
        counts_cells = [rho_text(counts), moved_text(counts) or "-"] if counts is not None else ["n/a", "-"]
        rows.append(([speed["run"]] if multi_run else []) + [speed["program"], model_name(speed), n, rho_text(speed),
                                                           moved_text(speed) or "-", rho_text(memory), moved_text(memory) or "-"]
                    + (counts_cells if counted else []))
    return headers, rows


def _phrase(r) -> str:
    """'replay ranks like the program (rho 0.90 [0.60, 1.00])', 'alloc-test does not (rho -0.30 [-0.80,
    0.40]: jemalloc 1st in the model, 5th of 5 in the program)': the allocator that moved most where
    the model does not agree, why where rho is n/a."""
    text = model_name(r) + WORDS[r["verdict"]]
    if r["verdict"] == "n/a":
        return text + f" ({r['note']})" if r["note"] else text
    detail = f"rho {rho_text(r).rstrip(' †')}" + (f", n {r['n']}" if r["too_few"] else "")
    if r["verdict"] != "agrees" and r["moved"]:
        detail += ": " + moved_text(r)
    return f"{text} ({detail})"


def _one_reason(rows) -> str:
    """A program's whole reading when none of its rows has a rho for one shared reason (no model
    instance; every model n/a alike, e.g. the program's records all disturbed), else ''."""
    found = {r["note"] for r in rows}
    if len(found) != 1 or any(r["verdict"] != "n/a" for r in rows):
        return ""
    return ("n/a for every model: " if rows[0]["model"] else "") + found.pop()


def _programs(table: pd.DataFrame):
    """(run, program, its rows) in table order."""
    for (run, program), group in table.groupby(["run", "program"], sort=False):
        yield run, program, [r for _, r in group.iterrows()]


def readings(table: pd.DataFrame) -> list[tuple[str, str, str]]:
    """(run, program, reading) per program: per aspect, what each model does (_one_reason instead
    where there is nothing to read)."""
    out = []
    for run, program, rows in _programs(table):
        text = _one_reason(rows) or " ".join(
            f"{aspect.capitalize()}: " + "; ".join(_phrase(r) for r in rows if r["aspect"] == aspect) + "."
            for aspect in fd.ALL_ASPECTS if any(r["aspect"] == aspect for r in rows))
        out.append((run, program, text))
    return out


def notes(table: pd.DataFrame) -> list[str]:
    """Why a correlation or interval is n/a and which allocators were left out, one line per
    program x model x reason naming the aspects it applies to; none for a program whose reading
    is its one reason."""
    found: dict[tuple, list[str]] = {}
    for _, program, rows in _programs(table):
        if _one_reason(rows):
            continue
        for r in rows:
            left = ["not ranked: " + "; ".join(r["left_out"])] if r["left_out"] else []
            for text in ([r["note"]] if r["note"] else []) + left:
                found.setdefault((program, model_name(r), text), []).append(r["aspect"])
    return [f"{program}, {model} ({' and '.join(aspects)}): {text}" for (program, model, text), aspects in found.items()]


def to_markdown(table: pd.DataFrame) -> str:
    """The table, the readings, the notes and the legend as Markdown."""
    headers, rows = markdown_rows(table)
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)] + ["| " + " | ".join(r) + " |" for r in rows]
    multi_run = table["run"].nunique() > 1
    lines += ["", "Readings:", ""] + [f"- **{program}**" + (f" (run {run})" if multi_run else "") + f": {text}"
                                      for run, program, text in readings(table)]
    extra = notes(table)
    if extra:
        lines += ["", "Notes:", ""] + [f"- {n}" for n in extra]
    return "\n".join(lines + ["", legend(table)]) + "\n"


def _plain(v):
    if isinstance(v, float):
        return None if math.isnan(v) else v
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    if hasattr(v, "item"):  # numpy scalars
        return _plain(v.item())
    return v


def to_dict(table: pd.DataFrame) -> dict:
    """The table as JSON-ready data: rows (COLUMNS, NaN as null), readings, and how rho and its interval were computed."""
    return {"statistic": "Spearman rank correlation of per-allocator medians", "interval": "percentile bootstrap",
            "model_memory": [m for m in dict.fromkeys(table.loc[table["aspect"] == "memory", "model_metric"]) if m],
            "level": fd.LEVEL, "resamples": fd.RESAMPLES, "seed": fd.SEED, "min_allocators": fd.MIN_ALLOCATORS, "counts": fd.COUNTS_NOTE,
            "rows": [{c: _plain(r[c]) for c in fd.COLUMN_NAMES} for _, r in table.iterrows()],
            "readings": [{"run": run, "program": program, "reading": text} for run, program, text in readings(table)]}


def to_json(table: pd.DataFrame) -> str:
    return json.dumps(to_dict(table), indent=1) + "\n"


def to_csv(table: pd.DataFrame) -> str:
    """Every column; lists and maps as JSON text."""
    flat = table.copy()
    for c in ("allocators", "program_ranks", "model_ranks", "program_medians", "model_medians", "left_out", "model_only"):
        flat[c] = [json.dumps(_plain(v)) for v in flat[c]]
    return flat.to_csv(index=False)
