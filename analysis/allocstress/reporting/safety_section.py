"""The report's Safety section (present when a results file has a `safety` section: `allocstress
misuse`, `matrix --misuse`), one per such run:

- the allocators that are non-conforming or that the battery could not run under, first and
  prominently, each with its reason;
- the table of cases x allocators: the outcome's symbol in each cell (its tooltip: the outcome,
  the probe's detail and the allocator's own message), the cases grouped by their group, the
  unscored (edge) cases marked, and a last row "caught N of M" per allocator (the file's figures);
- the legend of the symbols from the section's outcome_classes;
- the properties sampled over many processes (address and placement entropy in bits, what follows
  a large block per block size, inline metadata), n/a with the reason.
The outcome rows are also written as safety.csv.  Every text from the file is escaped (an
allocator's message is arbitrary)."""

from __future__ import annotations

import os

import pandas as pd

from ..results import safety as sf
from .html_parts import escape
from ..results.loading import Runs

TITLE = "Safety: the misuse battery"
STYLE = (  # added to the report's style sheet
    "table.safety td.o{text-align:center;font-size:1.1em}table.safety th.o{text-align:center}"
    "table.safety tr.group td{background:#f7f7f7;font-style:italic}"
    "table.safety tr.edge td.l{color:#666}table.safety tr.score td{font-weight:bold}"
    ".nonconforming{background:#fde8e8;border-left:4px solid #c00000;padding:.4em 1em}")
EDGE_MARK = " (edge case, not scored)"
INTRO = ("Each case ran in a fresh process under the allocator (timeout {timeout} s per process; the battery took "
         "{elapsed} s).  Caught: the scored cases whose outcome is detected or error returned, as the results file "
         "counts them.  Edge cases (marked, not scored) show behaviour the C standard leaves to the implementation: shown, "
         "not counted.  Hover over a symbol for the probe's detail and the allocator's message.")
PROPERTIES_LEGEND = ("Properties over {processes} processes: address entropy is the first block's address from process to "
                     "process (ASLR and the allocator), placement entropy the gap between two consecutive blocks (the "
                     "allocator alone); each is the sum of the per-bit entropies, an upper estimate that a small sample caps. "
                     "Guard page: what follows a large block's last page (guard: an inaccessible mapping; unmapped: a hole "
                     "another mapping may fill; none: accessible).")


def _number(value, digits: str = ".1f") -> str:
    return "n/a" if value is None else format(value, digits)


def _tooltip(row: dict) -> str:
    if row["outcome"] is None:
        return "not run"
    parts = [row["outcome"]] + [text for text in (row["detail"], row["message"] and f"message: {row['message']}") if text]
    return " — ".join(parts)


def _header(score: dict) -> str:
    name = escape(score["allocator"])
    if score["conforming"] is False:
        return (f'<th class="o" title="{escape("non-conforming: " + score["nonconforming"])}">{name}<br>'
                "<small>(non-conforming)</small></th>")
    return f'<th class="o">{name}</th>'


def outcome_table(safety: dict) -> str:
    """The cases x allocators table with the score row (HTML; every text escaped)."""
    scores = sf.score_rows(safety)
    rows = sf.outcome_rows(safety)
    by_cell = {(r["allocator"], r["case"]): r for r in rows}
    head = '<tr><th class="l">case</th><th class="l">scored</th>' + "".join(_header(s) for s in scores) + "</tr>"
    body, group = [], None
    width = 2 + len(scores)
    for case in sf.cases(safety):
        if case["group"] != group:
            group = case["group"]
            body.append(f'<tr class="group"><td class="l" colspan="{width}">{escape(group or "(no group)")}</td></tr>')
        cells = []
        for s in scores:
            r = by_cell.get((s["allocator"], case["name"]))
            symbol, tip = (r["symbol"], _tooltip(r)) if r else (sf.NOT_RUN_SYMBOL, "not run")
            cells.append(f'<td class="o" title="{escape(tip)}">{escape(symbol)}</td>')
        name = case["name"] + ("" if case["scored"] else EDGE_MARK)
        row = "<tr>" if case["scored"] else '<tr class="edge">'
        body.append(f'{row}<td class="l" title="{escape(case["description"])}">{escape(name)}</td>'
                    f'<td class="l">{"yes" if case["scored"] else "no"}</td>{"".join(cells)}</tr>')
    body.append('<tr class="score"><td class="l">caught</td><td class="l"></td>'
                + "".join(f'<td class="o">{escape(sf.score_text(s))}</td>' for s in scores) + "</tr>")
    return f'<table class="safety"><thead>{head}</thead><tbody>{"".join(body)}</tbody></table>'


