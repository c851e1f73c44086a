"""The comparison table on the golden file, checked against values recomputed from its entries."""

import io
import math
import os
import re
import statistics as pystats
import subprocess
import sys

import pandas as pd
import pytest

import allocstress
from allocstress.tabulation import tables
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
    # no interval of the median net cost: the C++ aggregates' rule (results_summary.cpp) gives a cell's
    # net figures only where every repetition has its net cost
    assert math.isnan(one["net_cycles_ci_level"]) and one["speed_vs_system_verdict"] == ""


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
    assert "speed vs system [interval: the two medians' intervals divided (Bonferroni), ≥ 87.5%]" in md
    # 5 values: [min, max], the C++ interval of the median (results_summary.cpp); the header names the method without
    # its gloss ("distribution-free interval of the median" would repeat the header), the CSV's method column keeps it
    assert "net cycles/pair [interval of the median (order statistics, 93.8%)]" in md
    assert {m for m in table["net_cycles_ci_method"].dropna() if m} == {"order statistics (distribution-free interval of the median)"}


def test_no_rendering_calls_an_interval_95_percent_ci(table):
    for text in (allocstress.to_markdown(table), allocstress.to_latex(table), allocstress.to_latex(table, column_set="full"),
                 tables.LEGEND, " ".join(d for _, _, d in tables.COLUMNS), " ".join(tables.display_rows(table)[0])):
        assert "95% CI" not in text and "95\\% CI" not in text


def test_latex_is_a_float_with_caption_label_and_notes(table):
    tex = allocstress.to_latex(table)
    assert tex.startswith("% allocstress table. Needs \\usepackage{booktabs}")
    for part in ("\\begin{table}", "\\caption{Allocator cost", "\\label{tab:allocstress}", "\\toprule", "\\midrule",
                 "\\bottomrule", "\\end{table}"):
        assert part in tex
    custom = allocstress.to_latex(table, caption="Cost 50% of x_y", label="tab:mine")
    assert "\\caption{Cost 50\\% of x\\_y}" in custom and "\\label{tab:mine}" in custom
    assert "tcmalloc\\_minimal" in tex and "tcmalloc_minimal" not in tex  # every underscore escaped
    assert "unstable" not in tex.split("\\midrule")[1].split("\\bottomrule")[0]  # no words in numeric cells
    assert "\\rlap{\\textsuperscript{\\dag}}" in tex and "\\textsuperscript{\\dag}\\,unstable" in tex
    assert tex.count("{") == tex.count("}")
    # the second header line names each interval's method and real level, short enough for a column
    assert "{\\scriptsize [order stat., 93.8\\%]} & {\\scriptsize [Bonferroni, $\\geq$ 87.5\\%]}" in tex
    methods = re.findall(r"\\scriptsize \[([^]]*)\]", tex)  # every method line: no gloss left half-open
    assert methods and all(m.count("(") == m.count(")") for m in methods), methods


def test_latex_compact_fits_a_column_and_full_has_every_shown_column(table):
    compact, full = (allocstress.to_latex(table, column_set=s) for s in ("compact", "full"))
    spec = [re.search(r"\\begin\{tabular\}\{(\w+)\}", t).group(1) for t in (compact, full)]
    assert spec == ["lrrrr", "lrrrrrrrrrr"]  # allocator, threads, net cycles, overhead, speed vs system
    for tex, columns in ((compact, 5), (full, 11)):
        rows = tex.split("\\midrule")[1].split("\\bottomrule")[0].strip().splitlines()
        assert all(r.count(" & ") == columns - 1 for r in rows)


def test_unstable_is_an_interval_wider_than_ten_percent(table, golden_doc):
    for row in table[table["allocator"] != "void"].itertuples():
        net = net_values(golden_doc, row.allocator, row.threads)
        half = (max(net) - min(net)) / 2 / abs(pystats.median(net))  # [min, max] with 5 values
        assert row.net_cycles_rel_half_width == pytest.approx(half)
        assert row.unstable == (half > 0.10)
    assert table["unstable"].any() and not table["unstable"].all()
    assert any("cells are unstable (the interval of the median is wider than ±10%" in w
               for w in tables.table_warnings(table))


