"""Regenerate tables and figures from judged results.

    python -m analysis.run omibench.T2            # one table, printed beside the paper's (--quiet: its path only)
    python -m analysis.run --all                  # everything that has inputs; says what lacks them
    python -m analysis.run --list                 # the table ids
    python -m analysis.run omibench.T2 --report   # and the whole report: every table as it is now, item browsers
    python -m analysis.run findings [omibench]    # the papers' findings checked against the tables as written

Each table is a module analysis/<benchmark>/<table>.py named by the ids it makes (analysis/__init__.py),
with `IDS` (those ids) and `build(table_id, ctx) -> Table`; it writes results/tables/<id>.csv,
.provenance.json and .md, figures to figures/<id>.png. Figures are drawn by worker processes while the next
tables are built (analysis/background.py); a table is written once its figures are. A table that cannot be built
is said in one line and the others are built; the report is made by analysis/whole_report.py.
"""
from __future__ import annotations

import argparse
import importlib
import logging
import os
import pkgutil
import sys
import time
from pathlib import Path
from types import ModuleType

from analysis import findings, gaps, labels, up_to_date, whole_report
from analysis.background import figures_in_background
from analysis.inputs import find_runs
from analysis.plot import draw
from analysis.read_ahead import read_ahead
from analysis.report import Outcome
from analysis.table_experiments import RUNS_OF, how_to_run, nearest, tables_reading
from analysis.table import Context, MissingDataFile, MissingInputs, relative, terminal, write
from analysis.unreadable import DATA_PROBLEMS, one_line
from infer import layout
from data.benchmarks import BENCHMARKS, get as benchmark

log = logging.getLogger(__name__)
FINDINGS = "findings"  # `analysis.run findings [bench …]`: the papers' findings checked, not a table id


def registry() -> dict[str, ModuleType]:
    """Table id → the module that builds it: the modules of analysis/<benchmark>/ that define IDS (the others
    are the helpers that paper's tables share)."""
    found: dict[str, ModuleType] = {}
    for bench in BENCHMARKS:
        package = importlib.import_module(benchmark(bench).module_of("tables"))
        for info in pkgutil.iter_modules(package.__path__):
            module = importlib.import_module(f"{package.__name__}.{info.name}")
            for table_id in getattr(module, "IDS", ()):
                found[table_id] = module
    return dict(sorted(found.items()))


def draws_figures(module: ModuleType) -> bool:
    """Whether a table module may hand figures to analysis.plot.draw, itself or through analysis.labels (used
    only to build it early)."""
    return any(value is draw or value is labels for value in vars(module).values())


def build_one(table_id: str, ctx: Context, modules: dict[str, ModuleType]) -> Outcome:
    """Build and write one table."""
    return written(table_id, ctx, build(table_id, ctx, modules))


def build(table_id: str, ctx: Context, modules: dict[str, ModuleType]) -> Outcome:
    """Build one table, not yet written. What its readers could not count (analysis/gaps.py: a run whose raw file
    is gone) goes into its notes, or into its message when it has nothing to read; a file it cannot read is its
    error, in one line naming the file and line (analysis/unreadable.py), and the other tables are still built."""
    with gaps.collecting() as said:
        try:
            table = modules[table_id].build(table_id, ctx)
        except MissingInputs as e:
            return Outcome("missing", relative("; ".join([str(e), *gaps.lines(said)]), ctx.results))
        except MissingDataFile as e:  # its runs are there, their data file is not: not a table never run
            return Outcome("missing", relative("; ".join([str(e), *gaps.lines(said)]), ctx.results), broken=True)
        except DATA_PROBLEMS as e:  # the data's problem, not the code's: no traceback
            return Outcome("error", relative(one_line(e), ctx.results))
        except Exception as e:  # a broken table: said per table, with its traceback in the log
            log.exception("%s failed", table_id)
            return Outcome("error", relative(one_line(e), ctx.results))
    table.notes += [line for line in gaps.lines(said) if line not in table.notes]
    return Outcome("ok", "", table)


def written(table_id: str, ctx: Context, built: Outcome, figure_error: str | None = None) -> Outcome:
    """Write a built table; a table whose figure could not be drawn is an error, not written (a table that
    was not built keeps its own outcome: what stopped it comes first)."""
    if built.state != "ok":
        return built
    if figure_error:
        log.error("%s failed: %s", table_id, figure_error)
        return Outcome("error", figure_error)
    try:  # its provenance reads the runs' manifests again
        _, md = write(table_id, built.table, ctx.results)
    except DATA_PROBLEMS as e:
        return Outcome("error", relative(one_line(e), ctx.results))
    return Outcome("ok", layout.printed(md), built.table)


def unknown_id(name: str, modules: dict[str, ModuleType]) -> str:
    """The error line for an id that names no table: the experiment's tables, or the nearest ids."""
    if tables := [t for t in tables_reading(name) if t in modules]:
        hint = f"; {name} is an experiment, whose runs the tables {', '.join(tables)} read"
    else:
        hint = f"; did you mean {' or '.join(close)}?" if (close := nearest(name, modules)) else ""
    return f"error: unknown table id {name!r}{hint} (python -m analysis.run --list)"


