"""results/report.md and results/report.html: at the top what the numbers were made from (profile, the data each
benchmark ran on and its checksum, commits, dates; a banner when they come from the demo profile:
analysis/origin.py), a summary of what was built and what each missing table lacks, one part per model (its
rows of every table, beside the paper's numbers for it: analysis/by_model.py), then every table and figure built,
by paper in the papers' order (tables, then supplementary tables, then figures), with the failures each table
counts, its provenance, and links to the item browser of every run and to each benchmark's side-by-side view.

report.html is one self-contained file (style inline, figures embedded); report.md links the figures under
results/figures/. Every path is relative to the report, so the results folder can be moved or shared."""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import pandas as pd

from analysis import findings, findings_report, gaps, html as H
from analysis.by_model import models_read, parts_of
from analysis.inputs import MissingDataFile, find_runs
from analysis.origin import Origin, origin
from analysis.provenance import counts as provenance_counts
from analysis.reference import load_reference, paper_of
from analysis.table import Context, Table, markdown, md_table, relative
from analysis.uncertainty import ABOVE, BELOW, CONSISTENT, UNTESTED, consistency_text, sum_counts
from analysis.unreadable import DATA_PROBLEMS, one_line
from data.benchmarks import BENCHMARKS, paper_name
from data.jsonl import write_text_atomic
from infer import layout

KINDS = {"T": 0, "S": 1, "F": 2}  # a paper's tables, then its supplementary tables, then its figures
FAILURE_COUNTS = ("no_response", "judge_error", "unjudged", "flagged", "truncated")


@dataclass
class Outcome:
    """What building one table gave: state ok / missing / error; the .md written, or what is missing or
    went wrong; the table when built. `broken`: missing although its runs are there (their data file is gone)."""

    state: str
    message: str
    table: Table | None = None
    broken: bool = False


def order(table_id: str) -> tuple:
    """Sort key: paper in the papers' order, then T1, T2 … S1 … F1 …, then the rest by name."""
    bench, _, name = table_id.partition(".")
    paper = list(BENCHMARKS).index(bench) if bench in BENCHMARKS else len(BENCHMARKS)
    m = re.match(r"([TSF])(\d+)(.*)", name)
    return (paper, KINDS[m[1]], int(m[2]), m[3]) if m else (paper, len(KINDS), 0, name)


def counts(t: Table, table_id: str) -> dict[str, dict[str, int]]:
    """Per judge, the judged files a table read and the answers and failures counted in what it read."""
    out: dict[str, dict[str, int]] = {}
    for f in t.provenance.as_json(table_id)["judged_files"]:
        c = out.setdefault(f["judge"]["name"] or "?", dict.fromkeys(("files", "items", *FAILURE_COUNTS), 0))
        c["files"] += 1
        for k in ("items", *FAILURE_COUNTS):
            c[k] += f[k]
    return out


def failed(c: dict[str, dict[str, int]]) -> bool:
    return any(x["no_response"] or x["judge_error"] or x["unjudged"] for x in c.values())


def failure_line(c: dict[str, dict[str, int]]) -> str:
    if not c:
        return "Reads no judged model outputs."
    per_judge = "; ".join(f"{judge}: {x['items']} answers in {x['files']} file(s), {x['no_response']} no response, "
                          f"{x['judge_error']} judge error(s), {x['unjudged']} unjudged, {x['flagged']} flagged, "
                          f"{x['truncated']} truncated"
                          for judge, x in c.items())
    return f"Read {per_judge}. Failures are not correct in every acc and left out of acc_scored."


def slug(heading: str) -> str:
    """The anchor a Markdown viewer gives a heading."""
    return re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")


def _failures(ctx: Context) -> list[str]:
    """Request and judge failures, and answers without a current verdict, of every judged file, counted in its
    current outcomes as the tables read them; a run that cannot be read, or whose raw file is gone, says so."""
    lines, raw_gone = [], []
    for bench in layout.judged_benchmarks(ctx.results):
        for run in find_runs(ctx.results, bench):
            if not run.raw.exists():
                raw_gone.append(run)
                continue
            try:
                c = provenance_counts(run)
            except MissingDataFile as e:  # said, as its tables say it: the report is still written
                lines.append(str(e))
                continue
            except DATA_PROBLEMS as e:
                lines.append(f"{run.path.relative_to(ctx.results)}: not read: {one_line(e)}")
                continue
            if c["no_response"] or c["judge_error"] or c["unjudged"]:
                lines.append(f"{run.path.relative_to(ctx.results)}: {c['no_response']} no response, "
                             f"{c['judge_error']} judge error(s), {c['unjudged']} unjudged of {c['items']}")
    return lines + gaps.lines(raw_gone)


