"""Memory over a soak (soak_timelines.py): per (run, workload, threads) one figure of per-bin RSS
growth and hugepage coverage, a panel per allocator (void left out), under the "Memory over time"
heading; records without bins named with why; soak records never drawn as timing timelines; the
report shows the figure, and the soak table and verdict line the C++ renders."""

import json
import os
import shutil

from allocstress.reporting import memory_timelines as mt
from allocstress.reporting import soak_timelines as st
from allocstress.results.loading import load_runs
from allocstress.reporting.report import write_report

from conftest import spy_on_figure, write_variant

MIB = 1024 * 1024


def soak_record(allocator, slope_mib=1.0, bins=11, threads=1, unavailable=None, status="ok"):
    """A soak record of a 10-minute soak in 1-minute bins, RSS growth 10 MiB + slope_mib per bin (test input only)."""
    drift = None if unavailable else {
        "first_bin": 1, "fitted_bins": bins - 1,
        "rss_growth_bytes": {"per_hour": 60 * slope_mib * MIB, "low": (60 * slope_mib - 5) * MIB,
                             "high": (60 * slope_mib + 5) * MIB, "level": 0.978},
        "rss_growth_share": None, "coverage": {"per_hour": 0.0, "low": -0.1, "high": 0.1, "level": 0.978}, "means": "..."}
    block = {"spec": "10m", "duration_s": 600, "bin_s": 60, "rounds": 100, "unavailable": unavailable, "drift": drift,
             "bins": [] if unavailable else [{"start_s": 60.0 * b, "samples": 30, "rss_growth_bytes": (10 + slope_mib * b) * MIB,
                                              "coverage": None if b == 2 else 0.4} for b in range(bins)]}
    return {"name": f"alloc-test/{allocator}/threads:{threads}/soak", "run_name": f"alloc-test/{allocator}/threads:{threads}/soak",
            "cell_key": f"alloc-test/{allocator}/threads:{threads}/soak", "run_type": "iteration", "workload": "alloc-test",
            "allocator": allocator, "threads": threads, "repetition_index": 0, "repetitions": 1, "status": status, "mode": "soak",
            "reason": None if status == "ok" else "the cell timed out", "warnings": [], "wall_time_ns": 600_500_000_000,
            "peak_rss_bytes": 40 * MIB, "rss_before_bytes": 5 * MIB, "soak": block}


def write_results(tmp_path, golden_doc, records, name="soaked.json"):
    doc = {"schema": golden_doc["schema"], "schema_version": golden_doc["schema_version"], "context": {}, "benchmarks": records}
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return str(path)


def test_bins_and_drift_of_a_record():
    r = soak_record("jemalloc", bins=4)
    bins = st.soak_bins(r)
    assert bins["mid_s"].tolist() == [30.0, 90.0, 150.0, 210.0]
    assert (bins["rss_growth_bytes"] / MIB).tolist() == [10.0, 11.0, 12.0, 13.0]
    assert bins["coverage"].isna().tolist() == [False, False, True, False]
    assert st.drift_text(r) == "+60.0 [55.0, 65.0] MiB/h"
    r["soak"]["drift"]["rss_growth_bytes"].update(low=None, high=None)
    assert st.drift_text(r) == "drift n/a (3 bins fitted)"
    # malformed blocks count as no bins, never an exception
    assert st.soak_bins({"soak": {"bins": "no", "bin_s": 60}}).empty and st.soak_bins({}).empty
    assert st.drift_text({"soak": {"drift": None}}) == "drift n/a"


def test_one_figure_per_workload_and_threads_one_panel_per_allocator(tmp_path, golden_doc, output_dir, monkeypatch):
    records = [soak_record("void"),  # the baseline: never drawn
               soak_record("system", slope_mib=0.0), soak_record("jemalloc"), soak_record("mimalloc", slope_mib=-0.5),
               soak_record("tcmalloc", unavailable="cannot open /proc/self/smaps_rollup: Permission denied"),
               soak_record("tbbmalloc", status="failed"),  # not ok: not a cell of the figure at all
               soak_record("system", threads=2, unavailable="no memory timeline was sampled in this cell")]
    runs = load_runs([write_results(tmp_path, golden_doc, records)])
    drawn = spy_on_figure(monkeypatch, st, "plot_soak")
    out = tmp_path / "out"
    out.mkdir()
    parts = st.soak_parts(runs, str(out))

    assert len(drawn) == 1 and list(drawn[0]) == ["jemalloc", "mimalloc", "system"]  # one panel each, by name
    png, svg = out / "soaked-alloc-test-1t-soak.png", out / "soaked-alloc-test-1t-soak.svg"
    assert png.stat().st_size > 10_000 and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    text = svg.read_text()
    for allocator, drift in (("jemalloc", "+60.0 [55.0, 65.0] MiB/h"), ("mimalloc", "-30.0 [-35.0, -25.0] MiB/h"),
                             ("system", "+0.0 [-5.0, 5.0] MiB/h")):
        assert allocator in text and drift in text  # the panel's title
    assert "void" not in text and "tcmalloc" not in text
    shutil.copy(png, os.path.join(output_dir, "soak-timelines.png"))  # to look at
    html = "\n".join(parts)
    assert html.count("<figure>") == 1 and "a soak of 10 minutes (--soak 10m)" in html and "optimistic" in html
    assert ('alloc-test, 1 thread(s), soak: not drawn: tcmalloc: no timeline: cannot open /proc/self/smaps_rollup: '
            'Permission denied.') in html
    assert "alloc-test, 2 thread(s), soak: not drawn: system: no timeline: no memory timeline was sampled in this cell." in html
    assert not (out / "soaked-alloc-test-2t-soak.png").exists() and "tbbmalloc" not in html
    # soak records are no timing timelines: only the soak parts make the section
    assert mt.cell_records(runs) == {}
    assert mt.timelines_section(runs, str(out), parts) == [mt.HEADING, *parts]
    assert mt.timelines_section(runs, str(out)) == []


def test_report_shows_the_soak_figure_table_and_verdict(tmp_path):
    def add_soaks(doc):
        doc["benchmarks"] += [soak_record("system", slope_mib=0.0), soak_record("jemalloc")]
    path = write_variant(tmp_path, "soaked.json", add_soaks)
    out = tmp_path / "report"
    page = open(write_report([path], str(out), "test")).read()
    section = page[page.index(mt.HEADING):]
    section = section[:section.index("<h2", 1)]
    assert "alloc-test, 1 thread(s), soak: a soak of 10 minutes" in section
    assert (out / "soaked-alloc-test-1t-soak.png").exists()
    assert "Soak (--soak 10m; mode soak" in page  # the C++ soak table (memory_markdown)
    assert "growing: jemalloc 60.00 [55.00, 65.00] MiB/hour; none shown for 1 other(s)" in page  # the verdict line
