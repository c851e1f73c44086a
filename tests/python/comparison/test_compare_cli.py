"""`allocstress compare` and `allocstress report` through the real CLI, including bad input."""

import json
import os
import subprocess

import pytest

import allocstress
from allocstress.comparison import compare, compare_result, compare_text

ALLOCSTRESS = os.environ.get("ALLOCSTRESS")


def scaled_copy(src, dst, factor):
    """The golden file with every non-void allocator's net cost multiplied by `factor` (a
    constructed 'B' run whose true answer is known: B / A = factor)."""
    with open(src) as f:
        doc = json.load(f)
    for e in doc["benchmarks"]:
        if e["run_type"] == "iteration" and e["status"] == "ok" and e["allocator"] != "void":
            e["net_cycles_per_pair"] *= factor
    with open(dst, "w") as f:
        json.dump(doc, f)


def test_compare_finds_the_known_factor(golden, tmp_path):
    b = str(tmp_path / "doubled.json")
    scaled_copy(golden, b, 2.0)
    runs = allocstress.load_runs([golden, b])
    table = compare.compare_runs(runs)
    assert len(table) == 14  # 7 allocators x 2 thread counts: every cell has a row
    measured = table[table["allocator"] != "void"]
    assert measured["ratio"].tolist() == pytest.approx([2.0] * 12)
    assert set(table[table["allocator"] == "void"]["decision"]) == {"n/a"}
    # Where A's repetitions and 2 x A's do not overlap, the exact 5-vs-5 test gives p = 2/252.
    separated = 0
    for row in measured.itertuples():
        a = [e["net_cycles_per_pair"] for e in runs.documents[0]["benchmarks"] if e["run_type"] == "iteration"
             and e["allocator"] == row.allocator and e["threads"] == row.threads]
        if max(a) < 2 * min(a):
            separated += 1
            # adjusted over the 12 cells with a p (Benjamini-Hochberg): still below 5% with 6 or more such cells
            assert row.p == pytest.approx(2 / 252) and row.p_adjusted <= 12 / separated * 2 / 252 + 1e-12
            assert row.significance in ("*", "**")
            # every resampled median of B over one of A is at least 2 min(A) / max(A)
            assert row.ci_low >= 2 * min(a) / max(a) - 1e-12
            if 2 * min(a) / max(a) > 1.05:
                assert row.decision == "worse"
    assert separated >= 6
    g = compare.geomean(table, 0.05)
    assert g["ratio"] == pytest.approx(2.0) and g["cells"] == len(compare.decided(table)) and g["of_cells"] == 14
    assert g["low"] <= 2.0 <= g["high"]  # the bootstrap interval of the geometric mean holds the true factor


def test_compare_of_a_run_with_itself_is_neutral(golden, tmp_path):
    same = str(tmp_path / "same.json")
    scaled_copy(golden, same, 1.0)
    table = compare.compare_runs(allocstress.load_runs([golden, same]))
    measured = table[table["allocator"] != "void"]
    assert measured["ratio"].tolist() == pytest.approx([1.0] * len(measured))
    assert (measured["significance"] == "").all()
    assert set(table["decision"]) <= {"no change", "n/a"}


def test_compare_names_the_cells_it_leaves_out(golden, tmp_path):
    def fail_jemalloc(doc):
        for e in doc["benchmarks"]:
            if e["run_type"] == "iteration" and e["allocator"] == "jemalloc":
                e.update(status="failed", reason="constructed")
    from conftest import write_variant
    b = write_variant(tmp_path, "b.json", fail_jemalloc)
    c = compare_result.compare_files(golden, b)
    jemalloc = c.cells[c.cells["allocator"] == "jemalloc"]
    assert list(jemalloc["decision"]) == ["n/a", "n/a"] and set(jemalloc["reason"]) == {"failed in b: constructed"}
    text = compare_text.render(c)
    assert text.count("| n/a | alloc-test | jemalloc |") == 2 and "failed in b: constructed" in text


def test_same_file_names_in_different_folders_are_told_apart(golden, tmp_path):
    for machine in ("machineA", "machineB"):
        (tmp_path / machine).mkdir()
        scaled_copy(golden, str(tmp_path / machine / "results.json"), 1.0)
    runs = allocstress.load_runs([str(tmp_path / "machineA" / "results.json"), str(tmp_path / "machineB" / "results.json")])
    assert runs.run_names() == ["machineA/results", "machineB/results"]


def run_cli(*args):
    assert ALLOCSTRESS, "CTest sets ALLOCSTRESS to the built executable"
    return subprocess.run([ALLOCSTRESS, *args], capture_output=True, text=True, timeout=300)


def test_cli_compare_and_report(golden, tmp_path):
    b = str(tmp_path / "b.json")
    scaled_copy(golden, b, 0.5)
    r = run_cli("compare", golden, b, "--csv", str(tmp_path / "c.csv"))
    assert r.returncode == 0, r.stderr  # B is cheaper: nothing is worse
    assert "geomean b / golden-tiny of net_cycles_per_pair: 0.500 [" in r.stdout
    assert "cells decided in both runs (of 14; n/a cells are left out)" in r.stdout
    assert os.path.getsize(tmp_path / "c.csv") > 0
    r = run_cli("report", golden, "-o", str(tmp_path / "rep"))
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == str(tmp_path / "rep" / "index.html")


