"""HTML pieces of the report: a DataFrame as a table (numbers formatted, an empty cell said, the difference to
the paper coloured by size), text with `code`, an image embedded as a data URL, and the page's style."""
from __future__ import annotations

import base64
import html
import math
import numbers
import re
from pathlib import Path
from typing import Any

import pandas as pd

from analysis.table import EMPTY_CELL

# |ours − paper| relative to |paper|: within 5 % "close", within 20 % "near", beyond "far". Relative, because
# the tables hold accuracies in points, fractions and correlations alike.
CLOSE, NEAR = 0.05, 0.20
DIFF_NOTE = ("diff = ours − paper; coloured by its size relative to the paper's value: "
             "<span class='close'>within 5 %</span>, <span class='near'>within 20 %</span>, "
             "<span class='far'>beyond</span>")


def esc(text: Any) -> str:
    return html.escape(str(text), quote=True)


def prose(text: str) -> str:
    """Escaped text with Markdown `code` spans and **bold** kept as such."""
    out = esc(text)
    out = re.sub(r"`([^`]+)`", r"<code>\1</code>", out)
    return re.sub(r"\*\*([^*]+)\*\*", r"<b>\1</b>", out)


def cell(value: Any, whole: bool = False) -> str:
    """One table cell; `whole`: the column holds whole numbers only (counts), shown without decimals."""
    if value is None or (not isinstance(value, (list, tuple, dict, set)) and pd.isna(value) is True):
        return f"<td class='empty' title='not run, or undefined'>{EMPTY_CELL}</td>"
    if isinstance(value, bool):
        return f"<td>{value}</td>"
    if isinstance(value, numbers.Integral):
        return f"<td class='num'>{value}</td>"
    if isinstance(value, numbers.Real):
        return f"<td class='num'>{value:.0f}</td>" if whole else f"<td class='num'>{value:.2f}</td>"
    return f"<td>{prose(str(value))}</td>"


def diff_class(ours: Any, paper: Any) -> str:
    try:
        ours, paper = float(ours), float(paper)
    except (TypeError, ValueError):
        return ""
    if math.isnan(ours) or math.isnan(paper):
        return ""
    gap = abs(ours - paper) / max(abs(paper), 1e-9)
    return "close" if gap <= CLOSE else "near" if gap <= NEAR else "far"


COUNT_WORDS = ("count", "items", "judged", "scored", "no_response", "judge_error", "flagged", "calls", "tokens",
               "requests", "trees", "answers")


def _whole(name: Any, column: pd.Series) -> bool:
    """A column of counts: integers, or a count column made float by a missing value."""
    if pd.api.types.is_integer_dtype(column):
        return True
    named = str(name).lower() in ("n", "k") or any(w in str(name).lower() for w in COUNT_WORDS)
    values = column.dropna()
    return (named and pd.api.types.is_float_dtype(column) and bool(len(values))
            and bool((values == values.round()).all()))


def table(df: pd.DataFrame, caption: str = "") -> str:
    """A DataFrame as an HTML table; a `diff` column beside `ours` and `paper` is coloured by size."""
    if df.empty:
        return "<p class='muted'>(empty)</p>"
    cols = list(df.columns)
    coloured = {"ours", "paper", "diff"} <= set(cols)
    head = "".join(f"<th>{esc(c)}</th>" for c in cols)
    whole = {c: _whole(c, df.iloc[:, k]) for k, c in enumerate(cols)}
    rows = []
    for rec in df.astype(object).itertuples(index=False):
        values = dict(zip(cols, rec))
        cells = []
        for c in cols:
            td = cell(values[c], whole[c])
            if coloured and c == "diff" and (kind := diff_class(values["ours"], values["paper"])):
                td = td.replace("<td class='num'>", f"<td class='num {kind}'>", 1)
            cells.append(td)
        rows.append("<tr>" + "".join(cells) + "</tr>")
    cap = f"<caption>{prose(caption)}</caption>" if caption else ""
    return f"<table>{cap}<thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"


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
.caption{font-style:italic}.muted{color:#777}.bad{color:#b00;font-weight:600}.ok{color:#276b27}
.failures{background:#fafafa;border-left:4px solid #bbb;padding:4px 8px}.failures.some{border-color:#d08000}
img.figure{max-width:100%;border:1px solid #eee;margin:8px 0}details{margin:6px 0}summary{cursor:pointer;color:#1a4f8b}
code{background:#f0f0f0;padding:0 3px;border-radius:3px}
"""
