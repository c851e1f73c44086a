"""Profile-run tables (tests/data/profile-tiny.json: a real `matrix --profile` run) checked against
the records, and kept apart from the timing summary."""

import json
import os

from allocstress import summary_table
from allocstress.reporting import report
from allocstress.results import profiles
from allocstress.results.loading import load_runs

PROFILE = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "data", "profile-tiny.json"))


def test_profile_tables_are_the_records():
    runs = load_runs([PROFILE])
    records = profiles.profile_records(runs)
    assert sorted((r["allocator"], r["threads"]) for _, r in records) == [("jemalloc", 1), ("jemalloc", 2), ("system", 1), ("system", 2)]
    headers, rows = profiles.syscall_rows(records)
    for (_, r), row in zip(records, rows):
        assert row[3:] == [str(r["profile"]["syscalls"]["counts"][s]) for s in profiles.SYSCALLS]
    lat = profiles.latency_rows(records)
    assert len(lat) == sum(len(r["profile"]["latency"]) for _, r in records)
    assert all(row[6] == ("serial" if row[2] == "1" else "parallel") for row in lat)
    mh, mr = profiles.memory_rows(records)
    jemalloc = [row for row in mr if row[1] == "jemalloc"]
    assert all(row[mh.index("allocated")] != "n/a" for row in jemalloc)  # mallctl reports it
    assert all(row[mh.index("blowup")] != "n/a" for row in mr)           # both thread counts are there


def test_profile_cells_stay_out_of_the_timing_summary():
    table = summary_table(load_runs([PROFILE]))
    assert (table["reps_ok"] == 2).all()  # 2 timing repetitions; the profile cell is not one


def test_report_has_the_profile_sections(tmp_path):
    page = open(report.write_report([PROFILE], str(tmp_path / "rep"), "x")).read()
    for heading in ("Profile runs (separate from the timing runs)", "Latency by class", "Memory system calls",
                    "Memory breakdown at the end of the loop"):
        assert heading in page


def test_every_profile_figure_has_a_provenance():
    doc = json.load(open(PROFILE))
    for e in doc["benchmarks"]:
        if e.get("mode") != "profile":
            continue
        p = e["profile"]
        figures = list(p["counters"].values()) + [p["blowup"]]
        for snap in p["memory"].values():
            if isinstance(snap, dict):
                figures += [v for k, v in snap.items() if k != "allocator"]
                figures += [v for k, v in snap["allocator"].items() if k != "api"]
        for f in figures:
            assert f["provenance"] == "exact" or f["provenance"].startswith(("allocator-reported (", "n/a(", "exact (", "derived: "))
            assert (f["value"] is None) == f["provenance"].startswith("n/a(")
        assert p["latency_provenance"] == f"sampled(1/{p['sample_every']})"


def test_figures_below_the_counter_resolution_print_as_such():
    row = {"op": "malloc", "size_class": "small", "address": "reused", "phase": "serial", "sampled": 3000,
           "p50_ns": 6.9, "p90_ns": 7.7, "p99_ns": 13.9, "p999_ns": 55.4, "max_ns": 197.0,
           "resolution_ns": 13.85, "below_resolution": ["p50_ns", "p90_ns"]}
    [printed] = profiles.latency_rows([("run", {"allocator": "jemalloc", "threads": 1, "profile": {"latency": [row]}})])
    assert printed[8:] == ["< 14", "< 14", "14", "55", "197"]