def legend_html(safety: dict) -> str:
    items = "".join(f"<li><b>{escape(symbol)}</b> {escape(name)}: {escape(meaning)}</li>" for symbol, name, meaning in sf.legend(safety))
    return f'<div class="legend"><p>Outcomes:</p><ul>{items}<li><b>{escape(sf.NOT_RUN_SYMBOL)}</b> not run</li></ul></div>'


def conformance_html(safety: dict) -> str:
    """The non-conforming allocators and those not run, each with its reason ('' when none)."""
    scores = sf.score_rows(safety)
    bad = [s for s in scores if s["conforming"] is False]
    unrun = [s for s in scores if s["not_run"]]
    parts = []
    if bad:
        parts.append('<div class="nonconforming"><p><b>Non-conforming</b> (malloc\'s contract broken: measured, but left '
                     "out of every ranking):</p><ul>" + "".join(
                         f"<li><b>{escape(s['allocator'])}</b>: {escape(s['nonconforming'])}</li>" for s in bad) + "</ul></div>")
    if unrun:
        parts.append('<div class="warn"><p>The battery did not run under:</p><ul>' + "".join(
            f"<li><b>{escape(s['allocator'])}</b>: {escape(s['not_run'])}</li>" for s in unrun) + "</ul></div>")
    ok = [s["allocator"] for s in scores if s["conforming"] is True]
    if ok:
        parts.append(f'<p class="legend">Conforming (the conformance check passed): {escape(", ".join(ok))}.</p>')
    return "".join(parts)


def property_table(safety: dict) -> str:
    """allocator | address entropy | placement entropy | guard page per block size | inline metadata."""
    headers = ["allocator", "address entropy (bits)", "placement entropy (bits)", "guard page after a large block",
               "inline metadata"]
    text = (0, 3, 4)  # left-aligned columns
    rows = []
    for p in sf.property_rows(safety):
        if p["n/a"]:
            rows.append([p["allocator"], "n/a", "n/a", "n/a", f"n/a: {p['n/a']}"])
            continue
        guard = ", ".join(f"{sf.size_text(size)}: {what}" for size, what in p["guard_page"].items()) or "n/a"
        rows.append([p["allocator"], _number(p["address_entropy_bits"]), _number(p["placement_entropy_bits"]), guard,
                     p["inline_metadata"] or "n/a"])
    cell = lambda tag, i, x: f'<{tag} class="l">{escape(x)}</{tag}>' if i in text else f"<{tag}>{escape(x)}</{tag}>"  # noqa: E731
    head = "".join(cell("th", i, h) for i, h in enumerate(headers))
    body = "".join("<tr>" + "".join(cell("td", i, x) for i, x in enumerate(r)) + "</tr>" for r in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def run_section(run: str, safety: dict, titled: bool) -> list[str]:
    """The HTML parts of one run's section; `titled`: name the run in the heading (several files)."""
    title = TITLE + (f" ({run})" if titled else "")
    intro = INTRO.format(timeout=_number(safety.get("timeout_s"), "g"), elapsed=_number(safety.get("elapsed_s"), ".1f"))
    parts = [f'<h2 id="{escape("safety-" + run if titled else "safety")}">{escape(title)}</h2>', f"<p>{escape(intro)}</p>"]
    if not safety.get("allocators"):
        return parts + ["<p>No allocator in the safety section: nothing to show.</p>"]
    parts += [conformance_html(safety), outcome_table(safety), legend_html(safety), "<h3>Properties</h3>",
              property_table(safety),
              f'<p class="legend">{escape(PROPERTIES_LEGEND.format(processes=safety.get("property_processes", "?")))}</p>']
    return parts


def safety_section(runs: Runs, out_dir: str) -> list[str]:
    """HTML parts of the Safety sections (none when no run has a safety section); writes
    safety.csv (the outcome rows of every run, sf.FRAME_COLUMNS) into out_dir."""
    found = sf.sections(runs)
    if not found:
        return []
    frame = pd.DataFrame([{"run": run, **r} for run, s in found for r in sf.outcome_rows(s)], columns=sf.FRAME_COLUMNS)
    frame.to_csv(os.path.join(out_dir, "safety.csv"), index=False)
    parts = []
    for run, s in found:
        parts += run_section(run, s, len(runs.documents) > 1)
    parts.append('<p class="legend">As a file: <a href="safety.csv">CSV</a> (one row per run, allocator and case).</p>')
    return parts
