"""The HTML report: one self-contained page (styles inline, figures embedded as data URIs) that
opens offline, plus the tables as Markdown, LaTeX and CSV and the figures as PNG and SVG beside
it.  It states the uncertainty (CIs, CV, significance), the machine and its warnings, and the
exact command lines that produced the figures."""

from __future__ import annotations

import base64
import html
import os

import pandas as pd

from . import plots, profiles, structures, tables
from .loading import Runs, load

STYLE = """
body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:2em auto;max-width:1200px;color:#222;padding:0 1em}
h1{font-size:1.6em}h2{margin-top:2em;border-bottom:1px solid #ccc}h3{margin-top:1.4em}
table{border-collapse:collapse;font-size:.86em;margin:.6em 0}th,td{border:1px solid #ccc;padding:3px 7px;text-align:right}
th{background:#f0f0f0}td.l,th.l{text-align:left}.warn{background:#fff4e0;border-left:4px solid #e0a000;padding:.4em 1em}
code,pre{background:#f6f6f6;font-size:.85em}pre{padding:.6em;overflow-x:auto}figure{margin:1em 0}
figcaption{font-size:.85em;color:#555}.legend{font-size:.85em;color:#444}img{max-width:100%}
"""


def _e(x) -> str:
    return html.escape(str(x))


def _html_table(headers: list[str], rows: list[list[str]], left: int = 1) -> str:
    head = "".join(f'<th class="l">{_e(h)}</th>' if i < left else f"<th>{_e(h)}</th>" for i, h in enumerate(headers))
    body = "".join("<tr>" + "".join(f'<td class="l">{_e(c)}</td>' if i < left else f"<td>{_e(c)}</td>"
                                   for i, c in enumerate(r)) + "</tr>" for r in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _embedded_png(path: str) -> str:
    with open(path, "rb") as f:
        return "data:image/png;base64," + base64.b64encode(f.read()).decode("ascii")


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


def _run_section(runs: Runs, run: str, table: pd.DataFrame, out_dir: str) -> str:
    ctx = runs.context(run)
    parts = [f"<h2>Run {_e(run)}</h2>", "<h3>Machine</h3>", _html_table(["", "value"], _machine_rows(ctx), left=2)]
    warnings = list(ctx.get("warnings", []))
    cells = runs.cells[runs.cells["run"] == run]
    bad = cells[cells["status"] != "ok"]
    for (allocator, threads, status), g in bad.groupby(["allocator", "threads", "status"], sort=False):
        reason = g["reason"].dropna()
        warnings.append(f"{allocator} at {threads} threads: {len(g)} cell(s) {status}: "
                        f"{reason.iloc[0] if len(reason) else '(no reason recorded)'}")
    if warnings:
        parts.append('<h3>Warnings</h3><div class="warn"><ul>' + "".join(f"<li>{_e(w)}</li>" for w in warnings) + "</ul></div>")
    commands = [("matrix", ctx.get("command_line", "(not recorded)"))]
    if "resumed" in ctx:
        commands.append(("resumed with", ctx["resumed"]["command_line"]))
    recorded = cells[(cells["allocator"] != tables.BASELINE) & cells["command"].notna()]
    if len(recorded):
        first = recorded.iloc[0]
        commands.append((f"one cell by hand, exactly as the matrix ran it ({first['allocator']}, {first['threads']} "
                         "threads; a drop-in allocator re-executes itself with LD_PRELOAD)", first["command"]))
    parts.append("<h3>Commands</h3>" + "".join(f"<p>{_e(label)}:</p><pre>{_e(cmd)}</pre>" for label, cmd in commands))
    for workload in table[table["run"] == run]["workload"].unique():
        for plot, caption in ((plots.plot_net_cycles, "Allocator cost: median net TSC cycles per malloc/free pair; "
                               "bands are 95% bootstrap CIs of the median."),
                              (plots.plot_overhead, "Memory overhead: median (peak RSS - RSS before) / peak live bytes.")):
            png = plot(table, run, workload, out_dir)
            svg = os.path.basename(png[:-4] + ".svg")
            parts.append(f'<figure><img src="{_embedded_png(png)}" alt="{_e(caption)}">'
                         f'<figcaption>{_e(workload)}: {_e(caption)} (<a href="{_e(svg)}">SVG</a>)</figcaption></figure>')
    return "\n".join(parts)


def _alloc_test_summary(table: pd.DataFrame, out_dir: str) -> list[str]:
    """The alloc-test comparison table (net of the void baseline), its geometric means and files."""
    with open(os.path.join(out_dir, "summary.md"), "w") as f:
        f.write(tables.to_markdown(table) + "\n" + tables.columns_markdown())
    with open(os.path.join(out_dir, "summary.tex"), "w") as f:
        f.write(tables.to_latex(table))
    with open(os.path.join(out_dir, "summary.csv"), "w") as f:
        f.write(tables.to_csv(table))
    headers, rows = tables.display_rows(table)
    geo = tables.geomean_table(table)
    geo_rows = [[r.run, r.allocator, str(r.rows), f"{r.geomean_speed_vs_system:.2f}", f"{r.geomean_overhead_vs_system:.2f}"]
                for r in geo.itertuples()]
    notes = tables.table_warnings(table)
    body = ["<h2>Summary</h2>", _html_table(headers, rows, left=tables.leading_text_columns(table)),
            f'<p class="legend">{_e(tables.LEGEND)}</p>']
    if notes:
        body.append('<div class="warn"><ul>' + "".join(f"<li>{_e(n)}</li>" for n in notes) + "</ul></div>")
    body += ["<h3>Geometric mean over workloads and thread counts</h3>",
             _html_table(["run", "allocator", "rows", "speed vs system", "overhead vs system"], geo_rows, left=2),
             '<p class="legend">Tables as files: <a href="summary.md">Markdown</a>, <a href="summary.tex">LaTeX</a>, '
             '<a href="summary.csv">CSV</a>.</p>']
    return body


def _structure_sections(runs: Runs, out_dir: str) -> list[str]:
    """The data-structure table and the Gleipnir-style simulated-cache table, when the runs have them."""
    table = structures.structure_table(runs)
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


def write_report(paths: list[str], out_dir: str, command_line: str) -> str:
    """Writes index.html and the table/figure files into out_dir; returns index.html's path."""
    runs = load(paths)
    os.makedirs(out_dir, exist_ok=True)
    table = tables.summary_table(runs)
    body = [f"<h1>allocstress report</h1><p>{len(paths)} results file(s): " + ", ".join(f"<code>{_e(p)}</code>" for p in paths) +
            f"</p><p>Report command:</p><pre>{_e(command_line)}</pre>"]
    if not table.empty:  # alloc-test cells (files with only data-structure cells have none)
        body += _alloc_test_summary(table, out_dir)
    body += _structure_sections(runs, out_dir)
    body += _profile_sections(runs)
    for run in runs.run_names():
        body.append(_run_section(runs, run, table, out_dir))
    documented = (tables.COLUMNS if not table.empty else []) + (
        structures.STRUCTURE_COLUMNS + structures.SIM_COLUMNS if not structures.structure_table(runs).empty else [])
    body.append("<h2>Columns</h2>" + _html_table(["column", "unit", "meaning"], [list(c) for c in documented], left=3))
    page = (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>allocstress report</title>'
            f"<style>{STYLE}</style></head><body>" + "\n".join(body) + "</body></html>\n")
    index = os.path.join(out_dir, "index.html")
    tmp = index + ".tmp"
    with open(tmp, "w") as f:
        f.write(page)
    os.replace(tmp, index)
    return index
