"""Python renders the figures the results file carries and never computes them again: a golden
file whose recorded aggregate figures (the median entries' medians and `intervals`, the cv
entries, speed_vs_system, its interval and vs_system) are rewritten to values no recomputation
from the repetitions gives must show those values.  Each assertion fails where a reader recomputes.

`allocstress.summary` reads them all, and so does the comparison table (tabulation/tables.py,
which the HTML report renders): the recorded intervals, medians, cvs, ratios to system and verdicts."""

import math

import pytest

import allocstress
import allocstress._core as _core
from conftest import write_variant

FIGURE = 1000.125  # + the entry's index: far from any repetition's net cycles/pair


def rewrite(doc):
    """The recorded figures of every alloc-test timing cell, made distinctive (test input only)."""
    medians = [e for e in doc["benchmarks"] if e.get("run_type") == "aggregate" and e.get("aggregate_name") == "median"]
    for i, e in enumerate(medians):
        m = FIGURE + i
        e["net_cycles_per_pair"] = m
        e["net_ns_per_pair"] = 500.25 + i
        e["peak_rss_bytes"] = 1234567.0 + i
        rel = 0.0123 if i % 2 else 0.3456  # half the cells unstable, whatever their values say
        e["intervals"] = {"net_cycles_per_pair": {"low": m - 7.75, "high": m + 5.5, "level": 0.4242, "n": 5,
                                                  "method": "order statistics", "relative_half_width": rel}}
        if e["allocator"] not in ("void", "system"):
            e["speed_vs_system"] = 4.321
            e["speed_vs_system_interval"] = {"low": 3.21, "high": 5.43, "level_at_least": 0.777, "method": "x"}
            e["vs_system"] = "slower"
    for e in doc["benchmarks"]:
        if e.get("run_type") == "aggregate" and e.get("aggregate_name") == "cv":
            e["net_cycles_per_pair"] = 0.5555


@pytest.fixture
def rewritten(tmp_path):
    return write_variant(tmp_path, "recorded.json", rewrite)


def recorded_medians(path):
    import json
    with open(path) as f:
        doc = json.load(f)
    return {(e["allocator"], e["threads"]): e for e in doc["benchmarks"]
            if e.get("run_type") == "aggregate" and e.get("aggregate_name") == "median"}


def test_summary_shows_the_recorded_figures(rewritten):
    s = allocstress.summary(allocstress.load(rewritten))
    medians = recorded_medians(rewritten)
    timing = s[s["mode"] == "timing"]
    assert len(timing) == len(medians)
    for r in timing.itertuples():
        e = medians[(r.allocator, r.threads)]
        iv = e["intervals"]["net_cycles_per_pair"]
        assert (r.median, r.ci_low, r.ci_high, r.ci_level) == (e["net_cycles_per_pair"], iv["low"], iv["high"], 0.4242)
        assert r.unstable == (iv["relative_half_width"] > 0.10)
        assert r.cv == 0.5555
        assert (r.net_ns_per_pair, r.peak_rss_bytes) == (e["net_ns_per_pair"], e["peak_rss_bytes"])


def test_a_filtered_frame_computes_what_the_file_does_not_carry(rewritten):
    df = allocstress.load(rewritten)
    s = allocstress.summary(df[df["repetition"] > 0])  # 4 of 5 repetitions: the entries do not describe them
    assert (s["median"] < FIGURE / 2).all()


@pytest.fixture
def table_rows(rewritten):
    table = allocstress.summary_table(allocstress.load_runs([rewritten]))
    return table[table["allocator"] != "void"], recorded_medians(rewritten)


def test_table_shows_the_recorded_intervals(table_rows):
    rows, medians = table_rows
    for r in rows.itertuples():
        iv = medians[(r.allocator, r.threads)]["intervals"]["net_cycles_per_pair"]
        assert (r.net_cycles_ci_low, r.net_cycles_ci_high, r.net_cycles_ci_level) == (iv["low"], iv["high"], 0.4242)
        assert r.net_cycles_rel_half_width == iv["relative_half_width"]
        assert r.unstable == (iv["relative_half_width"] > 0.10)
        if r.allocator != "system":
            assert (r.speed_ci_low, r.speed_ci_high, r.speed_ci_level) == (3.21, 5.43, 0.777)


def test_table_shows_the_recorded_median(table_rows):
    rows, medians = table_rows
    assert all(r.net_cycles_per_pair == medians[(r.allocator, r.threads)]["net_cycles_per_pair"] for r in rows.itertuples())


def test_table_shows_the_recorded_cv(table_rows):
    rows, _ = table_rows
    assert (rows["net_cycles_cv"] == 0.5555).all()


def test_table_shows_the_recorded_ratio_to_system(table_rows):
    rows, _ = table_rows
    others = rows[rows["allocator"] != "system"]
    assert (others["speed_vs_system"] == 4.321).all() and not others["speed_vs_system"].map(math.isnan).any()


def test_table_shows_the_recorded_verdict(table_rows):
    rows, _ = table_rows
    assert (rows[rows["allocator"] != "system"]["speed_vs_system_verdict"] == "slower").all()


def test_the_html_row_shows_what_the_markdown_row_shows(rewritten):
    """The HTML report's table (tables.py) and the Markdown table render one row source
    (_core.summary_rows, results/tables/results_table.hpp): per cell, the HTML's net cost with its
    interval and its speed vs system read as the Markdown row's median, interval and "vs system"
    cells.  (The figures are the rewritten recorded ones: a table that recomputes shows others.)"""
    from allocstress.tabulation import tables
    with open(rewritten) as f:
        rows = {(r["allocator"], r["threads"]): r for r in _core.summary_rows(f.read()) if r["workload"] == "alloc-test"}
    table = allocstress.summary_table(allocstress.load_runs([rewritten]))
    headers, cells = tables.display_rows(table)
    net, speed = headers.index(next(h for h in headers if h.startswith("net cycles/pair"))), headers.index(
        next(h for h in headers if h.startswith("speed vs system")))
    assert len(cells) == len(rows) > 0
    for text, t in zip(cells, table.itertuples()):
        r = rows[(t.allocator, t.threads)]
        if r["baseline"]:
            continue
        assert text[net] == f"{r['median']:.1f} " + r["interval_text"].rsplit(" (", 1)[0] + "†" * r["unstable"]
        if not r["reference"]:
            assert text[speed] == r["versus"]
