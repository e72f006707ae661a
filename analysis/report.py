"""results/report.md and a self-contained results/report.html (figures embedded) of every table."""
from __future__ import annotations

import base64
import html
from pathlib import Path
from types import ModuleType

from analysis.inputs import read_json
from analysis.table import Context


def _failures(ctx: Context) -> list[str]:
    """Request and judge failures of every judged file, from their manifests."""
    lines = []
    for m in sorted((ctx.results / "judged").glob("*/*/*.manifest.json")):
        s = read_json(m).get("summary", {})
        if s.get("no_response") or s.get("judge_error"):
            lines.append(f"{m.relative_to(ctx.results)}: {s.get('no_response', 0)} no response, "
                         f"{s.get('judge_error', 0)} judge error(s) of {s.get('items', 0)}")
    return lines


def write_report(ctx: Context, outcomes: dict[str, tuple[str, str]], modules: dict[str, ModuleType]) -> Path:
    md_parts = ["# Reproduction report\n"]
    html_parts = ["<html><head><meta charset='utf-8'><title>Reproduction report</title>"
                  "<style>body{font-family:sans-serif;max-width:1100px;margin:auto}table{border-collapse:collapse}"
                  "td,th{border:1px solid #ccc;padding:2px 6px}pre{white-space:pre-wrap}</style></head><body>"
                  "<h1>Reproduction report</h1>"]
    for table_id, (state, msg) in outcomes.items():
        doc = (modules[table_id].__doc__ or "").strip().splitlines()[0]
        if state != "ok":
            md_parts.append(f"## {table_id}\n{doc}\n\n_Not built: {msg}_\n")
            html_parts.append(f"<h2>{html.escape(table_id)}</h2><p>{html.escape(doc)}</p><p><i>Not built: {html.escape(msg)}</i></p>")
            continue
        body = Path(msg).read_text(encoding="utf-8")
        md_parts.append(body.replace(f"# {table_id}", f"## {table_id}", 1))
        html_parts.append(f"<h2>{html.escape(table_id)}</h2><pre>{html.escape(body)}</pre>")
        png = ctx.figures / f"{table_id}.png"
        if png.exists():
            data = base64.b64encode(png.read_bytes()).decode()
            html_parts.append(f"<img src='data:image/png;base64,{data}' style='max-width:100%'>")
    failures = _failures(ctx)
    title = "Failures (not correct in every acc; left out of acc_scored)"
    md_parts.append(f"## {title}\n" + ("\n".join(f"- {f}" for f in failures) or "None.") + "\n")
    html_parts.append(f"<h2>{title}</h2><ul>"
                      + "".join(f"<li>{html.escape(f)}</li>" for f in failures) + "</ul></body></html>")
    md = ctx.results / "report.md"
    md.write_text("\n".join(md_parts), encoding="utf-8")
    (ctx.results / "report.html").write_text("".join(html_parts), encoding="utf-8")
    return md
