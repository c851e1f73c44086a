"""The misuse battery's `safety` section (issue 28) in the analysis package: loading a file of the
battery alone, allocstress.safety(), the report's Safety section, the non-conforming marks, and
`compare`'s lost and gained detections.  The results files are built here by hand, in the shape
run/misuse_battery.cpp writes (results/schema.json), around the golden file's machine context."""

import json
import os
import re
from html.parser import HTMLParser

import pytest

import allocstress
from allocstress.comparison import compare_result
from allocstress.results import safety
from allocstress.tabulation import tables
from allocstress.__main__ import main
from allocstress.figures.figure_data import panels
from allocstress.reporting.report import write_report

from conftest import GOLDEN, write_doc

CLASSES = [("detected", "✓"), ("error returned", "E"), ("silent", "·"), ("corrupted", "✗"), ("crashed elsewhere", "C"),
           ("hang", "H")]
CASES = [("double-free", "double free", True), ("free-of-interior", "invalid free", True),
         ("malloc-huge", "size overflow", True), ("realloc-zero", "edge", False)]
SCRIPT = "<script>alert('x')</script>"


def outcome(case, name, detail="", message=""):
    return {"case": case, "outcome": name, "detail": detail or f"{name} in step misuse", "message": message}


def battery(**overrides):
    """A safety section: system catches 2 of 3 scored cases (its double-free message holds
    SCRIPT), jemalloc 1 of 3 and is non-conforming, hoard was not run.  caught/scored are the
    file's figures, set apart from a recount on purpose (system's caught is 2, a recount too; jemalloc's
    file figure 1 is what must show)."""
    system = {"allocator": "system", "conforming": True, "caught": 2, "scored": 3,
              "outcomes": [outcome("double-free", "detected", "stopped by SIGABRT in step misuse", "free(): double free " + SCRIPT),
                           outcome("free-of-interior", "silent"), outcome("malloc-huge", "error returned"),
                           outcome("realloc-zero", "silent")],
              "properties": {"processes": 30, "address_entropy_bits": 13.2, "placement_entropy_bits": 0.0,
                             "guard_page": {"262144": "none", "1048576": "unmapped"},
                             "inline_metadata": "header, free-list link in freed blocks"}}
    jemalloc = {"allocator": "jemalloc", "conforming": False, "nonconforming": "malloc(24) returned 0x1008, not aligned to 16",
                "caught": 1, "scored": 3,
                "outcomes": [outcome("double-free", "corrupted"), outcome("free-of-interior", "crashed elsewhere"),
                             outcome("malloc-huge", "error returned"), outcome("realloc-zero", "detected")],
                "properties": {"n/a": "a properties process failed: killed by SIGSEGV"}}
    hoard = {"allocator": "hoard", "conforming": None, "not_run": "the preload did not take", "caught": 0, "scored": 0,
             "outcomes": [], "properties": {"n/a": "the preload did not take"}}
    section = {"probe": "allocstress-safety-probe", "timeout_s": 5, "property_processes": 30, "elapsed_s": 21.3,
               "outcome_classes": [{"name": n, "symbol": s, "meaning": f"meaning of {n}", "caught": n in ("detected", "error returned")}
                                   for n, s in CLASSES],
               "cases": [{"name": n, "group": g, "description": f"Does {n}.", "scored": sc} for n, g, sc in CASES],
               "allocators": [system, jemalloc, hoard]}
    section.update(overrides)
    return section


def golden_doc():
    with open(GOLDEN) as f:
        return json.load(f)


def misuse_file(tmp_path, name, change=None):
    """A file of `allocstress misuse`: no records, the machine context without a plan, a safety section."""
    doc = golden_doc()
    doc["benchmarks"] = []
    doc["context"].pop("plan")
    doc["safety"] = battery()
    return write_doc(tmp_path, name, doc, change)


def set_outcome(doc, allocator, case, name):
    for a in doc["safety"]["allocators"]:
        if a["allocator"] == allocator:
            for o in a["outcomes"]:
                if o["case"] == case:
                    o["outcome"] = name
                    return
    raise AssertionError(f"no {allocator} {case}")


class Tables(HTMLParser):
    """The cells of every <table class="safety">: [[(text, title)]] per row."""

    def __init__(self):
        super().__init__()
        self.rows, self.inside, self.cell = [], False, None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "table":
            self.inside = attrs.get("class") == "safety"
        elif self.inside and tag == "tr":
            self.rows.append([])
        elif self.inside and tag in ("td", "th"):
            self.cell = ["", attrs.get("title") or ""]

    def handle_endtag(self, tag):
        if tag == "table":
            self.inside = False
        elif self.inside and tag in ("td", "th") and self.cell is not None:
            self.rows[-1].append(tuple(self.cell))
            self.cell = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell[0] += data