def how_to_make(table_id: str, o: Outcome) -> str:
    """For a table missing its runs: the command that makes them (how_to_run), unless its message says it."""
    if o.state != "missing" or o.broken or not RUNS_OF.get(table_id) or "pipeline.experiments" in o.message:
        return ""
    return f"; {how_to_run(table_id)}"


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="python -m analysis.run", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("ids", nargs="*", metavar="ID", help="table ids (--list), exact, case included; or `findings` "
                    "[bench …]: the papers' findings checked against the tables written under --results")
    ap.add_argument("--all", action="store_true", help="every table, one line each")
    ap.add_argument("--list", action="store_true", help="print the table ids")
    ap.add_argument("--quiet", action="store_true", help="print only the line saying what was written")
    ap.add_argument("--results", type=Path, default=Context.results)
    ap.add_argument("--figures", type=Path, default=Context.figures)
    ap.add_argument("--report", action="store_true",
                    help="also write results/report.md, report.html (every table as it is now, not only those "
                         "asked for) and the item browser of every run (results/browse/)")
    return ap.parse_args(argv)


def build_tables(ids: list[str], ctx: Context, modules: dict[str, ModuleType], shown_ids: set[str],
                 args: argparse.Namespace) -> dict[str, Outcome]:
    """Build and write the tables `ids`, printing a line for each of `shown_ids` (with the table unless --all or
    --quiet) and for any other that is an error."""
    built, seconds, outcomes = {}, {}, {}
    with figures_in_background() as figures:  # drawn on the other cores while the next tables are built
        if len(ids) > 1:  # the runs their benchmarks' tables read, on every core first
            read_ahead([r for bench in dict.fromkeys(i.split(".")[0] for i in ids)
                        for r in find_runs(ctx.results, bench)])
        # the tables that draw first, so that their figures are drawn while the others are built
        for table_id in sorted(ids, key=lambda t: not draws_figures(modules[t])) if figures else ids:
            start = time.perf_counter()
            if figures:
                figures.owner = table_id
            built[table_id] = build(table_id, ctx, modules)
            seconds[table_id] = time.perf_counter() - start
        for table_id in ids:  # each as soon as its figures are done, while the last ones are drawn
            figure_error = figures.finish(table_id) if figures else None
            o = outcomes[table_id] = written(table_id, ctx, built[table_id], figure_error)
            if table_id not in shown_ids and o.state != "error":
                continue
            hint = "" if args.all else how_to_make(table_id, o)
            said = o.message if o.state == "ok" else relative(o.message, ctx.results)  # ok: the .md, as printed
            print(f"{table_id}: {o.state}: {said}{hint} ({seconds[table_id]:.2f}s)")
            if o.table is not None and not args.all and not args.quiet:
                print(f"\n{terminal(o.table)}\n")
            for line in gaps.said_in(o.table.notes) if o.table is not None else ():  # the .md has every note
                print(f"{table_id}: note: {line}")
    return outcomes


def print_findings(benches: list[str], results: Path) -> int:
    """`findings [bench …]`: each finding of the papers named (all by default) checked against the tables under
    `results` as they are (build them first: --all), as the report's Findings part says it."""
    known = findings.papers()
    unknown = [b for b in benches if b not in known]
    if unknown:
        print(f"error: no findings of {', '.join(unknown)}; papers: {', '.join(known)}", file=sys.stderr)
        return 2
    checks = findings.check_all(results, tuple(benches) or None)
    print(findings.terminal(checks))
    print(f"findings: {', '.join(f'{n} {v}' for v, n in findings.counts(checks).items())} "
          f"(tables read from {relative(str(layout.tables_dir(results)), results)})")
    return 0


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    args = parse_args(argv)
    if args.ids[:1] == [FINDINGS]:
        return print_findings(args.ids[1:], args.results)
    modules = registry()
    if args.list:
        print("\n".join(modules))
        return 0
    ids = list(modules) if args.all else args.ids
    unknown = [unknown_id(i, modules) for i in ids if i not in modules]
    if unknown or not ids:
        print("\n".join(unknown) or "error: give table ids, --all or --list", file=sys.stderr)
        return 2
    ctx = Context(args.results, args.figures)
    # everything, as the last build made it from the same files and code: said, and nothing rebuilt
    now = up_to_date.stamp(ctx.results, [layout.recorded(args.figures)]) if args.all and args.report else None
    last = up_to_date.unchanged(ctx.results, now) if now is not None else None
    if last is not None:
        print(f"{last['line']}; up to date: nothing it reads changed since it was built")
        return last["status"]
    up_to_date.forget(ctx.results)
    # the report is made from every table as it is now: one built earlier may read files changed since
    outcomes = build_tables(list(modules) if args.report else ids, ctx, modules, set(ids), args)
    # an error fails the command, as does a table whose runs' data file is gone; a table missing its runs too,
    # unless every table was asked for
    status = int(any(outcomes[i].state == "error" or outcomes[i].broken or (outcomes[i].state != "ok" and not args.all)
                     for i in ids))
    if args.report:
        written_to, line = whole_report.write(ctx, outcomes, modules)
        print(line)
        status = status or int(written_to is None)
        if now is not None and written_to is not None:
            up_to_date.record(ctx.results, now, line, status)
    return status


if __name__ == "__main__":
    try:
        exit_status = main()
    except KeyboardInterrupt:  # the workers are stopped on the way out; a table is written only once built
        print("interrupted: rerun the same command to build the tables", file=sys.stderr)
        exit_status = 130
    # Everything is written and closed by now. The interpreter's teardown would free the cached runs object by
    # object (half a second at 100,000 judged lines) for nothing: flush what is buffered and leave.
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(exit_status)
