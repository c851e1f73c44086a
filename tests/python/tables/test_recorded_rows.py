"""The data-structure and workload-metrics tables render C++'s rows (_core.structure_rows,
_core.workload_metric_rows) and never compute a figure those rows carry: results files whose
recorded aggregate figures are rewritten to values no recomputation from the repetitions gives
(TEST INPUT, constructed) must show those values, and figures derived from them (the blowup) must
follow them.  Each assertion fails where the table recomputes from the iteration records."""

import json
import math

import pytest

import allocstress._core as _core
from allocstress.results.loading import load_runs
from allocstress.tabulation import structures
from allocstress.tabulation import workload_metrics as wm

from conftest import write_doc
from constructed import STRUCTURES, constructed_results

SEARCH = 777.25  # + the entry's index: far from any repetition's search cycles/visit


def medians(doc, statistic="median"):
    return [e for e in doc["benchmarks"] if e.get("run_type") == "aggregate" and e.get("aggregate_name") == statistic]


def rewrite_structures(doc):
    """Every structure cell's recorded figures made distinctive (test input only)."""
    for i, e in enumerate(medians(doc)):
        m = SEARCH + i
        e.update(search_cycles_per_visit=m, build_cycles_per_node=4242.5 + i, page_utilisation=0.123, overhead_ratio=9.75)
        e["intervals"] = {"search_cycles_per_visit": {"low": m - 0.5, "high": m + 200, "level": 0.4242, "n": 3,
                                                      "method": "order statistics", "relative_half_width": 0.2}}
        if e["allocator"] != "system":
            e["speed_vs_system"] = 3.125
            e["speed_vs_system_interval"] = {"low": 2.5, "high": None, "level_at_least": 0.333, "method": "x"}
    for e in medians(doc, "cv"):
        e["search_cycles_per_visit"] = 0.0625


def test_structure_table_shows_the_recorded_figures(tmp_path):
    with open(STRUCTURES) as f:
        path = write_doc(tmp_path, "recorded.json", json.load(f), rewrite_structures)
    with open(path) as f:
        recorded = {(e["workload"], e["allocator"], e["threads"]): e for e in medians(json.load(f))}
    table = structures.structure_table(load_runs([path]))
    assert len(table) == len(recorded) == 20
    for r in table.itertuples():
        e = recorded[(r.workload, r.allocator, r.threads)]
        assert r.search_cycles_per_visit == e["search_cycles_per_visit"]
        assert (r.search_ci_low, r.search_ci_high) == (e["search_cycles_per_visit"] - 0.5, e["search_cycles_per_visit"] + 200)
        assert r.unstable  # relative half-width well over 0.10: the interval's rule, not the cv's
        assert r.search_cv == 0.0625
        assert r.build_cycles_per_node == e["build_cycles_per_node"]
        assert r.page_utilisation == 0.123 and r.overhead_ratio == 9.75
        if r.allocator != "system":
            assert r.search_vs_system == 3.125
            assert (r.search_vs_system_ci_low, r.search_vs_system_ci_high) == (2.5, math.inf)  # null: unbounded
    headers, rows = structures.structure_display(table)
    assert any("3.12 [2.50, unbounded]" in cell for row in rows for cell in row)


def test_structure_rows_are_cpps_for_a_file_without_aggregates(tmp_path):
    """Without aggregate entries the same rows come from C++'s own aggregation of the records."""
    with open(STRUCTURES) as f:
        doc = json.load(f)
    recorded = _core.structure_rows(json.dumps(doc))
    doc["benchmarks"] = [e for e in doc["benchmarks"] if e["run_type"] == "iteration"]
    computed = _core.structure_rows(json.dumps(doc))
    assert len(computed) == len(recorded) == 20
    for mine, theirs in zip(computed, recorded):
        assert mine.keys() == theirs.keys()
        for key, value in mine.items():
            assert value == (pytest.approx(theirs[key]) if isinstance(value, float) else theirs[key]), key


def with_aggregates(doc):
    """The constructed file's records with the aggregate entries C++ computes for them."""
    records = [e for e in doc["benchmarks"] if e["run_type"] == "iteration"]
    doc["benchmarks"] = records + json.loads(_core.aggregate_entries(json.dumps(records)))


def rewrite_workload_metrics(doc):
    """The constructed file's aggregates, then xthread's and alloc-test's recorded medians made distinctive."""
    with_aggregates(doc)
    for e in medians(doc):
        if e["workload"] == "xthread":
            e["workload_metrics"]["remote_free_share"] = 0.875
            e["workload_metrics"]["queue_full_waits"] = 99.0
        if e["workload"] in ("xthread", "alloc-test") and e["allocator"] == "system":
            e["overhead_ratio"] = 8.0 if e["workload"] == "xthread" else 2.0
            e["intervals"]["overhead_ratio"] = {"low": 7.0, "high": 9.0, "level": 0.75, "n": 3, "method": "order statistics",
                                                "relative_half_width": 0.125}
            if e["workload"] == "alloc-test":
                e["intervals"]["overhead_ratio"].update(low=1.0, high=3.5)


def test_workload_table_shows_the_recorded_figures(tmp_path):
    path = constructed_results(tmp_path, rewrite_workload_metrics, name="recorded.json")
    table = wm.workload_table(load_runs([path]), "xthread")
    frame = table.frame
    assert len(frame) == 6
    assert set(frame["remote_free_share"]) == {0.875}
    assert set(frame["queue_full_waits"]) == {99.0}  # not the median of the repetitions that have one (4)
    system = frame[frame["allocator"] == "system"].iloc[0]
    assert system["overhead_ratio"] == 8.0
    assert system["blowup_vs_alloc_test"] == 4.0  # 8 / 2: the recorded medians' ratio
    assert (system["blowup_ci_low"], system["blowup_ci_high"]) == (7.0 / 3.5, 9.0 / 1.0)


def test_workload_rows_without_aggregates_leave_null_repetitions_out(tmp_path):
    """A file without aggregates: C++ aggregates it, and a metric null in some repetitions is the
    median of the others (queue_full_waits: null, 0, 8 -> 4 over reps 0 and 2)."""
    table = wm.workload_table(load_runs([constructed_results(tmp_path)]), "xthread")
    assert set(table.frame["queue_full_waits"]) == {4.0}
    assert table.frame["max_queue_backlog"].isna().all()
