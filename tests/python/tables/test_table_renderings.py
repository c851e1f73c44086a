"""CSV, Markdown and LaTeX of the same summary table, each parsed back on its own: every number,
interval, verdict word, n/a and unstable mark must agree with the CSV (full precision), rounded
to the decimals the rendering shows.  Headers are mapped to CSV columns here by hand (not through
the display model), so a renderer that shifted, dropped or relabelled a column fails."""

import csv
import io
import re

import pytest

import allocstress
from allocstress.tabulation import tables
from conftest import write_variant

# header start -> (CSV value column, interval low/high columns, verdict column, scale, decimals)
HEADERS = {
    "threads": ("threads", None, None, None, 1, 0),
    "reps": ("reps_ok", None, None, None, 1, 0),
    "net cycles/pair": ("net_cycles_per_pair", "net_cycles_ci_low", "net_cycles_ci_high", None, 1, 1),
    "CV, % of mean": ("net_cycles_cv", None, None, None, 100, 1),
    "raw cycles/pair": ("cycles_per_pair", None, None, None, 1, 1),
    "net ns/pair": ("net_ns_per_pair", None, None, None, 1, 2),
    "overhead ratio": ("overhead_ratio", "overhead_ratio_ci_low", "overhead_ratio_ci_high", None, 1, 2),
    "THP coverage": ("thp_coverage", None, None, None, 1, 2),
    "speed vs system": ("speed_vs_system", "speed_ci_low", "speed_ci_high", "speed_vs_system_verdict", 1, 2),
    "overhead vs system": ("overhead_vs_system", "overhead_ci_low", "overhead_ci_high", "overhead_vs_system_verdict", 1, 2),
}
TEXT_HEADERS = {"run": "run", "workload": "workload", "allocator": "allocator"}
LATEX_WORDS = {"indist.": "indistinguishable", "ref.": "reference"}
CELL = re.compile(r"^(?P<num>-?\d+(?:\.\d+)?)(?: \[(?P<lo>-?[\d.]+), (?P<hi>-?[\d.]+|∞)\])?(?P<dag>†)?$")


def column_of(header: str):
    for start, spec in HEADERS.items():
        if header.startswith(start):
            return spec
    return ("text", TEXT_HEADERS[header])


def parse_csv(text):
    return list(csv.DictReader(io.StringIO(text)))


def parse_markdown(text):
    lines = [line for line in text.splitlines() if line.startswith("| ")]
    headers = [h.strip() for h in lines[0].strip("| ").split(" | ")]
    return headers, [[c.strip() for c in line.strip("| ").split(" | ")] for line in lines[1:]]


def _latex_text(cell: str) -> str:
    cell = re.sub(r"\\rlap\{\\textsuperscript\{\\dag\}\}", "†", cell)
    cell = re.sub(r"\\rlap\{\\textsuperscript\{(\w)\}\}", r" (\1)", cell)
    cell = re.sub(r"\{\\scriptsize (.*)\}$", r"\1", cell.strip())
    return cell.replace(r"\_", "_").replace(r"$\infty$", "∞").strip()


def parse_latex(text):
    """(headers, rows): a value line and, when it has one, the interval line under it, joined."""
    body = text[text.index(r"\toprule"):text.index(r"\bottomrule")]
    lines = [line for line in body.splitlines() if line.endswith(("\\\\", "\\\\[2pt]"))]
    header = re.sub(r"\\shortstack\[\w\]\{(.*?)\\\\(.*?)\}", r"\1 \2", lines[0])
    headers = [h.strip().rstrip("\\").strip().replace(r"\%", "%") for h in header.split(" & ")]
    rows = []
    mid = body.index(r"\midrule")
    for line in body[mid:].splitlines()[1:]:
        cells = [_latex_text(c) for c in re.sub(r"\\\\(\[2pt\])?$", "", line).split(" & ")]
        if line.startswith(" & ") and rows:  # the interval line of the row above
            rows[-1] = [f"{v} {iv}".strip() if iv else v for v, iv in zip(rows[-1], cells)]
            rows[-1] = [re.sub(r"^(\S+)† (\[.*\])$", r"\1 \2†", v) for v in rows[-1]]
        else:
            rows.append(cells)
    return headers, rows


def check_agreement(headers, rows, csv_rows, words=None):
    assert len(rows) == len(csv_rows)
    checked = 0
    for row, ref in zip(rows, csv_rows):
        for header, shown in zip(headers, row):
            spec = column_of(header)
            if spec[0] == "text":
                assert shown.replace(" (baseline)", "") == ref[spec[1]]
                continue
            key, low, high, verdict, scale, decimals = spec
            shown = (words or {}).get(shown, shown)
            if shown.startswith("n/a"):
                assert ref[key] == "" or (low and ref[low] == ""), (header, shown, ref)
                continue
            if verdict and shown in ("indistinguishable", "reference"):
                assert ref[verdict] == shown
                continue
            m = CELL.match(shown)
            assert m, (header, shown)
            assert m["num"] == f"{float(ref[key]) * scale:.{decimals}f}", (header, shown, ref[key])
            if low:
                ends = (None, None)
                if ref[low] and ref[high]:
                    ends = tuple("∞" if ref[k] == "inf" else f"{float(ref[k]):.{decimals}f}" for k in (low, high))
                assert (m["lo"], m["hi"]) == ends, (header, shown)
            if key == "net_cycles_per_pair":
                assert bool(m["dag"]) == (ref["unstable"] == "True"), (header, shown)
            checked += 1
    return checked


@pytest.fixture(params=["golden", "two-runs"])
def table(request, golden, tmp_path):
    paths = [golden] if request.param == "golden" else [golden, write_variant(tmp_path, "other.json", lambda d: None)]
    return allocstress.summary_table(allocstress.load_runs(paths))


def test_markdown_csv_and_latex_agree_on_every_number(table):
    csv_rows = parse_csv(tables.to_csv(table))
    assert list(csv_rows[0]) == tables.COLUMN_NAMES  # every CSV column documented, in order
    checked = check_agreement(*parse_markdown(tables.to_markdown(table)), csv_rows)
    assert checked > 5 * len(table)
    for column_set in ("compact", "full"):
        headers, rows = parse_latex(tables.to_latex(table, column_set=column_set))
        assert check_agreement(headers, rows, csv_rows, LATEX_WORDS) > 2 * len(table)
    headers, rows = tables.display_rows(table)  # the report's HTML cells: the same texts as Markdown
    assert (headers, rows) == parse_markdown(tables.to_markdown(table))


def test_void_has_no_overhead_in_any_rendering(table):
    """The bug of issue 16: CSV had void's median overhead_ratio (its RSS is an aliased buffer)
    while Markdown showed '-'."""
    void = [r for r in parse_csv(tables.to_csv(table)) if r["allocator"] == "void"]
    assert void and all(r["overhead_ratio"] == "" and "aliased buffer" in r["notes"] for r in void)
    headers, rows = parse_markdown(tables.to_markdown(table))
    i = [h.startswith("overhead ratio") for h in headers].index(True)
    assert all(r[i].startswith("n/a (") for r in rows if r[headers.index("allocator")].startswith("void"))
    assert "n/a: void baseline: one aliased buffer" in tables.to_markdown(table)