def _doc(modules: dict[str, ModuleType], table_id: str) -> str:
    """The first paragraph of the table module's docstring: what the table is."""
    return " ".join((modules[table_id].__doc__ or "").strip().split("\n\n")[0].split())


def _by_paper(outcomes: dict[str, Outcome]) -> dict[str, list[str]]:
    groups: dict[str, list[str]] = {}
    for table_id in sorted(outcomes, key=order):
        groups.setdefault(paper_of(table_id), []).append(table_id)
    return groups


def _summary_lines(outcomes: dict[str, Outcome], modules: dict[str, ModuleType]) -> tuple[str, list[tuple]]:
    built = [i for i, o in outcomes.items() if o.state == "ok"]
    errors = sum(o.state == "error" for o in outcomes.values())
    head = (f"{len(built)} of {len(outcomes)} tables and figures built."
            + (f" {errors} could not be built for an error, said below." if errors else ""))
    lacking = [(i, o.state, _doc(modules, i), o.message) for i in sorted(outcomes, key=order)
               if (o := outcomes[i]).state != "ok"]
    return head, lacking


def built_tables(outcomes: dict[str, Outcome]) -> dict[str, Table]:
    """The tables built, in the report's order."""
    return {i: o.table for i in sorted(outcomes, key=order) if (o := outcomes[i]).state == "ok" and o.table is not None}


def origin_of(ctx: Context, outcomes: dict[str, Outcome]) -> Origin:
    """What the report's numbers were made from: the runs' manifests, and the data files data-only tables read."""
    return origin(ctx.results, [(paper_of(i), t.provenance.data) for i, t in built_tables(outcomes).items()
                                if t.provenance.data is not None])


def beside_papers(outcomes: dict[str, Outcome]) -> pd.DataFrame:
    """One row per paper: over its tables built, how many cells beside the paper's numbers are consistent with them
    at 95 %, above, below and untested, and the line that says it ("k of m cells consistent with the paper")."""
    rows = []
    for bench, ids in _by_paper(outcomes).items():
        tables = [outcomes[i].table for i in ids if outcomes[i].state == "ok" and outcomes[i].table is not None]
        counts = sum_counts(t.consistency() for t in tables)
        beside = sum(t.consistency() is not None for t in tables)
        c = counts or dict.fromkeys((CONSISTENT, ABOVE, BELOW, UNTESTED, "tested"), 0)
        rows.append({"paper": paper_name(bench), "tables with paper numbers": beside,
                     "cells tested": c["tested"],
                     CONSISTENT: c[CONSISTENT], ABOVE: c[ABOVE], BELOW: c[BELOW], UNTESTED: c[UNTESTED],
                     "in words": consistency_text(counts) if beside else "No table of this paper with paper numbers "
                     "was built."})
    return pd.DataFrame(rows)


def _header_md(o: Origin) -> list[str]:
    parts = [f"> **{o.banner()}**\n"] if o.banner() else []
    parts += [f"- **{what}**: {value}" for what, value in o.rows()]
    parts += ["\n| benchmark | data | file | sha256 | runs |", "|:--|:--|:--|:--|--:|"]
    parts += [f"| {paper_name(d.bench)} | {d.kind} | `{d.path}` | {d.digest()} | {d.runs} |" for d in o.data]
    return parts + [""]


def _header_html(o: Origin) -> str:
    banner = f"<p id='banner' role='note'>{H.esc(o.banner())}</p>" if o.banner() else ""
    rows = "".join(f"<tr><th>{H.esc(what)}</th><td>{H.esc(value)}</td></tr>" for what, value in o.rows())
    data = pd.DataFrame([(paper_name(d.bench), d.kind, d.path, d.digest(16), d.runs) for d in o.data],
                        columns=["benchmark", "data", "file", "sha256 (first 16 hex digits)", "runs"])
    return (f"<section id='header'>{banner}<table class='facts'>{rows}</table>"
            "<p>The data each benchmark ran on (from the runs' manifests; a data-only table's file as it read it):</p>"
            f"{H.table(data)}</section>")


