"""HTML pieces of the report: a DataFrame as a table (numbers formatted, an empty cell said, the difference to
the paper coloured by size, sorted by a click on a column), text with `code`, an image embedded as a data URL, and
the page's style and script."""
from __future__ import annotations

import base64
import html
import math
import numbers
import re
from pathlib import Path
from typing import Any

import pandas as pd

from analysis.cells import EMPTY_CELL, as_text, numeric_columns, shown_columns

# |ours − paper| relative to |paper|: within 5 % "close", within 20 % "near", beyond "far". Relative, because
# the tables hold accuracies in points, fractions and correlations alike.
CLOSE, NEAR = 0.05, 0.20
DIFF_NOTE = ("diff = ours − paper, with its 95 % interval counting both sides' sampling error (the paper's from its "
             "n, paper_n); coloured by its size relative to the paper's value: "
             "<span class='close'>within 5 %</span>, <span class='near'>within 20 %</span>, "
             "<span class='far'>beyond</span>. verdict: <span class='close'>consistent</span> when that interval "
             "covers 0, else <span class='far'>above</span> or <span class='far'>below</span> the paper")
VERDICT_CLASS = {"consistent": "close", "above": "far", "below": "far"}


def esc(text: Any) -> str:
    return html.escape(str(text), quote=True)


def prose(text: str) -> str:
    """Escaped text with Markdown `code` spans and **bold** kept as such."""
    out = esc(text)
    out = re.sub(r"`([^`]+)`", r"<code>\1</code>", out)
    return re.sub(r"\*\*([^*]+)\*\*", r"<b>\1</b>", out)


def diff_class(ours: Any, paper: Any) -> str:
    try:
        ours, paper = float(ours), float(paper)
    except (TypeError, ValueError):
        return ""
    if math.isnan(ours) or math.isnan(paper):
        return ""
    gap = abs(ours - paper) / max(abs(paper), 1e-9)
    return "close" if gap <= CLOSE else "near" if gap <= NEAR else "far"


# A row that sums up the others (a micro-averaged total, the pooled overall): it stays last when a column is sorted.
SUMMARY_ROWS = {"Total", "Overall", "All", "ALL"}


def table(df: pd.DataFrame, caption: str = "") -> str:
    """A DataFrame as an HTML table in a box that scrolls sideways on its own (its first column stays), its
    columns sorted by a click on their heading (SORT_SCRIPT), a summary row (SUMMARY_ROWS) kept last; a `diff`
    column beside `ours` and `paper` is coloured by size, a `verdict` by what it says; every cell written as
    analysis.cells writes it (a range's two columns as one cell, a number's 95 % interval in brackets after it),
    sorted by its number."""
    if df.empty:
        return "<p class='muted'>(empty)</p>"
    texts, df = as_text(df), shown_columns(df)
    cols = list(df.columns)
    coloured = {"ours", "paper", "diff"} <= set(cols)
    numeric = numeric_columns(df)
    head = "".join(f"<th class='{'num' if numeric[k] else 'text'}' title='sort'>{esc(c)}</th>"
                   for k, c in enumerate(cols))
    rows = []
    for r, rec in enumerate(df.astype(object).itertuples(index=False)):
        cells = []
        for k, c in enumerate(cols):
            td = text_cell(rec[k], texts.iat[r, k], numeric[k])
            if coloured and c == "diff" and (kind := diff_class(rec[cols.index("ours")], rec[cols.index("paper")])):
                td = td.replace("<td class='num'", f"<td class='num {kind}'", 1)
            if c == "verdict" and (kind := VERDICT_CLASS.get(str(rec[k]))):
                td = f"<td class='{kind}'>{esc(rec[k])}</td>"
            cells.append(td)
        summary = any(isinstance(v, str) and v.strip() in SUMMARY_ROWS for v in rec)
        rows.append(("<tr class='summary'>" if summary else "<tr>") + "".join(cells) + "</tr>")
    cap = f"<caption>{prose(caption)}</caption>" if caption else ""
    return (f"<div class='scroll'><table class='sortable'>{cap}<thead><tr>{head}</tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table></div>")


def text_cell(value: Any, text: str, numeric: bool) -> str:
    """One table cell holding `text` (analysis.cells.as_text); a number carries its value for sorting."""
    if text == EMPTY_CELL:
        return f"<td class='empty' title='not run, or undefined'>{EMPTY_CELL}</td>"
    if numeric and isinstance(value, numbers.Real) and not isinstance(value, bool):
        return f"<td class='num' data-v='{float(value)!r}'>{esc(text)}</td>"
    return f"<td>{prose(text)}</td>"


