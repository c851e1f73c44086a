"""`compare --gbench-view`: a Google Benchmark JSON whose real_time and cpu_time are the headline
figure in ns.  Checked field by field against what Google Benchmark's tools/compare.py reads
(name, run_type, aggregate_name, time_unit, real_time, cpu_time, repetitions), against the
golden file's own records, and -- where Debian's libbenchmark-tools is installed -- by running
that compare.py on two views."""

import json
import os
import shutil
import statistics
import subprocess

import pytest

from allocstress.comparison import gbench_view
from allocstress.results.loading import read_results
from conftest import iteration_entries, write_variant

ALLOCSTRESS = os.environ.get("ALLOCSTRESS")
GBENCH_COMPARE = "/usr/share/benchmark/compare.py"  # Debian package libbenchmark-tools


def run_cli(*args):
    assert ALLOCSTRESS, "CTest sets ALLOCSTRESS to the built executable"
    return subprocess.run([ALLOCSTRESS, *args], capture_output=True, text=True, timeout=300)


def test_view_entries_are_the_net_figure_in_ns(golden, tmp_path):
    out = tmp_path / "view.json"
    r = run_cli("compare", "--gbench-view", str(out), golden)
    assert r.returncode == 0 and r.stdout == "", r.stderr
    view = json.loads(out.read_text())
    doc = read_results(golden)
    assert {"date", "host_name", "num_cpus", "library_build_type"} <= set(view["context"])
    assert view["context"]["allocstress_left_out"] == [
        "alloc-test/void/threads:1: void is the baseline (net_cycles_per_pair is 0 by definition)",
        "alloc-test/void/threads:2: void is the baseline (net_cycles_per_pair is 0 by definition)"]
    iterations = [b for b in view["benchmarks"] if b["run_type"] == "iteration"]
    expected = [e for e in iteration_entries(doc) if e["allocator"] != "void" and e["status"] == "ok"]
    assert len(iterations) == len(expected) == 60
    for b in view["benchmarks"]:  # every field compare.py reads, with Google Benchmark's types
        assert isinstance(b["name"], str) and b["time_unit"] == "ns" and b["run_type"] in ("iteration", "aggregate")
        assert isinstance(b["real_time"], float) and b["cpu_time"] == b["real_time"]
        assert isinstance(b["repetitions"], int) and isinstance(b["family_index"], int) and b["threads"] in (1, 2)
    by_name = {}
    for b in iterations:
        by_name.setdefault(b["name"], []).append(b["real_time"])
    for name, values in by_name.items():
        _, allocator, threads = name.split("/")
        records = [e for e in expected if e["allocator"] == allocator and f"threads:{e['threads']}" == threads]
        assert values == [e["net_ns_per_pair"] for e in records]  # the net figure, not real_time
        assert values != [e["real_time"] for e in records]
        aggregates = {b["aggregate_name"]: b for b in view["benchmarks"]
                      if b["run_type"] == "aggregate" and b["run_name"] == name}
        assert set(aggregates) == {"mean", "median", "stddev", "cv"}
        assert aggregates["median"]["name"] == name + "_median" and aggregates["median"]["aggregate_unit"] == "time"
        assert aggregates["median"]["real_time"] == pytest.approx(statistics.median(values))
        assert aggregates["stddev"]["real_time"] == pytest.approx(statistics.stdev(values))
        assert aggregates["cv"]["aggregate_unit"] == "percentage"
        assert aggregates["cv"]["real_time"] == pytest.approx(statistics.stdev(values) / statistics.mean(values))
    families = [b["family_index"] for b in view["benchmarks"]]
    assert sorted(set(families)) == list(range(12)) and families == sorted(families)  # one family per cell, in order


def test_view_leaves_out_disturbed_and_failed_records_with_reasons(golden, tmp_path):
    def damage(doc):
        for e in iteration_entries(doc):
            if e["allocator"] == "jemalloc":
                e["interference"] = {"disturbed": True}
            if e["allocator"] == "system" and e["repetition_index"] == 0:
                e.update(status="failed", reason="constructed")
    view = gbench_view.gbench_view(read_results(write_variant(tmp_path, "d.json", damage)))
    names = {b["name"] for b in view["benchmarks"]}
    assert not any("jemalloc" in n for n in names)
    assert "alloc-test/jemalloc/threads:1: no ok, undisturbed repetition" in view["context"]["allocstress_left_out"]
    system = [b for b in view["benchmarks"] if b["name"] == "alloc-test/system/threads:1"]
    assert len(system) == 4 and [b["repetition_index"] for b in system] == [0, 1, 2, 3]


def test_view_of_a_non_time_metric_lists_every_cell_as_left_out(golden):
    view = gbench_view.gbench_view(read_results(golden), metric="overhead_ratio")
    assert view["benchmarks"] == []
    assert all("is not a time" in x or "void" in x for x in view["context"]["allocstress_left_out"])


def test_view_with_two_files_is_bad_input(golden, tmp_path):
    r = run_cli("compare", "--gbench-view", str(tmp_path / "v.json"), golden, golden)
    assert r.returncode == 2 and r.stderr.startswith("allocstress: error: compare: --gbench-view takes one results file")
    assert not (tmp_path / "v.json").exists()


@pytest.mark.skipif(not os.path.exists(GBENCH_COMPARE) or shutil.which("/usr/bin/python3") is None,
                    reason="Google Benchmark's compare.py (Debian libbenchmark-tools) is not installed")
def test_google_benchmark_compare_reads_the_view(golden, tmp_path):
    def halve_jemalloc(doc):
        for e in iteration_entries(doc):
            if e["allocator"] == "jemalloc" and e["status"] == "ok":
                e["net_ns_per_pair"] /= 2
    b = write_variant(tmp_path, "b.json", halve_jemalloc)
    for src, dst in ((golden, "va.json"), (b, "vb.json")):
        assert run_cli("compare", "--gbench-view", str(tmp_path / dst), src).returncode == 0
    r = subprocess.run(["/usr/bin/python3", GBENCH_COMPARE, "--no-color", "benchmarks", str(tmp_path / "va.json"),
                        str(tmp_path / "vb.json")], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    rows = {line.split()[0]: line.split() for line in r.stdout.splitlines() if line.startswith("alloc-test/")}
    assert float(rows["alloc-test/jemalloc/threads:1_median"][1]) == pytest.approx(-0.5, abs=1e-4)
    assert float(rows["alloc-test/system/threads:1_median"][1]) == pytest.approx(0.0, abs=1e-4)
