"""The report's Findings part, one per paper (analysis/findings.py makes the checks): how many of the paper's
findings hold, do not hold, are inconclusive, not run or not checkable, then one row per finding with its quote, our
numbers, the paper's, the test used, the verdict and why, and links to the tables it rests on."""
from __future__ import annotations

from typing import Callable

from analysis import html as H
from analysis.findings import Check, counts

# Verdict → the class its cell is coloured by.
CLASSES = {"holds": "holds", "does not hold": "fails", "inconclusive": "open", "not run": "notrun",
           "not checkable": "notrun"}
STYLE = """
table.findings td{vertical-align:top;max-width:360px}
.scroll table.findings td.quote{white-space:normal;position:static;min-width:320px;max-width:440px;box-shadow:none}
td.holds{background:#d9f2d9}td.fails{background:#f8d0d0}td.open{background:#fff1c2}td.notrun{color:#777}
section.findings{border-top:2px solid #ccd;margin-top:20px}#toc .findings-link{margin:2px 0 4px}
"""
HOW = ("A finding holds when our numbers say what the paper says beyond their 95 % intervals (a threshold: the "
       "whole interval on the stated side; an order: the intervals separated in the stated order; an improvement: "
       "the difference's interval above 0 — the table's paired test where it has one, else the conservative "
       "unpaired interval from both sides' intervals), does not hold when the intervals say the opposite, and is "
       "inconclusive when they straddle the claim's bound or a number has no interval (an accuracy beside its count "
       "gets Wilson's). Not run: a table it rests on was not built, lacks the models or settings it covers, counts "
       "the demo set where the claim is about the paper's data, or rests on invented example data. Not checkable: a "
       "finding with no measure or no table of ours. 'The paper's' column is the same check on the paper's numbers "
       "(data/reference). The claims are data/reference/findings/<paper>.yaml.")


def tally(checks: list[Check]) -> str:
    c = counts(checks)
    return f"{len(checks)} findings: " + ", ".join(f"{n} {verdict}" for verdict, n in c.items())


def table_links(c: Check, built: set[str], anchor: str = "#") -> list[tuple[str, str | None]]:
    """Each table the finding rests on and its anchor in the report (None when it was not built)."""
    return [(t, f"{anchor}{t}" if t in built else None) for t in c.tables]


def verdict_text(c: Check) -> str:
    return c.verdict + (f": {c.why}" if c.why else "")


def html_part(bench: str, checks: list[Check], built: set[str]) -> str:
    """The Findings section of one paper (empty when it has no findings)."""
    mine = [c for c in checks if c.finding.bench == bench]
    if not mine:
        return ""
    rows = []
    for c in mine:
        links = ", ".join(f"<a href='{H.esc(href)}'>{H.esc(t)}</a>" if href else f"{H.esc(t)} (not built)"
                          for t, href in table_links(c, built)) or "none"
        rows.append(f"<tr class='finding' data-id='{H.esc(c.finding.id)}'>"
                    f"<td class='quote'><b>{H.esc(c.finding.id)}</b><br>“{H.esc(c.finding.quote)}” "
                    f"<span class='muted'>({H.esc(c.finding.section)}; {H.esc(c.finding.kind)})</span></td>"
                    f"<td class='{CLASSES[c.verdict]}'>{H.esc(verdict_text(c))}</td>"
                    f"<td>{H.esc(c.ours or '—')}</td><td>{H.esc(c.paper or '—')}</td>"
                    f"<td>{H.esc(c.test or '—')}{'<br>' + H.esc(c.effect) if c.effect else ''}</td>"
                    f"<td>{links}</td></tr>")
    return (f"<section class='findings' id='findings-{H.esc(bench)}'><h3>Findings</h3>"
            f"<p class='tally'>{H.esc(tally(mine))}.</p>"
            f"<details><summary>How each verdict is decided</summary><p>{H.esc(HOW)}</p></details>"
            "<div class='scroll'><table class='findings sortable'><thead><tr><th>finding</th><th>verdict</th>"
            "<th>ours</th><th>the paper's</th><th>test</th><th>tables</th></tr></thead><tbody>"
            + "".join(rows) + "</tbody></table></div></section>")


def html_toc(bench: str, checks: list[Check]) -> str:
    """The contents entry of a paper's Findings part, with its counts."""
    mine = [c for c in checks if c.finding.bench == bench]
    if not mine:
        return ""
    held = counts(mine)
    return (f"<div class='findings-link'><a href='#findings-{H.esc(bench)}'>Findings</a> "
            f"<span class='muted'>({held['holds']} hold of {len(mine)})</span></div>")


def md_cell(text: str) -> str:
    return (text or "—").replace("|", "\\|").replace("\n", " ")


def md_part(bench: str, checks: list[Check], built: set[str], slug: Callable[[str], str] = str) -> list[str]:
    """The Findings part of one paper in Markdown; `slug` turns a table id into its heading's anchor."""
    mine = [c for c in checks if c.finding.bench == bench]
    if not mine:
        return []
    out = ["## Findings\n", f"{tally(mine)} (how each verdict is decided: README.md, *Findings*).\n",
           "| finding | verdict | ours | the paper's | test | tables |", "|:--|:--|:--|:--|:--|:--|"]
    for c in mine:
        links = ", ".join(f"[{t}](#{slug(t)})" if href else f"{t} (not built)"
                          for t, href in table_links(c, built)) or "none"
        test = c.test + (f"; {c.effect}" if c.effect else "")
        out.append(f"| **{c.finding.id}**: “{md_cell(c.finding.quote)}” ({md_cell(c.finding.section)}) | "
                   f"{md_cell(verdict_text(c))} | {md_cell(c.ours)} | {md_cell(c.paper)} | {md_cell(test)} | {links} |")
    return out + [""]
