"""LaTeX rendering of a display model (table_model.py) for a paper: a `table` float with caption
and label, booktabs rules, numbers right-aligned in plain `r` columns with a fixed number of
decimals per column (so the decimal points line up; no siunitx), each interval on a second,
smaller line under its value (narrow enough for one column of a two-column paper with the
compact column set), unstable figures and n/a cells marked with footnote symbols explained in a
note under the tabular.  Marks are set with \\rlap so they do not shift the alignment.  Needs
only \\usepackage{booktabs}; the output says so in its first line."""

from __future__ import annotations

import re

from .table_model import UNSTABLE_MARK, Column, DisplayTable, cell_parts

DEFAULT_CAPTION = ("Allocator cost and memory overhead: medians over repetitions, with their intervals "
                   "(second line) and ratios to the system allocator (glibc)")
DEFAULT_LABEL = "tab:allocstress"
SHORT_WORDS = {"indistinguishable": "indist.", "reference": "ref."}  # explained in the note:
WORDS_NOTE = ("indist.: indistinguishable from system (the two medians' intervals overlap: no ranking); "
              "ref.: system itself, the reference")
SHORT_METHODS = {"the two medians' intervals divided (Bonferroni)": "Bonferroni", "interval: ": "",  # in this order
                 "interval of the median (": "", ")": "", "order statistics": "order stat."}

_SPECIAL = {"\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "_": r"\_", "%": r"\%", "&": r"\&", "#": r"\#",
            "$": r"\$", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", UNSTABLE_MARK: r"\dag{}", "±": r"$\pm$", "≥": r"$\geq$",
            "∞": r"$\infty$"}


def escape(text: str) -> str:
    return re.sub(r"[\\{}_%&#$~^†±≥∞]", lambda m: _SPECIAL[m.group(0)], text)  # one pass: no double escaping


def _stack(text: str, align: str) -> str:
    """A header on two lines where it has a space near its middle (\\shortstack is in the kernel)."""
    words = text.split(" ")
    if len(words) < 2:
        return escape(text)
    cut = min(range(1, len(words)), key=lambda i: abs(len(" ".join(words[:i])) - len(" ".join(words[i:]))))
    return rf"\shortstack[{align}]{{{escape(' '.join(words[:cut]))}\\{escape(' '.join(words[cut:]))}}}"


def _interval_header(column: Column) -> str:
    name = column.interval
    for long, short in SHORT_METHODS.items():
        name = name.replace(long, short)
    return rf"{{\scriptsize [{escape(name)}]}}" if column.interval else ""


def _cell(cell, column: Column, letters: dict) -> tuple[str, str]:
    """(first-line text, interval line text) of one cell."""
    main, interval, mark = cell_parts(cell, column, letters)
    main = escape(SHORT_WORDS.get(main, main)) if cell.value is None or cell.verdict or column.is_text else main
    if mark == UNSTABLE_MARK:
        main += r"\rlap{\textsuperscript{\dag}}"
    elif mark:
        main += rf"\rlap{{\textsuperscript{{{mark.strip('()')}}}}}"
    return main, (rf"{{\scriptsize {escape(interval)}}}" if interval else "")


def render(model: DisplayTable, column_set: str, caption: str, label: str, unstable_note: str) -> str:
    idx = model.shown(column_set)
    cols = [model.columns[i] for i in idx]
    letters = model.na_reasons(column_set)
    spec = "".join("l" if c.is_text else "r" for c in cols)
    out = [r"% allocstress table. Needs \usepackage{booktabs} in the preamble.", "% " + escape(model.legend),
           r"\begin{table}[tbp]", r"\centering", r"\footnotesize", rf"\caption{{{escape(caption)}}}",
           rf"\label{{{label}}}", r"\setlength{\tabcolsep}{3pt}", rf"\begin{{tabular}}{{{spec}}}", r"\toprule",
           " & ".join(_stack(c.header, "l" if c.is_text else "r") for c in cols) + r" \\"]
    if any(c.interval for c in cols):
        out.append(" & ".join(_interval_header(c) for c in cols) + r" \\")
    out.append(r"\midrule")
    for row in model.rows:
        parts = [_cell(row[i], model.columns[i], letters) for i in idx]
        out.append(" & ".join(p[0] for p in parts) + r" \\")
        if any(p[1] for p in parts):
            out.append(" & ".join(p[1] for p in parts) + r" \\[2pt]")
    out += [r"\bottomrule", r"\end{tabular}"]
    notes = [rf"\textsuperscript{{\dag}}\,{escape(unstable_note)}"] if model.has_unstable(column_set) else []
    notes += [rf"\textsuperscript{{{letter}}}\,n/a: {escape(reason)}" for reason, letter in letters.items()]
    intervals = "; ".join(f"{escape(c.header)}: {escape(c.interval)}" for c in cols if c.interval)
    notes.append(escape(WORDS_NOTE) + (f". Intervals (second line): {intervals}." if intervals else "."))
    out += [r"\par\smallskip", r"\parbox{\linewidth}{\scriptsize " + r" \\ ".join(notes) + "}", r"\end{table}"]
    return "\n".join(out) + "\n"
