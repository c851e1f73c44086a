"""Figures and the HTML report: files produced, self-contained, and rendered in headless Chromium
with every image loaded and no console error."""

import os
import re
import shutil
import xml.etree.ElementTree as ET

import allocstress
from allocstress.figures import figure_data, figure_overhead, figure_relative_cost, figure_repetitions
from allocstress.reporting.report import write_report

import browser
from conftest import iteration_entries, write_variant


def test_report_lists_failed_and_skipped_cells(tmp_path):
    def break_cells(doc):
        for e in iteration_entries(doc):
            if e["allocator"] == "tbbmalloc" and e["threads"] == 2:
                for k in ("cycles_per_pair", "net_cycles_per_pair", "overhead_ratio"):
                    e.pop(k, None)
                e.update(status="failed", reason="killed by signal 11 (SIGSEGV)")
            if e["allocator"] == "mimalloc":
                e.update(status="skipped")
                e.pop("reason", None)  # a damaged entry without its reason must not break the report
    path = write_variant(tmp_path, "broken.json", break_cells)
    page = open(write_report([path], str(tmp_path / "r"), "test")).read()
    assert "tbbmalloc at 2 threads: 5 cell(s) failed: killed by signal 11 (SIGSEGV)" in page
    assert "mimalloc at 1 threads: 5 cell(s) skipped: (no reason recorded)" in page


def test_report_opens_with_the_verdict_of_the_md_table(tmp_path):
    # Constructed intervals on the golden file's 1-thread medians: system's is apart from the
    # others, jemalloc's and mimalloc's overlap (one tied group).
    spans = {"jemalloc": (40, 50), "mimalloc": (45, 55), "system": (90, 110)}

    def add_intervals(doc):
        for e in doc["benchmarks"]:
            if e["run_type"] == "aggregate" and e["aggregate_name"] == "median" and e["threads"] == 1:
                low, high = spans.get(e["allocator"], (None, None))
                if low is not None:
                    e["net_cycles_per_pair"] = (low + high) / 2
                    e["intervals"] = {"net_cycles_per_pair": {"low": low, "high": high, "level": 0.9375, "n": 5,
                                                              "relative_half_width": (high - low) / (high + low)}}
    path = write_variant(tmp_path, "verdict.json", add_intervals)
    page = open(write_report([path], str(tmp_path / "r"), "test")).read()
    assert page.index("<h2>Verdict</h2>") < page.index("<h2>", page.index("<h2>Verdict</h2>") + 1)  # the first section
    # tied group 1 (jemalloc's interval is wider than ±10% of its median: unstable, †), system apart
    assert ("<li>1: <b>jemalloc</b> 45.0† [40.0, 50.0] and <b>mimalloc</b> 50.0 [45.0, 55.0]: indistinguishable from each "
            "other") in page
    assert "<li>2: <b>system</b> 100.0 [90.0, 110.0] (reference)</li>" in page
    assert "level 93.8% or more" in page


def test_report_shows_the_reproduction_intervals_under_the_verdict(tmp_path):
    # A run with a calibration: the C++ reproduction section (heading, paragraph, table) renders
    # as HTML under the verdict, not as Markdown text.
    def add_reproduction(doc):
        doc["context"]["reproduction_calibration"] = {"file": "/c.json", "created": "2026-11-23T00:00:00Z", "level": 0.95,
                                                      "factor": 1.5, "runs": 6, "pairs": 540}
        for e in doc["benchmarks"]:
            if e["run_type"] == "aggregate" and e["aggregate_name"] == "median" and e["allocator"] == "jemalloc" and e["threads"] == 1:
                e["reproduction"] = {"metric": "net_ns_per_pair", "low": 11.0, "high": 19.5, "level": 0.95, "n": 20,
                                     "method": "m", "calibration": {"file": "/c.json", "factor": 1.5}}
    path = write_variant(tmp_path, "reproduction.json", add_reproduction)
    page = open(write_report([path], str(tmp_path / "r"), "test")).read()
    assert "<h3>Reproduction</h3>" in page
    assert "<th>another run&#x27;s median, net ns/pair</th>" in page
    assert "<td>jemalloc</td>" in page and "<td>[11.0, 19.5]</td>" in page
    assert "| alloc-test |" not in page  # no Markdown table text left


