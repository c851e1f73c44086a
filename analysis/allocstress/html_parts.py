"""The HTML pieces the report's sections share: escaping, tables, embedded figures and file
names built from free text."""

from __future__ import annotations

import base64
import html
import os
import re


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


def markdown_lines_html(markdown: str) -> str:
    """The Markdown subset of the C++ verdict (results/verdict.cpp) as HTML: "### " headings are
    dropped (the caller titles the section), "- " lines become a list, other lines paragraphs."""
    parts, items = [], []
    for line in markdown.splitlines():
        if line.startswith("- "):
            items.append(f"<li>{_inline(line[2:])}</li>")
            continue
        if items:
            parts.append("<ul>" + "".join(items) + "</ul>")
            items = []
        if line.strip() and not line.startswith("#"):
            parts.append(f"<p>{_inline(line)}</p>")
    if items:
        parts.append("<ul>" + "".join(items) + "</ul>")
    return "".join(parts)
