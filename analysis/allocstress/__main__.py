"""Command line of the analysis package (reached as `allocstress report|compare|fidelity ...`):

    report RESULTS... [-o DIR] [--trace TRACE]...
                                 self-contained HTML report + tables (md, tex, csv) + figures;
                                 each --trace adds a section analysing that trace
    compare A.json B.json [--threshold PCT] [--metric M] [--json FILE|-] [--csv FILE]
                                 per cell better / worse / no change of B against A (the ratio's
                                 interval against the threshold), the counts tier exactly, the
                                 geomean, the context differences, the misuse battery's lost and
                                 gained detections; exit 4 when anything is worse (a lost
                                 detection too), 3 when void itself moved (the machine's speed changed)
    compare --gbench-view OUT.json RESULTS.json
                                 the results as Google Benchmark JSON whose real_time is the
                                 headline figure in ns (for Google Benchmark's compare.py)

Bad input (missing, truncated, foreign or wrong-version files, unreadable or corrupt traces; bad
options) ends with one line `allocstress: error: ...` on stderr and exit code 2, before any
output file is written.  Help (`-h`) is in the style of the C++ commands' help."""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys

from .comparison import compare_decision as rule
from .results.catalogue import metric_entries
from .comparison.compare import METRICS
from .results.loading import ResultsError, load_runs
from .tracing.traces import TraceFormatError

HEADLINES = list(dict.fromkeys(m["name"] for m in metric_entries() if m["headline"]))
NAME_WIDTH = 30  # the option column of the C++ commands' help (CLI11)


class OneLineParser(argparse.ArgumentParser):
    """Errors as one line; help as the C++ commands print theirs: a one-line description, usage,
    then every positional and option with what it accepts and its default."""

    def __init__(self, *args, usage_lines=(), **kwargs):
        super().__init__(*args, add_help=False, **kwargs)
        self.usage_lines = list(usage_lines)
        self.add_argument("-h", "--help", action="help", help="Print this help message and exit")

    def error(self, message):
        sys.stderr.write(f"allocstress: error: {self.prog.split()[-1]}: {message} (see --help)\n")
        sys.exit(2)

    def format_help(self) -> str:
        def row(name: str, text: str) -> str:
            return f"  {name:<{NAME_WIDTH - 2}}{text}" if len(name) < NAME_WIDTH - 2 else f"  {name}\n{'':{NAME_WIDTH}}{text}"
        lines = [self.description or "", "Usage: " + ("\n       ".join(self.usage_lines) or self.prog), ""]
        positionals = [a for a in self._actions if not a.option_strings]
        if positionals:
            lines += ["Positionals:"] + [row(a.metavar or a.dest, a.help or "") for a in positionals] + [""]
        lines.append("Options:")
        for a in (a for a in self._actions if a.option_strings):
            takes = a.nargs != 0
            lines.append(row(",".join(a.option_strings) + (f" {a.metavar or a.dest.upper()}" if takes else ""), a.help or ""))
        return "\n".join(lines) + "\n"


