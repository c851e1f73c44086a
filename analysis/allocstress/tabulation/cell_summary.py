"""`allocstress.summary`: the aggregated view of a `load` DataFrame, or of any subset of its rows.

One row per (run, workload, allocator, threads, mode, instance): per cell (results.records.cell_key)
of each run, in the order the cells first appear.  The
statistics use the ok, undisturbed repetitions of the group, as the C++ aggregates do (the median
entries of the results file):

  n_ok, n_disturbed, n_failed   ok undisturbed / ok but disturbed (left out) / not ok repetitions
  headline_metric               what `median` is the median of (frame.py: the workload's headline)
  median                        median of `headline` over the n_ok repetitions
  ci_low, ci_high, ci_level     the distribution-free order-statistic interval of that median
                                (statistics.median_ci, the rule of the C++ `median_interval`):
                                x(k), x(n+1-k) with the largest k whose binomial coverage still
                                reaches 95%, else [min, max]; ci_level is its real coverage, which
                                differs per row (0.9375 with 5 values, 0.75 with 3); NaN below 2 values
  cv, unstable                  sample sd / |mean| of `headline`; unstable when the interval is wider than ±10% of the median
  net_ns_per_pair, overhead_ratio, peak_rss_bytes   medians over the same repetitions
                                (overhead_ratio NaN for the whole cell when one repetition's ratio is
                                invalid, as in the C++ aggregates: `overhead_note` says why)

The interval's method is also in `summary(df).attrs["interval"]`.

Where the results file carries the figure -- a timing cell's C++ median entry (its headline metric's
value and `intervals.<headline>`, net_ns_per_pair, overhead_ratio, peak_rss_bytes) and cv entry,
over the same repetitions (`df.attrs["aggregates"]`, results/aggregates.py) -- the row shows the
recorded figure; only what the file does not carry (other modes, a filtered frame's smaller
groups, files without aggregates) is computed, by the same C++ rules through `_core`."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ..results import catalogue
from ..results.aggregates import recorded_figure
from ..results.records import CellKey
from ..stats import statistics as st
from ..stats.median_intervals import median_interval, recorded_interval
from .tables import overhead_ratios

GROUP = ["run", "workload", "allocator", "threads", "mode", "instance"]  # a run and a cell's key (records.CellKey)
COLUMNS = GROUP + ["n_ok", "n_disturbed", "n_failed", "headline_metric", "median", "ci_low", "ci_high", "ci_level", "cv",
                   "unstable", "net_ns_per_pair", "overhead_ratio", "overhead_note", "peak_rss_bytes"]
INTERVAL = ("order-statistic interval of the median (distribution-free, binomial): x(k), x(n+1-k) with the largest k "
            "whose coverage reaches 95%, else [min, max]; its real level per row in ci_level")


def _median(frame: pd.DataFrame, column: str) -> float:
    values = st.clean(frame[column].to_numpy()) if column in frame else np.zeros(0)
    return float(np.median(values)) if values.size else math.nan


def _recorded(key: tuple, metrics: list, n: int, aggregates) -> dict:
    """The figures of the row the results file carries (module docstring); {} when it carries none."""
    run, cell = key[0], CellKey(key[1], key[2], int(key[3]), key[4], key[5])
    median = aggregates.entry(run, cell, "median", n) if aggregates is not None and n else None
    metric = str(metrics[0]) if len(metrics) == 1 else None
    figure = recorded_figure(median, catalogue.column_of(metric)) if metric else None
    if figure is None:
        return {}
    out = {"median": figure}
    interval = recorded_interval(median, metric)
    if interval:
        iv = median_interval([], interval)
        out.update({"ci_low": iv["low"], "ci_high": iv["high"], "ci_level": iv["level"]})
        rel = iv["rel_half_width"] if isinstance(interval.get("relative_half_width"), (int, float)) else \
            st.relative_half_width(iv["low"], iv["high"], figure)
        out["unstable"] = st.is_unstable(rel)
    cv = aggregates.entry(run, cell, "cv", n)
    if cv is not None and n >= 2:  # C++ null: undefined (a zero mean); one value: NaN here, as coefficient_of_variation
        value = recorded_figure(cv, catalogue.column_of(metric))
        out["cv"] = math.nan if value is None else value
    # an invalid repetition makes the cell's overhead ratio NaN here (overhead_note says why): computed then
    columns = ("net_ns_per_pair", "peak_rss_bytes") + (() if "overhead_ratio_invalid" in median else ("overhead_ratio",))
    for column in columns:
        if (value := recorded_figure(median, column)) is not None:
            out[column] = value
    return out


def _row(key: tuple, group: pd.DataFrame, aggregates) -> dict:
    ok = group["status"] == "ok"
    used = group[ok & ~group["disturbed"]]
    metrics = list(dict.fromkeys(group["headline_metric"].dropna()))
    recorded = _recorded(key, metrics, len(used), aggregates)
    carried = all(k in recorded for k in ("median", "ci_low", "ci_high", "ci_level", "cv", "unstable"))
    cell = {**({} if carried else st.summarise_cell(used["headline"].to_numpy())), **recorded}
    over, over_note = overhead_ratios(used["overhead_ratio"].to_numpy() if "overhead_ratio" in used else [],
                                      used["overhead_ratio_invalid"].tolist() if "overhead_ratio_invalid" in used else [])
    return {**dict(zip(GROUP, key)), "n_ok": len(used), "n_disturbed": int((ok & group["disturbed"]).sum()),
            "n_failed": int((~ok).sum()), "headline_metric": ", ".join(map(str, metrics)),
            "median": cell["median"], "ci_low": cell["ci_low"], "ci_high": cell["ci_high"], "ci_level": cell["ci_level"],
            "cv": cell["cv"], "unstable": cell["unstable"],
            "net_ns_per_pair": cell.get("net_ns_per_pair", _median(used, "net_ns_per_pair")),
            "overhead_ratio": cell.get("overhead_ratio", float(np.median(over)) if over.size else math.nan),
            "overhead_note": over_note, "peak_rss_bytes": cell.get("peak_rss_bytes", _median(used, "peak_rss_bytes"))}


def summary(df: pd.DataFrame) -> pd.DataFrame:
    """The aggregated view of `df` (a DataFrame from allocstress.load, possibly filtered); see the
    module docstring for the columns.  Groups without rows (unused categories) give no row."""
    missing = [c for c in GROUP + ["status", "disturbed", "headline", "headline_metric"] if c not in df]
    if missing:
        raise ValueError("allocstress.summary needs a DataFrame from allocstress.load; missing column(s): "
                         + ", ".join(missing))
    aggregates = df.attrs.get("aggregates")
    rows = [_row(key, g, aggregates) for key, g in df.groupby(GROUP, sort=False, observed=True, dropna=False)]
    out = pd.DataFrame(rows, columns=COLUMNS)
    for c in ("run", "workload", "allocator", "mode"):
        if isinstance(df[c].dtype, pd.CategoricalDtype):
            out[c] = pd.Categorical(out[c], categories=df[c].cat.categories)
    out = out.astype({"threads": df["threads"].dtype, "n_ok": np.int64, "n_disturbed": np.int64, "n_failed": np.int64,
                      "unstable": bool})
    out.attrs["interval"] = INTERVAL
    return out


def plot_summary(s: pd.DataFrame, ax=None):
    """Horizontal bars of `median` per row of a summary() frame, cheapest at the top, with the
    order-statistic interval as whiskers (its real levels in the title), on a log axis when the
    medians span more than a factor of 10; rows are labelled by the group columns that vary.
    Returns the matplotlib Axes (nothing is written: save it with ax.figure.savefig)."""
    import matplotlib.pyplot as plt  # only when plotting: loading and summarising need no matplotlib

    rows = s[np.isfinite(s["median"].to_numpy(dtype=float))].sort_values("median", ascending=False)
    varying = [c for c in GROUP if c != "allocator" and s[c].nunique() > 1]
    labels = [" · ".join([str(r["allocator"])] + [f"{c} {r[c]}" for c in varying]) for _, r in rows.iterrows()]
    if ax is None:
        _, ax = plt.subplots(figsize=(7, 0.35 * len(rows) + 1.2))
    med = rows["median"].to_numpy(dtype=float)
    err = np.vstack([med - rows["ci_low"].to_numpy(dtype=float), rows["ci_high"].to_numpy(dtype=float) - med])
    positions = np.arange(len(rows))  # positions, not labels: equal labels must not share a bar
    ax.barh(positions, med, xerr=np.nan_to_num(err), color="#4c72b0", ecolor="black", capsize=3)
    ax.set_yticks(positions, labels)
    positive = med[med > 0]
    if positive.size and positive.max() / positive.min() > 10 and (med > 0).all():
        ax.set_xscale("log")
    ax.set_xlabel("median " + ", ".join(dict.fromkeys(rows["headline_metric"].astype(str))))
    levels = rows["ci_level"].dropna()
    level = (f"{levels.min():.1%}" if levels.min() == levels.max() else f"{levels.min():.1%}-{levels.max():.1%}") if len(levels) else "n/a"
    ax.set_title(f"median; whiskers: order-statistic interval of the median ({level})", fontsize=9)
    ax.grid(True, axis="x", alpha=0.3)
    ax.figure.tight_layout()  # room for the labels
    return ax
