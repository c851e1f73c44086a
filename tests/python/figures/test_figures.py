"""The report's figures (figure_*.py) on constructed variants of the golden file: which figures
appear when (heatmaps with several workloads, sweeps with 3+ thread counts), the reference
allocator and its fallback, intervals named with their real level and method, n/a with its
reason, per-cell warnings next to their cells, and every figure loaded in headless Chromium."""

import copy
import math
import os
import re
import types

import allocstress
from allocstress import plots
from allocstress.figures import figure_data, figure_relative_cost, figure_repetitions
from allocstress.reporting.html_parts import cell_warnings
from allocstress.reporting.report import write_report

import browser
from conftest import iteration_entries, write_variant

ALLOCATOR_FACTOR = {"jemalloc": 0.5, "mimalloc": 0.8, "tcmalloc": 1.3, "tbbmalloc": 2.0, "tcmalloc_minimal": 0.7}


def add_workloads_and_threads(doc):
    """xthread and larson beside alloc-test (alloc-test's records, costs scaled per allocator), and
    every workload also at 4 threads (the 2-thread records): 3 workloads x 3 thread counts."""
    extra = []
    for e in iteration_entries(doc):
        for workload, scale in (("xthread", 1.0), ("larson", 2.0)):
            c = copy.deepcopy(e)
            c["workload"] = workload
            if isinstance(c.get("net_cycles_per_pair"), (int, float)) and c["allocator"] != "void":
                c["net_cycles_per_pair"] *= ALLOCATOR_FACTOR.get(c["allocator"], 1.0) * scale
            extra.append(c)
    doc["benchmarks"] += extra
    doc["benchmarks"] += [dict(copy.deepcopy(e), threads=4) for e in iteration_entries(doc) if e["threads"] == 2]


def svg_text(png):
    with open(png[:-4] + ".svg") as f:
        return f.read()


def figure_section(page):
    start = page.index('<h2 id="figures">')
    return page[start:page.index("<h2", start + 10)]


def test_log_axis_only_where_the_values_span_more_than_3x():
    assert not plots.wants_log([0.4, 1.0, 1.1])
    assert plots.wants_log([0.3, 1.0])
    assert plots.wants_log([1.3, 1.8, 57.0])  # production allocators under bump
    assert not plots.wants_log([-5.0, 0.0, 1.0, 2.0])  # only positive values count


def test_interval_names_state_level_and_method():
    assert plots.interval_name(0.9375, "order-statistic") == "93.8% order-statistic interval"
    assert plots.levels_text([(0.95, "batch means"), (0.9375, "order-statistic"), (0.96, "order-statistic")]) == \
        "95% batch means interval; 93.8% to 96% order-statistic interval"
    assert plots.levels_text([]) == "no intervals (fewer than 2 repetitions)"


def test_record_intervals_are_preferred_and_named(tmp_path):
    def add_interval(doc):
        for e in doc["benchmarks"]:
            if e["run_type"] == "aggregate" and e["aggregate_name"] == "median" and e["allocator"] == "jemalloc":
                e["intervals"] = {"net_cycles_per_pair": {"low": 1.0, "high": 2.0, "level": 0.9, "method": "test method", "n": 5}}
    path = write_variant(tmp_path, "intervals.json", add_interval)
    panels = figure_data.panels(allocstress.load_runs([path]), "intervals", "alloc-test")
    jemalloc, mimalloc = panels[0].cell("jemalloc"), panels[0].cell("mimalloc")
    assert (jemalloc.low, jemalloc.high, jemalloc.level, jemalloc.method) == (1.0, 2.0, 0.9, "test method")
    assert mimalloc.method == "order-statistic" and math.isclose(mimalloc.level, 0.9375)  # [min, max] of 5
    assert (mimalloc.low, mimalloc.high) == (min(mimalloc.values), max(mimalloc.values))
    text = svg_text(figure_repetitions.plot_repetitions(panels, str(tmp_path / "reps")))
    assert "90% test method interval" in text and "93.8% order-statistic interval" in text
    assert "CI" not in re.sub(r"<[^>]*>", "", text)


def test_reference_is_system_else_the_most_expensive(tmp_path, golden):
    panel = figure_data.panels(allocstress.load_runs([golden]), "golden-tiny", "alloc-test")[0]
    assert panel.reference == "system" and panel.cell("system").ratio["ratio"] == 1.0
    assert [c.allocator for c in panel.sorted_by_ratio()] == sorted((c.allocator for c in panel.cells), key=lambda a:
                                                                    panel.cell(a).median)  # cheapest first
    path = write_variant(tmp_path, "nosystem.json", lambda doc: doc.update(
        benchmarks=[e for e in doc["benchmarks"] if e["allocator"] != "system"]))
    panel = figure_data.panels(allocstress.load_runs([path]), "nosystem", "alloc-test")[0]
    worst = max(panel.cells, key=lambda c: c.median)
    assert panel.reference == worst.allocator
    assert panel.reference_note == f"{worst.allocator}, the most expensive (system did not run or has no positive median)"
    assert all(c.ratio["ratio"] <= 1.0 for c in panel.cells)
    text = svg_text(figure_relative_cost.plot_relative_cost([panel], str(tmp_path / "cost")))
    assert "the most expensive" in text