def bad_files(tmp_path, golden):
    text = open(golden).read()
    files = {"missing": (str(tmp_path / "missing.json"), "no such results file")}
    for name, content, message in (
            ("truncated", text[: len(text) // 2], "truncated"),
            ("foreign", '{"context": {}, "benchmarks": []}', "not an allocstress results file"),
            ("version", text.replace('"schema_version": 1', '"schema_version": 7', 1), "schema_version 7 is not supported")):
        path = tmp_path / f"{name}.json"
        path.write_text(content)
        files[name] = (str(path), message)
    return files


@pytest.mark.parametrize("case", ["missing", "truncated", "foreign", "version"])
def test_bad_results_files_get_one_clear_line(golden, tmp_path, case):
    path, message = bad_files(tmp_path, golden)[case]
    for args in (["report", path, "-o", str(tmp_path / "r")], ["compare", golden, path]):
        r = run_cli(*args)
        assert r.returncode == 2, (args, r.stderr)
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("allocstress: error:") and path in lines[0] and message in lines[0], r.stderr
        assert "Traceback" not in r.stderr
    assert not os.path.exists(tmp_path / "r" / "index.html")


def damaged(tmp_path, golden):
    """Files that parse as results but are damaged inside, each with the message expected."""
    doc = json.load(open(golden))
    cases = {}
    no_workload = json.loads(json.dumps(doc))
    del no_workload["benchmarks"][0]["workload"]
    cases["no_workload"] = (no_workload, "lacks a valid 'workload'")
    bad_schema = json.loads(json.dumps(doc))
    bad_schema["schema"] = 3
    cases["bad_schema"] = (bad_schema, "not an allocstress results file")
    not_object = json.loads(json.dumps(doc))
    not_object["benchmarks"][3] = 7
    cases["not_object"] = (not_object, "is not an object")
    out = {}
    for name, (content, message) in cases.items():
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(content))
        out[name] = (str(path), message)
    return out


@pytest.mark.parametrize("case", ["no_workload", "bad_schema", "not_object"])
def test_damaged_results_get_one_clear_line(golden, tmp_path, case):
    path, message = damaged(tmp_path, golden)[case]
    r = run_cli("report", path, "-o", str(tmp_path / "r"))
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 2 and len(lines) == 1 and message in lines[0] and path in lines[0], r.stderr


def test_unwritable_csv_gets_one_clear_line_before_any_output(golden, tmp_path):
    b = str(tmp_path / "b.json")
    scaled_copy(golden, b, 1.0)
    r = run_cli("compare", golden, b, "--csv", "/nonexistent/dir/x.csv")
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 2 and len(lines) == 1 and "/nonexistent/dir/x.csv" in lines[0], r.stderr
    assert r.stdout == ""


def test_results_without_cells_still_give_a_report(golden, tmp_path):
    doc = json.load(open(golden))
    doc["benchmarks"] = []
    path = tmp_path / "empty.json"
    path.write_text(json.dumps(doc))
    r = run_cli("report", str(path), "-o", str(tmp_path / "r"))
    assert r.returncode == 0, r.stderr
    assert os.path.exists(tmp_path / "r" / "index.html")


@pytest.mark.parametrize("args,message", [
    (["report"], "the following arguments are required"),
    (["compare", "only-one.json"], "the following arguments are required"),
    (["compare", "a.json", "b.json", "--metric", "speed"], "invalid choice"),
    (["compare", "a.json", "b.json", "--threshold", "-5"], "--threshold '-5' is not a percentage (accepted: a number from 0 up to 100"),
    (["compare", "a.json", "b.json", "--threshold", "five"], "--threshold 'five' is not a percentage"),
    (["compare", "a.json", "b.json", "--threshold", "5%%"], "--threshold '5%%' is not a percentage"),
    (["compare", "--gbench-view", "v.json"], "the following arguments are required"),
])
def test_bad_options_get_one_clear_line(args, message):
    r = run_cli(*args)
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], r.stderr


def test_bad_threshold_writes_nothing(golden, tmp_path):
    out = tmp_path / "c.json"
    r = run_cli("compare", golden, golden, "--threshold", "-1", "--json", str(out))
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 2 and len(lines) == 1 and r.stdout == "", r.stderr
    assert "--threshold '-1' is not a percentage (accepted: a number from 0 up to 100" in lines[0], r.stderr
    assert not out.exists()


def test_unwritable_json_gets_one_clear_line_and_leaves_no_csv(golden, tmp_path):
    b = str(tmp_path / "b.json")
    scaled_copy(golden, b, 1.0)
    csv = tmp_path / "c.csv"
    r = run_cli("compare", golden, b, "--csv", str(csv), "--json", "/nonexistent/dir/x.json")
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 2 and len(lines) == 1 and "/nonexistent/dir/x.json" in lines[0], r.stderr
    assert r.stdout == "" and not csv.exists()


def test_help_lists_every_option_with_its_default():
    r = run_cli("compare", "--help")
    assert r.returncode == 0
    lines = r.stdout.splitlines()
    assert lines[0].startswith("Compare two results files") and lines[1] == "Usage: allocstress compare [OPTIONS] A.json B.json"
    for option in ("--threshold PCT", "--metric METRIC", "--json FILE", "--csv FILE", "--gbench-view OUT.json"):
        row = next(line for line in lines if line.strip().startswith(option))
        assert row.index(option) == 2 and row[30 - 1] == " " and row[30] != " " and "default" in row, row
    r = run_cli("report", "--help")
    assert r.returncode == 0 and "  -o,--out DIR" in r.stdout and "(default <first results>-report)" in r.stdout
