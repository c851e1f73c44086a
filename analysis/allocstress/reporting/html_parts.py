"""The HTML pieces the report's sections share: escaping, tables, embedded figures and file
names built from free text."""

from __future__ import annotations

import base64
import html
import json
import os
import re

import allocstress._core as _core
from ..results.records import RunCellKey, timing_cell


def escape(x) -> str:
    return html.escape(str(x))


def html_table(headers: list[str], rows: list[list[str]], left: int = 1) -> str:
    """A table of preformatted cells; the first `left` columns are left-aligned (text), the rest right."""
    head = "".join(f'<th class="l">{escape(h)}</th>' if i < left else f"<th>{escape(h)}</th>" for i, h in enumerate(headers))
    body = "".join("<tr>" + "".join(f'<td class="l">{escape(c)}</td>' if i < left else f"<td>{escape(c)}</td>"
                                   for i, c in enumerate(r)) + "</tr>" for r in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def embedded_png(path: str) -> str:
    with open(path, "rb") as f:
        return "data:image/png;base64," + base64.b64encode(f.read()).decode("ascii")


def figure(png: str, caption: str) -> str:
    """A figure written by plots/trace_plots/phase_plots (PNG embedded, its SVG beside it linked)."""
    svg = os.path.basename(png[:-4] + ".svg")
    return (f'<figure><img src="{embedded_png(png)}" alt="{escape(caption)}">'
            f'<figcaption>{escape(caption)} (<a href="{escape(svg)}">SVG</a>)</figcaption></figure>')


def file_stem(*parts) -> str:
    """A file name stem from free text (run names, trace paths): only [A-Za-z0-9._-]."""
    return "-".join(re.sub(r"[^A-Za-z0-9._-]+", "_", str(p)).strip("_") for p in parts)


def _inline(text: str) -> str:
    """Escaped text with **bold** and `code` spans."""
    out = escape(text)
    out = re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", out)
    return re.sub(r"`(.+?)`", r"<code>\1</code>", out)


def _table_html(rows: list[str]) -> str:
    """A Markdown table (header, |---| separator, rows) as an HTML table."""
    cells = [[_inline(c.strip()) for c in row.strip().strip("|").split("|")] for row in rows]
    body = [r for r in cells[1:] if not all(set(c) <= set("-: ") for c in r)]
    head = "".join(f"<th>{c}</th>" for c in cells[0])
    return f"<table><tr>{head}</tr>" + "".join("<tr>" + "".join(f"<td>{c}</td>" for c in r) + "</tr>" for r in body) + "</table>"


def markdown_lines_html(markdown: str) -> str:
    """The Markdown subset of the C++ verdict, reproduction section and counts tables
    (results/verdict.cpp, results/tables/reproduction_table.cpp, results/tables/mode_tables.cpp) as HTML: "### " headings are dropped (the caller titles the
    section "Verdict"; "### Verdict" is dropped and other headings become <h3>), "- " lines
    become a list, "|" lines a table, other lines paragraphs."""
    parts, items, rows = [], [], []
    for line in markdown.splitlines():
        if line.startswith("- "):
            items.append(f"<li>{_inline(line[2:])}</li>")
            continue
        if line.startswith("|"):
            rows.append(line)
            continue
        if items:
            parts.append("<ul>" + "".join(items) + "</ul>")
            items = []
        if rows:
            parts.append(_table_html(rows))
            rows = []
        if line.startswith("### "):
            if line.strip() != "### Verdict":
                parts.append(f"<h3>{_inline(line[4:])}</h3>")
        elif line.strip() and not line.startswith("#"):
            parts.append(f"<p>{_inline(line)}</p>")
    if items:
        parts.append("<ul>" + "".join(items) + "</ul>")
    if rows:
        parts.append(_table_html(rows))
    return "".join(parts)


# ---- per-cell warnings ----------------------------------------------------------------------
# Records carry `warnings` (results/README.md: a worker not pinned, the peak-RSS reset failed, a
# measured phase shorter than 20 ms, no void baseline, a trace cut short, more trace threads than
# PUs, ...).  The report lists them under the table that shows the cells, grouped by warning text
# so that a warning every cell shares is one line, and marks the cells' rows.

WARNED = " ⚠"  # appended to the allocator of a table row whose cell has a warning


def cell_warnings(runs, workloads=None, run=None) -> list[tuple]:
    """[(run, workload, mode, warning, [(allocator, threads, records with it, records of the cell)],
    every record of the (run, workload, mode) has it)] over the iteration records (every mode) of
    `runs` (loading.Runs; only run `run` unless None) whose workload is in `workloads` (all: None),
    in order of first appearance.  The groups are C++'s (_core.cell_warning_groups, per workload,
    thread count, mode and text, as the Markdown summary lists them); here those of one (run,
    workload, mode, text) become one entry, its cells in the order they first gave the warning."""
    out = {}
    for name, document in zip(runs.run_names(), runs.documents):
        if run is not None and name != run:
            continue
        for g in _core.cell_warning_groups(json.dumps(document)):
            if workloads is not None and g["workload"] not in workloads:
                continue
            entry = out.setdefault((name, g["workload"], g["mode"], g["text"]), ([], g["everywhere"]))
            entry[0].extend((c["first"], c["allocator"], g["threads"], c["with"], c["of"]) for c in g["cells"])
    return [key + ([c[1:] for c in sorted(cells)], everywhere) for key, (cells, everywhere) in out.items()]


def warned_cells(warnings) -> set[RunCellKey]:
    """The keys (records.RunCellKey) of the timing cells named in cell_warnings()."""
    return {_timing_cell(w[0], w[1], name, threads) for w in warnings if w[2] == "timing" for name, threads, _, _ in w[4]}


def _timing_cell(run: str, workload: str, allocator: str, threads: int) -> RunCellKey:
    """The key of run's timing cell (a table row or a warning names it by workload, allocator and threads)."""
    return RunCellKey(run, timing_cell(workload, allocator, threads))


def warnings_html(warnings, title: str = "Cell warnings") -> str:
    """The list under a table: per (run, workload, mode, warning) the cells with it and in how many
    of their records; '' without warnings."""
    if not warnings:
        return ""
    runs = {w[0] for w in warnings}
    items = []
    for run, workload, mode, text, cells, everywhere in warnings:
        where = (f"run {run}, " if len(runs) > 1 else "") + f"{workload}, {mode} records"
        if everywhere:
            named = f"every record of its {len(cells)} cell(s) ({sum(c[2] for c in cells)} records)"
        else:
            named = ", ".join(f"{name} at {threads} thread(s) ({n} of {total} records)" for name, threads, n, total in cells)
        items.append(f"<li><b>{escape(text)}</b> &mdash; {escape(where)}: {escape(named)}</li>")
    return f'<div class="warn"><p>{escape(title)} (timing cells marked {WARNED.strip()} in the table):</p><ul>{"".join(items)}</ul></div>'


def mark_warned_rows(headers: list[str], rows: list[list[str]], warned: set, run: str, workload: str) -> list[list[str]]:
    """`rows` (display rows) with WARNED after the allocator of every row whose cell is in `warned`;
    the row's run and workload from its columns when the table has them, else `run` / `workload`."""
    if "allocator" not in headers or "threads" not in headers:
        return rows
    at = {h: headers.index(h) for h in ("run", "workload", "allocator", "threads") if h in headers}
    out = []
    for row in rows:
        threads = row[at["threads"]]
        key = _timing_cell(row[at["run"]] if "run" in at else run, row[at["workload"]] if "workload" in at else workload,
                           row[at["allocator"]].replace(" (baseline)", ""), int(threads)) if threads.isdigit() else None
        row = list(row)
        if key in warned:
            row[at["allocator"]] += WARNED
        out.append(row)
    return out


NONCONFORMING = " (non-conforming)"  # appended to the allocator of a table row of a non-conforming allocator


def mark_nonconforming_rows(headers: list[str], rows: list[list[str]], nonconforming: dict, run: str) -> list[list[str]]:
    """`rows` (display rows) with NONCONFORMING after the allocator of every row whose (run,
    allocator) is in `nonconforming` (safety.nonconforming_by_run); the row's run from its column
    when the table has one, else `run`.  Marks already there (WARNED, " (baseline)") are kept."""
    if "allocator" not in headers or not nonconforming:
        return rows
    at, run_at = headers.index("allocator"), headers.index("run") if "run" in headers else None
    out = []
    for row in rows:
        name = row[at].replace(WARNED, "").replace(" (baseline)", "")
        row = list(row)
        if (row[run_at] if run_at is not None else run, name) in nonconforming:
            row[at] += NONCONFORMING
        out.append(row)
    return out


def nonconforming_note(nonconforming: dict, runs: set) -> str:
    """The note under a table naming each non-conforming allocator of `runs` with its reason ('' when none)."""
    items = [f"<li><b>{escape(allocator)}</b>" + (f" (run {escape(run)})" if len(runs) > 1 else "") + f": {escape(reason)}</li>"
             for (run, allocator), reason in nonconforming.items() if run in runs]
    if not items:
        return ""
    return ('<div class="warn"><p>Non-conforming allocators (marked' + escape(NONCONFORMING) + '): they break malloc\'s '
            "contract, so they are measured but left out of every ranking:</p><ul>" + "".join(items) + "</ul></div>")
