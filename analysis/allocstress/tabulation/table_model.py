"""The display model every rendering of a table is drawn from: columns, and rows of typed cells.

A Cell holds what a reader may be shown about one figure -- its value, the ends of its interval,
whether it is unstable, the verdict word that replaces the number (e.g. "indistinguishable"), or
why it is not available -- and nothing about how it looks.  Markdown and the report's HTML
(`text_rows`), LaTeX (latex_table.py) and CSV (`to_csv_text`) only format cells, never decide
what a cell holds, so the three cannot disagree: a figure that is n/a in one is n/a in all.

Text conventions shared by the renderings: "value [low, high]", a dagger after an unstable
figure, "n/a (a)" with the reason listed under the table as "(a) reason"."""

from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass, field

UNSTABLE_MARK = "†"


@dataclass(frozen=True)
class Cell:
    value: float | str | None = None  # a number, a text, or None: not available (then `na` says why)
    low: float | None = None          # the interval's ends, when the column has an interval
    high: float | None = None
    unstable: bool = False            # the interval of this median is too wide to rank on
    verdict: str = ""                 # a word shown instead of the number ("indistinguishable", "reference")
    na: str = ""                      # why value is None
    label: str = ""                   # rendered instead of a text value ("void (baseline)"); CSV keeps value


@dataclass(frozen=True)
class Column:
    key: str                  # CSV name of the value (a documented column)
    header: str               # the header readers see
    decimals: int | None = None  # None: a text column
    interval: str = ""        # the interval's real method and level, e.g. "order statistics, 95.0%"
    low_key: str = ""         # CSV names of the interval's ends and of the verdict, if any
    high_key: str = ""
    verdict_key: str = ""
    scale: float = 1.0        # shown value = value * scale (a fraction shown as %)
    sets: tuple = ("full",)   # the column sets it is shown in ("compact", "full"); () = CSV only
    extra_keys: tuple = ()    # further CSV columns this column carries (their values in Cell-less `extras`)

    @property
    def is_text(self) -> bool:
        return self.decimals is None

    def number(self, x: float) -> str:
        return "∞" if x == math.inf else f"{x * self.scale:.{self.decimals}f}"

    def csv_keys(self) -> list[str]:
        return [k for k in (self.key, self.low_key, self.high_key, self.verdict_key) if k] + list(self.extra_keys)


@dataclass
class DisplayTable:
    columns: list[Column]
    rows: list[list[Cell]]
    extras: list[dict] = field(default_factory=list)  # per row: values of CSV-only keys (extra_keys)
    legend: str = ""

    def shown(self, column_set: str) -> list[int]:
        """Indexes of the columns of `column_set` ("compact" or "full")."""
        return [i for i, c in enumerate(self.columns) if column_set in c.sets]

    def na_reasons(self, column_set: str) -> dict[str, str]:
        """Each distinct reason of an n/a cell shown in `column_set` -> its letter, in order of appearance."""
        reasons: dict[str, str] = {}
        for row in self.rows:
            for i in self.shown(column_set):
                if row[i].value is None and row[i].na and row[i].na not in reasons:
                    reasons[row[i].na] = "abcdefghijklmnopqrstuvwxyz"[len(reasons) % 26]
        return reasons

    def has_unstable(self, column_set: str) -> bool:
        return any(row[i].unstable for row in self.rows for i in self.shown(column_set))


def cell_parts(cell: Cell, column: Column, letters: dict[str, str]) -> tuple[str, str, str]:
    """(main text, interval text or "", mark) of a cell: the words and numbers every rendering shows."""
    if cell.value is None:
        return "n/a", "", f"({letters[cell.na]})" if cell.na in letters else ""
    if cell.verdict and cell.verdict not in ("faster", "slower", "leaner", "larger"):
        return cell.verdict, "", ""
    if column.is_text:
        return cell.label or str(cell.value), "", ""
    interval = ""
    if cell.low is not None and cell.high is not None and math.isfinite(cell.low) and not math.isnan(cell.high):
        interval = f"[{column.number(cell.low)}, {column.number(cell.high)}]"
    return column.number(cell.value), interval, UNSTABLE_MARK if cell.unstable else ""


def text_rows(model: DisplayTable, column_set: str = "full") -> tuple[list[str], list[list[str]]]:
    """Headers and plain-text cells (Markdown, HTML): "value [low, high]†", "n/a (a)"."""
    idx = model.shown(column_set)
    letters = model.na_reasons(column_set)
    headers = [header_text(model.columns[i]) for i in idx]
    rows = []
    for row in model.rows:
        out = []
        for i in idx:
            main, interval, mark = cell_parts(row[i], model.columns[i], letters)
            text = main + (" " + interval if interval else "")
            out.append(text + (mark if mark == UNSTABLE_MARK else (" " + mark if mark else "")))
        rows.append(out)
    return headers, rows


def header_text(column: Column) -> str:
    return column.header + (f" [{column.interval}]" if column.interval else "")


def notes(model: DisplayTable, column_set: str, unstable_note: str) -> list[str]:
    """The lines under a table: what the dagger means (if any cell has it) and each n/a reason."""
    out = [f"{UNSTABLE_MARK} {unstable_note}"] if model.has_unstable(column_set) else []
    out += [f"({letter}) n/a: {reason}" for reason, letter in model.na_reasons(column_set).items()]
    return out


def to_markdown_text(model: DisplayTable, column_set: str, unstable_note: str) -> str:
    headers, rows = text_rows(model, column_set)
    idx = model.shown(column_set)
    align = ["---" if model.columns[i].is_text else "---:" for i in idx]
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join(align) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    under = notes(model, column_set, unstable_note)
    return "\n".join(lines) + "\n\n" + "".join(f"{n}  \n" for n in under) + ("\n" if under else "") + model.legend + "\n"


def _csv_value(x) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return ""
    return repr(float(x)) if isinstance(x, float) else str(x)


def to_csv_text(model: DisplayTable) -> str:
    """Every column, CSV-only ones included: numbers unformatted (full precision), n/a empty."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([k for c in model.columns for k in c.csv_keys()])
    for row, extras in zip(model.rows, model.extras or [{}] * len(model.rows)):
        line = []
        for cell, column in zip(row, model.columns):
            line.append(_csv_value(cell.value))
            if column.low_key:
                line += [_csv_value(cell.low), _csv_value(cell.high)]
            if column.verdict_key:
                line.append(cell.verdict)
            line += [_csv_value(extras.get(k)) for k in column.extra_keys]
        writer.writerow(line)
    return out.getvalue()
