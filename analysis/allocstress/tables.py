"""The comparison table: one row per (run, workload, allocator, threads) with the allocator's own
cost, its uncertainty, memory overhead, and both relative to the system allocator, with
significance.  Rendered as Markdown, LaTeX (booktabs) or CSV; every column is documented in
COLUMNS, and the renderers print that legend under the table."""

from __future__ import annotations

import math
import re

import pandas as pd

from . import catalogue
from . import statistics as st
from .loading import Runs, measured_timing

REFERENCE = "system"  # what "relative to system" compares against
BASELINE = "void"     # the subtracted baseline: its net cost is 0 by definition
# Workloads whose timing records have no net cost, so no row here: every registry entry without a
# void baseline -- the data structures (structures.py) and the false-sharing kernels (their
# baseline, private cache-line-aligned objects, is measured inside the cell: workload_metrics.py).
FALSE_SHARING_WORKLOADS = catalogue.workload_names(family="false-sharing")
WITHOUT_NET_COST = catalogue.workload_names(void_baseline=False)

# (column, unit, what it is and how it is computed).  The columns that are medians of a record
# metric take unit and definition from the metric catalogue; the statistics are computed here.
COLUMNS = [
    ("run", "-", "Results file the row comes from (file name without .json)."),
    ("workload", "-", "Workload of the cell (e.g. alloc-test)."),
    ("allocator", "-", "Allocator name as in the results file."),
    ("threads", "threads", "Worker threads of the cell."),
    ("reps_ok", "count", "Repetitions with status ok and a net cost (baseline matched); only these are summarised."),
    catalogue.column_doc("net_cycles_per_pair"),
    ("net_cycles_ci_low", "TSC cycles", "Lower end of a distribution-free confidence interval of that median (order "
     "statistics, binomial): the narrowest reaching 95%, or [min, max] when the repetitions are too few to reach it."),
    ("net_cycles_ci_high", "TSC cycles", "Upper end of the same interval."),
    ("net_cycles_ci_level", "fraction", "The interval's actual confidence level: >= 0.95, or 1 - 2^(1-n) for [min, max] "
     "with n <= 5 repetitions (0.9375 for 5)."),
    ("net_cycles_cv", "fraction", "Coefficient of variation of net_cycles_per_pair over repetitions: sample sd / abs(mean)."),
    ("unstable", "bool", "True when net_cycles_cv >= 0.05 (for void: the CV of its raw cycles): the repetitions disagree "
     "by more than 5%."),
    catalogue.column_doc("cycles_per_pair", note="For void: the baseline's own cost."),
    catalogue.column_doc("net_ns_per_pair"),
    catalogue.column_doc("overhead_ratio"),
    ("speed_vs_system", "ratio", "median net cycles/pair of system / of this allocator, same run, workload and threads: "
     "> 1 is faster than the system allocator."),
    ("speed_ci_low", "ratio", "Lower end of the 95% percentile-bootstrap interval of speed_vs_system (2000 resamples, "
     "both groups resampled; approximate: below its nominal level with few repetitions)."),
    ("speed_ci_high", "ratio", "Upper end of that interval."),
    ("speed_p", "p-value", "Two-sided Mann-Whitney U test of this allocator's net cycles/pair against system's (exact "
     "permutation test with mid-ranks up to 20 values in all)."),
    ("speed_significance", "mark", "'**' p < 0.01, '*' p < 0.05, '' not significant, 'n/a' too few repetitions for the "
     "test to ever reach p < 0.05."),
    ("overhead_vs_system", "ratio", "median overhead_ratio of this allocator / of system: < 1 uses less memory."),
    ("overhead_ci_low", "ratio", "Lower end of the 95% bootstrap interval of overhead_vs_system."),
    ("overhead_ci_high", "ratio", "Upper end of that interval."),
    ("overhead_p", "p-value", "Two-sided Mann-Whitney U test of overhead_ratio against system's."),
    ("overhead_significance", "mark", "As speed_significance, for overhead_p.  Overhead is nearly deterministic for one "
     "operation stream, so even small differences test as significant: they hold for this seed."),
    ("notes", "text", "Why a ratio or interval is missing (e.g. a median net cost <= 0), if it is."),
]
COLUMN_NAMES = [c[0] for c in COLUMNS]


