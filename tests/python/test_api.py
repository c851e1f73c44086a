"""The pandas-facing API: allocstress.load (paths, globs, bad input), the column order and types of
its DataFrame, summary() against the C++ median aggregates of real results files, the compact
reprs, __version__ / build_info(), the top-level report/compare/figure functions and
Trace.to_dataframe.

Results files: the golden files of tests/data (real runs), and one tiny matrix measured here with
the CLI so that the file carries the current C++ intervals; only equalities between its own
records and our summary are checked, never its figures."""

import json
import math
import os
import pathlib
import re
import shutil
import subprocess
import types

import numpy as np
import pandas as pd
import pytest

import allocstress
from allocstress import _core, traces
from allocstress.comparison import compare as compare_module
from allocstress.results import frame
from allocstress.results.loading import ResultsError

from conftest import DATA, GOLDEN, iteration_entries, write_variant
from constructed import HAND, write

SOURCE_DIR = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
STRUCTURES = os.path.join(DATA, "structures-tiny.json")


def median_aggregates(path):
    """The C++ median entries of a results file, by (workload, allocator, threads, mode)."""
    with open(path) as f:
        doc = json.load(f)
    return {(e["workload"], e["allocator"], e["threads"], e.get("mode", "timing")): e for e in doc["benchmarks"]
            if e["run_type"] == "aggregate" and e.get("aggregate_name") == "median"}


# --- load: what it accepts and refuses --------------------------------------------------------

def test_a_str_path_is_one_file_not_its_characters(golden, golden_doc):
    df = allocstress.load(golden)
    assert len(df) == len(iteration_entries(golden_doc))
    assert df["run"].unique().tolist() == ["golden-tiny"]


def test_a_path_a_list_and_a_glob_give_the_same_rows(golden, tmp_path):
    shutil.copy(golden, tmp_path / "second.json")
    one = allocstress.load(pathlib.Path(golden))
    both = allocstress.load([golden, tmp_path / "second.json"])
    globbed = allocstress.load(str(tmp_path / "*.json"))
    assert both["run"].unique().tolist() == ["golden-tiny", "second"]
    assert len(both) == 2 * len(one)
    pd.testing.assert_frame_equal(globbed, both)


@pytest.mark.parametrize("name, message", [
    ("nothing-*.json", "no file matches this pattern"),
    ("missing.json", "no such results file"),
    ("foreign.json", "not an allocstress results file"),
    ("notes.txt", "not valid JSON"),
])
def test_bad_input_is_one_results_error(tmp_path, name, message):
    (tmp_path / "foreign.json").write_text('{"context": {}, "benchmarks": []}')
    (tmp_path / "notes.txt").write_text("hello\n")
    with pytest.raises(ResultsError) as error:
        allocstress.load(str(tmp_path / name))
    text = str(error.value)
    assert message in text and str(tmp_path / name) in text and "\n" not in text


def test_an_empty_list_is_refused():
    with pytest.raises(ResultsError, match="no results file given"):
        allocstress.load([])


# --- the DataFrame: columns and types ---------------------------------------------------------

def test_headline_columns_come_first_with_their_types(golden, golden_doc):
    df = allocstress.load(golden)
    assert list(df.columns[:len(frame.HEAD_COLUMNS)]) == frame.HEAD_COLUMNS
    for c in ("run", "workload", "allocator", "mode", "status", "headline_metric"):
        assert isinstance(df[c].dtype, pd.CategoricalDtype), c
    for c in ("threads", "repetition", "peak_rss_bytes", "mallocs"):
        assert df[c].dtype == np.int64, c
    for c in ("headline", "net_ns_per_pair", "overhead_ratio", "cycles_per_pair"):
        assert df[c].dtype == np.float64, c
    assert df["disturbed"].dtype == bool and df["allocator_preloaded"].dtype == bool
    assert df["reason"].dtype == object
    assert "params.seed" in df and "repetition_index" not in df  # nested fields flattened; the index renamed
    entries = iteration_entries(golden_doc)
    # the headline of alloc-test is its net cycles per pair, row by row in file order
    assert (df["headline_metric"] == "net_cycles_per_pair").all()
    expected = [math.nan if e.get("net_cycles_per_pair") is None else e["net_cycles_per_pair"] for e in entries]
    np.testing.assert_array_equal(df["headline"].to_numpy(), np.array(expected, dtype=float))
    assert df["allocator"].cat.categories.tolist() == list(dict.fromkeys(e["allocator"] for e in entries))


def test_data_structure_rows_take_their_own_headline():
    df = allocstress.load(STRUCTURES)
    timing = df[df["mode"] == "timing"]
    assert set(timing["headline_metric"]) == {"search_cycles_per_visit"}
    np.testing.assert_array_equal(timing["headline"].to_numpy(), timing["search_cycles_per_visit"].to_numpy())


