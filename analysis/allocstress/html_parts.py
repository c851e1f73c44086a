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
