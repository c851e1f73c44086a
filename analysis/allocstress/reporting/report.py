"""The HTML report: one self-contained page (styles inline, figures embedded as data URIs) that
opens offline, plus the tables as Markdown, LaTeX and CSV and the figures as PNG and SVG beside
it.  It opens with the verdict, states the uncertainty (intervals named with their level and
method, CV, significance), every per-cell warning under the table showing the cell, the machine
and its warnings, and the exact command lines.  The figures are figure_sections.py's; the counts tier's
tables are the C++ ones (results/tables/mode_tables.cpp).  The workloads beyond alloc-test get their metrics
tables and, for the memory phases, RSS over time (workload_sections.py).  Replay records'
allocstats series are drawn as memory over the trace, and their heap maps (replay --heap-map) as
time x address images; traces given with --trace get a section of their own (summary, sizes,
threads, live bytes, lifetimes).  Results with real-program records (a program workload P) get the fidelity
table: how well each model ranks the allocators as the program does.  Results with a `safety` section (the
misuse battery: `allocstress misuse`, `matrix --misuse`) get the Safety section (safety_section.py);
a file of the battery alone (no benchmark records) gets that section, its verdict and its machine, and
the sections drawn from benchmark records say there are none.  Non-conforming allocators (safety.py)
are marked in the summary table and left out of its ranking (the geometric means)."""

from __future__ import annotations

import json
import os

import pandas as pd

import allocstress._core as _core
from ..fidelity_study import fidelity
from ..results import profiles, safety
from ..results.loading import Runs, load_runs
from ..stats import geomean
from ..tabulation import phase_series, structures, tables, workload_metrics
from ..tracing import traces
from . import fidelity_section, figure_sections, memory_timelines, report_folder, safety_section, soak_timelines, trace_sections
from . import workload_sections
from .html_parts import escape as _e, html_table as _html_table
from .html_parts import cell_warnings, mark_nonconforming_rows, mark_warned_rows, markdown_lines_html, nonconforming_note
from .html_parts import warned_cells, warnings_html

STYLE = """
body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:2em auto;max-width:1200px;color:#222;padding:0 1em}
h1{font-size:1.6em}h2{margin-top:2em;border-bottom:1px solid #ccc}h3{margin-top:1.4em}
table{border-collapse:collapse;font-size:.86em;margin:.6em 0}th,td{border:1px solid #ccc;padding:3px 7px;text-align:right}
th{background:#f0f0f0}td.l,th.l{text-align:left}.warn{background:#fff4e0;border-left:4px solid #e0a000;padding:.4em 1em}
code,pre{background:#f6f6f6;font-size:.85em}pre{padding:.6em;overflow-x:auto}figure{margin:1em 0}
figcaption{font-size:.85em;color:#555}.legend{font-size:.85em;color:#444}img{max-width:100%}
""" + safety_section.STYLE + "\n"


def _machine_rows(ctx: dict) -> list[list[str]]:
    caches = ", ".join(f"L{c['level']} {c['type']} {c['size'] // 1024} KiB" for c in ctx.get("caches", []))
    counters = "available" if ctx.get("hw_counters_available") else f"n/a: {ctx.get('hw_counters_reason')}"
    keys = [("date", ctx.get("date")), ("host", ctx.get("host_name")), ("CPU", ctx.get("cpu_model")),
            ("PUs", ctx.get("num_cpus")), ("caches", caches), ("kernel", ctx.get("kernel")),
            ("THP", f"{ctx.get('thp_mode')} (defrag {ctx.get('thp_defrag')})"), ("governor", ctx.get("governor")),
            ("hardware counters", counters), ("cycle counter", f"{ctx.get('cycle_counter')} (invariant: {ctx.get('tsc_invariant')})"),
            ("build", f"{ctx.get('build_type')} ({ctx.get('library_build_type')}), {ctx.get('compiler')}"),
            ("allocstress", f"{ctx.get('allocstress_version')} at commit {ctx.get('git_commit')}"),
            ("load average (1 min)", ctx.get("load_avg_1min"))]
    return [[k, str(v)] for k, v in keys]


