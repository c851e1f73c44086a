"""Memory over time (memory_timelines.py): RSS and hugepage coverage per allocator as small
multiples, drawn from the median-peak-RSS undisturbed repetition of each cell; cells without
readings left out with their reason; one line instead of a figure when nothing has readings."""

import json
import os
import shutil

from allocstress.reporting import memory_timelines as mt
from allocstress.results.loading import load_runs
from allocstress.reporting.report import write_report

from conftest import iteration_entries, spy_on_figure, write_variant

MIB = 1024 * 1024
UNAVAILABLE = "n/a(cannot open /proc/self/smaps_rollup: Permission denied)"


def record(allocator, rep, peak_mib, *, readings=3, disturbed=False, mode="timing", thp_mode="madvise",
           unavailable=None, huge_mib=0, threads=1, status="ok"):
    """One iteration record with `readings` hugepage readings rising to peak_mib (test input only)."""
    t = [0.05 * i for i in range(readings)]
    rss = [int((peak_mib / 2 + (peak_mib / 2) * i / max(readings - 1, 1)) * MIB) for i in range(readings)]
    anon = [int(r * 0.8) for r in rss]
    huge = [min(int(huge_mib * MIB), a) for a in anon]
    return {"run_type": "iteration", "workload": "alloc-test", "allocator": allocator, "threads": threads,
            "repetition_index": rep, "status": status, "mode": mode, "thp_mode": thp_mode,
            "peak_rss_bytes": int(peak_mib * MIB), "interference": {"disturbed": disturbed},
            "hugepages": {"readings": readings, "unavailable": unavailable,
                          "samples": {"t_s": t, "rss_bytes": rss, "anon_bytes": anon, "anon_huge_bytes": huge}}}


def write_results(tmp_path, golden_doc, records, name="synthetic.json"):
    """A results file of `records` with the golden file's schema name and version."""
    doc = {"schema": golden_doc["schema"], "schema_version": golden_doc["schema_version"], "context": {},
           "benchmarks": records}
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return str(path)


def test_representative_is_the_undisturbed_repetition_of_median_peak_rss():
    # Undisturbed with readings: peaks 10..50, median 30 (rep 0).  With the disturbed 25 or the
    # reading-less 5 counted, the (lower) median would be 25 or 20.
    records = [record("system", 0, 30), record("system", 1, 10), record("system", 2, 20), record("system", 3, 50),
               record("system", 4, 40), record("system", 5, 25, disturbed=True),
               record("system", 6, 5, readings=0, unavailable=UNAVAILABLE)]
    assert mt.representative(records)["repetition_index"] == 0
    # an even count: the lower of the two middle ones (20 of 10, 20, 30, 40), whatever the order given
    even = [r for r in records if r["repetition_index"] in (4, 0, 2, 1)]
    assert mt.representative(even)["repetition_index"] == 2
    assert mt.representative(list(reversed(even)))["repetition_index"] == 2
    # equal peaks: the lower repetition index
    assert mt.representative([record("system", 7, 30), record("system", 3, 30)])["repetition_index"] == 3
    # none usable: every one disturbed, or with fewer than 2 readings
    assert mt.representative([record("system", 0, 30, disturbed=True), record("system", 1, 30, readings=1)]) is None


def test_peak_rss_falls_back_to_the_largest_reading():
    r = record("system", 0, 40)
    del r["peak_rss_bytes"]
    assert mt.peak_rss(r) == 40 * MIB


def test_coverage_is_huge_over_anonymous_and_na_where_anonymous_is_zero():
    r = record("system", 0, 40, readings=3)
    r["hugepages"]["samples"].update(anon_bytes=[0, 4 * MIB, 8 * MIB], anon_huge_bytes=[0, 2 * MIB, 8 * MIB])
    s = mt.samples_frame(r)
    assert s["coverage"].isna().tolist() == [True, False, False]
    assert s["coverage"].tolist()[1:] == [0.5, 1.0]
    # malformed samples (lists of different lengths) count as no readings, never an exception
    r["hugepages"]["samples"]["t_s"] = [0.0]
    assert mt.samples_frame(r).empty


