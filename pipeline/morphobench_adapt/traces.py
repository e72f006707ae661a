"""The reference reasoning trace of each item: a model's raw response, or the record's own solution.

MorphoBench builds its R-family items "based on o3's responses" (§4.1) — "the reference solution trace"
(§3.3). `responses:<raw.jsonl>` takes a model's raw lines (results/raw/…): the separate reasoning when
the model returned one, else its response, as the process judges read a trace (judge/reviewer.py);
`solution` takes the record's `solution` (or its `steps`). Whether the response's final answer was
right (the rule judge) is kept with the trace, so that a hint built on a wrong trace can be told apart.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from infer.request import answered, answers
from infer.store import load_latest
from judge.rules import score


@dataclass(frozen=True)
class Trace:
    text: str
    source: str              # "responses:<path>" or "solution"
    correct: bool | None     # the rule judge on the response's final text; None for a solution
    sample_idx: int | None = None


def parse_source(spec: str) -> tuple[str, Path | None]:
    if spec == "solution":
        return "solution", None
    if spec.startswith("responses:") and spec[len("responses:"):]:
        return "responses", Path(spec[len("responses:"):])
    raise ValueError(f"--source: expected 'solution' or 'responses:<raw.jsonl>', got {spec!r}")


def _solution(rec: dict[str, Any]) -> str:
    if isinstance(rec.get("solution"), str) and rec["solution"].strip():
        return rec["solution"]
    steps = rec.get("steps")
    if isinstance(steps, list):
        return "\n\n".join(str(s) for s in steps if str(s).strip())
    return steps if isinstance(steps, str) else ""


def load_traces(spec: str, records: list[dict[str, Any]]) -> dict[str, Trace | str]:
    """Each record's trace, or why it has none."""
    kind, path = parse_source(spec)
    if kind == "solution":
        return {r["id"]: Trace(text, "solution", None) if (text := _solution(r)).strip()
                else "the record has no solution or steps" for r in records}
    if not path.is_file():
        raise ValueError(f"--source: no raw file {path}")
    lines = load_latest(path, key=lambda r: (str(r.get("id")), r.get("sample_idx", 0)))
    by_id: dict[str, list[dict[str, Any]]] = {}
    for (rid, _), line in sorted(lines.items(), key=lambda kv: (kv[0][0], kv[0][1] or 0)):
        by_id.setdefault(rid, []).append(line)
    out: dict[str, Trace | str] = {}
    for rec in records:
        found = by_id.get(rec["id"], [])
        usable = [ln for ln in found if answered(ln) or answers(ln) and (ln.get("reasoning") or "").strip()]
        if not usable:
            out[rec["id"]] = (f"its response failed: {found[0].get('error')}" if found
                              else "no response for it in the raw file")
            continue
        line = usable[0]  # the first sample that answered
        reasoning = (line.get("reasoning") or "").strip()
        verdict = score(rec, line.get("response"))
        out[rec["id"]] = Trace(reasoning or line["response"], spec, verdict.get("correct"), line.get("sample_idx", 0))
    return out