def safety_rows(page):
    parser = Tables()
    parser.feed(page)
    return {row[0][0]: row for row in parser.rows if row}


# ---- loading -------------------------------------------------------------------------------

def test_a_misuse_only_file_loads_and_reads_as_rows(tmp_path):
    path = misuse_file(tmp_path, "misuse.json")
    df = allocstress.load(path)
    assert len(df) == 0 and list(df.columns[:4]) == ["run", "workload", "allocator", "threads"]
    frame = allocstress.safety(path)
    assert list(frame.columns) == safety.FRAME_COLUMNS
    assert len(frame) == 3 * len(CASES)  # every allocator x case, hoard's without outcomes
    row = frame[(frame["allocator"] == "system") & (frame["case"] == "double-free")].iloc[0]
    assert (row["outcome"], row["symbol"], bool(row["caught"]), row["group"]) == ("detected", "✓", True, "double free")
    assert SCRIPT in row["message"]
    edge = frame[(frame["allocator"] == "jemalloc") & (frame["case"] == "realloc-zero")].iloc[0]
    assert not edge["scored"] and edge["symbol"] == "✓"
    hoard = frame[frame["allocator"] == "hoard"]
    assert hoard["outcome"].isna().all() and set(hoard["symbol"]) == {safety.NOT_RUN_SYMBOL}
    scores = safety.scores(path).set_index("allocator")
    assert scores.loc["jemalloc", "caught"] == 1 and scores.loc["jemalloc", "conforming"] == False  # noqa: E712
    assert "not aligned to 16" in scores.loc["jemalloc", "nonconforming"] and scores.loc["hoard", "not_run"]
    assert safety.nonconforming_allocators(json.load(open(path))) == {"jemalloc": "malloc(24) returned 0x1008, not aligned to 16"}


def test_the_score_is_the_files_figure_not_a_recount(tmp_path):
    def claim(doc):
        doc["safety"]["allocators"][0]["caught"] = 17  # what C++ counted stands, whatever the outcomes say
    path = misuse_file(tmp_path, "claimed.json", claim)
    assert safety.scores(path).set_index("allocator").loc["system", "caught"] == 17
    page = open(write_report([path], str(tmp_path / "r"), "test")).read()
    assert "caught 17 of 3" in page


def test_safety_of_files_without_a_section_and_a_damaged_section(tmp_path):
    with pytest.raises(allocstress.ResultsError, match="no safety section"):
        allocstress.safety(GOLDEN)

    def damage(doc):
        doc["safety"]["allocators"] = {"system": 1}
    bad = misuse_file(tmp_path, "bad.json", damage)
    with pytest.raises(allocstress.ResultsError, match="safety.allocators is not a list"):
        allocstress.safety(bad)
    with pytest.raises(allocstress.ResultsError, match="safety.allocators is not a list"):
        write_report([bad], str(tmp_path / "bad-report"), "test")
    assert not os.path.exists(tmp_path / "bad-report")  # nothing written for a bad input


# ---- report --------------------------------------------------------------------------------

