"""Command line of the analysis package (reached as `allocstress report|compare ...`):

    report RESULTS... [-o DIR] [--trace TRACE]...
                                 self-contained HTML report + tables (md, tex, csv) + figures;
                                 each --trace adds a section analysing that trace
    compare A.json B.json        per-cell ratio B/A with CI and significance, geomean summary

Bad input (missing, truncated, foreign or wrong-version files, unreadable or corrupt traces; bad
options) ends with one line `allocstress: error: ...` on stderr and exit code 2, before any
report file is written."""

from __future__ import annotations

import argparse
import os
import shlex
import sys

from .catalogue import metric_entries
from .compare import METRICS
from .loading import ResultsError, load_runs
from .traces import TraceFormatError


HEADLINES = list(dict.fromkeys(m["name"] for m in metric_entries() if m["headline"]))


class OneLineParser(argparse.ArgumentParser):
    def error(self, message):
        sys.stderr.write(f"allocstress: error: {self.prog.split()[-1]}: {message} (see --help)\n")
        sys.exit(2)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = OneLineParser(prog="allocstress", description="Analysis of allocstress results files")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=OneLineParser)
    rep = sub.add_parser("report", help="HTML report of one or more results files")
    rep.add_argument("results", nargs="+", help="results files (*.json) written by allocstress matrix")
    rep.add_argument("-o", "--out", default=None, help="output folder (default: <first results>-report)")
    rep.add_argument("--trace", action="append", default=[], metavar="TRACE",
                     help="an allocstress trace to analyse in the report (repeatable)")
    cmp = sub.add_parser("compare", help="compare two results files cell by cell")
    cmp.add_argument("a", help="baseline results file (A)")
    cmp.add_argument("b", help="results file compared against A (B)")
    cmp.add_argument("--metric", default=None, choices=METRICS, metavar="METRIC",
                     help="a metric of the catalogue (`allocstress metrics`); default: each workload's headline "
                          "metric (" + ", ".join(HEADLINES) + ")")
    cmp.add_argument("--csv", default=None, help="also write the comparison as CSV to this file")
    args = parser.parse_args(argv)
    try:
        if args.command == "report":
            from .report import write_report
            out = args.out or os.path.splitext(args.results[0])[0] + "-report"
            index = write_report(args.results, out, "allocstress " + shlex.join(argv), args.trace)
            print(index)
            return 0
        from . import compare
        runs = load_runs([args.a, args.b])
        csv = open(args.csv, "w") if args.csv else None  # fail on a bad path before printing anything
        table = compare.compare_runs(runs, args.metric)
        print(compare.report_text(runs, table, args.metric), end="")
        if csv:
            with csv:
                table.drop(columns=["values"]).to_csv(csv, index=False)
        return 0
    except (ResultsError, TraceFormatError) as e:
        sys.stderr.write(f"allocstress: error: {e}\n")
        return 2
    except OSError as e:
        detail = f"{e.filename}: {e.strerror}" if e.filename and e.strerror else str(e)
        sys.stderr.write(f"allocstress: error: {detail}\n")
        return 2
    except Exception as e:  # a last resort: one line, never a bare traceback
        sys.stderr.write(f"allocstress: error: {args.command} failed: {type(e).__name__}: {e}\n")
        return 1


if __name__ == "__main__":
    sys.exit(main())