def test_figures_are_written_as_png_and_svg(golden, tmp_path):
    runs = allocstress.load_runs([golden])
    panels = figure_data.panels(runs, "golden-tiny", "alloc-test")
    assert [p.threads for p in panels] == [1, 2]
    for plot in (figure_relative_cost.plot_relative_cost, figure_repetitions.plot_repetitions, figure_overhead.plot_overhead):
        png = plot(panels, str(tmp_path / plot.__name__))
        with open(png, "rb") as f:
            assert f.read(8) == b"\x89PNG\r\n\x1a\n"
        assert os.path.getsize(png) > 10_000
        ET.parse(png[:-4] + ".svg")  # well-formed SVG


FIGURE_KINDS = ("Cost relative to the reference allocator", "Every ok, undisturbed repetition", "Memory overhead, median")


def test_report_is_self_contained_and_renders(golden, tmp_path, output_dir):
    second = str(tmp_path / "golden-copy.json")
    shutil.copy(golden, second)
    index = write_report([golden, second], str(tmp_path / "report"), "allocstress report test")
    page = open(index).read()
    assert not re.search(r'(src|href)="(https?:)?//', page), "the report must open offline"
    assert page.count("<img ") == 6  # per run: relative cost, repetitions, overhead (2 thread counts: no sweep)
    figures = page[page.index('<h2 id="figures">'):]
    text = re.sub(r'data:image/png;base64,[^"]*', "", figures[:figures.index("<h2>", 10)])
    assert "CI" not in text  # every interval named with its level and method
    for text in ("allocstress report test", "Warnings", "Commands", " run --allocator system --workload alloc-test", "Columns",
                 "hardware counters"):
        assert text in page
    for name in ("summary.md", "summary.tex", "summary.csv"):
        assert os.path.getsize(os.path.join(tmp_path, "report", name)) > 0

    shot = os.path.join(output_dir, "report-screenshot.png")
    seen = browser.render("file://" + index, shot)
    assert seen["title"] == "allocstress report"
    assert len(seen["images"]) == 6
    for src, complete, width, alt in seen["images"]:
        assert complete and width > 0, alt
    for kind in FIGURE_KINDS:  # each figure loaded, in each run
        assert sum(alt.startswith("alloc-test: " + kind) for _, _, _, alt in seen["images"]) == 2, kind
    errors = [m for level, m in seen["console"] if level in ("SEVERE", "ERROR")]
    assert errors == []
    assert os.path.getsize(shot) > 20_000


def test_a_report_that_fails_half_way_leaves_no_folder_and_keeps_the_earlier_one(golden, tmp_path, monkeypatch):
    # A full disk while the report is written (issue 29): the files go to a temporary folder
    # beside the report's, which is removed on failure; an earlier report stays as it was.
    import builtins
    import errno
    real_open = builtins.open

    def contents(folder):
        return {name: real_open(os.path.join(folder, name), "rb").read() for name in sorted(os.listdir(folder))}

    def fail_after(n):
        written = []

        def full_disk_open(file, mode="r", *args, **kwargs):
            if any(c in mode for c in "wax") and str(file).startswith(str(tmp_path)):
                written.append(file)
                if len(written) > n:
                    raise OSError(errno.ENOSPC, "No space left on device", str(file))
            return real_open(file, mode, *args, **kwargs)
        monkeypatch.setattr(builtins, "open", full_disk_open)

    def failing_report(out, command):
        try:
            write_report([golden], str(out), command)
        except OSError as e:
            assert e.errno == errno.ENOSPC and e.filename == str(out), (e.errno, e.filename)
        else:
            raise AssertionError("the report did not fail")
        finally:
            monkeypatch.undo()

    fail_after(2)
    failing_report(tmp_path / "fresh", "fresh")
    assert sorted(os.listdir(tmp_path)) == ["golden-tiny.json"], os.listdir(tmp_path)  # nothing half-written
    out = tmp_path / "r"
    write_report([golden], str(out), "first")
    before = contents(out)
    fail_after(len(before) - 1)  # every file written again but the last
    failing_report(out, "second")
    assert sorted(os.listdir(tmp_path)) == ["golden-tiny.json", "r"], os.listdir(tmp_path)
    assert contents(out) == before
    # Written again: the new report replaces the old one whole.
    assert "second" in open(write_report([golden], str(out), "second")).read()
    assert sorted(os.listdir(tmp_path)) == ["golden-tiny.json", "r"]