def _models_md(tables: dict[str, Table]) -> list[str]:
    parts = []
    for model in models_read(tables):
        parts.append(f"\n## {model}\n")
        for part in parts_of(model, tables):
            parts += [f"**[{part.table_id}](#{slug(part.table_id)})**\n", md_table(part.rows) + "\n"]
            if part.vs_paper is not None:
                parts += ["Beside the paper:\n", md_table(part.vs_paper) + "\n"]
    return ["\n# Models\n", "Each model's rows of every table built, and the paper's numbers for it where the table "
            "has them.\n", *parts] if parts else []


def _models_html(tables: dict[str, Table]) -> tuple[str, str]:
    """The contents entry and the section: one part per model."""
    models = models_read(tables)
    if not models:
        return "", ""
    toc = ("<h3><a href='#models'>Models</a></h3><ul>"
           + "".join(f"<li><a href='#model-{H.esc(m)}'>{H.esc(m)}</a></li>" for m in models) + "</ul>")
    body = ["<section id='models'><h2>Models</h2><p class='muted'>Each model's rows of every table built, and the "
            "paper's numbers for it where the table has them (diff = ours − paper).</p>"]
    for model in models:
        parts = parts_of(model, tables)
        body.append(f"<section class='model' id='model-{H.esc(model)}'><h2>{H.esc(model)}</h2>"
                    f"<p>In {len(parts)} table(s); beside the paper's numbers in "
                    f"{sum(p.vs_paper is not None for p in parts)}.</p><div class='model-tables'>")
        for part in parts:
            body.append(f"<section class='part' data-table='{H.esc(part.table_id)}'><h4><a href='#{H.esc(part.table_id)}'>"
                        f"{H.esc(part.table_id)}</a></h4>{H.table(part.rows)}"
                        + (f"<p class='muted'>Beside the paper:</p>{H.table(part.vs_paper)}"
                           if part.vs_paper is not None else "") + "</section>")
        body.append("</div></section>")
    return toc, "".join(body) + "</section>"


def write_markdown(ctx: Context, outcomes: dict[str, Outcome], modules: dict[str, ModuleType],
                   run_links: dict[tuple[str, str, str], str] | None = None, compare_links: dict[str, str] | None = None,
                   made: Origin | None = None, checks: list[findings.Check] | None = None) -> Path:
    path = layout.report_path(ctx.results, "md")
    made = made or origin_of(ctx, outcomes)
    checks = findings.check_all(ctx.results) if checks is None else checks
    head, lacking = _summary_lines(outcomes, modules)
    tables = built_tables(outcomes)
    parts = ["# Reproduction report\n", *_header_md(made), f"{head}\n", "## Beside the papers\n",
             "Per paper, the cells set beside a paper's number, tested at 95 % (analysis/uncertainty.py):\n",
             md_table(beside_papers(outcomes)) + "\n", "## Contents\n"]
    if models := models_read(tables):
        parts.append("- **Models**: " + ", ".join(f"[{m}](#{slug(m)})" for m in models))
    for bench, ids in _by_paper(outcomes).items():
        links = [f"[{i}](#{slug(i)})" if outcomes[i].state == "ok" else f"{i} (not built)" for i in ids]
        parts.append(f"- **{paper_name(bench)}**: " + ", ".join(links))
    if lacking:
        parts += ["\n## Not built\n", *[f"- **{i}** ({state}) {doc}: {msg}" for i, state, doc, msg in lacking]]
    parts += _models_md(tables)
    for bench, ids in _by_paper(outcomes).items():
        parts.append(f"\n# {paper_name(bench)}\n")
        parts += findings_report.md_part(bench, checks, set(built_tables(outcomes)), slug)
        for table_id in ids:
            o = outcomes[table_id]
            if o.state != "ok" or o.table is None:
                continue
            link = layout.link(path, layout.figure_copy(ctx.results, o.table.figure)) if o.table.figure else None
            parts += [markdown(table_id, o.table, link, level=2), f"_{failure_line(counts(o.table, table_id))}_\n"]
    failures = _failures(ctx)
    parts.append("\n# Failures (not correct in every acc; left out of acc_scored)\n"
                 + ("\n".join(f"- {f}" for f in failures) or "None.") + "\n")
    if compare_links:
        parts.append("\n# One item across runs\n" + "\n".join(
            f"- [{paper_name(b)}]({link}): each item's responses of every model and setting side by side"
            for b, link in sorted(compare_links.items(), key=lambda x: order(x[0] + "."))) + "\n")
    if run_links:
        parts.append("\n# Runs (item browsers)\n" + "\n".join(f"- [{'/'.join(k)}]({link})"
                                                          for k, link in sorted(run_links.items())) + "\n")
    write_text_atomic(path, relative("\n".join(parts), ctx.results))
    return path