def test_disturbed_rows_are_kept_and_flagged(tmp_path):
    def disturb(doc):
        iteration_entries(doc)[3]["interference"] = {"disturbed": True, "disturbed_by": ["x"]}
    df = allocstress.load(write_variant(tmp_path, "disturbed.json", disturb))
    assert df["disturbed"].tolist() == [i == 3 for i in range(len(df))]


# --- summary against the C++ aggregates -------------------------------------------------------

def check_against_aggregates(path, s):
    """Every C++ median entry has one summary row with the same headline median and counts, and
    the same interval when the entry has one; returns how many intervals were compared.  (Modes
    without aggregates, such as simulated caches, have summary rows of their own.)"""
    aggregates = median_aggregates(path)
    rows = {(r["workload"], r["allocator"], r["threads"], r["mode"]): r for _, r in s.iterrows()}
    assert len(rows) == len(s) and set(aggregates) <= set(rows)
    intervals = 0
    for key, e in aggregates.items():
        row = rows[key]
        metric = row["headline_metric"]
        assert e[metric] == pytest.approx(row["median"], rel=1e-12, abs=1e-12), (row["allocator"], metric)
        assert e["repetitions_ok"] == row["n_ok"]
        assert e.get("repetitions_disturbed", 0) == row["n_disturbed"]
        interval = (e.get("intervals") or {}).get(metric)
        if interval:
            intervals += 1
            assert (interval["low"], interval["high"]) == pytest.approx((row["ci_low"], row["ci_high"]), rel=1e-12, abs=1e-12)
            assert interval["level"] == pytest.approx(row["ci_level"], rel=1e-12)
    return intervals


@pytest.mark.parametrize("path", [GOLDEN, STRUCTURES])
def test_summary_medians_equal_the_files_median_entries(path):
    check_against_aggregates(path, allocstress.summary(allocstress.load(path)))


@pytest.fixture(scope="module")
def recomputed(tmp_path_factory):
    """The golden file with its aggregate entries recomputed by today's C++ (_core.aggregate_entries,
    as `matrix` writes them): every median entry carries its order-statistic interval.  Deterministic,
    unlike a matrix measured now, whose cells may keep fewer than 2 undisturbed processes on a busy
    machine and so have no interval."""
    with open(GOLDEN) as f:
        doc = json.load(f)
    records = iteration_entries(doc)
    doc["benchmarks"] = records + json.loads(_core.aggregate_entries(json.dumps(records)))
    out = tmp_path_factory.mktemp("api") / "recomputed.json"
    out.write_text(json.dumps(doc))
    return str(out)


def test_summary_intervals_equal_the_cpp_intervals(recomputed):
    s = allocstress.summary(allocstress.load(recomputed))
    assert check_against_aggregates(recomputed, s) >= 12  # every allocator but void at 1 and 2 threads
    assert "order-statistic interval of the median" in s.attrs["interval"]


def test_summary_of_a_filtered_subset_is_those_rows_of_the_whole():
    df = allocstress.load(GOLDEN)
    whole = allocstress.summary(df)
    part = allocstress.summary(df[(df["threads"] == 2) & df["allocator"].isin(["system", "jemalloc"])])
    assert part["allocator"].tolist() == ["system", "jemalloc"] and (part["threads"] == 2).all()
    expected = whole[(whole["threads"] == 2) & whole["allocator"].isin(["system", "jemalloc"])].reset_index(drop=True)
    pd.testing.assert_frame_equal(part, expected)


def test_summary_leaves_disturbed_and_failed_repetitions_out(tmp_path):
    def change(doc):
        system = [e for e in iteration_entries(doc) if e["allocator"] == "system" and e["threads"] == 1]
        system[0]["interference"] = {"disturbed": True}
        system[1]["status"], system[1]["reason"] = "error", "test input: a failed repetition"
    path = write_variant(tmp_path, "variant.json", change)
    df = allocstress.load(path)
    row = allocstress.summary(df).query("allocator == 'system' and threads == 1").iloc[0]
    cell = df[(df["allocator"] == "system") & (df["threads"] == 1)]
    kept = cell["headline"].to_numpy()[2:]
    assert (row["n_ok"], row["n_disturbed"], row["n_failed"]) == (len(kept), 1, 1)
    assert row["median"] == np.median(kept)
    assert (row["ci_low"], row["ci_high"], row["ci_level"]) == allocstress.median_ci(kept)


# --- reprs, version -----------------------------------------------------------------------------

