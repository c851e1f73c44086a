"""The report's fidelity section (present when the results hold real-program records): the fidelity
table of fidelity.py with its readings and legend, also written as fidelity.md and fidelity.csv."""

from __future__ import annotations

import os

import pandas as pd

from ..fidelity_study import fidelity as fd
from ..fidelity_study import fidelity_text as ft
from .html_parts import escape, html_table
from ..results.loading import Runs

TITLE = "Fidelity: do the models rank allocators like the real programs?"


def has_programs(runs: Runs) -> bool:
    """Whether some timing record is a real program's (fidelity.is_program): then the report has this section."""
    return any(fd.is_program(e["workload"]) for _, e, _ in fd.timing_records(runs))


def fidelity_section(table: pd.DataFrame | None, out_dir: str) -> list[str]:
    """HTML parts of the section (none when `table` is None); writes fidelity.md and fidelity.csv into out_dir."""
    if table is None:
        return []
    with open(os.path.join(out_dir, "fidelity.md"), "w") as f:
        f.write(f"# {TITLE}\n\n" + ft.to_markdown(table))
    with open(os.path.join(out_dir, "fidelity.csv"), "w") as f:
        f.write(ft.to_csv(table))
    headers, rows = ft.markdown_rows(table)
    multi_run = table["run"].nunique() > 1
    items = "".join(f"<li><b>{escape(program)}</b>" + (f" (run {escape(run)})" if multi_run else "") + f": {escape(text)}</li>"
                    for run, program, text in ft.readings(table))
    parts = [f'<h2 id="fidelity">{escape(TITLE)}</h2>', html_table(headers, rows, left=2 + int(multi_run)),
             f"<h3>Readings</h3><ul>{items}</ul>"]
    notes = ft.notes(table)
    if notes:
        parts.append('<div class="warn"><ul>' + "".join(f"<li>{escape(n)}</li>" for n in notes) + "</ul></div>")
    parts += [f'<p class="legend">{escape(ft.legend(table))}</p>',
              '<p class="legend">As files: <a href="fidelity.md">Markdown</a>, <a href="fidelity.csv">CSV</a> '
              "(every column, documented in docs/analysis.md#fidelity).</p>"]
    return parts
