"""Shared fixtures: the golden results file, a scratch folder per test, and (once per session)
two results files of `allocstress bench` of one small program."""

import json
import os
import shutil
import subprocess
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import skip_policy  # noqa: E402  (tests/skip_policy.py: the skip check of scripts/run-tests.sh)

DATA = os.path.join(os.path.dirname(__file__), "..", "data")
GOLDEN = os.path.abspath(os.path.join(DATA, "golden-tiny.json"))
ALLOCSTRESS = os.environ.get("ALLOCSTRESS")
# The program `bench_files` measures: python3 building 200,000 strings, then printing its "score".
BENCH_PROGRAM = ["/usr/bin/python3", "-c", 'x = [str(i) * 3 for i in range(200000)]; print("score: 3")']
BENCH_ARGS = ["--allocators", "system,jemalloc", "--reps", "2", "--metric", "score=score: ([0-9.]+),lower", "--name", "churn"]


@pytest.fixture
def golden(tmp_path):
    """A private copy of the golden results file (tests may write beside it)."""
    path = tmp_path / "golden-tiny.json"
    shutil.copy(GOLDEN, path)
    return str(path)


@pytest.fixture
def golden_doc():
    with open(GOLDEN) as f:
        return json.load(f)


def write_doc(tmp_path, name, doc, change=None):
    """Writes the results document `doc` as tmp_path/name, after `change(doc)` edits it in place
    (when given); returns the path."""
    if change:
        change(doc)
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return str(path)


def write_variant(tmp_path, name, change):
    """A constructed variant of the golden file: `change(doc)` edits it in place (test input only)."""
    with open(GOLDEN) as f:
        return write_doc(tmp_path, name, json.load(f), change)


def spy_on_figure(monkeypatch, module, function: str) -> list:
    """Replaces module.function, a figure function taking (chosen, title, stem), by one that
    records each `chosen` in the returned list and draws as before."""
    drawn = []
    plot = getattr(module, function)
    monkeypatch.setattr(module, function, lambda chosen, title, stem: drawn.append(chosen) or plot(chosen, title, stem))
    return drawn


def iteration_entries(doc):
    return [e for e in doc["benchmarks"] if e["run_type"] == "iteration"]


@pytest.fixture
def output_dir():
    """Where tests keep artefacts worth looking at afterwards (screenshots): TEST_OUTPUT_DIR or a tmp dir."""
    path = os.environ.get("TEST_OUTPUT_DIR") or os.path.join("/tmp", "allocstress-python-tests")
    os.makedirs(path, exist_ok=True)
    return path


@pytest.fixture(scope="session")
def bench_files(tmp_path_factory):
    """Two results files (A, B) of `allocstress bench BENCH_ARGS -- BENCH_PROGRAM`: the program
    workload "churn" under system and jemalloc, 2 repetitions each, with its definition's metric
    "score" (lower is better).  Measured once per session (about 5 s each); tests must not change them."""
    if not ALLOCSTRESS:
        pytest.skip("ALLOCSTRESS (the built CLI) not given")
    folder = tmp_path_factory.mktemp("bench")
    paths = []
    for name in ("churn-a", "churn-b"):
        path = str(folder / f"{name}.json")
        done = subprocess.run([ALLOCSTRESS, "bench", *BENCH_ARGS, "-o", path, "--", *BENCH_PROGRAM],
                              capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, f"bench: exit {done.returncode}: {done.stderr[-3000:]}"
        paths.append(path)
    return paths


def pytest_runtest_logreport(report):
    """Every skipped test is recorded for the skip check of scripts/run-tests.sh (tests/skip_policy.py):
    under CI=true a skip not listed in tests/skips.allowed fails the run, naming the test."""
    if not report.skipped or getattr(report, "wasxfail", None) is not None:
        return
    reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
    skip_policy.record("python:" + report.nodeid.split("/")[-1], reason.removeprefix("Skipped: "))
