"""Read an LLM judge's own reply. A reply that does not state exactly one verdict is unparseable (None).

Only the judge's reply is parsed — the model response it judged is never scanned — and a reply that
states both verdicts (for example by quoting both options back) is unparseable, not a guess.
"""
from __future__ import annotations

import re
from typing import Any

import json_repair

from judge import tot

_WORD = r"[\s*_`'\"“”.:：!。]*"


def _only(reply: str, pattern: str) -> str | None:
    """The single verdict word of a reply that says one verdict, on its own or on its last line."""
    lines = [ln.strip() for ln in reply.strip().splitlines() if ln.strip()]
    if not lines:
        return None
    for text in (reply.strip(), lines[-1]):
        m = re.fullmatch(_WORD + pattern + _WORD, text, re.I)
        if m:
            return m.group(1).lower()
    return None


def gptscore(reply: str) -> dict[str, Any] | None:
    """OMIBench C.2: "ANSWER: consistent" scores 1 (the paper's Eq. 8 writes 0; its text means 1)."""
    found = {m.lower() for m in re.findall(r"ANSWER\s*:\s*\**\s*(inconsistent|consistent)\b", reply, re.I)}
    if len(found) != 1:
        word = _only(reply, r"(inconsistent|consistent)")
        found = {word} if word else set()
    if len(found) != 1:
        return None
    return {"correct": found.pop() == "consistent"}


def correct_incorrect(reply: str) -> dict[str, Any] | None:
    """MIRA and C²RBench: one word, "Correct" / "Incorrect" (or 正确 / 错误)."""
    word = _only(reply, r"(correct|incorrect|正确|错误)")
    if word is None:
        return None
    return {"correct": word in ("correct", "正确")}


def judgement_01(reply: str) -> dict[str, Any] | None:
    """Think360 consistency judge: "Judgement: 1" / "Judgement: 0"."""
    found = set(re.findall(r"Judg(?:e)?ment\s*:\s*\**\s*([01])\b", reply, re.I))
    if len(found) != 1:
        word = _only(reply, r"([01])")
        found = {word} if word else set()
    if len(found) != 1:
        return None
    return {"correct": found.pop() == "1"}


def extracted_answer(reply: str) -> dict[str, Any] | None:
    """Think360 extraction: the reply is the answer; "[NO ANSWER]" (or nothing) means none was given."""
    text = reply.strip()
    text = re.sub(r"^(?:extracted answer\s*:\s*)", "", text, flags=re.I).strip()
    if not text or text.upper().strip(" .") == "[NO ANSWER]":
        return {"extracted": None}
    return {"extracted": text}


def morpho_json(reply: str) -> dict[str, Any] | None:
    """MorphoBench correctness (Eq. 16): a JSON object with `is_correct` 0 / 1 and the judge's `reasoning`
    (repaired if slightly broken)."""
    try:
        obj = json_repair.loads(reply)
    except Exception:  # json_repair raises on hopeless input; that is an unparseable reply
        return None
    if isinstance(obj, list):
        obj = next((o for o in reversed(obj) if isinstance(o, dict)), None)
    if not isinstance(obj, dict):
        return None
    verdict = str(obj.get("is_correct", "")).strip().lower()
    if verdict not in ("0", "1"):
        return None
    return {"correct": verdict == "1", "judge_reasoning": obj.get("reasoning")}


def true_false(reply: str) -> dict[str, Any] | None:
    """Think360 ToT node judgement: "True" or "False", and nothing else that states a verdict."""
    word = _only(reply, r"(true|false)")
    return None if word is None else {"correct": word == "true"}


def reasoning_tree(reply: str) -> dict[str, Any] | None:
    """Think360 ToT extraction: the nodes of a tree (judge.tot.parse_tree), or None when the reply is no
    tree even after repair."""
    try:
        return {"nodes": tot.parse_tree(reply)}
    except tot.TreeError:
        return None