def test_recorded_intervals_are_preferred_and_named(tmp_path):
    def record(doc):  # median entries as the C++ writes them, with a method
        for e in doc["benchmarks"]:
            if e["run_type"] == "aggregate" and e["aggregate_name"] == "median" and e["allocator"] != "void":
                m = e["net_cycles_per_pair"]
                e["intervals"] = {"net_cycles_per_pair": {"low": m * 0.99, "high": m * 1.01, "level": 0.961,
                                                          "method": "batch means", "n": 5, "relative_half_width": 0.01}}
    table = allocstress.summary_table(allocstress.load_runs([write_variant(tmp_path, "iv.json", record)]))
    mine = table[table["allocator"] != "void"]
    assert (mine["net_cycles_ci_high"] / mine["net_cycles_ci_low"]).tolist() == pytest.approx([1.01 / 0.99] * len(mine))
    assert set(mine["net_cycles_ci_method"]) == {"batch means"} and not mine["unstable"].any()
    assert "[interval of the median (batch means, 96.1%)]" in allocstress.to_markdown(table)
    # narrow intervals that do not overlap system's: a ranking, not "indistinguishable"
    assert set(mine[mine["allocator"] != "system"]["speed_vs_system_verdict"]) <= {"faster", "slower"}


def test_recorded_ratio_and_overhead_intervals_are_used(tmp_path):
    def record(doc):  # as the C++ of issue 16 writes them
        for e in doc["benchmarks"]:
            if e["run_type"] == "aggregate" and e["aggregate_name"] == "median" and e["allocator"] == "jemalloc":
                e["speed_vs_system_interval"] = {"low": 1.5, "high": None, "level_at_least": 0.91, "method": "x"}
                e["intervals"] = {"overhead_ratio": {"low": 2.0, "high": 4.0, "level": 0.96, "n": 5, "method": "order statistics"}}
    table = allocstress.summary_table(allocstress.load_runs([write_variant(tmp_path, "r.json", record)]))
    jemalloc = table[table["allocator"] == "jemalloc"]
    assert jemalloc["speed_ci_low"].tolist() == [1.5, 1.5] and (jemalloc["speed_ci_high"] == float("inf")).all()
    assert jemalloc["speed_ci_level"].tolist() == [0.91, 0.91]
    assert jemalloc["overhead_ratio_ci_low"].tolist() == [2.0, 2.0]
    md = allocstress.to_markdown(table)
    assert "[1.50, ∞]" in md and "≥ 87.5%" in md  # the lowest level at least, over the table's ratios


def test_ratio_interval_is_the_two_intervals_divided(table):
    for r in table[~table["allocator"].isin(["void", "system"])].itertuples():
        s = table[(table["allocator"] == "system") & (table["threads"] == r.threads)].iloc[0]
        if r.net_cycles_ci_low > 0:
            assert r.speed_ci_low == pytest.approx(s.net_cycles_ci_low / r.net_cycles_ci_high)
            assert r.speed_ci_high == pytest.approx(s.net_cycles_ci_high / r.net_cycles_ci_low)
        else:  # this cell's interval reaches 0: the ratio is unbounded above
            assert r.speed_ci_high == float("inf")
        assert r.speed_ci_level == pytest.approx(0.9375 + 0.9375 - 1)
        assert (r.speed_ci_low <= 1 <= r.speed_ci_high) == (r.speed_vs_system_verdict == "indistinguishable")


def test_ratios_are_indistinguishable_where_the_intervals_overlap(table):
    others = table[~table["allocator"].isin(["void", "system"])]
    for r in others.itertuples():
        sys_row = table[(table["allocator"] == "system") & (table["threads"] == r.threads)].iloc[0]
        overlap = r.net_cycles_ci_low <= sys_row.net_cycles_ci_high and r.net_cycles_ci_high >= sys_row.net_cycles_ci_low
        assert (r.speed_vs_system_verdict == "indistinguishable") == overlap
    md = allocstress.to_markdown(table)
    assert "| indistinguishable |" in md and "| reference |" in md