def test_a_ratio_that_cannot_be_formed_is_na_with_its_reason(tmp_path):
    def nonpositive(doc):
        for e in iteration_entries(doc):
            if e["allocator"] == "jemalloc" and e["threads"] == 1:
                e["net_cycles_per_pair"] = -1.0
    path = write_variant(tmp_path, "negative.json", nonpositive)
    panel = figure_data.panels(allocstress.load_runs([path]), "negative", "alloc-test")[0]
    assert math.isnan(panel.cell("jemalloc").ratio["ratio"])
    assert panel.sorted_by_ratio()[-1].allocator == "jemalloc"  # no ratio: last
    text = svg_text(figure_relative_cost.plot_relative_cost([panel], str(tmp_path / "cost")))
    assert "jemalloc  n/a: a median is &lt;= 0" in text


def test_heatmaps_and_sweeps_appear_and_every_figure_loads(tmp_path, output_dir):
    path = write_variant(tmp_path, "several.json", add_workloads_and_threads)
    index = write_report([path], str(tmp_path / "r"), "test")
    section = figure_section(open(index).read())
    assert section.count("<img ") == 2 + 3 * 4  # two heatmaps; per workload cost, repetitions, overhead, sweep
    seen = browser.render("file://" + index, os.path.join(output_dir, "figures-several-workloads.png"))
    alts = [alt for _, _, _, alt in seen["images"]]
    for src, complete, width, alt in seen["images"]:
        assert complete and width > 0, alt
    for kind in ("Headline cost of every allocator in every workload", "Memory overhead relative to the column's"):
        assert sum(a.startswith(kind) for a in alts) == 1, kind
    for workload in ("alloc-test", "xthread", "larson"):
        for kind in ("Cost relative", "Every ok", "Memory overhead, median", "Against threads"):
            assert sum(a.startswith(f"{workload}: {kind}") for a in alts) == 1, (workload, kind)
    runs = allocstress.load_runs([path])
    ratio = {w: figure_data.panels(runs, "several", w)[0].cell("jemalloc").ratio["ratio"] for w in ("alloc-test", "xthread")}
    assert math.isclose(ratio["xthread"], ratio["alloc-test"] * 0.5)  # scaled medians: scaled ratio
    heatmap = svg_text(str(tmp_path / "r" / "several-cost-heatmap.png"))
    assert f"{ratio['xthread']:.2f}×" in heatmap and f"{ratio['alloc-test']:.2f}×" in heatmap
    assert "CI" not in re.sub(r'data:image/png;base64,[^"]*', "", section)


def test_one_workload_two_thread_counts_has_no_heatmap_or_sweep(golden, tmp_path):
    section = figure_section(open(write_report([golden], str(tmp_path / "r"), "test")).read())
    assert "heatmap" not in section and "Against threads" not in section
    assert "Thread sweeps are drawn from 3 thread counts on; none for alloc-test (1, 2)." in section


def test_in_tree_allocators_get_their_own_overhead_panel(golden, tmp_path):
    def bump(doc):
        for e in doc["benchmarks"]:
            if e["allocator"] == "tcmalloc":
                e.update(allocator="bump", allocator_kind="in_tree")
                if e["run_type"] == "iteration":
                    e["overhead_ratio"] = 45.0
    path = write_variant(tmp_path, "bump.json", bump)
    for name, expected in ((golden, False), (path, True)):
        runs = allocstress.load_runs([name])
        run = runs.run_names()[0]
        from allocstress.figures import figure_overhead
        text = svg_text(figure_overhead.plot_overhead(figure_data.panels(runs, run, "alloc-test"), str(tmp_path / run)))
        assert (figure_data.IN_TREE in text) == expected
        assert figure_overhead.PRODUCTION in text


def test_disturbed_only_workload_says_why_it_has_no_figures(tmp_path):
    def disturb(doc):
        for e in iteration_entries(doc):
            e["interference"] = {"disturbed": True}
    path = write_variant(tmp_path, "disturbed.json", disturb)
    section = figure_section(open(write_report([path], str(tmp_path / "r"), "test")).read())
    assert ("alloc-test: figures n/a: every ok repetition was disturbed (another task ran on a worker&#x27;s CPU)."
            in section)
    assert "<img " not in section


