"""OMIBench's rationale ratings (Appendix B.2), read from a judge's JSON reply: Rationale Quality (six 1–5
Likert ratings) and Rationale Alignment (a 1–5 score with its justification). A reply is read strictly: a
rating missing or out of range, a key answered twice, or two objects answering differently is unreadable
(None), a judge error — never a default rating. The judges that ask for them are in judge/judges.py."""
from __future__ import annotations

import json
import re
from typing import Any

from judge import tot

# OMIBench B.2's six keys, as its prompt spells them
QUALITY = ("correctness", "faithfulness", "information-usage", "clarity", "detail", "overall")


class _Twice(Exception):
    """A key written twice with different values: two answers in one object."""


def _no_repeats(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in pairs:
        if k in out and out[k] != v:
            raise _Twice(k)
        out[k] = v
    return out


def _spans(text: str) -> list[str]:
    """Every outermost {…} of the text, braces inside JSON strings skipped."""
    spans, depth, start, in_str, skip = [], 0, 0, False, False
    for i, c in enumerate(text):
        if skip:
            skip = False
        elif in_str:
            skip, in_str = c == "\\", in_str and c != '"'
        elif c == '"':
            in_str = True
        elif c == "{":
            start, depth = (i if depth == 0 else start), depth + 1
        elif c == "}" and depth:
            depth -= 1
            if depth == 0:
                spans.append(text[start:i + 1])
    return spans


def _objects(reply: str) -> list[dict[str, Any]] | None:
    """Every JSON object the reply writes, each read as judge.tot reads a judge's JSON (LaTeX kept,
    repaired); a reply cut before its closing brace is repaired whole. None when a key repeats."""
    out = []
    for text in _spans(reply) or [reply]:
        try:
            json.loads(text, object_pairs_hook=_no_repeats)
        except _Twice:
            return None
        except ValueError:
            pass  # not strict JSON: read leniently below
        try:
            obj = tot.read_json(text)
        except Exception:  # json_repair raises on hopeless input: nothing read from this span
            continue
        out += [o for o in (obj if isinstance(obj, list) else [obj]) if isinstance(o, dict)]
    return out


def _likert(value: Any) -> int | None:
    """An integer 1–5 (4, 4.0 or "4"); anything else is not a rating."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str) and re.fullmatch(r"\s*\d+\s*", value):
        value = int(value)
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return value if isinstance(value, int) and 1 <= value <= 5 else None


def _ratings(reply: str, keys: tuple[str, ...]) -> dict[str, int] | None:
    """The ratings under `keys` (case, '_' and spaces in key names forgiven) of the one object that has
    them; None when one is missing or out of range, or when two objects answer differently."""
    objs = _objects(reply)
    if objs is None:
        return None
    found = set()
    for obj in objs:
        named = {re.sub(r"[\s_]+", "-", str(k).strip().lower()): v for k, v in obj.items()}
        if not any(k in named for k in keys):
            continue  # some other object, e.g. braces in text around the answer
        found.add(tuple(_likert(named.get(k)) for k in keys))
    if len(found) != 1:
        return None
    scores = found.pop()
    return None if None in scores else dict(zip(keys, scores))


def rationale_quality(reply: str) -> dict[str, Any] | None:
    """B.2 Rationale Quality: {"correctness", "faithfulness", "information-usage", "clarity", "detail",
    "overall"}, every one an integer 1–5."""
    scores = _ratings(reply, QUALITY)
    return None if scores is None else {"score": scores}


def rationale_alignment(reply: str) -> dict[str, Any] | None:
    """B.2 Rationale Alignment: {"justification": …, "score": 1–5}."""
    scores = _ratings(reply, ("score",))
    if scores is None:
        return None
    objs = [o for o in _objects(reply) or [] if "justification" in o]
    return {"score": {"alignment": scores["score"]}, "justification": objs[0]["justification"] if objs else None}
