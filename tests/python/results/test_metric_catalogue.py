"""The metric catalogue against real records, both ways: a tiny matrix of every registered
workload (one cell each, on glibc, assembled into a results file as users get it), then

- every figure a record's `workload_metrics` carries is defined in the catalogue for its workload;
- every figure the catalogue gives a workload is in that workload's records (at the top level,
  in `workload_metrics` or in `placement_metrics`, as the catalogue says).

Options are shrunk generically (any workload taking --iterations runs 200k, ...), so a workload
added to the registry is covered without touching this file.  The `program` entry is reached by a
program's name: a one-program programs file (PROGRAMS_FILE, /usr/bin/python3 with a metric of
its own) stands for it; its definition's own metric is data, not the catalogue's, and is left out."""

import json
import os
import subprocess

import pytest

from allocstress import _core

EXE = os.environ.get("ALLOCSTRESS")
DATA = os.path.join(os.path.dirname(__file__), "..", "..", "data")
# Small values for the options of the shipped workloads: each cell well under a second.
SMALL = {"--slots": "65536", "--iterations": "200000", "--max-size-exp": "10", "--nodes": "2000", "--searches": "2000",
         "--live-bytes": "200000", "--drop-pause-ms": "0", "--objects": "4", "--writes": "50", "--fs-rounds": "50",
         "--larson-rounds": "4", "--prog-work": "20"}

pytestmark = pytest.mark.skipif(not EXE, reason="ALLOCSTRESS (the CLI) is set by CTest")

PROGRAM = "catalogue-probe"  # the program standing for the registry's `program` entry
PROGRAMS_FILE = f"""
[[program]]
name = "{PROGRAM}"
command = ["/usr/bin/python3", "-c", "x = [str(i) * 3 for i in range(20000)]; print('score: 7')"]
[[program.metric]]
name = "score"
regex = 'score: ([0-9.]+)'
"""


def run(*args):
    done = subprocess.run([EXE, *args], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"{args}: exit {done.returncode}: {done.stderr[-2000:]}"
    return done


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    """workload -> the ok timing records of a one-cell-per-allocator matrix of it."""
    tmp = tmp_path_factory.mktemp("catalogue")
    trace = str(tmp / "small.ast")
    run("import", "--format", "steve", os.path.join(DATA, "traces", "steve-small.ops"), "-o", trace)
    fit = str(tmp / "small.fit.json")
    run("fit", trace, "-o", fit)
    files = {"--trace": trace, "--fit": fit}
    programs = tmp / "programs.toml"
    programs.write_text(PROGRAMS_FILE)
    workloads = _core.workloads()
    instance = {"program": PROGRAM}  # registry entries reached by another name
    alone = [instance.get(w["name"], w["name"]) for w in workloads if w["runs_alone"]]
    groups = [[instance.get(w["name"], w["name"]) for w in workloads if not w["runs_alone"]]] + [[w] for w in alone]
    out = {}
    for i, group in enumerate(groups):
        options = {}
        for w in workloads:
            if instance.get(w["name"], w["name"]) in group:
                for flag in w["options"]:
                    if flag in SMALL:
                        options[flag] = SMALL[flag]
                    elif flag in files:
                        options[flag] = files[flag]
        # --no-counts: only the timing records are read here; the counts tier's callgrind cells (and the
        # structures' cache-sim cells that come with it) took 35 of the fixture's 50 s and are left out of
        # `records` anyway, and the timing records carry the same fields with or without them.
        args = ["matrix", "--workload", ",".join(group), "--allocators", "system", "--threads", "1", "--reps", "1",
                "--oversubscribe", "--no-counts", "--out", str(tmp / f"m{i}.json")]
        if PROGRAM in group:
            args += ["--programs-file", str(programs)]
        for flag, value in options.items():
            args += [flag, value]
        run(*args)
        doc = _core.read_results(str(tmp / f"m{i}.json"))  # declares the program, so that its name resolves
        for e in doc["benchmarks"]:
            if e["run_type"] == "iteration" and e["status"] == "ok" and e.get("mode", "timing") == "timing" and e["allocator"] != "void":
                out.setdefault(_core.resolve_workload(e["workload"]), []).append(e)
    return out


def definition_metrics(record):
    """The names of the figures a program's definition reads from its output (none for other workloads)."""
    return {m["name"] for m in ((record.get("params") or {}).get("program") or {}).get("metrics", [])}


def catalogue_of(workload):
    return [m for m in _core.metric_catalogue() if workload in m["workloads"]]


def test_every_workload_was_measured(records):
    assert sorted(records) == sorted(w["name"] for w in _core.workloads())


@pytest.mark.parametrize("workload", [w["name"] for w in _core.workloads()])
def test_records_carry_only_catalogued_workload_metrics(records, workload):
    defined = {m["name"] for m in catalogue_of(workload) if m["place"] == "workload_metrics"}
    for r in records[workload]:
        carried = set(r.get("workload_metrics", {})) - definition_metrics(r)
        assert carried <= defined, f"{workload} records carry metrics the catalogue does not define: {sorted(carried - defined)}"


@pytest.mark.parametrize("workload", [w["name"] for w in _core.workloads()])
def test_the_catalogue_defines_only_what_records_carry(records, workload):
    for r in records[workload]:
        for m in catalogue_of(workload):
            where = r if m["place"] == "record" else r.get(m["place"], {})
            assert m["name"] in where, f"the catalogue gives {workload} {m['place']}.{m['name']}, which its record lacks"


def test_every_workload_has_one_headline(records):
    for w in _core.workloads():
        headlines = [m["name"] for m in catalogue_of(w["name"]) if m["headline"]]
        assert len(headlines) == 1, f"{w['name']}: headline metrics {headlines}"


def test_the_catalogue_is_what_the_cli_prints():
    printed = json.loads(run("metrics", "--json").stdout)
    assert printed == _core.metric_catalogue()
