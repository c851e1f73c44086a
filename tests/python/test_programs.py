"""Program workloads in the analysis package: a program is named by its definition ("churn" from
`allocstress bench --name churn`, a programs file's "jq-sort", the shipped "prog-lua") and is an
instance of the registry's one `program` entry.  The package resolves the name through C++
(_core.resolve_workload / is_program_workload), once the name is declared: by reading a results
file that carries the definition, or -- the shipped prog-* -- when _core is imported.

The results files are real runs of `allocstress bench` (conftest.bench_files: python3 printing
"score: 3", two allocators, two repetitions); the fidelity and compare variants below are built
from their records, each marked where a figure is changed by hand."""

import json
import math
import os
import subprocess
import sys

import pandas as pd

import allocstress
from allocstress.results import catalogue, frame
from allocstress.tabulation import tables
from allocstress.fidelity_study import fidelity as fd
from allocstress.tabulation import workload_metrics as wm
from allocstress.results.loading import load_runs

from conftest import ALLOCSTRESS

PROGRAM = "churn"
SCORE_HEADER = "score (lower is better)"
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}


def fresh_python(code: str) -> str:
    """Runs `code` in a new interpreter (nothing declared yet but the shipped programs); its stdout."""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=ENV, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def document(path):
    with open(path) as f:
        return json.load(f)


def write(tmp_path, name, doc):
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return str(path)


def iterations(doc):
    return [e for e in doc["benchmarks"] if e["run_type"] == "iteration"]


# ---- the name resolves: the one rule, in C++ ------------------------------------------------------

def test_a_bench_program_resolves_once_its_results_are_read(bench_files):
    out = fresh_python(
        "import allocstress\n"
        "from allocstress.results import catalogue\n"
        "print(catalogue.workload('churn'), catalogue.is_program('churn'))\n"
        f"allocstress.load({bench_files[0]!r})\n"
        "print(catalogue.workload('churn')['name'], catalogue.is_program('churn'), 'churn' in catalogue.declared_programs())\n"
        "print(catalogue.headline_metric('churn'), catalogue.entry_name('replay:churn'), catalogue.is_program('replay:churn'))\n")
    assert out.splitlines() == ["None False", "program True True", "wall_s replay False"]


def test_the_shipped_programs_resolve_at_import_as_in_the_cli():
    out = fresh_python("from allocstress import _core\nfrom allocstress.results import catalogue\n"
                       "print(repr(_core.shipped_programs_problem), catalogue.entry_name('prog-lua'), "
                       "catalogue.is_program('prog-python3'), catalogue.workload('prog-nope'))\n")
    assert out.strip() == "'' program True None"


def test_a_program_declared_only_in_the_plan_resolves(tmp_path, bench_files):
    doc = document(bench_files[0])
    doc["context"]["plan"]["workload_params"]["plan-only"] = doc["context"]["plan"]["workload_params"][PROGRAM]
    path = write(tmp_path, "plan.json", doc)
    out = fresh_python(f"import allocstress\nfrom allocstress.results import catalogue\nallocstress.load_runs([{path!r}])\n"
                       "print(catalogue.entry_name('plan-only'))\n")
    assert out.strip() == "program"


def test_definition_metrics_come_from_the_records():
    records = [{"params": {"program": {"name": "p", "metrics": [{"name": "rps", "regex": "r: (\\d+)", "better": "higher",
                                                                 "unit": ""}, {"name": "lat", "better": "lower", "unit": "ms"}]}},
                "program": {"metric_units": {"rps": "requests/s", "lat": "ms"}}}]
    got = catalogue.definition_metrics(records)
    assert list(got) == ["rps", "lat"]
    assert got["rps"]["unit"] == "requests/s" and got["rps"]["better"] == "higher"  # the unit from program.metric_units
    assert got["lat"]["unit"] == "ms" and got["lat"]["better"] == "lower"
    assert catalogue.definition_metrics([{"params": {"iterations_per_thread": 5}}]) == {}


# ---- allocstress.load ---------------------------------------------------------------------------

def test_load_gives_the_program_columns(bench_files):
    df = allocstress.load(bench_files[0])
    assert set(df["workload"]) == {PROGRAM} and set(df["allocator"]) == {"system", "jemalloc"} and len(df) == 4
    assert list(df.columns[:len(frame.HEAD_COLUMNS) + len(frame.PROGRAM_COLUMNS)]) == frame.HEAD_COLUMNS + frame.PROGRAM_COLUMNS
    assert set(df["headline_metric"]) == {"wall_s"}
    assert (df["headline"] == df["workload_metrics.wall_s"]).all() and (df["headline"] > 0).all()
    assert set(df["program.name"]) == {PROGRAM} and set(df["program.origin"]) == {"allocstress bench"}
    assert (df["program.exit_code"] == 0).all() and df["program.exit_code"].dtype == "int64"
    assert df["program.stdout_hash"].str.startswith("fnv1a64:").all() and df["program.stdout_hash"].nunique() == 1
    assert df["program.command"].str.startswith("/usr/bin/python3 -c ").all()
    for m in catalogue.workload("program")["metrics"] + ["score"]:  # the entry's figures and the definition's
        assert f"workload_metrics.{m}" in df, m
    assert (df["workload_metrics.score"] == 3.0).all()
    assert df["params.program.metrics"].iloc[0][0]["name"] == "score"