def test_reprs_are_one_short_line(golden, tmp_path, hand_trace_path):
    shutil.copy(golden, tmp_path / "other.json")
    text = repr(allocstress.load_runs([golden, str(tmp_path / "other.json")]))
    assert text == "<Runs 2 files, 140 records: alloc-test × 7 allocators × threads 1,2>"
    t = repr(traces.load_trace(hand_trace_path))
    assert len(t) < 300 and t.startswith("<Trace hand.trace: 14 events, 2 threads: malloc 6, realloc 5, free 3")


def test_version_is_the_cmake_project_version():
    with open(os.path.join(SOURCE_DIR, "CMakeLists.txt")) as f:
        version = re.search(r"project\(allocstress VERSION ([0-9.]+)", f.read()).group(1)
    assert allocstress.__version__ == version
    info = allocstress.build_info()
    head = subprocess.run(["git", "-C", SOURCE_DIR, "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    assert info["version"] == version and info["commit"] in (head, head + "-dirty")
    build = os.environ.get("BUILD_DIR")
    if build:  # the package under test is that build's: its build type is CMake's
        cache = open(os.path.join(build, "CMakeCache.txt")).read()
        assert info["build_type"] == re.search(r"^CMAKE_BUILD_TYPE:STRING=(.*)$", cache, re.M).group(1)


# --- top-level functions --------------------------------------------------------------------------

def test_report_and_compare_are_plain_functions(golden, tmp_path):
    index = allocstress.report(golden, tmp_path / "report")
    assert index == str(tmp_path / "report" / "index.html") and os.path.getsize(index) > 1000
    shutil.copy(golden, tmp_path / "b.json")
    result = allocstress.compare(golden, tmp_path / "b.json", threshold="5%")
    expected = compare_module.compare_runs(allocstress.load_runs([golden, str(tmp_path / "b.json")]), None, 0.05)
    pd.testing.assert_frame_equal(result.cells.drop(columns="values"), expected.drop(columns="values"))
    assert result.exit_status == 0 and result.verdict["worse"] == 0  # a run against itself
    for name in ("report", "compare", "fidelity", "safety"):  # plain functions; the modules behind them have their own paths
        assert isinstance(getattr(allocstress, name), types.FunctionType), name
    assert allocstress.reporting.report.write_report and allocstress.comparison.compare.compare_runs
    with pytest.raises(ResultsError, match="two results files"):
        allocstress.compare(golden, [golden, str(tmp_path / "b.json")])


def test_every_figure_function_is_exported():
    from allocstress.figures import figure_heatmap, figure_overhead, figure_relative_cost, figure_repetitions, figure_thread_sweep
    modules = (figure_heatmap, figure_overhead, figure_relative_cost, figure_repetitions, figure_thread_sweep)
    names = {n: getattr(m, n) for m in modules for n in dir(m) if n.startswith("plot_")}
    assert {"plot_relative_cost", "plot_repetitions", "plot_overhead", "plot_thread_sweep", "plot_cost_heatmap"} <= set(names)
    assert set(allocstress.FIGURES) == set(names)
    for name, function in names.items():
        assert getattr(allocstress, name) is function and name in allocstress.__all__
    assert "figure_panels" in allocstress.__all__


def test_plot_summary_draws_one_bar_per_row():
    s = allocstress.summary(allocstress.load(GOLDEN).query("threads == 1 and allocator != 'void'"))
    ax = allocstress.plot_summary(s)
    assert len(ax.patches) == len(s) and "order-statistic interval of the median" in ax.get_title()


# --- traces ----------------------------------------------------------------------------------------

@pytest.fixture
def hand_trace_path(tmp_path):
    return write(tmp_path / "hand.trace", HAND)


def test_a_trace_becomes_a_dataframe_with_op_names(hand_trace_path):
    df = traces.load_trace(hand_trace_path).to_dataframe()
    assert list(df.columns) == ["thread", "op", "op_class", "tsc", "seconds", "address", "old_address", "size", "alignment",
                                "call_site", "seq"]
    assert isinstance(df["op"].dtype, pd.CategoricalDtype) and list(df["op"].cat.categories) == list(_core.trace_op_names)
    assert df["op"].tolist() == [e[2] for e in HAND]  # HAND is in merged (TSC) order
    assert df["op_class"].tolist()[:4] == ["allocation", "allocation", "free", "realloc"]
    assert df["thread"].tolist() == [e[1] for e in HAND] and df["thread"].dtype == np.int64
    for i, c in ((0, "tsc"), (3, "address"), (4, "old_address"), (5, "size")):
        assert df[c].dtype == np.uint64 and df[c].tolist() == [e[i] for e in HAND], c
    assert df["seconds"].isna().all()  # a trace written from Python records no TSC rate
