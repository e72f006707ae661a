"""The papers' findings (data/reference/findings/*.yaml) checked against our tables as they are on disk
(results/tables/<id>.csv), each given a verdict — holds, does not hold, inconclusive, not run, not checkable
(analysis/findings_claims.py says when) — with our numbers, the paper's, the test used and the tables read.

    python -m analysis.run findings [--results DIR]     # the same, in the terminal

The report has a part per paper made from these checks (analysis/findings_report.py). A check runs the same test
on the paper's own numbers (data/reference/<id>.csv, exact) where it can: beside ours, what the paper's numbers say.
"""
from __future__ import annotations

import logging
from collections import Counter
from pathlib import Path
from typing import Callable

from analysis import findings_checks as K, findings_series as S
from analysis.findings_claims import (INCONCLUSIVE, NOT_CHECKABLE, NOT_RUN, VERDICTS, Check, Est, Finding,
                                      Missing, Side, Unclear, load_findings, our_side, paper_side, papers,
                                      verdict_of)
from analysis.findings_scope import Scope, short
from data.benchmarks import paper_name

log = logging.getLogger(__name__)

__all__ = ["papers", "VERDICTS", "Check", "Finding", "check", "check_all", "counts", "load_findings", "terminal"]
# Values shown per check; the rest are counted.
SHOWN = 6


def check_kind(s: Scope, paper: Scope | None = None) -> K.Result:
    """The check of the finding's kind (and, for an order of correlations, the correlations')."""
    f = s.finding
    metric = " ".join(f.metrics())
    if f.kind == "improvement" and f.direction != "higher":
        return S.trend(s)  # a sweep: more samples or tokens, its shape over the levels
    if f.kind in ("order", "difference") and ("ρ" in metric or "rho" in metric.lower()):
        return S.compare_rhos(s)
    checks: dict[str, Callable[[Scope], K.Result]] = {
        "threshold": K.threshold, "order": K.order, "difference": K.two_sided, "range": K.value_range,
        "ratio": K.value_ratio, "trend": S.trend, "correlation": S.correlation}
    if f.kind == "improvement":
        return K.improvement(s, paper)
    return checks[f.kind](s)


def not_checkable(f: Finding) -> str | None:
    """Why a finding of kind `other` cannot be checked."""
    if f.kind != "other":
        return None
    if not f.tables:
        return "no table of ours measures it"
    if f.direction is None:
        return "it states no measurable direction"
    if not f.size and f.direction in ("above", "below"):
        return f"it states no bound to be {f.direction} of"
    return f"no table of ours holds its measure as stated ({', '.join(f.metrics()) or 'none named'})"


def unusable(f: Finding, ours: Side) -> str | None:
    """Why our tables cannot speak for the paper here: made from the demo sets (a claim about the paper's data),
    or from invented example numbers (data/external)."""
    views = [v for t in f.tables if (v := ours.view(t)) is not None]
    if views and all(v.data_only and v.demo for v in views):
        return f"{', '.join(v.table for v in views)} counts the demo set, not the paper's data"
    for v in views:
        if v.notes:
            return f"{v.table} rests on invented example data ({v.notes[0].split(';')[0]})"
    return None


def run_side(f: Finding, side: Side, paper: Scope | None = None) -> tuple[K.Result | None, str]:
    """The check on one side: its result, or None and why not (what is missing, or unclear)."""
    s = Scope(f, side)
    try:
        return check_kind(s, paper), ""
    except Missing as e:
        return None, f"{NOT_RUN}: {e}"
    except Unclear as e:
        return None, f"{INCONCLUSIVE}: {e}"


def check(f: Finding, ours: Side, paper: Side | None = None) -> Check:
    """One finding's verdict on our tables, with the paper's numbers beside ours (see the module doc)."""
    paper = paper or paper_side()
    tables = list(f.tables)
    if why := not_checkable(f):
        return Check(f, NOT_CHECKABLE, why=why, tables=tables)
    theirs, paper_why = run_side(f, paper)
    paper_verdict = verdict_of(theirs.result) if theirs else ""
    paper_text = (f"{paper_verdict} on them: {values_text(theirs.values)}" if theirs
                  else f"— ({paper_why.split(': ', 1)[-1]})")
    if why := unusable(f, ours):
        return Check(f, NOT_RUN, paper=paper_text, why=why, tables=tables, paper_verdict=paper_verdict)
    result, why = run_side(f, ours, Scope(f, paper))
    if result is None:
        verdict, reason = why.split(": ", 1)
        return Check(f, verdict, paper=paper_text, why=reason, tables=tables, paper_verdict=paper_verdict)
    verdict = verdict_of(result.result)
    return Check(f, verdict, ours=values_text(result.values), paper=paper_text, test=result.test,
                 why=reason_of(verdict, result), tables=tables, paper_verdict=paper_verdict, effect=result.effect)


def reason_of(verdict: str, result: K.Result) -> str:
    """What kept a check open: values without an interval, or intervals straddling the bound."""
    if verdict != INCONCLUSIVE:
        return ""
    if result.why:
        return result.why
    bare = [e.what for e in result.values if not e.known]
    if bare:
        return f"no interval: {short(bare, 3)}"
    return "the 95 % intervals straddle the claim's bound (too few items or runs to tell)"


def values_text(values: list[Est]) -> str:
    shown = "; ".join(e.text() for e in values[:SHOWN])
    return shown + (f"; and {len(values) - SHOWN} more" if len(values) > SHOWN else "")


def check_all(results: Path, benches: tuple[str, ...] | None = None) -> list[Check]:
    """Every finding of the papers named (all by default), checked against the tables under `results`."""
    ours, paper = our_side(results), paper_side()
    out = []
    for f in load_findings(benches):
        try:
            out.append(check(f, ours, paper))
        except Exception as e:  # a finding the checker cannot read: said, and the others are checked
            log.exception("%s: the check failed", f.id)
            out.append(Check(f, NOT_CHECKABLE, why=f"the checker failed: {type(e).__name__}: {e}",
                             tables=list(f.tables), error=True))
    return out


def counts(checks: list[Check]) -> dict[str, int]:
    """Per verdict, how many checks have it (every verdict, 0 included)."""
    c = Counter(x.verdict for x in checks)
    return {v: c.get(v, 0) for v in VERDICTS}


def terminal(checks: list[Check]) -> str:
    """The checks as text: per paper its counts, then one block per finding."""
    out = []
    for bench in papers():
        mine = [c for c in checks if c.finding.bench == bench]
        if not mine:
            continue
        tally = ", ".join(f"{n} {v}" for v, n in counts(mine).items() if n)
        out += [f"{paper_name(bench)}: {len(mine)} findings: {tally}", ""]
        for c in mine:
            out.append(f"  {c.finding.id}: {c.verdict.upper()}" + (f" ({c.why})" if c.why else ""))
            out.append(f"    \"{c.finding.quote}\"")
            for label, text in (("ours", c.ours), ("paper", c.paper), ("test", c.test), ("effect", c.effect),
                                ("tables", ", ".join(c.tables))):
                if text:
                    out.append(f"    {label}: {text}")
        out.append("")
    return "\n".join(out)