def test_report_of_a_misuse_only_file_has_the_safety_section(tmp_path):
    path = misuse_file(tmp_path, "misuse.json")
    index = write_report([path], str(tmp_path / "r"), "test")
    page = open(index).read()
    assert "Safety: the misuse battery</h2>" in page and "No timing records" in page
    assert "<h2>Summary</h2>" not in page and "<h2>Columns</h2>" not in page
    assert "<h2>Run misuse</h2>" in page and '<td class="l">vm</td>' in page  # the machine still shows
    rows = safety_rows(page)
    header = rows["case"]
    assert [c[0] for c in header[2:]] == ["system", "jemalloc(non-conforming)", "hoard"]
    assert [c[0] for c in rows["double-free"][2:]] == ["✓", "✗", safety.NOT_RUN_SYMBOL]
    assert [c[0] for c in rows["free-of-interior"][2:]] == ["·", "C", safety.NOT_RUN_SYMBOL]
    assert [c[0] for c in rows["malloc-huge"][2:]] == ["E", "E", safety.NOT_RUN_SYMBOL]
    edge = "realloc-zero (edge case, not scored)"
    assert rows[edge][1][0] == "no" and rows["double-free"][1][0] == "yes"
    assert [c[0] for c in rows["caught"][2:]] == ["caught 2 of 3", "caught 1 of 3", "not run"]
    assert rows["double free"][0][0] == "double free" and len(rows["double free"]) == 1  # the group's row
    # the tooltip: the outcome, the probe's detail and the allocator's message, unescaped by the parser
    assert rows["double-free"][2][1] == "detected — stopped by SIGABRT in step misuse — message: free(): double free " + SCRIPT
    # ... and escaped in the page: the message never becomes markup
    assert SCRIPT not in page and "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in page
    for name, symbol in CLASSES:  # the legend from outcome_classes
        assert f"<li><b>{symbol}</b> {name}: meaning of {name}</li>" in page
    assert "<b>jemalloc</b>: malloc(24) returned 0x1008, not aligned to 16" in page  # non-conforming, with the reason
    assert page.index('class="nonconforming"') < page.index('<table class="safety">')  # before the table
    assert "<b>hoard</b>: the preload did not take" in page
    assert ('<td class="l">system</td><td>13.2</td><td>0.0</td><td class="l">256 KiB: none, 1 MiB: unmapped</td>'
            '<td class="l">header, free-list link in freed blocks</td>') in page
    assert "n/a: a properties process failed: killed by SIGSEGV" in page
    csv = open(os.path.join(tmp_path, "r", "safety.csv")).read()
    assert csv.splitlines()[0] == ",".join(safety.FRAME_COLUMNS) and csv.count("\nmisuse,") == 3 * len(CASES)


def test_report_without_a_safety_section_has_no_safety_section(golden, tmp_path):
    page = open(write_report([golden], str(tmp_path / "r"), "test")).read()
    assert "the misuse battery" not in page and "<h2>Summary</h2>" in page and "No timing records" not in page


def test_a_nonconforming_allocator_is_marked_and_not_ranked(tmp_path):
    reason = "malloc(24) returned 0x1008, not aligned to 16"
    doc = golden_doc()
    for e in doc["benchmarks"]:
        if e["allocator"] == "mimalloc":
            e["nonconforming"] = reason
    path = tmp_path / "flagged.json"
    path.write_text(json.dumps(doc))
    runs = allocstress.load_runs([str(path)])
    table = tables.summary_table(runs)
    assert table.attrs["nonconforming"] == {("flagged", "mimalloc"): reason}
    geo = tables.geomean_table(table)
    assert "mimalloc" not in set(geo["allocator"]) and "jemalloc" in set(geo["allocator"])
    assert any("mimalloc is non-conforming" in x and reason in x for x in geo.attrs["left_out"])
    plain = tables.geomean_table(tables.summary_table(allocstress.load_runs([GOLDEN])))
    assert "mimalloc" in set(plain["allocator"])  # ranked when it conforms
    for panel in panels(runs, "flagged", "alloc-test"):
        ordered = panel.sorted_by_ratio()
        assert ordered[-1].allocator == "mimalloc" and ordered[-1].label.endswith("(non-conforming, not ranked)")
        assert all(not c.nonconforming for c in ordered[:-1])
    page = open(write_report([str(path)], str(tmp_path / "r"), "test")).read()
    summary = page[page.index("<h2>Summary</h2>"):page.index("<h3>Geometric mean")]
    assert len(re.findall(r">mimalloc( ⚠)? \(non-conforming\)</td>", summary)) == 2  # both thread counts
    assert f"<b>mimalloc</b>: {reason}" in summary
    geomean = page[page.index("<h3>Geometric mean"):]
    geomean = geomean[:geomean.index("</table>")]
    assert ">jemalloc<" in geomean and ">mimalloc<" not in geomean
    markdown = open(tmp_path / "r" / "summary.md").read()
    assert f"- mimalloc: {reason}\n" in markdown and f"Left out: flagged: mimalloc is non-conforming ({reason})" in markdown


# ---- compare -------------------------------------------------------------------------------

def run_compare(capsys, a, b, *options):
    status = main(["compare", a, b, *options])
    return status, capsys.readouterr().out


def test_compare_of_identical_misuse_files_exits_0(tmp_path, capsys):
    a, b = misuse_file(tmp_path, "a.json"), misuse_file(tmp_path, "b.json")
    status, out = run_compare(capsys, a, b)
    assert status == 0
    assert "safety: 0 lost detection(s), 0 gained (8 allocator x case outcomes of 3 allocator(s) compared, exact)" in out
    assert "- not compared: hoard: not run in A (the preload did not take)" in out
    assert not [line for line in out.splitlines() if line.startswith(("- worse", "- better", "- n/a"))]


