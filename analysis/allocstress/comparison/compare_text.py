"""The console text of `allocstress compare` (Markdown tables): the verdict lines, the reference
check and the exit status first, then the timing cells worst first (n/a rows last, each with its
reason), the counts tier, the geometric mean, the reference checks and the context differences.
The misuse battery's lost and gained detections (compare_safety.py) follow the verdict lines when
either file has a `safety` section.
Every interval printed is named with its level and method."""

from __future__ import annotations

import math

import pandas as pd

from . import compare_decision as rule
from . import compare_safety
from .compare_counts import DECIDING_FIGURE, FIGURES
from .compare_reference import FIGURE as REFERENCE_FIGURE
from .compare_result import Comparison, compare_loaded
from ..results.loading import Runs


def _num(value: float, digits: str = ".4g") -> str:
    return "n/a" if value is None or (isinstance(value, float) and math.isnan(value)) else format(value, digits)


def _tally(verdict: dict) -> str:
    return ", ".join(f"{verdict[d]} {d}" for d in (rule.WORSE, rule.BETTER, rule.NO_CHANGE, rule.NOT_AVAILABLE))


def verdict_lines(c: Comparison) -> str:
    t = rule.percent(c.threshold)
    lines = [f"timing: {_tally(c.verdict)} of {len(c.cells)} cells ({c.metric_name}, threshold ±{t})"]
    if c.counts_note:
        lines.append(f"counts: not compared: {c.counts_note}")
    else:
        lines.append(f"counts: {_tally(c.counts_verdict)} of {len(c.counts)} cells ({DECIDING_FIGURE}, exact)")
    lines.append(c.reference_line)
    worse = c.verdict[rule.WORSE] + c.counts_verdict[rule.WORSE]
    tally = f"{worse} worse beyond ±{t}" if worse else f"nothing is worse beyond ±{t}"
    lost = c.safety.worse
    if lost:
        tally = (f"{worse} worse beyond ±{t}; " if worse else "") + f"{lost} safety change(s) worse (lost detections or conformance)"
    if c.reference_moved:
        exact = c.counts_verdict[rule.WORSE]
        tally = ((f"{exact} counts figures worse beyond ±{t} (exact); " if exact else "")
                 + (f"{lost} safety change(s) worse (exact); " if lost else "")
                 + f"the timing cells are not comparable: void moved beyond ±{t} between the runs, rerun both on a "
                 f"steady machine ({c.verdict[rule.WORSE]} timing cells worse, not the allocators' alone)")
    lines.append(f"→ exit {c.exit_status}: {tally}")
    return "\n".join(lines) + "\n"


def cells_table(c: Comparison) -> str:
    table, interval = c.cells, c.interval
    if table.empty:
        return "Timing cells: none in either run.\n"
    mixed = table["metric"].nunique() > 1
    head = ("| decision | workload | allocator | threads | " + ("metric | " if mixed else "")
            + f"reps A/B | A | B | B / A [{interval.short()}] | reason | p adj. |\n")
    head += "|---|---|---|---:|" + ("---|" if mixed else "") + "---:|---:|---:|---|---|---:|\n"
    body = ""
    for r in table.itertuples():
        ratio = _num(r.ratio, ".3f") + ("" if math.isnan(r.ci_low) else f" [{r.ci_low:.3f}, {r.ci_high:.3f}]")
        body += (f"| {r.decision} | {r.workload} | {r.allocator} | {r.threads} | " + (f"{r.metric} | " if mixed else "")
                 + f"{r.reps_a}/{r.reps_b} | {_num(r.median_a)} | {_num(r.median_b)} | {ratio} | {r.reason} | "
                 f"{_num(r.p_adjusted, '.3g')} |\n")
    what = "" if mixed else f" of {c.metric_name}"
    return (f"Timing cells, worst first. A, B: medians{what} over the undisturbed repetitions; B / A with its "
            f"interval: {interval.name()}. p adj.: Mann-Whitney p, Benjamini-Hochberg adjusted over the cells "
            f"(shown, not used for the decision).\n\n" + head + body)


