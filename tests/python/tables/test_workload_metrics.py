"""The tables and figures of the workloads beyond alloc-test (workload_metrics.py, phase_plots.py,
workload_sections.py), checked on a constructed results file whose medians are known: xthread
beside alloc-test, phase-peak with an RSS series, and a false-sharing kernel."""

import json
import os
import statistics
import xml.etree.ElementTree as ET

import pytest

import allocstress
from allocstress import _core
from allocstress.figures import phase_plots
from allocstress.tabulation import phase_series, tables
from allocstress.tabulation import workload_metrics as wm
from allocstress.results.loading import ResultsError
from allocstress.reporting.report import write_report

from conftest import GOLDEN
from constructed import constructed_results

def entries(path, workload, allocator, threads):
    with open(path) as f:
        doc = json.load(f)
    return [e for e in doc["benchmarks"] if (e["workload"], e["allocator"], e["threads"], e["status"]) ==
            (workload, allocator, threads, "ok")]


def median_of(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


@pytest.fixture
def results(tmp_path):
    return constructed_results(tmp_path)


def test_xthread_table_has_the_medians_and_the_blowup(results):
    table = wm.workload_table(allocstress.load_runs([results]), "xthread")
    frame = table.frame
    assert len(frame) == 6  # 3 allocators x 2 thread counts
    # every key the records hold, in the registry's order of xthread's metrics, unknown ones after
    assert list(table.metrics) == ["remote_free_share", "remote_frees", "local_frees", "queue_full_waits",
                                   "max_queue_backlog", "new_metric"]
    for _, r in frame.iterrows():
        mine = entries(results, "xthread", r["allocator"], r["threads"])
        assert r["reps_ok"] == len(mine) == 3
        for key in table.metrics:
            expected = median_of([e["workload_metrics"][key] for e in mine])
            assert (r[key] != r[key]) if expected is None else r[key] == pytest.approx(expected), key
        over = statistics.median(e["overhead_ratio"] for e in mine)
        assert r["overhead_ratio"] == pytest.approx(over)
        reference = entries(results, "alloc-test", r["allocator"], r["threads"])
        if r["allocator"] == "void" or not reference:
            assert r["blowup_vs_alloc_test"] != r["blowup_vs_alloc_test"]  # n/a: void's overhead is 0, or no cell
        else:
            assert r["blowup_vs_alloc_test"] == pytest.approx(over / statistics.median(e["overhead_ratio"] for e in reference))
            assert r["blowup_ci_low"] <= r["blowup_vs_alloc_test"] <= r["blowup_ci_high"]
    row = frame[(frame["allocator"] == "jemalloc") & (frame["threads"] == 2)].iloc[0]
    assert "no ok alloc-test cell" in row["notes"]
    # spelled out once: system at 1 thread, overheads 2, 3, 4 against alloc-test's 1.0, 1.1, 1.2
    row = frame[(frame["allocator"] == "system") & (frame["threads"] == 1)].iloc[0]
    assert row["blowup_vs_alloc_test"] == pytest.approx(3.0 / 1.1)
    assert row["queue_full_waits"] == pytest.approx(4.0)  # median of 0 and 8 (null left out)


def test_display_and_markdown_show_labels_and_na(results):
    table = wm.workload_table(allocstress.load_runs([results]), "xthread")
    headers, rows = wm.display_rows(table)
    assert headers[:4] == ["allocator", "threads", "reps", "overhead ratio"]
    assert "remote-free share" in headers and "new_metric" in headers and headers[-1] == "blowup vs alloc-test [quotient of the medians' intervals]"
    backlog = headers.index("max backlog")
    assert all(r[backlog] == "n/a" for r in rows)  # null in every repetition: the column stays, n/a
    assert rows[0][0] == "void (baseline)" and rows[0][-1] == "-"
    md = wm.to_markdown(table)
    assert md.startswith("### xthread\n") and "| system | 1 | 3 |" in md and "Note: no ok alloc-test cell" in md


def test_false_sharing_is_only_in_its_own_table(results):
    runs = allocstress.load_runs([results])
    summary = tables.summary_table(runs)
    assert "false-sharing-active" not in set(summary["workload"])
    assert {"alloc-test", "xthread", "phase-peak"} <= set(summary["workload"])
    fs = wm.workload_table(runs, "false-sharing-active")
    assert len(fs.frame) == 2 and fs.frame["overhead_ratio"].isna().all()
    system = fs.frame[fs.frame["allocator"] == "system"].iloc[0]
    assert system["slowdown"] == pytest.approx(3.1) and system["shared_lines_mean"] == pytest.approx(25.0)
    headers, rows = wm.display_rows(fs)
    assert "overhead ratio" not in headers and "write slowdown" in headers
    assert [t.workload for t in wm.workload_tables(runs)] == ["xthread", "phase-peak", "false-sharing-active"]


def test_column_docs_cover_every_column(results):
    tables_ = wm.workload_tables(allocstress.load_runs([results]))
    docs = {name: meaning for name, _, meaning in wm.column_docs(tables_)}
    for t in tables_:
        assert set(t.frame.columns) <= set(docs), t.workload
    assert "not described by the analysis package" in docs["new_metric"]
    catalogued = next(m for m in _core.metric_catalogue() if m["name"] == "rss_after_drop_ratio")
    assert docs["rss_after_drop_ratio"] == "phase-peak: " + catalogued["definition"]


def test_phase_groups_take_the_first_repetition_and_sum_the_threads(results):
    groups = phase_series.phase_groups(allocstress.load_runs([results]))
    assert len(groups) == 1
    g = groups[0]
    assert (g.workload, g.threads, list(g.series), g.every) == ("phase-peak", 2, ["system", "jemalloc"],
                                                                 {"system": 10, "jemalloc": 10})
    frame = g.series["jemalloc"]
    assert frame["elapsed_ms"].iloc[0] == 1.0  # repetition 0 starts at 1 ms, repetition 1 at 2 ms
    # worker rows: the sum of each thread's latest live bytes; pause rows carry the total themselves, and
    # scale the threads' latest samples (50 + 60, stale) to it (25 + 30) for the rows after the pause
    assert list(frame["total_live_bytes"] / 1024) == [100, 300, 600, 900, 550, 110, 55, 55, 55, 330, 600]
    assert frame["rss_bytes"].isna().sum() == 4  # worker 1's rows
    assert phase_plots.stage_spans(frame) == [(4.0, 6.0)]


def test_phase_figure_is_written(results, tmp_path):
    g = phase_series.phase_groups(allocstress.load_runs([results]))[0]
    png = phase_plots.plot_phase(g, "phase-peak test", str(tmp_path / "phase"))
    with open(png, "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"
    assert os.path.getsize(png) > 10_000
    ET.parse(str(tmp_path / "phase.svg"))


def test_report_has_the_workload_sections(results, tmp_path, output_dir):
    out = tmp_path / "rep"
    page = open(write_report([results], str(out), "allocstress report beyond.json")).read()
    start, end = page.index('<h2 id="workloads">Workloads beyond alloc-test</h2>'), page.index("<h2>Run ")
    section = page[start:end]
    for text in ("<h3>xthread</h3>", "<h3>phase-peak</h3>", "<h3>false-sharing-active</h3>", "blowup vs alloc-test",
                 "write slowdown", "return ms", "workloads.md"):
        assert text in section, text
    assert section.count('<img src="data:image/png;base64,') == 1  # the phase-peak figure at 2 threads
    assert "Columns of the tables of workloads beyond alloc-test" in page[page.index("<h2>Columns</h2>"):]
    assert "<td class=\"l\">false-sharing-active</td>" not in page[:start]  # not in the Summary table
    for name in ("workloads.md", "workload-xthread.csv", "workload-phase-peak.csv", "workload-false-sharing-active.csv",
                 "beyond-phase-peak-2t-memory.png", "beyond-phase-peak-2t-memory.svg"):
        assert os.path.getsize(out / name) > 0, name
    md = (out / "workloads.md").read_text()
    assert "### false-sharing-active" in md and "| `blowup_vs_alloc_test` |" in md
    with open(os.path.join(output_dir, "workloads-report.html"), "w") as f:
        f.write(page)


def test_alloc_test_files_have_no_workload_section(tmp_path):
    from allocstress.reporting import workload_sections
    runs = allocstress.load_runs([GOLDEN])
    assert wm.workload_tables(runs) == [] and phase_series.phase_groups(runs) == []
    assert workload_sections.workload_section([], [], str(tmp_path)) == [] and not os.listdir(tmp_path)
    assert workload_sections.columns_section([]) == []


def phase_record(doc):
    return next(e for e in doc["benchmarks"] if e["workload"] == "phase-peak" and e["allocator"] == "jemalloc"
                and e["repetition_index"] == 0)


@pytest.mark.parametrize("damage, message", [
    (lambda s: s.pop("rows"), r"phase_series is not \{'columns'"),
    (lambda s: s["columns"].remove("rss_bytes"), r"phase_series lacks column\(s\) rss_bytes"),
    (lambda s: s["rows"][3].pop(), r"phase_series row 3 is not a list of 7 values"),
    (lambda s: s["rows"][2].__setitem__(2, "soon"), r"phase_series row 2 has a bad elapsed_ms"),
    (lambda s: s["rows"][4].__setitem__(5, 7), r"phase_series row 4 has a bad stage"),
])
def test_malformed_phase_series_fails_before_the_report_is_written(tmp_path, damage, message):
    path = constructed_results(tmp_path, lambda doc: damage(phase_record(doc)["phase_series"]))
    with pytest.raises(ResultsError, match=r"beyond\.json: benchmarks\[\d+\]: " + message):
        write_report([path], str(tmp_path / "r"), "test")
    assert not os.path.exists(tmp_path / "r")


def test_malformed_workload_metrics_fail_before_the_report_is_written(tmp_path):
    def damage(doc):
        next(e for e in doc["benchmarks"] if e["workload"] == "xthread")["workload_metrics"]["remote_frees"] = "many"
    path = constructed_results(tmp_path, damage)
    with pytest.raises(ResultsError, match=r"workload_metrics is not \{name: number or null\}"):
        write_report([path], str(tmp_path / "r"), "test")
    assert not os.path.exists(tmp_path / "r")