def test_figure_per_workload_and_threads_with_cells_without_readings_left_out(tmp_path, golden_doc, output_dir,
                                                                             monkeypatch):
    records = [record("void", 0, 20),  # the baseline: never drawn
               record("system", 0, 30), record("system", 1, 34), record("system", 2, 32),
               record("system", 3, 33, disturbed=True),
               record("jemalloc", 0, 40), record("jemalloc", 1, 42),
               record("jemalloc", 0, 46, mode="thp", thp_mode="always", huge_mib=30),
               record("jemalloc", 1, 48, mode="thp", thp_mode="always", huge_mib=30),
               record("mimalloc", 0, 30, readings=0, unavailable=UNAVAILABLE),
               record("tcmalloc", 0, 30, readings=1),
               record("tbbmalloc", 0, 30, status="failed"),  # not ok: not a cell of the figure at all
               record("mimalloc", 0, 30, mode="aged"),       # another mode: not drawn here
               record("system", 0, 30, threads=2, readings=0, unavailable=UNAVAILABLE),  # 2 threads: nothing to draw
               record("jemalloc", 0, 30, threads=2, readings=0, unavailable=UNAVAILABLE)]
    runs = load_runs([write_results(tmp_path, golden_doc, records)])
    drawn = spy_on_figure(monkeypatch, mt, "plot_timelines")
    out = tmp_path / "out"
    out.mkdir()
    parts = mt.timelines_section(runs, str(out))

    assert parts[0] == mt.HEADING
    assert len(drawn) == 1
    chosen = drawn[0]
    assert list(chosen) == ["jemalloc", "system"]
    assert {m: r["repetition_index"] for m, r in chosen["system"].items()} == {(0, "madvise"): 2}  # median 32 of 30, 32, 34
    assert {m: (r["mode"], r["repetition_index"]) for m, r in chosen["jemalloc"].items()} == {
        (0, "madvise"): ("timing", 0), (1, "always"): ("thp", 0)}
    png = out / "synthetic-alloc-test-1t-memory-timelines.png"
    assert png.stat().st_size > 10_000 and (out / "synthetic-alloc-test-1t-memory-timelines.svg").exists()
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    shutil.copy(png, os.path.join(output_dir, "memory-timelines-two-modes.png"))  # to look at
    html = "\n".join(parts)
    assert html.count("<figure>") == 1 and "median" in html and "THP modes" not in html
    assert "One line style per THP mode: solid madvise (timing cells), dashed always (thp cells)." in html
    assert ("Not drawn: mimalloc (THP madvise): no hugepage readings: cannot open /proc/self/smaps_rollup: Permission "
            "denied; tcmalloc (THP madvise): fewer than 2 hugepage readings in every undisturbed repetition.") in html
    assert ('<p class="legend">alloc-test, 2 thread(s): not drawn: no hugepage readings: cannot open '
            '/proc/self/smaps_rollup: Permission denied.</p>') in html
    assert not (out / "synthetic-alloc-test-2t-memory-timelines.png").exists()
    assert "tbbmalloc" not in html and "void" not in html.replace("void baseline left out", "")


def test_one_line_instead_of_a_figure_when_nothing_has_readings(tmp_path, golden_doc):
    records = [record("system", 0, 30, readings=0, unavailable=UNAVAILABLE),
               record("jemalloc", 0, 30, readings=0, unavailable=UNAVAILABLE)]
    runs = load_runs([write_results(tmp_path, golden_doc, records)])
    parts = mt.timelines_section(runs, str(tmp_path))
    assert parts == [mt.HEADING, "<p>Memory over time n/a: no hugepage readings: cannot open /proc/self/smaps_rollup: "
                                 "Permission denied.</p>"]
    assert not [f for f in os.listdir(tmp_path) if f.endswith((".png", ".svg"))]


def test_no_section_without_timing_or_thp_records(tmp_path, golden_doc):
    records = [record("void", 0, 20), record("system", 0, 30, mode="aged"), record("jemalloc", 0, 30, status="failed")]
    runs = load_runs([write_results(tmp_path, golden_doc, records)])
    assert mt.timelines_section(runs, str(tmp_path)) == []


def test_report_draws_the_timelines_of_a_results_file(tmp_path, golden):
    # The golden file predates the sampler: the section says so in one line.
    page = open(write_report([golden], str(tmp_path / "plain"), "test")).read()
    assert mt.HEADING in page
    assert ("Memory over time n/a: no hugepage readings: the records have no hugepages block (written before the "
            "sampler existed).") in page

    def add_readings(doc):  # each repetition's readings rise to its own peak RSS
        for e in iteration_entries(doc):
            r = record(e["allocator"], e["repetition_index"], e["peak_rss_bytes"] / MIB, huge_mib=2)
            e["hugepages"] = r["hugepages"]
    path = write_variant(tmp_path, "sampled.json", add_readings)
    out = tmp_path / "sampled"
    page = open(write_report([path], str(out), "test")).read()
    section = page[page.index(mt.HEADING):]
    section = section[:section.index("<h2", 1)]
    assert section.count("<figure>") == 2  # one per thread count (1 and 2) of alloc-test
    assert 'src="data:image/png;base64,' in section
    for threads in (1, 2):
        assert (out / f"sampled-alloc-test-{threads}t-memory-timelines.png").stat().st_size > 10_000
        assert f"alloc-test, {threads} thread(s): RSS (MiB" in section
    assert page.index("Memory over time") > page.index("<h2 id=\"figures\">")