def image(path: Path, alt: str) -> str:
    data = base64.b64encode(path.read_bytes()).decode()
    return f"<img class='figure' alt='{esc(alt)}' src='data:image/png;base64,{data}'>"


STYLE = """
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:0;color:#222;line-height:1.4}
#toc{position:fixed;top:0;left:0;bottom:0;width:250px;overflow-y:auto;background:#f6f7f9;border-right:1px solid #ddd;
 padding:12px;font-size:13px;box-sizing:border-box}
#toc h3{margin:12px 0 4px;font-size:14px}#toc ul{list-style:none;margin:0;padding:0}#toc li{margin:2px 0}
#toc a{text-decoration:none;color:#1a4f8b}#toc .missing a,#toc .missing{color:#999}#toc .error a{color:#b00}
main{margin-left:270px;padding:12px 24px;max-width:1200px}
table{border-collapse:collapse;margin:8px 0;font-size:13px}th,td{border:1px solid #ccc;padding:2px 6px;text-align:left}
th{background:#eef1f5}td.num{text-align:right;font-variant-numeric:tabular-nums}td.empty{color:#999;text-align:center}
caption{text-align:left;font-weight:600;padding:4px 0}
.close{background:#d9f2d9}.near{background:#fff1c2}.far{background:#f8d0d0}
section.table{border-top:2px solid #ccd;margin-top:28px;padding-top:4px}
.caption{font-style:italic}.consistency{font-weight:600}
.muted{color:#777}.bad{color:#b00;font-weight:600}.ok{color:#276b27}
.failures{background:#fafafa;border-left:4px solid #bbb;padding:4px 8px}.failures.some{border-color:#d08000}
img.figure{max-width:100%;border:1px solid #eee;margin:8px 0}details{margin:6px 0}summary{cursor:pointer;color:#1a4f8b}
code{background:#f0f0f0;padding:0 3px;border-radius:3px}
.scroll{overflow-x:auto;max-width:100%;margin:8px 0}.scroll table{margin:0}
.scroll td:first-child,.scroll th:first-child{position:sticky;left:0;z-index:1;background:#fff;box-shadow:1px 0 0 #ccc;
 white-space:nowrap}
.scroll th:first-child{background:#eef1f5}
table.sortable th{cursor:pointer;user-select:none;white-space:nowrap}
table.sortable th[aria-sort=ascending]::after{content:" \\25B2";font-size:10px}
table.sortable th[aria-sort=descending]::after{content:" \\25BC";font-size:10px}
#banner{background:#fff4d6;border:1px solid #e0b84c;padding:8px 12px;font-weight:600;margin:8px 0}
#header table{font-size:13px}#header td,#header th{vertical-align:top}
.model-tables section{margin:10px 0 18px}
"""

# Sorts a table by the column whose heading is clicked, ascending then descending: numbers by value (a cell's
# data-v), text as text with its numbers read as numbers; an empty cell, or a cell without a number in a column
# of numbers, stays last either way, and summary rows (class summary: a Total, an Overall) after all the others.
# Rows of equal keys keep their order.
SORT_SCRIPT = """
document.addEventListener('click', function (e) {
  var th = e.target.closest('table.sortable > thead th');
  if (!th) return;
  var table = th.closest('table'), body = table.tBodies[0], col = th.cellIndex;
  var up = th.getAttribute('aria-sort') !== 'ascending', num = th.classList.contains('num');
  Array.prototype.forEach.call(th.parentNode.cells, function (c) { c.removeAttribute('aria-sort'); });
  th.setAttribute('aria-sort', up ? 'ascending' : 'descending');
  var rows = Array.prototype.map.call(body.rows, function (r, i) {
    var c = r.cells[col], v = null;
    if (c && !c.classList.contains('empty')) {
      v = num ? (c.dataset.v === undefined ? null : parseFloat(c.dataset.v)) : c.textContent.trim();
      if (num && isNaN(v)) v = null;
    }
    return {row: r, v: v, i: i};
  });
  rows.sort(function (a, b) {
    var sa = a.row.classList.contains('summary'), sb = b.row.classList.contains('summary');
    if (sa || sb) return (sa - sb) || a.i - b.i;
    if (a.v === null || b.v === null) return (a.v === null) - (b.v === null) || a.i - b.i;
    var d = num ? a.v - b.v : a.v.localeCompare(b.v, undefined, {numeric: true});
    return (up ? d : -d) || a.i - b.i;
  });
  rows.forEach(function (x) { body.appendChild(x.row); });
});
"""
