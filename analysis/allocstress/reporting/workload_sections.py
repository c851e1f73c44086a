"""The report's section on the workloads beyond alloc-test: per workload its metrics table
(workload_metrics.py) and, for the phase workloads, the memory-over-time figures (phase_plots.py)
right under it; the tables also as workloads.md and one CSV per workload."""

from __future__ import annotations

import os

from ..results import catalogue
from ..figures import phase_plots
from ..tabulation.phase_series import PhaseGroup
from ..tabulation import workload_metrics as wm
from .html_parts import cell_warnings, escape, figure, file_stem, html_table, mark_warned_rows, warned_cells, warnings_html
from ..tabulation.tables import columns_markdown

_NET = [w for w in wm.WORKLOADS if catalogue.workload(w)["void_baseline"]]
_PROGRAMS = [w for w in wm.WORKLOADS if catalogue.workload(w)["table"] == "program"]
_RAW = [w for w in wm.WORKLOADS if w not in _NET and w not in _PROGRAMS]
INTRO = ("Net cycles per malloc/free pair and memory overhead of " + ", ".join(_NET) + " are in the Summary table and "
         "the run figures, net of the void baseline like alloc-test.  " +
         (", ".join(_RAW) + " have no void baseline and are not there: their cost is the write slowdown against "
          "private objects below.  " if _RAW else "") +
         ("Real programs (each named by its definition: the shipped prog-*, a programs file's entries, allocstress "
          "bench's --name) have no void baseline either: each has a table of its own figures (wall, user and system "
          "time, peak RSS, faults, and every figure its definition reads from its output) and wall-time figures.  "
          if _PROGRAMS else "") +
         "Each table gives, per allocator and thread count, the medians of the figures the workload's records add.")
PHASE_CAPTION = ("Memory over the phase, first ok repetition of each allocator: RSS growth since before the measured phase "
                 "(top; read by worker 0 every {every} of its ops and in the pauses) and live requested bytes of all "
                 "threads (bottom) against elapsed time.  Shaded in an allocator's colour: its untimed pause after a drop "
                 "(dots: the RSS readings in it); an allocator that returns memory drops its RSS curve there, or already "
                 "during the drop.")


def _phase_figures(groups: list[PhaseGroup], out_dir: str) -> list[str]:
    parts = []
    for g in groups:
        title = f"{g.workload}, {g.threads} thread(s), run {g.run}"
        stem = os.path.join(out_dir, file_stem(g.run, g.workload, f"{g.threads}t", "memory"))
        every = ", ".join(sorted({str(k) for k in g.every.values() if k})) or "N"
        parts.append(figure(phase_plots.plot_phase(g, title, stem), PHASE_CAPTION.format(every=every)))
    return parts


def workload_section(tables: list[wm.WorkloadTable], groups: list[PhaseGroup], out_dir: str, runs=None) -> list[str]:
    """HTML parts of the section (none when `tables` is empty); writes workloads.md (tables, legends
    and columns), workload-<name>.csv and the phase figures into out_dir.  `runs` (loading.Runs):
    the records whose warnings are listed under each workload's table (none: no list)."""
    if not tables:
        return []
    parts = ['<h2 id="workloads">Workloads beyond alloc-test</h2>', f'<p class="legend">{escape(INTRO)}</p>']
    markdown = ["# Workloads beyond alloc-test\n\n" + INTRO + "\n"]
    links = ['<a href="workloads.md">Markdown</a>']
    for t in tables:
        headers, rows = wm.display_rows(t)
        warnings = cell_warnings(runs, [t.workload]) if runs is not None else []
        rows = mark_warned_rows(headers, rows, warned_cells(warnings), t.frame["run"].iloc[0], t.workload)
        csv = f"workload-{file_stem(t.workload)}.csv"
        t.frame.to_csv(os.path.join(out_dir, csv), index=False)
        links.append(f'<a href="{escape(csv)}">{escape(t.workload)} CSV</a>')
        parts += [f"<h3>{escape(t.workload)}</h3>", html_table(headers, rows, left=1 + int(t.frame["run"].nunique() > 1)),
                  f'<p class="legend">{escape(wm.legend(t))}</p>', warnings_html(warnings)]
        parts += _phase_figures([g for g in groups if g.workload == t.workload], out_dir)
        markdown.append(wm.to_markdown(t))
    markdown.append("### Columns\n\n" + columns_markdown(wm.column_docs(tables)))
    with open(os.path.join(out_dir, "workloads.md"), "w") as f:
        f.write("\n".join(markdown))
    parts.append(f'<p class="legend">Tables as files: {", ".join(links)}.</p>')
    return parts


def columns_section(tables: list[wm.WorkloadTable]) -> list[str]:
    """The columns of the workload tables, for the report's Columns section (none without tables)."""
    docs = wm.column_docs(tables)
    if not docs:
        return []
    return ["<h3>Columns of the tables of workloads beyond alloc-test</h3>",
            html_table(["column", "unit", "meaning"], [list(c) for c in docs], left=3)]