def test_load_of_other_workloads_has_no_program_columns():
    from conftest import GOLDEN
    assert not any(c.startswith("program.") for c in allocstress.load(GOLDEN).columns)


# ---- tables and the report ------------------------------------------------------------------------

def test_the_program_has_its_own_table_with_the_definition_metric(bench_files):
    runs = load_runs([bench_files[0]])
    assert tables.summary_table(runs).empty  # no net cost: not in the alloc-test table
    t, = wm.workload_tables(runs)
    assert t.workload == PROGRAM and set(t.frame["allocator"]) == {"system", "jemalloc"}
    assert list(t.metrics)[:4] == ["wall_s", "user_s", "sys_s", "peak_rss_mib"] and list(t.metrics)[-1] == "score"
    assert t.definition["score"]["better"] == "lower" and (t.frame["score"] == 3.0).all()
    headers, rows = wm.display_rows(t)
    assert headers[:4] == ["allocator", "threads", "reps", "wall s"] and headers[-1] == SCORE_HEADER
    assert all(r[-1] == "3" for r in rows)
    legend = wm.legend(t)
    assert legend.startswith("churn: /usr/bin/python3 -c ") and "(defined by allocstress bench)" in legend
    assert "score (lower is better): read from the program's stdout" in legend
    docs = {c[0]: c for c in wm.column_docs([t])}
    assert "lower is better" in docs["score"][2] and docs["score"][1] == "-"


def test_a_metric_with_a_unit_and_higher_better_is_labelled_so(tmp_path, bench_files):
    doc = document(bench_files[0])
    for e in iterations(doc):  # constructed: the definition's metric given a unit and the other direction
        e["params"]["program"]["metrics"][0].update(unit="points", better="higher")
    t, = wm.workload_tables(load_runs([write(tmp_path, "unit.json", doc)]))
    assert wm.display_rows(t)[0][-1] == "score points (higher is better)"


def test_the_report_has_the_program_section_figures_and_verdict_lines(tmp_path, bench_files):
    out = tmp_path / "report"
    page = open(allocstress.report(bench_files[0], str(out))).read()
    # the C++ verdict: cost, memory and the definition's metric
    assert "<b>churn, 1 thread</b>: cost in wall s" in page
    assert "<b>churn, 1 thread</b>: score, read from the program&#x27;s output, lowest first" in page
    start, end = page.index('<h2 id="workloads">'), page.index("<h2>Run ")
    section = page[start:end]
    assert "<h3>churn</h3>" in section and SCORE_HEADER in section and "Real programs" in section
    assert "<h2>Summary</h2>" not in page  # no alloc-test-like row for a program
    assert os.path.exists(out / "churn-a-churn-relative-cost.png") and os.path.exists(out / "churn-a-churn-repetitions.png")
    csv = pd.read_csv(out / "workload-churn.csv")
    assert list(csv["score"]) == [3.0, 3.0]
    assert "### churn" in (out / "workloads.md").read_text()


def test_a_program_beside_alloc_test_keeps_its_section_and_stays_out_of_the_summary(tmp_path, bench_files):
    from conftest import GOLDEN
    golden = document(GOLDEN)
    golden["benchmarks"] += iterations(document(bench_files[0]))  # constructed: one file holding both
    path = write(tmp_path, "mixed.json", golden)
    runs = load_runs([path])
    assert PROGRAM not in set(tables.summary_table(runs)["workload"])
    page = open(allocstress.report(path, str(tmp_path / "report"))).read()
    assert "<h2>Summary</h2>" in page and "<h3>churn</h3>" in page and SCORE_HEADER in page


def test_a_prog_file_written_before_programs_were_data_keeps_working(tmp_path, bench_files):
    doc = document(bench_files[0])  # constructed: the records as the prog-* registry entries wrote them
    plan = doc["context"]["plan"]
    plan["workloads"], plan["workload_params"] = ["prog-lua"], {"prog-lua": {"work": 100, "program_threads": 1, "seed": 1}}
    for e in doc["benchmarks"]:
        e["workload"] = "prog-lua"
        e.get("params", {}).pop("program", None)
        (e.get("workload_metrics") or {}).pop("score", None)
    path = write(tmp_path, "old-prog.json", doc)
    out = fresh_python("import allocstress\nfrom allocstress.fidelity_study import fidelity\nfrom allocstress.tabulation import workload_metrics as wm\n"
                       f"runs = allocstress.load_runs([{path!r}])\n"
                       "print(allocstress.load(runs.paths)['headline_metric'].unique().tolist(), fidelity.is_program('prog-lua'),"
                       " [t.workload for t in wm.workload_tables(runs)])\n")
    assert out.strip() == "['wall_s'] True ['prog-lua']"