def test_a_lost_detection_exits_4_and_is_listed(tmp_path, capsys):
    a = misuse_file(tmp_path, "a.json")
    b = misuse_file(tmp_path, "b.json", lambda doc: set_outcome(doc, "system", "double-free", "silent"))
    status, out = run_compare(capsys, a, b, "--json", str(tmp_path / "c.json"))
    assert status == 4
    assert "safety: 1 lost detection(s), 0 gained" in out
    assert "- worse: system, double-free: lost detection: detected → silent" in out
    assert "→ exit 4: 1 safety change(s) worse" in out
    doc = json.loads((tmp_path / "c.json").read_text())
    assert doc["exit_status"] == 4 and doc["safety"]["lost_detections"] == 1 and doc["safety"]["compared"]
    assert doc["safety"]["changes"] == [{"allocator": "system", "case": "double-free", "kind": "lost detection",
                                         "decision": "worse", "a": "detected", "b": "silent"}]


def test_a_gained_detection_is_better_and_exits_0(tmp_path, capsys):
    a = misuse_file(tmp_path, "a.json")
    b = misuse_file(tmp_path, "b.json", lambda doc: set_outcome(doc, "jemalloc", "double-free", "detected"))
    status, out = run_compare(capsys, a, b)
    assert status == 0
    assert "safety: 0 lost detection(s), 1 gained" in out
    assert "- better: jemalloc, double-free: gained detection: corrupted → detected" in out
    c = compare_result.compare_files(a, b)
    assert (c.safety.better, c.safety.worse, c.exit_status) == (1, 0, 0)


def test_edge_cases_and_changes_within_a_class_decide_nothing(tmp_path, capsys):
    def change(doc):
        set_outcome(doc, "system", "realloc-zero", "error returned")  # an edge case: not scored
        set_outcome(doc, "jemalloc", "double-free", "hang")  # not caught either way
    a, b = misuse_file(tmp_path, "a.json"), misuse_file(tmp_path, "b.json", change)
    status, out = run_compare(capsys, a, b)
    assert status == 0
    assert "- n/a: system, realloc-zero: edge case changed: silent → error returned" in out
    assert "jemalloc, double-free" not in out  # corrupted -> hang: not caught either way


def test_lost_conformance_is_worse(tmp_path, capsys):
    def lose(doc):
        system = doc["safety"]["allocators"][0]
        system.update(conforming=False, nonconforming="calloc(2, 8) returned memory not zeroed")
    a, b = misuse_file(tmp_path, "a.json"), misuse_file(tmp_path, "b.json", lose)
    status, out = run_compare(capsys, a, b)
    assert status == 4
    assert "- worse: system: lost conformance: conforming → non-conforming: calloc(2, 8) returned memory not zeroed" in out
    status, out = run_compare(capsys, b, a)  # the other way round: gained
    assert status == 0 and "- better: system: gained conformance" in out


def test_one_sided_safety_is_one_line_and_leaves_the_exit_status(golden, tmp_path, capsys):
    doc = golden_doc()
    doc["safety"] = battery()
    with_battery = tmp_path / "battery.json"
    with_battery.write_text(json.dumps(doc))
    status_plain, out_plain = run_compare(capsys, golden, GOLDEN)
    status, out = run_compare(capsys, golden, str(with_battery))
    assert status == status_plain
    lines = [line for line in out.splitlines() if line.startswith("safety:")]
    assert lines == ["safety: only B (battery) has a safety section (the misuse battery): not compared, A did not run it; "
                     "the exit status does not depend on it"]
    assert not [line for line in out_plain.splitlines() if line.startswith("safety")]  # neither has one: nothing is said
    c = compare_result.compare_files(golden, str(with_battery))
    assert c.to_dict()["safety"]["compared"] is False and c.safety.worse == 0


def test_matrix_with_misuse_lost_detection_decides_over_unchanged_timings(tmp_path, capsys):
    def with_battery(lost):
        doc = golden_doc()
        doc["safety"] = battery()
        if lost:
            set_outcome(doc, "system", "malloc-huge", "corrupted")
        return doc
    paths = []
    for name, lost in (("a", False), ("b", True)):
        paths.append(str(tmp_path / f"{name}.json"))
        with open(paths[-1], "w") as f:
            json.dump(with_battery(lost), f)
    c = compare_result.compare_files(*paths)
    assert c.verdict["worse"] == 0 and c.counts_verdict["worse"] == 0  # the same records in both
    assert c.safety.worse == 1 and c.exit_status == 4
    assert c.to_dict()["safety"]["changes"][0]["b"] == "corrupted"
