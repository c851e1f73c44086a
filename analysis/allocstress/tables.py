"""The comparison table: one row per (run, workload, allocator, threads) with the allocator's own
cost, its uncertainty, memory overhead, and both relative to the system allocator, with
significance.  Rendered as Markdown, LaTeX (booktabs) or CSV; every column is documented in
COLUMNS, and the renderers print that legend under the table."""

from __future__ import annotations

import math

import pandas as pd

from . import statistics as st
from .loading import Runs

REFERENCE = "system"  # what "relative to system" compares against
BASELINE = "void"     # the subtracted baseline: its net cost is 0 by definition

# (column, unit, what it is and how it is computed)
COLUMNS = [
    ("run", "-", "Results file the row comes from (file name without .json)."),
    ("workload", "-", "Workload of the cell (e.g. alloc-test)."),
    ("allocator", "-", "Allocator name as in the results file."),
    ("threads", "threads", "Worker threads of the cell."),
    ("reps_ok", "count", "Repetitions with status ok; only these are summarised."),
    ("net_cycles_per_pair", "TSC cycles", "Median over repetitions of net_cycles_per_pair: the allocator's cycles per "
     "malloc/free pair minus the void baseline's at the same threads, repetition and seed."),
    ("net_cycles_ci_low", "TSC cycles", "Lower end of the 95% percentile-bootstrap interval of that median (2000 resamples)."),
    ("net_cycles_ci_high", "TSC cycles", "Upper end of the same interval."),
    ("net_cycles_cv", "fraction", "Coefficient of variation of net_cycles_per_pair over repetitions: sample sd / abs(mean)."),
    ("unstable", "bool", "True when net_cycles_cv >= 0.05: the repetitions disagree by more than 5%."),
    ("cycles_per_pair", "TSC cycles", "Median raw cycles per pair (before subtracting the baseline); the baseline's own cost "
     "for void."),
    ("net_ns_per_pair", "ns", "Median net nanoseconds per malloc/free pair (TSC cycles / calibrated TSC frequency)."),
    ("overhead_ratio", "ratio", "Median of (peak RSS - RSS before the first allocation) / peak live requested bytes."),
    ("speed_vs_system", "ratio", "median net cycles/pair of system / of this allocator, same run, workload and threads: "
     "> 1 is faster than the system allocator."),
    ("speed_ci_low", "ratio", "Lower end of the 95% bootstrap interval of speed_vs_system (both groups resampled)."),
    ("speed_ci_high", "ratio", "Upper end of that interval."),
    ("speed_p", "p-value", "Two-sided Mann-Whitney U test of this allocator's net cycles/pair against system's."),
    ("speed_significance", "mark", "'**' p < 0.01, '*' p < 0.05, '' not significant, 'n/a' too few repetitions for the "
     "test to ever reach p < 0.05."),
    ("overhead_vs_system", "ratio", "median overhead_ratio of this allocator / of system: < 1 uses less memory."),
    ("overhead_ci_low", "ratio", "Lower end of the 95% bootstrap interval of overhead_vs_system."),
    ("overhead_ci_high", "ratio", "Upper end of that interval."),
    ("overhead_p", "p-value", "Two-sided Mann-Whitney U test of overhead_ratio against system's."),
    ("overhead_significance", "mark", "As speed_significance, for overhead_p."),
]
COLUMN_NAMES = [c[0] for c in COLUMNS]


def _values(frame: pd.DataFrame, column: str):
    return frame[column].to_numpy(dtype=float) if column in frame else []


