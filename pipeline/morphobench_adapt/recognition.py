"""Agent-recognition adaptation (MorphoBench §3.3, §4.1, Appendix A.3, C.3): P(Perturbed) from P(v0).

Per source item, one perturbed question, in two stages (calls through pipeline/morphobench_adapt/asking.py):
1. cues: the model gets the question–answer pair with its image (its caption for a text-only model) and
   names the visual elements it relies on, each with the words of the question that refer to it
   (`adapt_cues`; A.3: "we provide existing question–answer pairs to the agent and require it to
   identify and return the core visual elements"). A phrase must really be in the question, short, and
   outside the image markers and the printed options;
2. perturbation: the model rewrites the question so those phrases are obfuscated — ambiguous wording,
   partial masking (§3.3), "qualitative descriptions" (C.3) — while the task stays the same
   (`adapt_perturb`). The rewrite is checked here, never taken on the model's word (`problems`): every
   phrase is gone, the rule judge's matcher finds no new mention of the answer, the answer and its
   type read by the converter are unchanged, image markers and printed options are kept, the question
   is not cut to less than half. A rejected rewrite is asked again with the reasons, up to `attempts`
   times in all; then the item is dropped and counted.
"""
from __future__ import annotations

import re
from typing import Any

from data.converters.morphobench import answer_and_type
from data.records import image_tags
from infer.ask import Ask, Steps
from pipeline.morphobench_adapt.asking import read_json
from pipeline.morphobench_adapt.checks import new_mentions
from pipeline.morphobench_adapt.official_rows import official_answer

PERTURBED = "Morpho_P_Perturbed"
MAX_PHRASE_WORDS = 12  # a cue is a reference, not a sentence; the bound is ours
MIN_KEPT = 0.5         # a rewrite shorter than half the question has lost more than references
_OPTION_LINE = re.compile(r"^\s*\(?[A-Z][.):]\s+\S.*$", re.M)


def _pattern(phrase: str) -> re.Pattern:
    return re.compile(r"\s+".join(re.escape(w) for w in phrase.split()), re.I)


def _squash(text: str) -> str:
    return " ".join(text.split())


def option_lines(rec: dict[str, Any]) -> list[str]:
    """The options printed in the question (an MCQ without a `choices` list): never rewritten."""
    return [_squash(m.group()) for m in _OPTION_LINE.finditer(rec["question"])] if rec.get("has_inline_choices") else []


def read_cues(reply: str) -> list[dict[str, str]]:
    obj = read_json(reply)
    items = obj.get("cues") if isinstance(obj, dict) else obj
    if not isinstance(items, list) or not items:
        raise ValueError("the reply has no list of cues")
    cues = [{"element": str(c.get("element") or "").strip(), "phrase": _squash(str(c.get("phrase") or ""))}
            for c in items if isinstance(c, dict)]
    if not cues:
        raise ValueError("the cues are not objects with an element and a phrase")
    return cues


def cue_problem(rec: dict[str, Any], phrase: str) -> str | None:
    """Why a cue's phrase cannot be obfuscated, or None."""
    question = rec["question"]
    if not phrase:
        return "no phrase"
    if not _pattern(phrase).search(question):
        return "the phrase is not in the question"
    if len(phrase.split()) > MAX_PHRASE_WORDS:
        return f"the phrase is too long ({len(phrase.split())} words; at most {MAX_PHRASE_WORDS})"
    if image_tags(phrase):
        return "the phrase holds an image marker"
    if any(_pattern(phrase).search(line) for line in option_lines(rec)):
        return "the phrase is part of a printed option"
    return None


def problems(rec: dict[str, Any], rewritten: str, phrases: list[str]) -> list[str]:
    """Why a perturbed question cannot be used (empty when it can)."""
    original = rec["question"]
    if not rewritten.strip():
        return ["the rewrite is empty"]
    out = []
    if _squash(rewritten).lower() == _squash(original).lower():
        out.append("nothing was changed")
    out += [f"still contains {p!r}" for p in phrases if _pattern(p).search(rewritten)]
    leak = new_mentions(rec, original, rewritten)
    if leak:
        out.append(leak)
    gold = official_answer(rec)
    if answer_and_type(gold, rewritten, rec["choices"]) != answer_and_type(gold, original, rec["choices"]):
        out.append("the answer would read differently (the options or their letters changed)")
    if sorted(image_tags(rewritten)) != sorted(image_tags(original)):
        out.append("the image markers changed")
    kept = {_squash(line) for line in _OPTION_LINE.findall(rewritten)}
    out += [f"the option {line!r} was changed" for line in option_lines(rec) if line not in kept]
    if len(rewritten.split()) < MIN_KEPT * len(original.split()):
        out.append(f"cut to {len(rewritten.split())} of {len(original.split())} words")
    return out