def _html_table_section(table_id: str, t: Table, doc: str, run_links: dict[tuple[str, str, str], str]) -> str:
    c = counts(t, table_id)
    out = [f"<section class='table' id='{H.esc(table_id)}'><h3>{H.esc(table_id)}</h3>",
           f"<p class='consistency'>{H.esc(t.first_line())}</p>",
           f"<p class='caption'>{H.prose(t.caption or doc)}</p>",
           f"<p class='failures{' some' if failed(c) else ''}'>{H.esc(failure_line(c))}</p>",
           H.table(t.table)]
    if t.vs_paper is not None:
        out.append("<h4>Beside the paper</h4>")
        out.append(f"<p class='muted'>{H.DIFF_NOTE}</p>" + H.table(t.vs_paper) if not t.vs_paper.empty else
                   "<p class='muted'>No model and setting in common with the paper's table.</p>")
    ref = load_reference(table_id)
    if ref is not None:
        out.append(f"<details><summary>The paper's numbers ({len(ref)} values, data/reference/{H.esc(table_id)}.csv)"
                   f"</summary>{H.table(ref)}</details>")
    for name, df in t.extra.items():
        out += [f"<h4>{H.esc(name)}</h4>", H.table(df)]
    if t.figure and t.figure.exists():
        out.append(H.image(t.figure, table_id))
    if t.notes:
        out.append("<h4>Notes</h4><ul>" + "".join(f"<li>{H.prose(n)}</li>" for n in t.notes) + "</ul>")
    prov = t.provenance.lines()
    runs = [(r.bench, r.model, r.setting) for r in t.provenance.runs]
    browse = [f"<a href='{H.esc(run_links[k])}'>{H.esc('/'.join(k[1:]))}</a>" for k in dict.fromkeys(runs)
              if k in run_links]
    if prov or browse:
        out.append("<details><summary>Provenance</summary><ul>" + "".join(f"<li>{H.prose(p)}</li>" for p in prov)
                   + "</ul>" + (f"<p>Items of the runs read: {', '.join(browse)}</p>" if browse else "")
                   + "</details>")
    return "".join(out) + "</section>"


def _papers_html(outcomes: dict[str, Outcome], modules: dict[str, ModuleType],
                 run_links: dict[tuple[str, str, str], str], checks: list[findings.Check]) -> tuple[list[str], list[str]]:
    """Per paper, its contents entry (its findings, then its tables, those not built greyed) and its part: its
    findings checked, then every table built."""
    toc, body = [], []
    for bench, ids in _by_paper(outcomes).items():
        name = paper_name(bench)
        items = []
        for i in ids:
            o = outcomes[i]
            if o.state == "ok":
                items.append(f"<li><a href='#{H.esc(i)}'>{H.esc(i)}</a></li>")
            else:
                items.append(f"<li class='{H.esc(o.state)}' title='{H.esc(o.message)}'>{H.esc(i)} "
                             f"({'not built' if o.state == 'missing' else 'error'})</li>")
        toc.append(f"<h3><a href='#paper-{bench}'>{H.esc(name)}</a></h3>{findings_report.html_toc(bench, checks)}"
                   f"<ul>{''.join(items)}</ul>")
        body.append(f"<h2 id='paper-{bench}'>{H.esc(name)}</h2>"
                    + findings_report.html_part(bench, checks, set(built_tables(outcomes))))
        body += [_html_table_section(i, outcomes[i].table, _doc(modules, i), run_links) for i in ids
                 if outcomes[i].state == "ok" and outcomes[i].table is not None]
    return toc, body