def _values(frame: pd.DataFrame, column: str):
    """The column's finite values (missing, None and NaN dropped)."""
    return st.clean(frame[column].to_numpy()) if column in frame else st.clean([])


def overhead_ratios(ratios, invalid_reasons) -> tuple:
    """(the finite overhead ratios of a cell's repetitions, "" or why there are none).  One
    repetition whose RSS grew by less than was live (its overhead_ratio_invalid) makes the whole
    cell's overhead invalid, as in the C++ aggregates: never ranked."""
    reasons = [r for r in invalid_reasons if isinstance(r, str) and r]
    if reasons:
        return st.clean([]), "overhead invalid (< 1, not ranked): " + reasons[0]
    return st.clean(ratios), ""


def _overhead(frame: pd.DataFrame) -> tuple:
    reasons = frame["overhead_ratio_invalid"].tolist() if "overhead_ratio_invalid" in frame else []
    return overhead_ratios(frame["overhead_ratio"].to_numpy() if "overhead_ratio" in frame else [], reasons)


def _median(values) -> float:
    return float(pd.Series(values, dtype=float).median()) if len(values) else math.nan


def summary_table(runs: Runs) -> pd.DataFrame:
    """The table over every ok repetition in `runs`, in the order cells first appear."""
    cells = runs.cells
    if cells.empty or "status" not in cells:
        return pd.DataFrame(columns=COLUMN_NAMES)
    # alloc-test-like rows only: timing records of workloads with a void baseline
    ok = measured_timing(cells)
    ok = ok[~ok["workload"].isin(WITHOUT_NET_COST)]
    rows = []
    for (run, workload, threads), group in ok.groupby(["run", "workload", "threads"], sort=False):
        ref = group[group["allocator"] == REFERENCE]
        ref_net, (ref_over, _) = _values(ref, "net_cycles_per_pair"), _overhead(ref)
        for allocator, g in group.groupby("allocator", sort=False):
            baseline, is_ref = allocator == BASELINE, allocator == REFERENCE
            (over, over_invalid), net, raw = _overhead(g), _values(g, "net_cycles_per_pair"), _values(g, "cycles_per_pair")
            cell = st.summarise_cell(raw if baseline else net)  # the baseline's spread is that of its raw cost
            row = {"run": run, "workload": workload, "allocator": allocator, "threads": int(threads),
                   "reps_ok": int(net.size), "net_cycles_per_pair": 0.0 if baseline else cell["median"],
                   "net_cycles_ci_low": math.nan if baseline else cell["ci_low"],
                   "net_cycles_ci_high": math.nan if baseline else cell["ci_high"],
                   "net_cycles_ci_level": math.nan if baseline else cell["ci_level"],
                   "net_cycles_cv": cell["cv"], "unstable": cell["unstable"], "cycles_per_pair": _median(raw),
                   "net_ns_per_pair": _median(_values(g, "net_ns_per_pair")), "overhead_ratio": _median(over)}
            notes = [over_invalid] if over_invalid and not baseline else []
            nan = {"ratio": math.nan, "ci_low": math.nan, "ci_high": math.nan, "note": ""}
            speed = ovr = nan
            speed_p = over_p = math.nan
            speed_mark = over_mark = ""
            if not baseline and ref_net.size == 0:
                notes.append(f"no ok {REFERENCE} cell at these threads: nothing to compare with")
            elif not baseline:
                speed, ovr = st.ratio_of_medians(ref_net, net), st.ratio_of_medians(over, ref_over)
                if speed["note"]:
                    notes.append("speed: " + speed["note"])
                if ovr["note"] and not over_invalid:
                    notes.append("overhead: " + ovr["note"])
                if not is_ref:
                    speed_p, over_p = st.mann_whitney_p(net, ref_net), st.mann_whitney_p(over, ref_over)
                    speed_mark = st.significance_mark(speed_p, net.size, ref_net.size)
                    over_mark = st.significance_mark(over_p, over.size, ref_over.size)
            row.update({"speed_vs_system": speed["ratio"], "speed_ci_low": speed["ci_low"], "speed_ci_high": speed["ci_high"],
                        "speed_p": speed_p, "speed_significance": speed_mark, "overhead_vs_system": ovr["ratio"],
                        "overhead_ci_low": ovr["ci_low"], "overhead_ci_high": ovr["ci_high"], "overhead_p": over_p,
                        "overhead_significance": over_mark, "notes": "; ".join(notes)})
            rows.append(row)
    return pd.DataFrame(rows, columns=COLUMN_NAMES)