def test_cell_warnings_are_shown_next_to_their_cells(tmp_path):
    text = "more trace threads (4) than PUs (2): the workers share PUs"

    def one_warning(doc):
        for e in iteration_entries(doc):
            e["warnings"] = [text] if (e["allocator"], e["threads"], e["repetition_index"]) == ("jemalloc", 2, 0) else []
    path = write_variant(tmp_path, "warned.json", one_warning)
    page = open(write_report([path], str(tmp_path / "r"), "test")).read()
    summary = page[page.index("<h2>Summary</h2>"):page.index("<h3>Geometric mean")]
    assert f"<li><b>{text}</b> &mdash; alloc-test, timing records: jemalloc at 2 thread(s) (1 of 5 records)</li>" in summary
    rows = re.findall(r"<tr>(.*?)</tr>", summary)
    marked = [r for r in rows if "⚠" in r]
    assert len(marked) == 1 and '<td class="l">jemalloc ⚠</td><td>2</td>' in marked[0]


def _cell(name, values, low, high, level=0.9375):
    import numpy as np
    v = np.asarray(values, dtype=float)
    return figure_data.Cell(name, "drop_in", v, np.array([]), float(np.median(v)), low, high, level, "order-statistic",
                            np.array([]))


def test_a_ratio_to_the_reference_gets_the_inverted_quotient_of_the_medians_intervals(tmp_path):
    ref = _cell("system", [100, 110, 120, 130, 140], 100, 140)
    mine = _cell("x", [50, 55, 60, 65, 70], 50, 70)
    r = figure_data.ratio_to_reference(mine, ref, None, "")
    assert r["ratio"] == 0.5 and r["ci_low"] == 50 / 140 and r["ci_high"] == 70 / 100
    assert r["level"] == 0.875 and r["method"] == figure_data.QUOTIENT
    # the recorded speed_vs_system_interval (system / this) is the one inverted, as the tables show it
    recorded = {"low": 1.25, "high": 2.5, "level_at_least": 0.9}
    r = figure_data.ratio_to_reference(mine, ref, recorded, "")
    assert (r["ci_low"], r["ci_high"], r["level"]) == (0.4, 0.8, 0.9)
    # this cell's interval reaching 0: no lower bound, drawn open-ended without a crash
    open_ended = _cell("y", [-1, 10, 20, 30, 40], -1, 40)
    r = figure_data.ratio_to_reference(open_ended, ref, None, "")
    assert r["ci_low"] == 0 and r["ci_high"] == 40 / 100 and "no lower bound" in r["note"]
    assert "no lower bound" in figure_relative_cost.ratio_text(r)
    ref.ratio = figure_data.ratio_to_reference(ref, ref, None, "")
    mine.ratio = figure_data.ratio_to_reference(mine, ref, None, "")
    open_ended.ratio = r
    panel = figure_data.Panel("r", "alloc-test", 1, "net_cycles_per_pair", "system", "system", [ref, mine, open_ended])
    assert os.path.exists(figure_relative_cost.plot_relative_cost([panel], str(tmp_path / "cost")))
    assert "level >= 87.5%" in figure_data.ratio_interval_text([panel])


def test_cell_warnings_merge_the_thread_counts_of_cpp_groups_in_record_order():
    """C++ groups per (workload, threads, mode, text) (_core.cell_warning_groups); the report lists one
    entry per (run, workload, mode, text) with its cells in the order their records first gave it."""
    def record(allocator, threads, warnings, mode=None):
        r = {"run_type": "iteration", "workload": "alloc-test", "allocator": allocator, "threads": threads, "warnings": warnings}
        return r if mode is None else {**r, "mode": mode}
    benchmarks = [record("a", 1, ["W"]), record("b", 2, ["W", "W"]), record("a", 1, []), record("c", 1, ["W", "E"]),
                  record("b", 2, ["E"]), record("a", 1, ["E"]), record("c", 1, ["X"], "counts")]
    runs = types.SimpleNamespace(run_names=lambda: ["r1", "r2"], documents=[{"benchmarks": benchmarks}, {"benchmarks": benchmarks[:2]}])
    assert allocstress._core.cell_warning_groups('{"benchmarks": []}') == []
    assert cell_warnings(runs) == [
        ("r1", "alloc-test", "timing", "W", [("a", 1, 1, 3), ("b", 2, 1, 2), ("c", 1, 1, 1)], False),
        ("r1", "alloc-test", "timing", "E", [("c", 1, 1, 1), ("b", 2, 1, 2), ("a", 1, 1, 3)], False),
        ("r1", "alloc-test", "counts", "X", [("c", 1, 1, 1)], True),
        ("r2", "alloc-test", "timing", "W", [("a", 1, 1, 1), ("b", 2, 1, 1)], True)]
    assert cell_warnings(runs, ["other"]) == [] and [w[0] for w in cell_warnings(runs, run="r2")] == ["r2"]