def _run_section(runs: Runs, run: str, shown_workloads: set) -> str:
    """Machine, warnings, commands of one run; the warnings of its cells whose workload no table
    above shows (`shown_workloads`: those that have their warnings under a table)."""
    ctx = runs.context(run)
    parts = [f"<h2>Run {_e(run)}</h2>", "<h3>Machine</h3>", _html_table(["", "value"], _machine_rows(ctx), left=2)]
    warnings = list(ctx.get("warnings", []))
    cells = runs.cells[runs.cells["run"] == run]
    bad = cells[cells["status"] != "ok"]
    # One warning line per allocator, thread count and status: its failed cells of every workload and mode together.
    for (allocator, threads, status), g in bad.groupby(["allocator", "threads", "status"], sort=False):
        reason = g["reason"].dropna()
        warnings.append(f"{allocator} at {threads} threads: {len(g)} cell(s) {status}: "
                        f"{reason.iloc[0] if len(reason) else '(no reason recorded)'}")
    if warnings:
        parts.append('<h3>Warnings</h3><div class="warn"><ul>' + "".join(f"<li>{_e(w)}</li>" for w in warnings) + "</ul></div>")
    others = set(cells["workload"]) - set(shown_workloads)
    if others:
        parts.append(warnings_html(cell_warnings(runs, others, run), "Warnings of cells not in a table above"))
    commands = [("matrix" if "plan" in ctx else "command", ctx.get("command_line", "(not recorded)"))]
    if "resumed" in ctx:
        commands.append(("resumed with", ctx["resumed"]["command_line"]))
    recorded = cells[(cells["allocator"] != tables.BASELINE) & cells["command"].notna()]
    if len(recorded):
        first = recorded.iloc[0]
        commands.append((f"one cell by hand, exactly as the matrix ran it ({first['allocator']}, {first['threads']} "
                         "threads; a drop-in allocator re-executes itself with LD_PRELOAD)", first["command"]))
    parts.append("<h3>Commands</h3>" + "".join(f"<p>{_e(label)}:</p><pre>{_e(cmd)}</pre>" for label, cmd in commands))
    return "\n".join(parts)


def _alloc_test_summary(table: pd.DataFrame, runs: Runs, out_dir: str) -> list[str]:
    """The alloc-test comparison table (net of the void baseline), its geometric means and files."""
    with open(os.path.join(out_dir, "summary.md"), "w") as f:
        f.write(tables.to_markdown(table) + "\n" + tables.nonconforming_markdown(table) + tables.geomean_markdown(table) + "\n"
                + tables.columns_markdown())
    with open(os.path.join(out_dir, "summary.tex"), "w") as f:
        f.write(tables.to_latex(table))
    with open(os.path.join(out_dir, "summary.csv"), "w") as f:
        f.write(tables.to_csv(table))
    headers, rows = tables.display_rows(table)
    warnings = cell_warnings(runs, set(table["workload"]))
    rows = mark_warned_rows(headers, rows, warned_cells(warnings), table["run"].iloc[0], table["workload"].iloc[0])
    nonconforming = table.attrs.get("nonconforming", {})
    rows = mark_nonconforming_rows(headers, rows, nonconforming, table["run"].iloc[0])
    geo = tables.geomean_table(table)
    geo_headers, geo_rows = geomean.geomean_rows(geo, tables.REFERENCE)
    notes = tables.table_warnings(table)
    body = ["<h2>Summary</h2>", _html_table(headers, rows, left=tables.leading_text_columns(table)),
            f'<p class="legend">{_e(tables.LEGEND)}</p>', nonconforming_note(nonconforming, set(table["run"])),
            warnings_html(warnings)]
    if notes:
        body.append('<div class="warn"><ul>' + "".join(f"<li>{_e(n)}</li>" for n in notes) + "</ul></div>")
    body += ["<h3>Geometric mean over workloads and thread counts</h3>",
             _html_table(geo_headers, geo_rows, left=2),
             '<p class="legend">' + _e(" ".join(["Cheapest first; each allocator averaged over the same cells."] +
                                               ["Left out: " + x for x in geo.attrs.get("left_out", [])])) + "</p>",
             '<p class="legend">Tables as files: <a href="summary.md">Markdown</a>, <a href="summary.tex">LaTeX</a>, '
             '<a href="summary.csv">CSV</a>.</p>']
    return body