# ---- fidelity ----------------------------------------------------------------------------------

def model_records(name, figures):
    """Constructed records of a model instance: allocator -> its net cycles per pair (2 repetitions)."""
    return [{"run_type": "iteration", "name": f"{name}/{a}/threads:1", "workload": name, "allocator": a, "threads": 1,
             "status": "ok", "mode": "timing", "repetition_index": i, "net_cycles_per_pair": c * (1 + 0.01 * i),
             "overhead_ratio": 1.2, "peak_rss_bytes": 3e7 * (1 + 0.01 * i)}
            for a, c in figures.items() for i in range(2)]


def test_fidelity_finds_the_program_and_its_replay(tmp_path, bench_files):
    doc = document(bench_files[0])
    doc["benchmarks"] += model_records(f"replay:{PROGRAM}", {"system": 80.0, "jemalloc": 40.0})
    doc["benchmarks"] += model_records("replay:other", {"system": 80.0, "jemalloc": 40.0})  # no such program: ignored
    path = write(tmp_path, "with-replay.json", doc)
    table = allocstress.fidelity(path)
    assert set(table["program"]) == {PROGRAM} and set(table["model"]) == {f"replay:{PROGRAM}"}
    speed = table[table["aspect"] == "speed"].iloc[0]
    assert speed["program_metric"] == "wall_s" and speed["model_base"] == "replay"
    assert speed["n"] == 2 and speed["too_few"] and speed["verdict"] in (fd.TOO_FEW, "n/a")
    done = subprocess.run([sys.executable, "-m", "allocstress", "fidelity", path], capture_output=True, text=True, env=ENV)
    assert done.returncode == 0, done.stderr
    assert f"| {PROGRAM} | replay | 2 |" in done.stdout
    page = open(allocstress.report(path, str(tmp_path / "report"))).read()
    assert 'id="fidelity"' in page


# ---- compare -----------------------------------------------------------------------------------

def compare_cli(a, b, *more):
    return subprocess.run([ALLOCSTRESS, "compare", a, b, *more], capture_output=True, text=True, timeout=300)


def test_compare_of_a_run_with_itself_changes_nothing(tmp_path, bench_files):
    same = write(tmp_path, "churn-copy.json", document(bench_files[0]))
    c = allocstress.compare(bench_files[0], same)
    assert c.exit_status == 0
    assert set(c.cells["workload"]) == {PROGRAM} and set(c.cells["metric"]) == {"wall_s"}
    assert set(c.cells["decision"]) <= {"no change"} and len(c.cells) == 2
    assert c.reference.empty and c.reference_line.startswith("reference: not checked")
    done = compare_cli(bench_files[0], same)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "reference: not checked" in done.stdout


def test_compare_of_two_bench_runs_decides_every_cell(bench_files):
    done = compare_cli(*bench_files, "--json", "-")
    assert done.returncode in (0, 4), done.stdout + done.stderr  # never 3: a program has no void reference
    out = json.loads(done.stdout)
    assert {(r["workload"], r["allocator"], r["metric"]) for r in out["cells"]} == {
        (PROGRAM, "system", "wall_s"), (PROGRAM, "jemalloc", "wall_s")}
    assert all(r["decision"] in ("better", "worse", "no change") for r in out["cells"])
    assert out["exit_status"] == done.returncode and not out["reference"]["moved"]


def test_compare_calls_a_slower_program_worse(tmp_path, bench_files):
    doc = document(bench_files[0])
    for e in iterations(doc):  # constructed: system's runs made 5 times as long
        if e["allocator"] == "system":
            e["workload_metrics"]["wall_s"] *= 5
    slower = write(tmp_path, "churn-slower.json", doc)
    done = compare_cli(bench_files[0], slower)
    assert done.returncode == 4, done.stdout + done.stderr
    c = allocstress.compare(bench_files[0], slower)
    worse = c.cells[c.cells["decision"] == "worse"]
    assert list(zip(worse["workload"], worse["allocator"])) == [(PROGRAM, "system")]
    assert math.isclose(worse["ratio"].iloc[0], 5.0, rel_tol=1e-6)


def test_compare_keeps_working_without_the_definition_metric_in_b(tmp_path, bench_files):
    doc = document(bench_files[1])
    for e in iterations(doc):  # constructed: B's definition has no metric (a programs file edited between runs)
        e["params"]["program"]["metrics"] = []
        e["workload_metrics"].pop("score")
    done = compare_cli(bench_files[0], write(tmp_path, "no-score.json", doc))
    assert done.returncode in (0, 4), done.stdout + done.stderr
