"""The fidelity table (allocstress.fidelity, `allocstress fidelity`, the report's section): Spearman's
rho between a real program's per-allocator medians and each model's, its bootstrap interval, the
n < 4 flag, the grouping of labelled model instances under their program, the readings, and the
refusal of a file without programs.

Every results file here is a TEST FIXTURE built in this file: records with known medians (the
program's wall_s / peak_rss_mib, the models' net cycles per pair / overhead ratio), so that the
true rank correlation is known.  None of these figures is a measurement of any program."""

import json
import math
import os
import subprocess
import sys

import numpy as np
import pytest

import allocstress
from allocstress.fidelity_study import fidelity as fd
from allocstress.fidelity_study import fidelity_text as ft
from allocstress.stats import statistics as st
from allocstress.results.loading import ResultsError, load_runs

from conftest import GOLDEN

ALLOCSTRESS = os.environ.get("ALLOCSTRESS")
DROP_INS = ["system", "jemalloc", "tcmalloc", "mimalloc", "tbbmalloc"]


def program_record(program, allocator, rep, wall_s, peak_rss_mib, threads=1):
    """One fixture record of a real program (its figures in workload_metrics; its definition, as
    every program record carries it, in params.program: what makes `program` a program workload)."""
    return {"run_type": "iteration", "name": f"{program}/{allocator}/threads:{threads}", "workload": program,
            "allocator": allocator, "threads": threads, "status": "ok", "mode": "timing", "repetition_index": rep,
            "params": {"program": {"name": program, "metrics": []}, "program_threads": 1, "seed": 1, "work": 100},
            "workload_metrics": {"wall_s": wall_s, "peak_rss_mib": peak_rss_mib, "throughput": None}}


def model_record(model, allocator, rep, cycles, overhead, threads=1, **extra):
    """One fixture record of a model instance (net cycles per pair, overhead ratio, and a peak RSS
    in the overhead's order unless given)."""
    return {"run_type": "iteration", "name": f"{model}/{allocator}/threads:{threads}", "workload": model,
            "allocator": allocator, "threads": threads, "status": "ok", "mode": "timing", "repetition_index": rep,
            "net_cycles_per_pair": cycles, "overhead_ratio": overhead, "peak_rss_bytes": 1e7 * overhead, **extra}