def summary_table(runs: Runs) -> pd.DataFrame:
    """The table over every ok repetition in `runs`, in the order cells first appear."""
    cells = runs.cells
    if cells.empty or "status" not in cells:
        return pd.DataFrame(columns=COLUMN_NAMES)
    ok = cells[cells["status"] == "ok"]
    rows = []
    for (run, workload, threads), group in ok.groupby(["run", "workload", "threads"], sort=False):
        ref = group[group["allocator"] == REFERENCE]
        ref_net, ref_over = _values(ref, "net_cycles_per_pair"), _values(ref, "overhead_ratio")
        for allocator, g in group.groupby("allocator", sort=False):
            net, over = _values(g, "net_cycles_per_pair"), _values(g, "overhead_ratio")
            cell = st.summarise_cell(net)
            row = {"run": run, "workload": workload, "allocator": allocator, "threads": int(threads),
                   "reps_ok": len(g), "net_cycles_per_pair": cell["median"], "net_cycles_ci_low": cell["ci_low"],
                   "net_cycles_ci_high": cell["ci_high"], "net_cycles_cv": cell["cv"], "unstable": cell["unstable"],
                   "cycles_per_pair": float(pd.Series(_values(g, "cycles_per_pair")).median()),
                   "net_ns_per_pair": float(pd.Series(_values(g, "net_ns_per_pair")).median()),
                   "overhead_ratio": float(pd.Series(over).median()) if len(over) else math.nan}
            compare = allocator != BASELINE and len(ref_net) > 0
            speed = st.ratio_of_medians(ref_net, net) if compare else {"ratio": math.nan, "ci_low": math.nan, "ci_high": math.nan}
            ovr = st.ratio_of_medians(over, ref_over) if compare else {"ratio": math.nan, "ci_low": math.nan, "ci_high": math.nan}
            speed_p = st.mann_whitney_p(net, ref_net) if compare and allocator != REFERENCE else math.nan
            over_p = st.mann_whitney_p(over, ref_over) if compare and allocator != REFERENCE else math.nan
            is_ref = allocator == REFERENCE
            row.update({"speed_vs_system": speed["ratio"], "speed_ci_low": speed["ci_low"], "speed_ci_high": speed["ci_high"],
                        "speed_p": speed_p,
                        "speed_significance": "" if is_ref or not compare else st.significance_mark(speed_p, len(net), len(ref_net)),
                        "overhead_vs_system": ovr["ratio"], "overhead_ci_low": ovr["ci_low"], "overhead_ci_high": ovr["ci_high"],
                        "overhead_p": over_p,
                        "overhead_significance": "" if is_ref or not compare else st.significance_mark(over_p, len(over), len(ref_over))})
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
    """What a reader of the table must know: unstable cells, tests that cannot reach significance."""
    out = []
    unstable = table[table["unstable"]]
    if len(unstable):
        out.append(f"{len(unstable)} of {len(table)} cells are unstable (CV of net cycles/pair >= "
                   f"{st.UNSTABLE_CV:.0%}): " + ", ".join(f"{r.allocator}@{r.threads}" for r in unstable.itertuples()))
    few = table[table["speed_significance"] == "n/a"]
    if len(few):
        out.append(f"{len(few)} cells have too few repetitions for a Mann-Whitney test to reach p < {st.ALPHA} "
                   "(it needs at least 4 repetitions of both allocators): significance is n/a")
    if (table["reps_ok"] < 2).any():
        out.append("some cells have fewer than 2 ok repetitions: no confidence interval or CV")
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
    headers = (["run"] if multi_run else []) + (["workload"] if multi_workload else []) + [
        "allocator", "threads", "reps", "net cycles/pair [95% CI]", "CV", "net ns/pair", "overhead ratio",
        "speed vs system [95% CI]", "overhead vs system [95% CI]"]
    rows = []
    for r in table.itertuples():
        baseline = r.allocator == BASELINE
        cv = _num(r.net_cycles_cv, "{:.3f}") + (" (unstable)" if r.unstable else "")
        speed = _with_ci(r.speed_vs_system, r.speed_ci_low, r.speed_ci_high, "{:.2f}")
        over = _with_ci(r.overhead_vs_system, r.overhead_ci_low, r.overhead_ci_high, "{:.2f}")
        if r.speed_significance and speed != "n/a":
            speed += " " + r.speed_significance if r.speed_significance != "n/a" else " (test n/a)"
        if r.overhead_significance and over != "n/a":
            over += " " + r.overhead_significance if r.overhead_significance != "n/a" else " (test n/a)"
        rows.append(([r.run] if multi_run else []) + ([r.workload] if multi_workload else []) + [
            r.allocator + (" (baseline)" if baseline else ""), str(r.threads), str(r.reps_ok),
            f"0 (raw {_num(r.cycles_per_pair)})" if baseline else _with_ci(r.net_cycles_per_pair, r.net_cycles_ci_low,
                                                                            r.net_cycles_ci_high, "{:.1f}"),
            "-" if baseline else cv, "0" if baseline else _num(r.net_ns_per_pair, "{:.2f}"),
            "-" if baseline else _num(r.overhead_ratio, "{:.3f}"),
            "-" if baseline else speed, "-" if baseline else over])
    return headers, rows


LEGEND = ("net = allocator minus the void baseline (same threads, repetition, seed); medians over ok repetitions; "
          "[95% CI] = percentile bootstrap of the median (ratios: both groups resampled); speed vs system > 1 = faster "
          "than system; overhead vs system < 1 = leaner; ** p < 0.01, * p < 0.05 (two-sided Mann-Whitney U against "
          "system); (test n/a) = too few repetitions for the test to reach p < 0.05; unstable = CV >= 5%.")


def to_markdown(table: pd.DataFrame) -> str:
    headers, rows = display_rows(table)
    right = {"threads", "reps", "CV", "net ns/pair", "overhead ratio"}
    lines = ["| " + " | ".join(headers) + " |",
             "|" + "|".join("---:" if h in right else "---" for h in headers) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines) + "\n\n" + LEGEND + "\n"


def _latex_escape(text: str) -> str:
    for a, b in (("\\", r"\textbackslash{}"), ("_", r"\_"), ("%", r"\%"), ("&", r"\&"), ("#", r"\#")):
        text = text.replace(a, b)
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


def columns_markdown() -> str:
    return "| column | unit | meaning |\n|---|---|---|\n" + "\n".join(f"| `{n}` | {u} | {d} |" for n, u, d in COLUMNS) + "\n"