def geomean_table(table: pd.DataFrame) -> pd.DataFrame:
    """Per (run, allocator): geometric mean of speed_vs_system and overhead_vs_system over all
    its workloads and thread counts, and how many rows went into it."""
    rows = []
    for (run, allocator), g in table.groupby(["run", "allocator"], sort=False):
        if allocator in (BASELINE,):
            continue
        rows.append({"run": run, "allocator": allocator, "rows": int(g["speed_vs_system"].notna().sum()),
                     "geomean_speed_vs_system": st.geometric_mean(g["speed_vs_system"]),
                     "geomean_overhead_vs_system": st.geometric_mean(g["overhead_vs_system"])})
    return pd.DataFrame(rows, columns=["run", "allocator", "rows", "geomean_speed_vs_system", "geomean_overhead_vs_system"])


def table_warnings(table: pd.DataFrame) -> list[str]:
    """What a reader of the table must know: unstable cells, tests that cannot reach significance,
    missing reference or intervals."""
    out = []
    unstable = table[table["unstable"]]
    if len(unstable):
        out.append(f"{len(unstable)} of {len(table)} cells are unstable (CV >= {st.UNSTABLE_CV:.0%} over repetitions): " +
                   ", ".join(f"{r.allocator}@{r.threads}" for r in unstable.itertuples()))
    few = table[(table["speed_significance"] == "n/a") | (table["overhead_significance"] == "n/a")]
    if len(few):
        out.append(f"{len(few)} cells have too few repetitions for a Mann-Whitney test to reach p < {st.ALPHA} "
                   "(n1 vs n2 values reach at best p = 2 / C(n1+n2, n1), e.g. 0.1 for 3 vs 3): significance is n/a")
    if (table["reps_ok"] < 2).any():
        out.append("some cells have fewer than 2 usable repetitions: no confidence interval or CV")
    if len(table) and not (table["allocator"] == REFERENCE).any():
        out.append(f"no '{REFERENCE}' allocator in these results: nothing is relative to system")
    levels = table["net_cycles_ci_level"].dropna()
    if len(levels) and levels.min() < st.CONFIDENCE:
        out.append(f"with this few repetitions the interval of a median is [min, max], a {levels.min():.2%} interval, "
                   f"not {st.CONFIDENCE:.0%}")
    return out


# ---- rendering -------------------------------------------------------------------------------

def _num(x, fmt="{:.1f}") -> str:
    return "n/a" if x is None or (isinstance(x, float) and math.isnan(x)) else fmt.format(x)


def _with_ci(value, lo, hi, fmt) -> str:
    if isinstance(value, float) and math.isnan(value):
        return "n/a"
    ci = "" if math.isnan(lo) else f" [{fmt.format(lo)}, {fmt.format(hi)}]"
    return fmt.format(value) + ci


