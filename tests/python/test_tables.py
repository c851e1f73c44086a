"""The comparison table on the golden file, checked against values recomputed from its entries."""

import io
import statistics as pystats

import pandas as pd
import pytest

import allocstress
from allocstress import tables
from conftest import iteration_entries, write_variant


@pytest.fixture
def table(golden):
    return allocstress.summary_table(allocstress.load_runs([golden]))


def net_values(doc, allocator, threads, field="net_cycles_per_pair"):
    return [e[field] for e in doc["benchmarks"]
            if e["run_type"] == "iteration" and e["status"] == "ok" and e["allocator"] == allocator and e["threads"] == threads]


def test_one_row_per_allocator_and_thread_count(table, golden_doc):
    allocators = {e["allocator"] for e in golden_doc["benchmarks"] if e["status"] == "ok"}
    assert set(table["allocator"]) == allocators
    assert len(table) == len(allocators) * 2
    assert set(table.columns) == set(tables.COLUMN_NAMES)  # every column is documented


def test_medians_and_ratios_match_the_entries(table, golden_doc):
    for row in table.itertuples():
        net = net_values(golden_doc, row.allocator, row.threads)
        assert row.net_cycles_per_pair == pytest.approx(pystats.median(net))
        assert row.reps_ok == len(net)
        if row.allocator not in ("void",):
            system = net_values(golden_doc, "system", row.threads)
            assert row.speed_vs_system == pytest.approx(pystats.median(system) / pystats.median(net))
            over = net_values(golden_doc, row.allocator, row.threads, "overhead_ratio")
            over_sys = net_values(golden_doc, "system", row.threads, "overhead_ratio")
            assert row.overhead_vs_system == pytest.approx(pystats.median(over) / pystats.median(over_sys))


def test_median_intervals_are_min_max_for_five_repetitions(table, golden_doc):
    for row in table[table["allocator"] != "void"].itertuples():
        net = net_values(golden_doc, row.allocator, row.threads)
        assert (row.net_cycles_ci_low, row.net_cycles_ci_high) == (min(net), max(net))
        assert row.net_cycles_ci_level == pytest.approx(0.9375)
    assert any("93.75% interval" in w for w in tables.table_warnings(table))


def test_failed_baseline_repetitions_are_not_counted(tmp_path):
    def fail_void_reps(doc):  # void failed in repetitions 0 and 1 at 1 thread: no net cost there
        for e in iteration_entries(doc):
            if e["threads"] == 1 and e["repetition_index"] < 2:
                if e["allocator"] == "void":
                    e.update(status="failed", reason="constructed failure")
                else:
                    e["net_cycles_per_pair"] = e["net_ns_per_pair"] = None
    table = allocstress.summary_table(allocstress.load_runs([write_variant(tmp_path, "f.json", fail_void_reps)]))
    one = table[(table["threads"] == 1) & (table["allocator"] == "jemalloc")].iloc[0]
    assert one["reps_ok"] == 3
    assert one["speed_significance"] == "n/a"  # 3 vs 3 can never reach p < 0.05
    assert any("too few repetitions" in w for w in tables.table_warnings(table))


def test_without_system_nothing_is_relative(tmp_path):
    def drop_system(doc):
        doc["benchmarks"] = [e for e in doc["benchmarks"] if e["allocator"] != "system"]
    table = allocstress.summary_table(allocstress.load_runs([write_variant(tmp_path, "ns.json", drop_system)]))
    assert table["speed_vs_system"].isna().all()
    assert (table[table["allocator"] != "void"]["notes"].str.contains("nothing to compare")).all()
    assert any("no 'system' allocator" in w for w in tables.table_warnings(table))


def test_markdown_lists_every_allocator_with_legend(table):
    md = allocstress.to_markdown(table)
    for allocator in table["allocator"]:
        assert f"| {allocator}" in md
    assert "speed vs system [95% CI]" in md and "Mann-Whitney" in md


def test_latex_is_booktabs_and_escaped(table):
    tex = allocstress.to_latex(table)
    assert "\\toprule" in tex and "\\midrule" in tex and "\\bottomrule" in tex
    assert "tcmalloc\\_minimal" in tex and "tcmalloc_minimal" not in tex  # every underscore escaped
    assert "$^{**}$" in tex


def test_csv_round_trips(table):
    back = pd.read_csv(io.StringIO(allocstress.to_csv(table)))
    assert list(back.columns) == tables.COLUMN_NAMES and len(back) == len(table)
    assert back["net_cycles_per_pair"].tolist() == pytest.approx(table["net_cycles_per_pair"].tolist())


def test_warnings_say_when_tests_cannot_reach_significance(golden):
    runs = allocstress.load_runs([golden])
    few = runs.cells[runs.cells["repetition_index"] < 3]  # keep 3 repetitions of each cell
    table = allocstress.summary_table(allocstress.Runs(runs.paths, runs.documents, few))
    assert (table[table["allocator"].isin(["jemalloc"])]["speed_significance"] == "n/a").all()
    assert any("too few repetitions" in w for w in tables.table_warnings(table))


def test_geomean_table(table):
    geo = allocstress.geomean_table(table)
    system = geo[geo["allocator"] == "system"].iloc[0]
    assert system["geomean_speed_vs_system"] == pytest.approx(1.0)
    assert "void" not in set(geo["allocator"])