def test_cv_column_has_its_unit(table):
    headers, rows = tables.display_rows(table)
    i = headers.index("CV, % of mean")
    jemalloc = table[(table["allocator"] == "jemalloc") & (table["threads"] == 1)].iloc[0]
    assert rows[2][i] == f"{jemalloc['net_cycles_cv'] * 100:.1f}"


def test_csv_round_trips(table):
    back = pd.read_csv(io.StringIO(allocstress.to_csv(table)))
    assert list(back.columns) == tables.COLUMN_NAMES and len(back) == len(table)
    assert back["net_cycles_per_pair"].tolist() == pytest.approx(table["net_cycles_per_pair"].tolist())


def test_geomean_is_sorted_with_intervals_over_the_same_cells(table):
    geo = allocstress.geomean_table(table)
    system = geo[geo["allocator"] == "system"].iloc[0]
    assert system["geomean_speed_vs_system"] == pytest.approx(1.0)
    assert "void" not in set(geo["allocator"])
    speeds = geo["geomean_speed_vs_system"].tolist()
    assert speeds == sorted(speeds, reverse=True)  # cheapest first
    assert set(geo["rows"]) == {2} and geo.attrs["left_out"] == []
    others = geo[geo["allocator"] != "system"]
    assert (others["speed_ci_low"] < others["speed_ci_high"]).all()
    assert (others["overhead_ci_low"] <= others["overhead_ci_high"]).all()
    md = tables.geomean_markdown(table)
    assert "speed vs system [bootstrap interval of the geometric mean, 95% percentile over repetitions]" in md and "Cheapest first" in md


def test_geomean_interval_is_the_same_whatever_the_hash_seed():
    # The bootstrap draws every cell's resamples from one seeded stream, cell after cell: the cells'
    # order must not follow a set's iteration order, which changes with PYTHONHASHSEED.
    script = ("import allocstress; from conftest import GOLDEN; "
              "g = allocstress.geomean_table(allocstress.summary_table(allocstress.load_runs([GOLDEN]))); "
              "print(g[['allocator', 'speed_ci_low', 'speed_ci_high', 'overhead_ci_low']].to_csv())")
    outs = {subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True,
                           cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                           env={**os.environ, "PYTHONHASHSEED": seed}).stdout for seed in ("1", "2", "3")}
    assert len(outs) == 1 and "jemalloc" in outs.pop()


def test_geomean_leaves_out_cells_not_every_allocator_has(tmp_path):
    def drop(doc):  # jemalloc never measured at 2 threads
        doc["benchmarks"] = [e for e in doc["benchmarks"] if not (e["allocator"] == "jemalloc" and e["threads"] == 2)]
    table = allocstress.summary_table(allocstress.load_runs([write_variant(tmp_path, "d.json", drop)]))
    geo = allocstress.geomean_table(table)
    assert set(geo["rows"]) == {1}  # every allocator over the 1-thread cell only
    mimalloc = table[(table["allocator"] == "mimalloc") & (table["threads"] == 1)].iloc[0]
    assert geo.set_index("allocator").loc["mimalloc", "geomean_speed_vs_system"] == pytest.approx(mimalloc["speed_vs_system"])
    assert any("alloc-test, 2 threads left out for every allocator: jemalloc" in x for x in geo.attrs["left_out"])
    assert "Left out:" in tables.geomean_markdown(table)


def test_an_interval_without_an_upper_end_reads_unbounded_as_in_the_cpp_tables():
    assert tables.with_interval(0.5, 0.25, float("inf"), "{:.2f}") == "0.50 [0.25, unbounded]"
    assert tables.with_interval(0.5, 0.25, 0.75, "{:.2f}") == "0.50 [0.25, 0.75]"
    assert tables.with_interval(float("nan"), 0.25, 0.75, "{:.2f}") == "n/a"
