"""The data-structure tables and the Gleipnir-style simulated-cache table, checked against values
recomputed directly from the entries of a real results file (tests/data/structures-tiny.json)."""

import json
import statistics

import pytest

from allocstress.reporting import report
from allocstress.tabulation import structures
from allocstress.results.loading import load_runs

from constructed import STRUCTURES


@pytest.fixture(scope="module")
def doc():
    with open(STRUCTURES) as f:
        return json.load(f)


def timing(doc, workload, allocator, threads):
    return [e for e in doc["benchmarks"] if e["run_type"] == "iteration" and e.get("mode") == "timing" and
            e["workload"] == workload and e["allocator"] == allocator and e["threads"] == threads and e["status"] == "ok"]


def test_structure_table_medians_and_ratios_match_the_entries(doc):
    table = structures.structure_table(load_runs([STRUCTURES]))
    assert set(table["workload"]) == {"bintree", "linkedlist"}
    assert len(table) == 2 * 5 * 2  # workloads x allocators x thread counts
    for r in table.itertuples():
        entries = timing(doc, r.workload, r.allocator, r.threads)
        assert r.reps_ok == len(entries) == 3
        search = [e["search_cycles_per_visit"] for e in entries]
        assert r.search_cycles_per_visit == pytest.approx(statistics.median(search))
        assert r.build_cycles_per_node == pytest.approx(statistics.median(e["build_cycles_per_node"] for e in entries))
        assert r.page_utilisation == pytest.approx(statistics.median(e["placement_metrics"]["page_utilisation"] for e in entries))
        ref = [e["search_cycles_per_visit"] for e in timing(doc, r.workload, "system", r.threads)]
        assert r.search_vs_system == pytest.approx(statistics.median(ref) / statistics.median(search))
        assert r.search_ci_low <= r.search_cycles_per_visit <= r.search_ci_high


def test_cache_sim_table_is_the_simulate_records(doc):
    runs = load_runs([STRUCTURES])
    sims = structures.cache_sim_table(runs, structures.structure_table(runs))
    records = [e for e in doc["benchmarks"] if e.get("mode") == "simulate" and e["run_type"] == "iteration"]
    assert len(sims) == len(records) == 2 * 5 * 2
    for r in sims.itertuples():
        rec = next(e for e in records if (e["workload"], e["allocator"], e["threads"]) == (r.workload, r.allocator, r.threads))
        s = rec["simulated_cache"]
        assert (r.data_refs, r.d1_misses, r.ll_misses) == (s["data_refs"], s["d1_misses"], s["ll_misses"])
        assert r.data_refs == s["events"]["Dr"] + s["events"].get("Dw", 0)
        # the operation stream does not depend on the allocator: every allocator's search makes the
        # same data references (within the handful of accesses the harness adds per thread)
        same = sims[(sims["workload"] == r.workload) & (sims["threads"] == r.threads)]["data_refs"]
        assert same.max() - same.min() <= 64 * r.threads
        hw = timing(doc, r.workload, r.allocator, r.threads)[0]["hardware_cache_misses"]
        assert r.hw_l1d_read_misses == ("n/a" if hw["status"] == "n/a" else str(hw["values"]["l1d_read_misses"]))


def test_report_has_the_structure_sections(tmp_path):
    index = report.write_report([STRUCTURES], str(tmp_path / "rep"), "allocstress report structures-tiny.json")
    page = open(index).read()
    assert "Data-structure workloads: placement and traversal" in page
    assert "Simulated caches of the search phase (Gleipnir-style)" in page
    md = (tmp_path / "rep" / "structures.md").read_text()
    assert md.count("| bintree | eqclass |") == 4  # structure table and simulated-cache table, 1 and 2 threads
    assert (tmp_path / "rep" / "cache-sim.csv").exists()
    # no alloc-test cells in this file: no empty alloc-test summary either
    assert "Geometric mean" not in page and not (tmp_path / "rep" / "summary.md").exists()


def test_alloc_test_files_have_no_structure_section(golden, tmp_path):
    page = open(report.write_report([golden], str(tmp_path / "rep"), "x")).read()
    assert "Data-structure workloads" not in page
    assert not (tmp_path / "rep" / "structures.md").exists()


def test_compare_uses_search_cost_and_ignores_simulated_cells(tmp_path):
    from allocstress.comparison import compare, compare_text
    import shutil
    copy = str(tmp_path / "again.json")
    shutil.copy(STRUCTURES, copy)
    runs = load_runs([STRUCTURES, copy])
    table = compare.compare_runs(runs)
    assert len(table) == 2 * 5 * 2
    assert set(table["metric"]) == {"search_cycles_per_visit"}
    assert (table["reps_a"] == 3).all()  # the simulated cell (measured under valgrind) is not a repetition
    assert table["ratio"].tolist() == pytest.approx([1.0] * len(table))
    assert "of search_cycles_per_visit: 1.000" in compare_text.report_text(runs, table)