def display_rows(table: pd.DataFrame) -> tuple[list[str], list[list[str]]]:
    """Headers and formatted cells shared by the Markdown, LaTeX and HTML renderings."""
    multi_run = table["run"].nunique() > 1
    multi_workload = table["workload"].nunique() > 1
    (net, net_fmt), (_, raw_fmt) = catalogue.shown("net_cycles_per_pair"), catalogue.shown("cycles_per_pair")
    (ns, ns_fmt), (overhead, over_fmt) = catalogue.shown("net_ns_per_pair"), catalogue.shown("overhead_ratio")
    headers = (["run"] if multi_run else []) + (["workload"] if multi_workload else []) + [
        "allocator", "threads", "reps", f"{net} [95% CI]", "CV", ns, overhead,
        "speed vs system [95% CI]", "overhead vs system [95% CI]"]
    rows = []
    for r in table.itertuples():
        baseline = r.allocator == BASELINE
        cv = _num(r.net_cycles_cv, "{:.3f}") + (" (unstable)" if r.unstable else "")
        speed = _with_ci(r.speed_vs_system, r.speed_ci_low, r.speed_ci_high, "{:.2f}")
        over = _with_ci(r.overhead_vs_system, r.overhead_ci_low, r.overhead_ci_high, "{:.2f}")
        if r.allocator == REFERENCE:
            speed = over = "1 (reference)"
        if r.speed_significance and speed != "n/a":
            speed += " " + r.speed_significance if r.speed_significance != "n/a" else " (test n/a)"
        if r.overhead_significance and over != "n/a":
            over += " " + r.overhead_significance if r.overhead_significance != "n/a" else " (test n/a)"
        rows.append(([r.run] if multi_run else []) + ([r.workload] if multi_workload else []) + [
            r.allocator + (" (baseline)" if baseline else ""), str(r.threads), str(r.reps_ok),
            f"0 (raw {_num(r.cycles_per_pair, raw_fmt)})" if baseline else _with_ci(
                r.net_cycles_per_pair, r.net_cycles_ci_low, r.net_cycles_ci_high, net_fmt),
            cv, "0" if baseline else _num(r.net_ns_per_pair, ns_fmt),
            "-" if baseline else _num(r.overhead_ratio, over_fmt),
            "-" if baseline else speed, "-" if baseline else over])
    return headers, rows


LEGEND = ("net = allocator minus the void baseline (same threads, repetition, seed); medians over ok repetitions; "
          "[CI] of a median = distribution-free interval from order statistics (95%, or [min, max] when the repetitions "
          "are too few: 93.75% for 5); [CI] of a ratio = 95% percentile bootstrap, both groups resampled (approximate); "
          "speed vs system > 1 = faster than system; overhead vs system < 1 = leaner; ** p < 0.01, * p < 0.05 "
          "(two-sided exact Mann-Whitney U against system); (test n/a) = too few repetitions for the test to reach "
          "p < 0.05; unstable = CV >= 5% (void: of its raw cost). Repetitions replay one seed: intervals and tests "
          "describe run-to-run noise on that operation stream, not other seeds.")


def leading_text_columns(table: pd.DataFrame) -> int:
    """How many columns at the left of display_rows() hold text (run, workload, allocator)."""
    return 1 + int(table["run"].nunique() > 1) + int(table["workload"].nunique() > 1)


def to_markdown(table: pd.DataFrame) -> str:
    headers, rows = display_rows(table)
    right = {"threads", "reps", "CV", catalogue.shown("net_ns_per_pair")[0], catalogue.shown("overhead_ratio")[0]}
    lines = ["| " + " | ".join(headers) + " |",
             "|" + "|".join("---:" if h in right else "---" for h in headers) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines) + "\n\n" + LEGEND + "\n"


_LATEX_SPECIAL = {"\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "_": r"\_", "%": r"\%", "&": r"\&", "#": r"\#",
                  "$": r"\$", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}


def _latex_escape(text: str) -> str:
    text = re.sub(r"[\\{}_%&#$~^]", lambda m: _LATEX_SPECIAL[m.group(0)], text)  # one pass: no double escaping
    return text.replace("**", r"$^{**}$").replace(" *", r" $^{*}$")


def to_latex(table: pd.DataFrame) -> str:
    """A booktabs tabular (needs \\usepackage{booktabs}), with the legend as a comment."""
    headers, rows = display_rows(table)
    spec = "".join("l" if h in ("run", "workload", "allocator") else "r" for h in headers)
    out = [f"% {LEGEND}", f"\\begin{{tabular}}{{{spec}}}", r"\toprule",
           " & ".join(_latex_escape(h) for h in headers) + r" \\", r"\midrule"]
    out += [" & ".join(_latex_escape(c) for c in r) + r" \\" for r in rows]
    out += [r"\bottomrule", r"\end{tabular}"]
    return "\n".join(out) + "\n"


def to_csv(table: pd.DataFrame) -> str:
    """Every column unformatted (documented in COLUMNS)."""
    return table.to_csv(index=False)


def columns_markdown(columns=COLUMNS) -> str:
    """The (column, unit, meaning) list as a Markdown table (default: this table's COLUMNS)."""
    return "| column | unit | meaning |\n|---|---|---|\n" + "\n".join(f"| `{n}` | {u} | {d} |" for n, u, d in columns) + "\n"