def _structure_sections(runs: Runs, table: pd.DataFrame, out_dir: str) -> list[str]:
    """The data-structure table (`table`, structures.structure_table of `runs`) and the Gleipnir-style
    simulated-cache table, when the runs have them."""
    if table.empty:
        return []
    headers, rows = structures.structure_display(table)
    parts = ["<h2>Data-structure workloads: placement and traversal</h2>", _html_table(headers, rows, left=3),
             f'<p class="legend">{_e(structures.STRUCTURE_LEGEND)}</p>']
    markdown = structures.to_markdown(headers, rows, structures.STRUCTURE_LEGEND)
    table.to_csv(os.path.join(out_dir, "structures.csv"), index=False)
    sims = structures.cache_sim_table(runs, table)
    if not sims.empty:
        sh, sr = structures.sim_display(sims)
        legend = " ".join([structures.SIM_LEGEND] + structures.hardware_notes(sims))
        parts += ["<h3>Simulated caches of the search phase (Gleipnir-style)</h3>", _html_table(sh, sr, left=3),
                  f'<p class="legend">{_e(legend)}</p>']
        markdown += "\n" + structures.to_markdown(sh, sr, legend)
        sims.to_csv(os.path.join(out_dir, "cache-sim.csv"), index=False)
    with open(os.path.join(out_dir, "structures.md"), "w") as f:
        f.write(markdown)
    parts.append('<p class="legend">As files: <a href="structures.md">Markdown</a>, <a href="structures.csv">CSV</a>'
                 + (', <a href="cache-sim.csv">simulated caches CSV</a>' if not sims.empty else "") + ".</p>")
    return parts


def _markdown_sections(runs: Runs, render, title: str) -> list[str]:
    """Tables the C++ renders as Markdown (render: a _core function of a results document's JSON
    text), one run after another under `title`: the same text as the .md table's, so the two
    cannot disagree."""
    parts = []
    for run, doc in zip(runs.run_names(), runs.documents):
        text = render(json.dumps(doc))
        if text:
            parts.append(f"<h2>{title}" + (f" ({_e(run)})" if len(runs.documents) > 1 else "") + "</h2>" + markdown_lines_html(text))
    return parts


def _counts_sections(runs: Runs) -> list[str]:
    """The counts tier's tables (results/tables/mode_tables.cpp)."""
    return _markdown_sections(runs, _core.counts_markdown, "Counts tier: a model of the clock, the same on every run")


def _memory_sections(runs: Runs) -> list[str]:
    """The memory tables (results/tables/memory_tables.cpp): outcomes under a memory limit, the ageing penalty, the THP
    modes, the soak cells."""
    return _markdown_sections(runs, _core.memory_markdown, "Memory beside speed")


def _profile_sections(runs: Runs) -> list[str]:
    """Latency by class, system calls and memory breakdown of the profile runs, if any."""
    records = profiles.profile_records(runs)
    if not records:
        return []
    sh, sr = profiles.syscall_rows(records)
    mh, mr = profiles.memory_rows(records)
    return ["<h2>Profile runs (separate from the timing runs)</h2>",
            "<h3>Latency by class</h3>", _html_table(profiles.LATENCY_HEADERS, profiles.latency_rows(records), left=7),
            "<h3>Memory system calls in the measured phase</h3>", _html_table(sh, sr, left=2),
            "<h3>Memory breakdown at the end of the loop (MiB)</h3>", _html_table(mh, mr, left=2),
            f'<p class="legend">{_e(profiles.LEGEND)}</p>']


NO_RECORDS = ("No timing records: these results have no benchmark records (a file of the misuse battery alone, "
              "`allocstress misuse`), so there are no timing tables or figures.")