def build_parser() -> OneLineParser:
    parser = OneLineParser(prog="allocstress", description="Analysis of allocstress results files")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=OneLineParser)
    rep = sub.add_parser("report", description="HTML report (tables, figures, context) of one or more results files",
                         usage_lines=["allocstress report [OPTIONS] RESULTS.json..."])
    rep.add_argument("results", nargs="+", metavar="RESULTS.json", help="Results files written by allocstress matrix (one or more)")
    rep.add_argument("-o", "--out", default=None, metavar="DIR", help="Output folder (default <first results>-report)")
    rep.add_argument("--trace", action="append", default=[], metavar="TRACE",
                     help="An allocstress trace (.ast) to analyse in its own section (repeatable; default none)")
    cmp = sub.add_parser(
        "compare", description="Compare two results files cell by cell: better / worse / no change of B against A "
                               "beyond a threshold, and the misuse battery's detections lost or gained; "
                               f"exit {rule.EXIT_WORSE} when anything is worse, {rule.EXIT_REFERENCE_MOVED} when void "
                               "itself moved between the runs (the machine's speed changed: rerun both)",
        usage_lines=["allocstress compare [OPTIONS] A.json B.json", "allocstress compare --gbench-view OUT.json RESULTS.json"])
    cmp.add_argument("a", metavar="A.json", help="Baseline results file (A)")
    cmp.add_argument("b", metavar="B.json", nargs="?", default=None,
                     help="Results file compared against A (B); absent with --gbench-view")
    cmp.add_argument("--threshold", default=str(rule.DEFAULT_THRESHOLD_PERCENT), metavar="PCT",
                     help="Effect threshold in percent, e.g. 5 or 5%: worse when the whole interval of B / A lies "
                          f"above 1 + PCT/100, better when below 1 - PCT/100 (accepted: 0 up to 100, 100 excluded; default {rule.DEFAULT_THRESHOLD_PERCENT:g})")
    cmp.add_argument("--metric", default=None, choices=METRICS, metavar="METRIC",
                     help="A metric of the catalogue (`allocstress metrics`) (default: each workload's headline: "
                          + ", ".join(HEADLINES) + ")")
    cmp.add_argument("--json", default=None, metavar="FILE",
                     help="Also write the whole comparison as JSON to FILE; - writes it to stdout instead of the text (default none)")
    cmp.add_argument("--csv", default=None, metavar="FILE", help="Also write the timing cells as CSV to FILE (default none)")
    cmp.add_argument("--gbench-view", default=None, metavar="OUT.json",
                     help="Write one results file as Google Benchmark JSON whose real_time and cpu_time are the headline "
                          "figure in ns (or --metric's), for Google Benchmark's compare.py; - for stdout (default none)")
    fid = sub.add_parser(
        "fidelity", description="Fidelity table: per real program and model, how well the model ranks the allocators as "
                                "the program does (Spearman rho of the medians, speed and memory, with a bootstrap interval)",
        usage_lines=["allocstress fidelity [OPTIONS] RESULTS.json"])
    fid.add_argument("results", metavar="RESULTS.json",
                     help="A results file with real-program records (a program P: prog-P, a programs file's entry, "
                          "bench's --name) and their models (replay:P, ...), e.g. from allocstress programs or bench --trace")
    fid.add_argument("--json", action="store_true", help="Print the table as JSON on stdout instead of the text (default text)")
    fid.add_argument("--model-memory", default="peak_rss_bytes", choices=["peak_rss_bytes", "overhead_ratio"], metavar="METRIC",
                     help="The models' memory figure ranked against the program's peak RSS: peak_rss_bytes (the same "
                          "measurement) or overhead_ratio (leaves out the RSS held before the measured phase) (default peak_rss_bytes)")
    parser.commands = {"report": rep, "compare": cmp, "fidelity": fid}
    return parser


class Outputs:
    """The output files of one command, opened before anything is computed (a bad path fails
    first) and removed again if the command fails: nothing half-written is left behind."""

    def __init__(self, paths):
        self.files = {}
        try:
            for path in paths:
                if path and path != "-":
                    self.files[path] = open(path, "w")
        except OSError:
            self.discard()
            raise

    def write(self, path: str, text: str) -> None:
        if path == "-":
            sys.stdout.write(text)
        else:
            self.files[path].write(text)

    def close(self) -> None:
        for f in self.files.values():
            f.close()

    def discard(self) -> None:
        for path, f in self.files.items():
            f.close()
            os.remove(path)
        self.files = {}


def run_compare(args, parser) -> int:
    from .comparison import compare_result, compare_text, gbench_view
    if args.gbench_view:
        if args.b is not None:
            parser.error("--gbench-view takes one results file (accepted: compare --gbench-view OUT.json RESULTS.json)")
        runs = load_runs([args.a])
        outputs = Outputs([args.gbench_view])
        try:
            view = gbench_view.gbench_view(runs.documents[0], args.a, args.metric)
            outputs.write(args.gbench_view, json.dumps(view, indent=1) + "\n")
        except BaseException:
            outputs.discard()
            raise
        outputs.close()
        return 0
    if args.b is None:
        parser.error("the following arguments are required: B.json (or --gbench-view OUT.json with one results file)")
    try:
        threshold = rule.parse_threshold(args.threshold)
    except ValueError as e:
        parser.error(str(e))
    runs = load_runs([args.a, args.b])
    outputs = Outputs([args.json, args.csv])
    try:
        c = compare_result.compare_loaded(runs, args.metric, threshold)
        if args.json:
            outputs.write(args.json, json.dumps(c.to_dict(), indent=1) + "\n")
        if args.csv:
            outputs.write(args.csv, c.cells.drop(columns=["values"]).to_csv(index=False))
    except BaseException:
        outputs.discard()
        raise
    outputs.close()
    if args.json != "-":
        print(compare_text.render(c), end="")
    return c.exit_status


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.command == "report":
            from .reporting.report import write_report
            out = args.out or os.path.splitext(args.results[0])[0] + "-report"
            index = write_report(args.results, out, "allocstress " + shlex.join(argv), args.trace)
            print(index)
            return 0
        if args.command == "fidelity":
            from .fidelity_study import fidelity, fidelity_text
            table = fidelity.load_fidelity([args.results], args.model_memory)
            print(fidelity_text.to_json(table) if args.json else fidelity_text.to_markdown(table), end="")
            return 0
        return run_compare(args, parser.commands["compare"])
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