def spread(median, width=0.01, reps=5):
    """`reps` values around `median` (the median itself in the middle), all within +-width of it."""
    return [median * (1 + width * k / (reps // 2 or 1)) for k in range(-(reps // 2), reps - reps // 2)]


def program(name, medians, memory=None, reps=5):
    """Records of program `name`: allocator -> median wall_s (and peak_rss_mib, default the same order)."""
    memory = memory or {a: 100 + 10 * m for a, m in medians.items()}
    return [program_record(name, a, i, w, r) for a in medians
            for i, (w, r) in enumerate(zip(spread(medians[a], reps=reps), spread(memory[a], reps=reps)))]


def model(name, medians, overheads=None, reps=5, threads=1):
    """Records of model instance `name`: allocator -> median net cycles/pair (and overhead ratio)."""
    overheads = overheads or {a: 1 + m / 100 for a, m in medians.items()}
    return [model_record(name, a, i, c, o, threads) for a in medians
            for i, (c, o) in enumerate(zip(spread(medians[a], reps=reps), spread(overheads[a], reps=reps)))]


def write_results(tmp_path, records, name="fixture.json", context=None):
    doc = {"schema": "allocstress-results", "schema_version": 3, "context": context or {"plan": {}}, "benchmarks": records}
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return str(path)


def table_of(tmp_path, records):
    return fd.fidelity_table(load_runs([write_results(tmp_path, records)]))


def row(table, model_name, aspect="speed"):
    rows = table[(table["model"] == model_name) & (table["aspect"] == aspect)]
    assert len(rows) == 1, rows
    return rows.iloc[0]


PROGRAM = {"system": 10.0, "jemalloc": 20.0, "tcmalloc": 30.0, "mimalloc": 40.0, "tbbmalloc": 50.0}


# --- the statistic ---------------------------------------------------------------------------

def test_spearman_is_exact_for_the_same_and_the_reversed_order():
    assert st.spearman_rows([1, 2, 3, 4, 5], [10, 20, 30, 40, 50])[0] == 1.0
    assert st.spearman_rows([1, 2, 3, 4, 5], [50, 40, 30, 20, 10])[0] == -1.0
    assert st.spearman_rows([1, 2, 3, 4, 5], [1, 3, 2, 4, 5])[0] == pytest.approx(0.9)  # sum d^2 = 2: 1 - 12 / 120
    # ties share their mean rank (Pearson of ranks): [1, 2.5, 2.5, 4] against [1, 2, 3, 4]
    assert st.spearman_rows([1, 2, 2, 4], [1, 2, 3, 4])[0] == pytest.approx(np.corrcoef([1, 2.5, 2.5, 4], [1, 2, 3, 4])[0, 1])
    assert math.isnan(st.spearman_rows([1, 1, 1], [1, 2, 3])[0])  # one side unranked
    assert math.isnan(st.spearman_rows([1], [1])[0])


# --- the table on fixtures with known rankings -------------------------------------------------

def test_perfect_agreement_is_one_and_reversed_is_minus_one(tmp_path):
    reversed_order = {a: 100.0 - m for a, m in PROGRAM.items()}
    records = (program("prog-x", PROGRAM) + model("replay:prog-x", {a: 5 * m for a, m in PROGRAM.items()})
               + model("alloc-test:prog-x", reversed_order, overheads={a: 3 - m / 100 for a, m in PROGRAM.items()}))
    table = table_of(tmp_path, records)
    same, rev = row(table, "replay:prog-x"), row(table, "alloc-test:prog-x")
    assert (same["rho"], same["n"], same["verdict"], same["too_few"]) == (1.0, 5, "agrees", False)
    assert (rev["rho"], rev["verdict"]) == (-1.0, "fails")
    # every cell's repetitions lie within +-1% of its median, far from the next: every resample keeps the order
    assert (same["ci_low"], same["ci_high"]) == (1.0, 1.0) and (rev["ci_low"], rev["ci_high"]) == (-1.0, -1.0)
    assert row(table, "replay:prog-x", "memory")["rho"] == 1.0 and row(table, "alloc-test:prog-x", "memory")["rho"] == -1.0
    assert same["program_metric"] == "wall_s" and same["model_metric"] == "net_cycles_per_pair"
    assert row(table, "replay:prog-x", "memory")[["program_metric", "model_metric"]].tolist() == ["peak_rss_mib", "peak_rss_bytes"]
    assert same["allocators"] == list(PROGRAM)  # by the program's rank, fastest first
    # the reversed model: the program's fastest is last in the model
    assert rev["moved"] in ("system", "tbbmalloc") and abs(rev["moved_model_rank"] - rev["moved_program_rank"]) == 4


def test_the_interval_holds_rho_and_lies_in_minus_one_to_one(tmp_path):
    # the model swaps jemalloc and tcmalloc, whose repetitions overlap: rho = 0.9 (sum d^2 = 2)
    medians = {"system": 10.0, "jemalloc": 31.0, "tcmalloc": 30.0, "mimalloc": 40.0, "tbbmalloc": 50.0}
    records = program("prog-x", PROGRAM) + model("replay:prog-x", medians)
    r = row(table_of(tmp_path, records), "replay:prog-x")
    assert r["rho"] == pytest.approx(0.9)
    assert -1.0 <= r["ci_low"] <= r["rho"] <= r["ci_high"] <= 1.0
    assert r["ci_level"] == 0.95 and r["moved"] in ("jemalloc", "tcmalloc")
    # noisy cells: values spread +-40%, so resamples reorder them
    noisy = [model_record("fitted:prog-x", a, i, v, 1.5) for a, m in medians.items()
             for i, v in enumerate(spread(m, width=0.4, reps=7))]
    r = row(table_of(tmp_path, program("prog-x", PROGRAM) + noisy), "fitted:prog-x")
    assert r["rho"] == pytest.approx(0.9)
    assert -1.0 <= r["ci_low"] <= r["rho"] <= r["ci_high"] <= 1.0 and r["ci_low"] < 0.9
    again = row(table_of(tmp_path, program("prog-x", PROGRAM) + noisy), "fitted:prog-x")
    assert (again["ci_low"], again["ci_high"]) == (r["ci_low"], r["ci_high"])  # fixed seed: reproducible


def test_fewer_than_four_allocators_are_flagged(tmp_path):
    three = {a: PROGRAM[a] for a in ["system", "jemalloc", "tcmalloc"]}
    # the model also ran in-tree allocators (bump): only the allocators both ran are ranked
    records = program("prog-x", PROGRAM) + model("alloc-test:prog-x", {**three, "bump": 1.0})
    table = table_of(tmp_path, records)
    r = row(table, "alloc-test:prog-x")
    assert (r["n"], r["rho"], r["too_few"], r["verdict"]) == (3, 1.0, True, fd.TOO_FEW)
    assert r["model_only"] == ["bump"]
    assert r["left_out"] == ["mimalloc: not run by the model", "tbbmalloc: not run by the model"]
    headers, rows = ft.markdown_rows(table)
    assert rows[0][headers.index("speed rho [95% interval]")].endswith("†")
    assert fd.TOO_FEW in ft.to_markdown(table)


def test_an_invalid_overhead_leaves_that_allocator_out_of_memory_only(tmp_path):
    records = program("prog-x", PROGRAM) + model("replay:prog-x", PROGRAM)
    for e in records:
        if e["workload"] == "replay:prog-x" and e["allocator"] == "mimalloc":
            e.update(overhead_ratio=None, overhead_ratio_invalid="constructed: RSS grew by less than was live")
    table = fd.fidelity_table(load_runs([write_results(tmp_path, records)]), model_memory="overhead_ratio")
    assert row(table, "replay:prog-x")["n"] == 5
    memory = row(table, "replay:prog-x", "memory")
    assert memory["model_metric"] == "overhead_ratio"
    assert memory["n"] == 4 and memory["left_out"] == [
        "mimalloc: overhead invalid (< 1): constructed: RSS grew by less than was live"]
    assert ft.markdown_rows(table)[1][0][2] == "5 / 4"


def test_the_models_memory_figure_is_peak_rss_or_on_request_the_overhead_ratio(tmp_path):
    # tbbmalloc holds much RSS before the measured phase: last by peak RSS, first by overhead ratio
    overheads = {"system": 1.2, "jemalloc": 1.3, "tcmalloc": 1.4, "mimalloc": 1.5, "tbbmalloc": 1.1}
    records = program("prog-x", PROGRAM) + [
        model_record("replay:prog-x", a, i, PROGRAM[a], overheads[a], peak_rss_bytes=(5e7 if a == "tbbmalloc" else 0) + 1e7 * v)
        for a in PROGRAM for i, v in enumerate(spread(PROGRAM[a]))]
    path = write_results(tmp_path, records)
    assert row(allocstress.fidelity(path), "replay:prog-x", "memory")["rho"] == 1.0
    by_overhead = row(allocstress.fidelity(path, model_memory="overhead_ratio"), "replay:prog-x", "memory")
    assert by_overhead["rho"] == 0.0 and by_overhead["moved"] == "tbbmalloc"  # sum d^2 = 4 x 1 + 16: rho 0
    with pytest.raises(ValueError, match="accepted: peak_rss_bytes, overhead_ratio"):
        allocstress.fidelity(path, model_memory="rss")


def test_a_programs_figures_come_from_the_catalogue_flags_when_the_registry_knows_it(monkeypatch):
    # a stand-in registry entry and catalogue (this build's may not have the programs family yet)
    entry = {"name": "prog-y", "family": "programs", "metrics": ["elapsed_s", "rss_top_kib", "wall_s", "peak_rss_mib"]}
    flags = [{"name": "elapsed_s", "headline": True}, {"name": "rss_top_kib", "headline": False, "memory_headline": True},
             {"name": "wall_s", "headline": False}, {"name": "peak_rss_mib", "headline": False}]
    monkeypatch.setattr(fd.catalogue, "workload", lambda name: entry if name == "prog-y" else None)
    monkeypatch.setattr(fd.catalogue, "is_program", lambda name: name == "prog-y")
    monkeypatch.setattr(fd.catalogue, "metric_entries", lambda: tuple(flags))
    assert fd.program_metrics("prog-y") == ("elapsed_s", "rss_top_kib")
    assert fd.is_program("prog-y")
    flags[1]["memory_headline"] = False  # no memory headline flagged: the peak RSS it lists
    assert fd.program_metrics("prog-y") == ("elapsed_s", "peak_rss_mib")
    assert fd.program_metrics("prog-unknown") == ("wall_s", "peak_rss_mib")  # a program this build does not know


def test_a_cell_of_one_repetition_has_rho_but_no_interval(tmp_path):
    records = program("prog-x", PROGRAM, reps=1) + model("replay:prog-x", PROGRAM)
    r = row(table_of(tmp_path, records), "replay:prog-x")
    assert r["rho"] == 1.0 and math.isnan(r["ci_low"]) and "fewer than 2 repetitions" in r["note"]


def test_labelled_instances_are_grouped_under_their_program(tmp_path):
    records = (program("prog-a", PROGRAM) + program("prog-b", {a: 100 - m for a, m in PROGRAM.items()})
               + model("replay:prog-a", PROGRAM) + model("alloc-test:prog-a", PROGRAM, threads=2)
               + model("alloc-test:prog-b", PROGRAM) + model("lifetime:prog-b", PROGRAM)
               + model("alloc-test", PROGRAM) + model("alloc-test:other", PROGRAM))  # not models of a program
    table = table_of(tmp_path, records)
    pairs = list(dict.fromkeys(zip(table["program"], table["model"])))
    assert pairs == [("prog-a", "replay:prog-a"), ("prog-a", "alloc-test:prog-a"),
                     ("prog-b", "alloc-test:prog-b"), ("prog-b", "lifetime:prog-b")]
    assert len(table) == 8 and set(table["aspect"]) == {"speed", "memory"}
    assert set(table[table["program"] == "prog-b"]["rho"]) == {-1.0}  # prog-b's order is the reverse of the models'
    assert ft.model_name(row(table, "alloc-test:prog-a")) == "alloc-test (2 threads)"


def test_readings_name_the_failing_model_and_the_allocator_that_moved(tmp_path):
    moved = {"system": 10.0, "jemalloc": 60.0, "tcmalloc": 30.0, "mimalloc": 40.0, "tbbmalloc": 50.0}
    jemalloc_first = {"system": 20.0, "jemalloc": 5.0, "tcmalloc": 30.0, "mimalloc": 40.0, "tbbmalloc": 50.0}
    records = program("prog-x", moved) + model("replay:prog-x", moved) + model("alloc-test:prog-x", jemalloc_first)
    table = table_of(tmp_path, records)
    (run, name, text), = ft.readings(table)
    assert name == "prog-x"
    assert text.startswith("Speed: replay ranks like the program (rho 1.00 [1.00, 1.00]); alloc-test does not "
                           "(rho 0.00 [0.00, 0.00]: jemalloc 1st in the model, 5th of 5 in the program). Memory: ")
    assert "too few" not in text  # sum d^2 = 4 x 1 + 16 = 20 = n (n^2 - 1) / 6: rho 0


def test_a_program_without_models_says_so(tmp_path):
    table = table_of(tmp_path, program("prog-x", PROGRAM))
    assert table["verdict"].tolist() == ["n/a", "n/a"] and "no model instance" in table["note"].iloc[0]
    assert "no model instance" in ft.readings(table)[0][2]


def test_a_program_whose_trace_failed_says_why(tmp_path):
    context = {"plan": {}, "programs": {"prog-x": {"trace_failed": "exit code 1: trace: the tracer library is missing"}}}
    table = fd.fidelity_table(load_runs([write_results(tmp_path, program("prog-x", PROGRAM), context=context)]))
    assert table["note"].iloc[0] == "no model: the trace of prog-x failed: exit code 1: trace: the tracer library is missing"
    assert "the trace of prog-x failed" in ft.readings(table)[0][2]


def test_a_file_without_programs_is_refused(tmp_path):
    with pytest.raises(ResultsError, match="no real-program timing records"):
        fd.fidelity_table(load_runs([GOLDEN]))


# --- the API, the command, the report ----------------------------------------------------------

def test_api_returns_the_table_with_its_readings(tmp_path):
    path = write_results(tmp_path, program("prog-x", PROGRAM) + model("replay:prog-x", PROGRAM))
    table = allocstress.fidelity(path)
    assert list(table.columns) == fd.COLUMN_NAMES and table.attrs["readings"][0][1] == "prog-x"


def run_cli(*args):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    return subprocess.run([sys.executable, "-m", "allocstress", "fidelity", *args], capture_output=True, text=True, env=env)


def test_cli_prints_the_table_and_json(tmp_path):
    path = write_results(tmp_path, program("prog-x", PROGRAM) + model("replay:prog-x", PROGRAM))
    text = run_cli(path)
    assert text.returncode == 0, text.stderr
    assert "| prog-x | replay | 5 | 1.00 [1.00, 1.00] |" in text.stdout and "Readings:" in text.stdout
    out = run_cli(path, "--json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["level"] == 0.95 and doc["resamples"] == 2000
    assert [(r["model"], r["aspect"], r["rho"]) for r in doc["rows"]] == [("replay:prog-x", "speed", 1.0),
                                                                          ("replay:prog-x", "memory", 1.0)]


@pytest.mark.parametrize("via_binary", [False, True])
def test_cli_refuses_a_file_without_programs_in_one_line(via_binary, tmp_path):
    if via_binary and not ALLOCSTRESS:
        pytest.skip("ALLOCSTRESS (the built CLI) not given")
    cmd = [ALLOCSTRESS, "fidelity", GOLDEN] if via_binary else None
    p = subprocess.run(cmd, capture_output=True, text=True) if via_binary else run_cli(GOLDEN)
    assert p.returncode == 2 and p.stdout == ""
    lines = p.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("allocstress: error: ") and "no real-program timing records" in lines[0]
    assert "accepted:" in lines[0]


def test_report_has_the_section_only_with_programs(tmp_path):
    with open(GOLDEN) as f:
        golden = json.load(f)
    path = write_results(tmp_path, golden["benchmarks"] + program("prog-x", PROGRAM) + model("replay:prog-x", PROGRAM),
                         name="with-programs.json", context=golden["context"])
    index = allocstress.report(path, str(tmp_path / "report"))
    page = open(index).read()
    assert 'id="fidelity"' in page and "Readings" in page and "prog-x" in page
    assert os.path.exists(tmp_path / "report" / "fidelity.md") and os.path.exists(tmp_path / "report" / "fidelity.csv")
    plain = open(allocstress.report(GOLDEN, str(tmp_path / "plain"))).read()
    assert 'id="fidelity"' not in plain and not os.path.exists(tmp_path / "plain" / "fidelity.md")


def test_a_model_whose_records_are_all_disturbed_keeps_its_rows_with_the_reason(tmp_path):
    records = program("prog-x", PROGRAM) + model("replay:prog-x", PROGRAM) + model("alloc-test:prog-x", PROGRAM)
    for e in records:
        if e["workload"] == "alloc-test:prog-x":
            e["interference"] = {"disturbed": True}
    table = table_of(tmp_path, records)
    assert row(table, "replay:prog-x")["rho"] == 1.0
    disturbed = row(table, "alloc-test:prog-x")
    assert disturbed["n"] == 0 and disturbed["verdict"] == "n/a"
    assert disturbed["note"].startswith("no ok, undisturbed repetition of the model")