def write_report(paths: list[str], out_dir: str, command_line: str, trace_paths: list[str] | tuple = ()) -> str:
    """Writes index.html and the table/figure files into out_dir; returns index.html's path.
    `trace_paths`: traces to analyse in sections of their own.  Every input is read before
    anything is written, so a bad results file or trace leaves no report folder behind
    (ResultsError, traces.TraceFormatError, OSError).  The files are written into a temporary
    folder beside out_dir (OUT_DIR.partial-XXXX), which replaces out_dir when it is whole: a
    failure on the way (a full disk: OSError) removes it, and leaves an earlier report in out_dir
    as it was."""
    runs = load_runs(paths)
    safety.sections(runs)  # a damaged safety section fails here too
    records = not runs.cells.empty  # a file of the misuse battery alone has none
    loaded_traces = [traces.load_trace(p) for p in trace_paths]
    # malformed allocstats or phase series, or workload_metrics, fail here: before any file is written
    replay_groups = traces.allocstats_groups(runs)
    workload_tables = workload_metrics.workload_tables(runs)
    phase_groups = phase_series.phase_groups(runs)
    fidelity_table = fidelity.fidelity_table(runs) if fidelity_section.has_programs(runs) else None
    with report_folder.whole_folder(out_dir) as work:
        _write_files(paths, work, command_line, runs, records, loaded_traces, replay_groups, workload_tables, phase_groups, fidelity_table)
    return os.path.join(out_dir, "index.html")


def _write_files(paths: list[str], out_dir: str, command_line: str, runs: Runs, records: bool, loaded_traces: list, replay_groups: list,
                 workload_tables: list, phase_groups: list, fidelity_table) -> None:
    """Writes index.html and every table and figure of the report into out_dir."""
    table = tables.summary_table(runs)
    structure_table = structures.structure_table(runs)
    body = [f"<h1>allocstress report</h1><p>{len(paths)} results file(s): " + ", ".join(f"<code>{_e(p)}</code>" for p in paths) +
            f"</p><p>Report command:</p><pre>{_e(command_line)}</pre>"]
    for run, doc in zip(runs.run_names(), runs.documents):  # the verdict first: the same text as the .md table's
        verdict = _core.verdict_markdown(json.dumps(doc))
        if verdict:
            title = "Verdict" + (f": {_e(run)}" if len(paths) > 1 else "")
            body.append(f"<h2>{title}</h2>" + markdown_lines_html(verdict))
    if not records:
        body.append(f"<p>{_e(NO_RECORDS)}</p>")
    if not table.empty:  # alloc-test cells (files with only data-structure cells have none)
        body += _alloc_test_summary(table, runs, out_dir)
    body += safety_section.safety_section(runs, out_dir)
    if records:  # the sections drawn from benchmark records
        body += figure_sections.figures_section(runs, out_dir)
        body += _structure_sections(runs, structure_table, out_dir)
        body += workload_sections.workload_section(workload_tables, phase_groups, out_dir, runs)
        body += _counts_sections(runs)
        body += _memory_sections(runs)
        # RSS and hugepage coverage over the phase, then per bin over the soaks
        body += memory_timelines.timelines_section(runs, out_dir, soak_timelines.soak_parts(runs, out_dir))
        body += fidelity_section.fidelity_section(fidelity_table, out_dir)
        body += _profile_sections(runs)
        body += trace_sections.replay_sections(replay_groups, out_dir)
    for number, trace in enumerate(loaded_traces, 1):
        body += trace_sections.trace_section(number, trace, replay_groups, out_dir)
    shown = set(table["workload"]) | {t.workload for t in workload_tables}
    for run in runs.run_names():
        body.append(_run_section(runs, run, shown))
    documented = (tables.COLUMNS if not table.empty else []) + (
        structures.STRUCTURE_COLUMNS + structures.SIM_COLUMNS if not structure_table.empty else [])
    if documented:
        body.append("<h2>Columns</h2>" + _html_table(["column", "unit", "meaning"], [list(c) for c in documented], left=3))
    body += workload_sections.columns_section(workload_tables)
    if fidelity_table is not None:
        body += ["<h3>Columns of the fidelity table (fidelity.csv)</h3>",
                 _html_table(["column", "unit", "meaning"], [list(c) for c in fidelity.COLUMNS], left=3)]
    page = (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>allocstress report</title>'
            f"<style>{STYLE}</style></head><body>" + "\n".join(body) + "</body></html>\n")
    with open(os.path.join(out_dir, "index.html"), "w") as f:
        f.write(page)