def counts_table(c: Comparison) -> str:
    if c.counts_note:
        return f"Counts tier: not compared: {c.counts_note}.\n"
    if c.counts.empty:
        return "Counts tier: no counts cells.\n"
    (first, first_label), (second, second_label), *rest = FIGURES
    head = (f"| decision | workload | allocator | threads | {first_label} A | B | Δ | B / A | {second_label} A | B | Δ | "
            + " | ".join(f"{label} Δ" for _, label in rest) + " | reason |\n")
    head += "|---|---|---|---:|" + "---:|" * (7 + len(rest)) + "---|\n"
    body = ""
    for r in c.counts.to_dict("records"):
        cells = [_num(r[f"{first}_{s}"], ".2f" if s != "ratio" else ".4f") for s in ("a", "b", "delta", "ratio")]
        cells += [_num(r[f"{second}_{s}"], ".2f") for s in ("a", "b", "delta")]
        cells += [_num(r[f"{f}_delta"], "+.4f") for f, _ in rest]
        body += f"| {r['decision']} | {r['workload']} | {r['allocator']} | {r['threads']} | " + " | ".join(cells) + f" | {r['reason']} |\n"
    return ("Counts tier (callgrind's simulated counts at 1 thread: exact, identical on every run of the same binary, "
            "parameters, library and cache geometry, so no interval; Δ = B - A, decided on the exact B / A of "
            f"{DECIDING_FIGURE}), worst first.\n\n" + head + body)


def geomean_line(c: Comparison) -> str:
    g = c.geomean
    if math.isnan(g["ratio"]):
        return f"geomean {c.names[1]} / {c.names[0]} of {c.metric_name}: n/a ({g['reason']})\n"
    interval = "" if math.isnan(g["low"]) else f" [{g['low']:.3f}, {g['high']:.3f}] ({g['method']})"
    return (f"geomean {c.names[1]} / {c.names[0]} of {c.metric_name}: {g['ratio']:.3f}{interval} over the "
            f"{g['cells']} cells decided in both runs (of {g['of_cells']}; n/a cells are left out): {g['decision']} "
            f"({g['reason']}); shown, not part of the exit status\n")


def reference_table(c: Comparison) -> str:
    if c.reference.empty:
        return ""
    level = c.reference["ci_level"].dropna()
    head = (f"Reference checks: void's {REFERENCE_FIGURE} (the op stream with no allocator), medians per run and B / A"
            + (f" [quotient of the medians' intervals, level >= {level.min():.2%} achieved per check; aimed at 95% for all "
               "checks together]" if not level.empty else "") + ".\n\n"
            "| workload | threads | reps A/B | A | B | B / A | moved | reason |\n|---|---:|---:|---:|---:|---|---|---|\n")
    body = ""
    for r in c.reference.itertuples():
        ratio = _num(r.ratio, ".3f") + ("" if math.isnan(r.ci_low) else f" [{r.ci_low:.3f}, {r.ci_high:.3f}]")
        body += (f"| {r.workload} | {r.threads} | {r.reps_a}/{r.reps_b} | {_num(r.median_a)} | {_num(r.median_b)} | "
                 f"{ratio} | {'yes' if r.moved else 'no'} | {r.reason} |\n")
    return head + body


def context_lines(c: Comparison) -> str:
    if not c.context:
        return "Context differences: none (machine, build, environment, plan, allocator versions and libraries).\n"
    lines = [f"Context differences ({len(c.context)}): these can move every cell at once."]
    for d in c.context:
        lines.append(f"- {d['field']}: A {_shown(d['a'])} | B {_shown(d['b'])}")
    return "\n".join(lines) + "\n"


def _shown(value) -> str:
    return "(absent)" if value is None else repr(value) if isinstance(value, str) else str(value)


def render(c: Comparison) -> str:
    """The full console text."""
    parts = [f"A = {c.headings[0]}\nB = {c.headings[1]}\n", verdict_lines(c), compare_safety.render(c.safety), cells_table(c),
             counts_table(c), geomean_line(c), reference_table(c), context_lines(c)]
    return "\n".join(part for part in parts if part)  # reference_table and the safety part are "" when they have nothing


def report_text(runs: Runs, table: pd.DataFrame | None = None, metric: str | None = None,
                threshold: float = rule.DEFAULT_THRESHOLD_PERCENT / 100) -> str:
    """The console text of `allocstress compare` for these runs (render); `table`,
    when given, is used as the timing cells instead of computing them again."""
    c = compare_loaded(runs, metric, threshold, table)
    return render(c)