def _feedback(history: list[dict[str, Any]]) -> str:
    """Every earlier rejection, so that each new request differs from the last (a deterministic model
    asked the same prompt would only give the same reply)."""
    return "\n".join(f"- attempt {k}: {why}" for k, h in enumerate(history, start=1) for why in h["why"])


def adapt(rec: dict[str, Any], mode: str, attempts: int) -> Steps | dict[str, Any]:
    """The item's steps (a generator), or its outcome at once when it has no image."""
    if not rec["images"]:
        return {"source_id": rec["id"], "derived": [], "dropped": [
            {"split": PERTURBED, "reason": "no image: P(Perturbed) obfuscates the visual cues of multimodal items"}]}
    return _adapt(rec, mode, attempts)


def _cue_stage(rec: dict[str, Any], mode: str, attempts: int):
    history: list[dict[str, Any]] = []
    for _ in range(attempts):
        (reply,) = yield [Ask("adapt_cues", {"gold": official_answer(rec), "feedback": _feedback(history)}, mode=mode)]
        if reply.error:
            history.append({"cues": None, "why": [f"request failed: {reply.error}"]})
            break  # the client has retried it already
        try:
            cues = read_cues(reply.text or "")
        except ValueError as e:
            history.append({"cues": None, "why": [f"reply unreadable: {e}"]})
            continue
        for cue in cues:
            cue["rejected"] = cue_problem(rec, cue["phrase"])
        valid = [c for c in cues if not c["rejected"]]
        history.append({"cues": cues, "why": [f"cue {c['phrase']!r}: {c['rejected']}" for c in cues if c["rejected"]]
                        or ([] if valid else ["no cue"])})
        if valid:
            return valid, history
    return [], history


def _adapt(rec: dict[str, Any], mode: str, attempts: int) -> Steps:
    cues, cue_history = yield from _cue_stage(rec, mode, attempts)
    outcome = {"source_id": rec["id"], "mode": mode, "cue_attempts": cue_history, "cues": cues}
    if not cues:
        last = "; ".join(cue_history[-1]["why"]) if cue_history else "never asked"
        return {**outcome, "derived": [], "dropped": [
            {"split": PERTURBED, "reason": f"no usable cue after {len(cue_history)} attempt(s): {last}"}]}
    phrases = list(dict.fromkeys(c["phrase"] for c in cues))
    listed = "\n".join(f"- {c['phrase']!r} (refers to: {c['element'] or 'not said'})" for c in cues)
    history: list[dict[str, Any]] = []
    for _ in range(attempts):
        (reply,) = yield [Ask("adapt_perturb", {"source_question": rec["question"], "phrases": listed,
                                                "gold": official_answer(rec), "feedback": _feedback(history)}, mode="text")]
        if reply.error:
            history.append({"question": None, "why": [f"request failed: {reply.error}"]})
            break
        try:
            obj = read_json(reply.text or "")
            rewritten = obj.get("question") if isinstance(obj, dict) else None
            if not isinstance(rewritten, str):
                raise ValueError("the reply has no question")
        except ValueError as e:
            history.append({"question": None, "why": [f"reply unreadable: {e}"]})
            continue
        why = problems(rec, rewritten.strip(), phrases)
        history.append({"question": rewritten.strip(), "why": why})
        if not why:
            return {**outcome, "perturb_attempts": history, "dropped": [], "derived": [
                {"split": PERTURBED, "question": rewritten.strip(), "obfuscated": phrases}]}
    last = "; ".join(history[-1]["why"]) if history else "never asked"
    return {**outcome, "perturb_attempts": history, "derived": [], "dropped": [
        {"split": PERTURBED, "reason": f"perturbation rejected after {len(history)} attempt(s): {last}"}]}
