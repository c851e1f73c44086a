"""Shared fixtures: the golden results file and a scratch folder per test."""

import json
import os
import shutil

import pytest

DATA = os.path.join(os.path.dirname(__file__), "..", "data")
GOLDEN = os.path.abspath(os.path.join(DATA, "golden-tiny.json"))


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


def write_variant(tmp_path, name, change):
    """A constructed variant of the golden file: `change(doc)` edits it in place (test input only)."""
    with open(GOLDEN) as f:
        doc = json.load(f)
    change(doc)
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return str(path)


def iteration_entries(doc):
    return [e for e in doc["benchmarks"] if e["run_type"] == "iteration"]


@pytest.fixture
def output_dir():
    """Where tests keep artefacts worth looking at afterwards (screenshots): TEST_OUTPUT_DIR or a tmp dir."""
    path = os.environ.get("TEST_OUTPUT_DIR") or os.path.join("/tmp", "allocstress-python-tests")
    os.makedirs(path, exist_ok=True)
    return path
