"""Writing an adaptation: split folders in the official layout, and a report of what was dropped and why.

    OUT/Morpho_R_v0/data.jsonl          the source items (beside the items derived from them)
    OUT/Morpho_R_Lite/data.jsonl        derived items, `source_id` / `source_index` naming their source
    OUT/Morpho_R_Complex/data.jsonl
    OUT/Morpho_P_v0/data.jsonl, OUT/Morpho_P_Perturbed/data.jsonl
    OUT/adapt_<family>.md               the report, for reading
    OUT/.adapt/<family>.json            the same counts, for programs
    OUT/.adapt/<family>.items.jsonl     every source item's outcome: trace steps, graph, tiers, every hint
                                        or rewrite asked for with the reason it was rejected, the drops

The converter reads every data file under OUT except hidden ones, so the provenance files live in
`.adapt/`. Every file is written whole or not at all (data.jsonl.write_jsonl_atomic).
"""
from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any

from data.jsonl import write_json_atomic, write_jsonl_atomic

DATA_FILE = "data.jsonl"


def split_path(out: Path, split: str) -> Path:
    return out / split / DATA_FILE


def cause(reason: str) -> str:
    """A drop or rejection reason without its particulars (quoted text, node ids, numbers), to count."""
    reason = re.sub(r"(['\"]).*?\1", "…", reason)
    reason = re.sub(r"\bfor \S+ rejected", "rejected", reason)
    return re.sub(r"\d+", "N", reason)


def write_release(out: Path, rows: dict[str, list[dict[str, Any]]]) -> dict[str, Path]:
    paths = {}
    for split, split_rows in rows.items():
        paths[split] = split_path(out, split)
        write_jsonl_atomic(paths[split], split_rows)
    return paths


def write_report(out: Path, family: str, report: dict[str, Any], outcomes: list[dict[str, Any]]) -> Path:
    hidden = out / ".adapt"
    write_jsonl_atomic(hidden / f"{family}.items.jsonl", outcomes)
    write_json_atomic(hidden / f"{family}.json", report)
    md = out / f"adapt_{family}.md"
    md.write_text(markdown(report), encoding="utf-8")
    return md


def _table(header: tuple[str, ...], rows: list[tuple[Any, ...]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join("---" for _ in header) + " |"]
    return lines + ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]


def markdown(report: dict[str, Any]) -> str:
    lines = [f"# MorphoBench {report['family']} adaptation", "",
             f"Data `{report['data']}`, model `{report['model']}`, "
             + (f"traces from `{report['source']}`, " if report.get("source") else "")
             + f"at most {report['attempts']} attempt(s) per stage; {report['sources']} source item(s).", ""]
    lines += ["## Items written and dropped", ""]
    lines += _table(("split", "written", "of", "dropped"), [
        (s, report["written"].get(s, 0), report["expected"][s], sum(report["dropped"].get(s, {}).values()))
        for s in report["expected"]])
    causes = [(s, why, n) for s, by in report["dropped"].items() for why, n in sorted(by.items(), key=lambda x: -x[1])]
    if causes:
        lines += ["", "Why items were dropped:", ""] + _table(("split", "reason", "items"), causes)
    if "graph_source" in report:
        lines += ["", "## Proof graphs", "", ", ".join(f"{k}: {v}" for k, v in report["graph_source"].items())
                  + " (heuristic: the model's graph replies could not be used, see below)."]
        if report["graph_failures"]:
            lines += [""] + _table(("parser reply rejected because", "times"), sorted(
                report["graph_failures"].items(), key=lambda x: -x[1]))
        lines += ["", f"Statements never made into hints because they state the answer: {report['spoiler_statements']}."]
        lines += ["", "Reference traces whose final answer the rule judge accepts: "
                  + ", ".join(f"{k}: {v}" for k, v in report["trace_correct"].items())]
    for stage, counts in report.get("checks", {}).items():
        lines += ["", f"## {stage}", "", f"accepted: {counts['accepted']}, rejected: {counts['rejected']}"]
        if counts["rejections"]:
            lines += [""] + _table(("rejected because", "times"), sorted(counts["rejections"].items(), key=lambda x: -x[1]))
    lines += ["", "## Model calls", ""] + _table(("template", "asked", "sent now", "failed", "tokens"), [
        (t, c["asked"], c["sent"], c["failed"], c["tokens"]) for t, c in report["calls"].items()])
    lines += ["", f"Calls per source item: mean {report['calls_per_item']['mean']:.1f}, "
                  f"max {report['calls_per_item']['max']} (cached replies included).", ""]
    return "\n".join(lines)


def count_drops(outcomes: list[dict[str, Any]]) -> dict[str, dict[str, int]]:
    by: dict[str, Counter] = {}
    for o in outcomes:
        for d in o["dropped"]:
            by.setdefault(d["split"], Counter())[cause(d["reason"])] += 1
    return {s: dict(c) for s, c in by.items()}