def write_html(ctx: Context, outcomes: dict[str, Outcome], modules: dict[str, ModuleType],
               run_links: dict[tuple[str, str, str], str] | None = None, compare_links: dict[str, str] | None = None,
               made: Origin | None = None, checks: list[findings.Check] | None = None) -> Path:
    """`run_links`: (bench, model, setting) → the item browser page of that run, relative to the report;
    `compare_links`: bench → its page of one item across runs; `checks`: the papers' findings checked
    (analysis/findings.py; made here when not given)."""
    run_links, compare_links = run_links or {}, compare_links or {}
    checks = findings.check_all(ctx.results) if checks is None else checks
    made = made or origin_of(ctx, outcomes)
    head, lacking = _summary_lines(outcomes, modules)
    models_toc, models = _models_html(built_tables(outcomes))
    papers_toc, body = _papers_html(outcomes, modules, run_links, checks)
    toc = [models_toc, *papers_toc]
    summary = [f"<section id='summary'><h2>Summary</h2><p>{H.esc(head)}</p>",
               "<h3 id='beside-papers'>Beside the papers</h3><p class='muted'>Per paper, the cells set beside a "
               "paper's number, tested at 95 % (analysis/uncertainty.py).</p>", H.table(beside_papers(outcomes))]
    if lacking:
        summary.append("<div class='scroll'><table class='sortable'><thead><tr><th>table</th><th>state</th>"
                       "<th>what it is</th><th>what it lacks</th></tr></thead><tbody>" + "".join(
                           f"<tr class='{H.esc(state)}'><td>{H.esc(i)}</td><td class='{'bad' if state == 'error' else ''}'>"
                           f"{'not built' if state == 'missing' else 'error'}</td><td>{H.prose(doc)}</td>"
                           f"<td>{H.prose(msg)}</td></tr>" for i, state, doc, msg in lacking) + "</tbody></table></div>")
    if run_links:
        summary.append(f"<p>Every run's items, prompts, responses and verdicts: <a href='#runs'>"
                       f"{len(run_links)} run browser(s)</a>; one item's responses across models and settings side "
                       "by side: <a href='#runs'>one page per benchmark</a>.</p>")
    summary.append("</section>")
    failures = _failures(ctx)
    tail = ["<section id='failures'><h2>Failures (not correct in every acc; left out of acc_scored)</h2>"
            + ("<ul>" + "".join(f"<li>{H.esc(f)}</li>" for f in failures) + "</ul>" if failures else "<p>None.</p>")
            + "</section>"]
    if run_links:
        tail.append("<section id='runs'><h2>Runs</h2>" + (
            "<p>One item's responses across every model and setting, side by side: " + ", ".join(
                f"<a class='compare' href='{H.esc(link)}'>{H.esc(paper_name(b))}</a>"
                for b, link in sorted(compare_links.items(), key=lambda x: order(x[0] + "."))) + "</p>"
            if compare_links else "") + "<ul>" + "".join(
            f"<li><a href='{H.esc(link)}'>{H.esc('/'.join(k))}</a></li>" for k, link in sorted(run_links.items()))
            + "</ul></section>")
    page = ("<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>Reproduction report</title>"
            f"<style>{H.STYLE}{findings_report.STYLE}</style></head><body><nav id='toc'><b><a href='#header'>What ran</a></b><br>"
            f"<b><a href='#summary'>Summary</a></b>{''.join(toc)}"
            f"<h3><a href='#failures'>Failures</a></h3>{'<h3><a href=#runs>Runs</a></h3>' if run_links else ''}</nav>"
            f"<main><h1>Reproduction report</h1>{_header_html(made)}"
            + "".join(summary) + models + "".join(body) + "".join(tail)
            + f"</main><script>{H.SORT_SCRIPT}</script></body></html>")
    path = layout.report_path(ctx.results, "html")
    write_text_atomic(path, relative(page, ctx.results))
    return path


def write_report(ctx: Context, outcomes: dict[str, Outcome], modules: dict[str, ModuleType],
                 run_links: dict[tuple[str, str, str], str] | None = None,
                 compare_links: dict[str, str] | None = None) -> Path:
    """Write report.md and report.html (each paper's findings checked against the tables as written:
    analysis/findings.py); return the .md path."""
    made = origin_of(ctx, outcomes)
    checks = findings.check_all(ctx.results)
    write_html(ctx, outcomes, modules, run_links, compare_links, made, checks)
    return write_markdown(ctx, outcomes, modules, run_links, compare_links, made, checks)
