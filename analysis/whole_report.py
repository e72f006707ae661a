"""The report as `analysis.run --report` writes it: the item browser of every run, then report.html and report.md
from the outcome of every table as it is now (analysis/report.py; each file replaced whole, never half-written).

A report that cannot be built at all never leaves the previous one standing as if current: both files are replaced
by a page saying when and why the report was not built (or, when even that cannot be written, removed), and the
command says why in one line."""
from __future__ import annotations

import html
import logging
import time
from pathlib import Path
from types import ModuleType

from analysis.report import Outcome, write_report
from analysis.table import Context, relative
from analysis.unreadable import DATA_PROBLEMS, one_line
from data.jsonl import write_text_atomic
from infer import layout

log = logging.getLogger(__name__)
RERUN = "python -m analysis.run --all --report"


def write(ctx: Context, outcomes: dict[str, Outcome], modules: dict[str, ModuleType]) -> tuple[Path | None, str]:
    """Write the browsers and the report; return the report's .md (None when it could not be built) and the line
    that says what was written, or why not."""
    try:
        path = _write(ctx, outcomes, modules)
    except KeyboardInterrupt:  # stopped half-way: one of the two files may be the new one
        mark_not_built(ctx.results, "interrupted while it was written")
        raise
    except Exception as e:  # the previous report is not left standing as if current
        if not isinstance(e, DATA_PROBLEMS):
            log.exception("the report could not be built")
        reason = relative(one_line(e), ctx.results)
        return None, f"report: error: not built ({reason}); {mark_not_built(ctx.results, reason)}"
    return path, f"report: {relative(str(path), ctx.results)} ({summary(outcomes)})"


def _write(ctx: Context, outcomes: dict[str, Outcome], modules: dict[str, ModuleType]) -> Path:
    from analysis.browse import write_browsers  # reads raw files and judges' prompts: only for the report

    pages = write_browsers(ctx.results)  # every run's items, linked from the report
    report = layout.report_path(ctx.results, "md")  # the .html beside it: both link the pages alike
    links = {(p.bench, p.model, p.setting): layout.link(report, p.path) for p in pages}
    compare = {b: layout.link(report, layout.browse_compare(ctx.results, b)) for b in {p.bench for p in pages}}
    return write_report(ctx, outcomes, modules, links, compare)


def summary(outcomes: dict[str, Outcome]) -> str:
    """How many tables the report holds, and which could not be built for an error (not for missing runs)."""
    built = sum(o.state == "ok" for o in outcomes.values())
    errors = [i for i, o in outcomes.items() if o.state == "error"]
    return (f"{built} of {len(outcomes)} tables and figures built"
            + (f"; {len(errors)} error(s), listed in it: {', '.join(errors)}" if errors else ""))


def mark_not_built(results: Path, reason: str) -> str:
    """Replace report.md and report.html by a page saying that the report was not built and why; remove a file that
    cannot be replaced. Return what was done, for the command's line."""
    when = time.strftime("%Y-%m-%d %H:%M:%S")
    texts = {"md": f"# Reproduction report: not built\n\nThe report could not be built at {when}: {reason}.\n\n"
                   f"The earlier report was removed so that it is not read as current. Rerun `{RERUN}` once this is "
                   "fixed.\n",
             "html": "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>Reproduction report: not "
                     f"built</title></head><body><h1>Reproduction report: not built</h1><p>The report could not be "
                     f"built at {when}: {html.escape(reason)}.</p><p>The earlier report was removed so that it is not "
                     f"read as current. Rerun <code>{RERUN}</code> once this is fixed.</p></body></html>"}
    removed = []
    for kind, text in texts.items():
        path = layout.report_path(results, kind)
        try:
            write_text_atomic(path, text)
        except OSError as e:
            log.error("%s: cannot be written (%s): removed instead", path, e.strerror)
            try:
                path.unlink(missing_ok=True)
                removed.append(f"{path.name} removed")
            except OSError as gone:
                removed.append(f"{path.name} neither replaced nor removed ({gone.strerror}): it is not current")
    if removed:
        return "; ".join(removed)
    return "report.md and report.html now say that it was not built, and why"
