"""MorphoBench's process judges (§4.2, Appendix B.4–B.5): reasoning quality (Completeness and Logical
Coherence, Eqs. 9 and 23) and hint alignment (HAlign, Eqs. 10 and 29), each as the paper's "tool review →
evidence → LLM scoring" (Eq. 11): a reviewer Φ turns the reasoning trace into step-level reviews, F
aggregates them into evidence (here, in code: `reasoning_evidence`, `hint_evidence`), and the summary
judge G scores the evidence under a rubric prompt.

- `morphobench_reasoning`: step breakdown of the whole trace (Eq. 19) → one check of every adjacent pair
  (s_{t-1}, s_t), t = 2…T, all sent at once (Eq. 20) → evidence (Eq. 22) → Comp, Coh ∈ [0, 100] (Eq. 23).
- `morphobench_hint`: the same breakdown (B.5 reuses the step sequence; the request is the same, so the
  judge's log answers it once for both judges) → one check of every step with the question, the numbered
  hints and the earlier steps (Eq. 26) → evidence (Eq. 28) → HAlign ∈ [0, 100] (Eq. 29). An item without
  hints has no HAlign (NA, Eq. 31): it costs no call and is left out of the mean.

The trace is the item's trajectory (judge/types.py `Item.trajectory`, the one definition ToT-Eval uses
too): the reasoning the model returned apart, then its final response, always whole. Replies are read as JSON the lenient way judge/tot.py reads them, then validated (types, value
sets, ranges); a stage that fails or cannot be read makes the item a judge error naming why — never a
partial score and never a default. Each judge's reply grammars (judge/grammars.py, for judge models that are
constrained) are given to it where it is registered (judge/judges.py).
"""
from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Callable, Generator, Mapping

from infer.ask import Ask, Reply
from judge import tot
from judge.types import Calls, Item

Verdict = dict[str, Any]
Check = Callable[[str], dict[str, Any]]  # reads a reply or raises ReviewError saying why

BREAKDOWN = "morphobench_breakdown"
STEP_CHECK = "morphobench_step_check"
REASONING_SUMMARY = "morphobench_reasoning_summary"
HINT_CHECK = "morphobench_hint_check"
HINT_SUMMARY = "morphobench_hint_summary"

FLAGS = ("is_sound", "has_logical_gap", "has_contradiction", "missing_justification")  # Eq. 20, each 0/1
RATINGS = (0, 1, 2)                                                                    # Eq. 20, r_t
ALIGNMENTS = ("aligned", "deviated", "neutral")                                        # Eq. 26, α_t
QUALITIES = ("strong", "weak", "none")                                                 # Eq. 26, Q_t (or null)


class ReviewError(ValueError):
    """A judge reply that is not the review asked for: recorded with this reason, never scored."""


# --------------------------------------------------------------------------------------------------
# Reading and validating the replies
# --------------------------------------------------------------------------------------------------
def _object(text: str) -> dict[str, Any]:
    try:
        obj = tot.read_json(text)
    except Exception as e:  # json_repair raises on hopeless input
        raise ReviewError(f"no JSON in the reply ({type(e).__name__})") from e
    if not isinstance(obj, dict):
        raise ReviewError("the reply is not a JSON object")
    return obj


def _field(obj: dict[str, Any], name: str) -> Any:
    if name not in obj:
        raise ReviewError(f"no {name!r} in the reply")
    return obj[name]


def _text(obj: dict[str, Any], name: str) -> str:
    value = _field(obj, name)
    if not isinstance(value, str):
        raise ReviewError(f"{name} must be a text, not {value!r}")
    return value


def _word(value: Any) -> Any:
    """A value-set word as the judge may capitalise it ("Aligned")."""
    return value.strip().lower() if isinstance(value, str) else value


def _flag(obj: dict[str, Any], name: str) -> int:
    value = _field(obj, name)
    if isinstance(value, bool):
        return int(value)
    if type(value) is int and value in (0, 1):
        return value
    raise ReviewError(f"{name} must be 0 or 1, not {value!r}")


def _score(obj: dict[str, Any], name: str) -> float | int:
    value = _field(obj, name)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ReviewError(f"{name} must be a number, not {value!r}")
    if not 0 <= value <= 100:
        raise ReviewError(f"{name} {value} is outside [0, 100]")
    return value


def check_breakdown(text: str) -> dict[str, Any]:
    """Eq. 19: {"steps": [text, …]}, at least one step, each a non-empty text (or {"step": text})."""
    steps = _field(_object(text), "steps")
    if not isinstance(steps, list) or not steps:
        raise ReviewError("steps must be a non-empty list")
    out = []
    for t, step in enumerate(steps, start=1):
        if isinstance(step, dict):
            step = step.get("step")
        if not isinstance(step, str) or not step.strip():
            raise ReviewError(f"step {t} is not a non-empty text")
        out.append(step.strip())
    return {"steps": out}


def check_step(text: str) -> dict[str, Any]:
    """Eq. 20: the four 0/1 flags, a rating in {0, 1, 2}, issues (a list of texts) and a comment."""
    obj = _object(text)
    review: dict[str, Any] = {name: _flag(obj, name) for name in FLAGS}
    rating = _field(obj, "rating")
    if type(rating) is not int or rating not in RATINGS:
        raise ReviewError(f"rating must be 0, 1 or 2, not {rating!r}")
    issues = _field(obj, "issues")
    if not isinstance(issues, list) or not all(isinstance(i, str) for i in issues):
        raise ReviewError(f"issues must be a list of texts, not {issues!r}")
    return {**review, "rating": rating, "issues": issues, "comment": _text(obj, "comment")}


def check_reasoning_summary(text: str) -> dict[str, Any]:
    """Eq. 23: completeness and logical_coherence, each in [0, 100], and the judge's comment."""
    obj = _object(text)
    return {"completeness": _score(obj, "completeness"), "coherence": _score(obj, "logical_coherence"),
            "comment": _text(obj, "comment")}


def check_hint(text: str, hints: int) -> dict[str, Any]:
    """Eq. 26 for an item with `hints` hints: the alignment, the relevant hints (1-based, within 1…K),
    whether a deviation is justified (true / false / null), its quality (strong / weak / none / null)."""
    obj = _object(text)
    alignment = _word(_field(obj, "alignment"))
    if alignment not in ALIGNMENTS:
        raise ReviewError(f"alignment must be one of {', '.join(ALIGNMENTS)}, not {alignment!r}")
    relevant = _field(obj, "relevant_hints")
    if not isinstance(relevant, list) or not all(type(k) is int and 1 <= k <= hints for k in relevant):
        raise ReviewError(f"relevant_hints must be a list of hint numbers from 1 to {hints}, not {relevant!r}")
    justified = _field(obj, "deviation_justified")
    if not (justified is None or isinstance(justified, bool)):
        raise ReviewError(f"deviation_justified must be true, false or null, not {justified!r}")
    quality = _word(_field(obj, "justification_quality"))
    quality = None if quality == "null" else quality  # the paper writes the fourth value "null"
    if quality is not None and quality not in QUALITIES:
        raise ReviewError(f"justification_quality must be strong, weak, none or null, not {quality!r}")
    return {"alignment": alignment, "relevant_hints": sorted(set(relevant)), "deviation_justified": justified,
            "justification_quality": quality, "comment": _text(obj, "comment")}


def check_hint_summary(text: str) -> dict[str, Any]:
    """Eq. 29: hint_alignment in [0, 100] and the judge's comment."""
    obj = _object(text)
    return {"halign": _score(obj, "hint_alignment"), "comment": _text(obj, "comment")}


def _quiet(check: Check, text: str) -> dict[str, Any] | None:
    try:
        return check(text)
    except ReviewError:
        return None


def reader(check: Check) -> Callable[[str], dict[str, Any] | None]:
    """The parser a judge request carries: the review, or None for a reply that is not one (which the
    runner asks again where that can help)."""
    return partial(_quiet, check)


def why(check: Check, reply: Reply) -> str:
    """Why a reply was not read: the request's failure, or what is wrong with the reply."""
    if reply.text is None:
        return reply.error or "no reply"
    try:
        check(reply.text)
    except ReviewError as e:
        return str(e)
    return reply.error or "unreadable reply"


# --------------------------------------------------------------------------------------------------
# Evidence (F_R, Eq. 22; F_H, Eq. 28)
# --------------------------------------------------------------------------------------------------
def _numbers(ks: list[int]) -> str:
    return ", ".join(map(str, ks)) or "none"


def _null(value: Any) -> str:
    return "null" if value is None else str(value).lower()


def reasoning_evidence(steps: list[str], reviews: list[dict[str, Any]]) -> str:
    """The steps, the review of each adjacent pair, and the statistics the paper names (contradictions,
    logical gaps, issues)."""
    lines = [f"[Steps] (T = {len(steps)})", *(f"Step {t}: {s}" for t, s in enumerate(steps, start=1)), ""]
    if not reviews:
        lines.append("[Adjacent-step reviews] none: the trace is a single step, so it has no adjacent pair")
    else:
        lines.append(f"[Adjacent-step reviews] ({len(reviews)} pairs)")
    for r in reviews:
        prev, cur = r["steps"]
        flags = ", ".join(f"{name} {r[name]}" for name in FLAGS)
        lines += [f"Steps {prev} → {cur}: rating {r['rating']}/2; {flags}",
                  f"  issues: {'; '.join(r['issues']) or 'none'}", f"  comment: {r['comment']}"]
    n = len(reviews)
    lines += ["", "[Statistics]", f"steps: {len(steps)}; adjacent pairs reviewed: {n}"]
    if n:
        lines += [f"{name}: {sum(r[name] for r in reviews)} of {n} pairs" for name in FLAGS]
        ratings = Counter(r["rating"] for r in reviews)
        mean = sum(r["rating"] for r in reviews) / n
        lines += [f"ratings: {', '.join(f'{k}/2 × {ratings[k]}' for k in RATINGS)}; mean {mean:.2f}/2",
                  f"issues: {sum(len(r['issues']) for r in reviews)} in all"]
    return "\n".join(lines)


def hint_evidence(hints: list[str], steps: list[str], reviews: list[dict[str, Any]]) -> str:
    """The numbered hints, each step with its hint review, and the statistics: how many steps align,
    deviate or are neutral, how many deviations are justified and how well, and which hints were followed
    or deviated from."""
    lines = [f"[Hints] (K = {len(hints)})", *(f"Hint {k}: {h}" for k, h in enumerate(hints, start=1)), "",
             f"[Steps and their hint reviews] (T = {len(steps)})"]
    for t, (step, r) in enumerate(zip(steps, reviews), start=1):
        lines += [f"Step {t}: {step}",
                  f"  alignment: {r['alignment']}; relevant hints: {_numbers(r['relevant_hints'])}; "
                  f"deviation justified: {_null(r['deviation_justified'])}; "
                  f"justification quality: {_null(r['justification_quality'])}",
                  f"  comment: {r['comment']}"]
    count = Counter(r["alignment"] for r in reviews)
    deviated = [r for r in reviews if r["alignment"] == "deviated"]
    quality = Counter(_null(r["justification_quality"]) for r in deviated)
    followed = sorted({k for r in reviews if r["alignment"] == "aligned" for k in r["relevant_hints"]})
    departed = sorted({k for r in deviated for k in r["relevant_hints"]})
    untouched = [k for k in range(1, len(hints) + 1) if not any(k in r["relevant_hints"] for r in reviews)]
    lines += ["", "[Statistics]",
              f"steps: {len(steps)}; " + "; ".join(f"{a}: {count[a]}" for a in ALIGNMENTS),
              f"deviations justified: {sum(1 for r in deviated if r['deviation_justified'])} of {len(deviated)}; "
              "their justification quality: " + ", ".join(f"{q} {quality[q]}" for q in (*QUALITIES, "null")),
              f"hints followed by some step: {_numbers(followed)}; deviated from: {_numbers(departed)}; "
              f"borne on by no step: {_numbers(untouched)}"]
    return "\n".join(lines)


# --------------------------------------------------------------------------------------------------
# The judges
# --------------------------------------------------------------------------------------------------
Stage = Generator[list[Ask], list[Reply], Any]
Grammars = Mapping[str, str]  # the grammar of each prompt's reply, by prompt


def _ask(prompt: str, values: dict[str, str], check: Check, grammar: str | None) -> Ask:
    """A request of one stage, with the grammar of its reply."""
    return Ask(prompt, values, reader(check), grammar=grammar)


def _error(stage: str, what: str, reply: Reply, **fields: Any) -> Verdict:
    return {"status": "judge_error", "stage": stage, "error": what, "raw_judge_reply": reply.text, **fields}


# an empty trace (a response of blanks) has nothing to review: like a failed request, it is counted apart
NO_TRACE: Verdict = {"status": "no_response", "stage": "no_trace", "error": "empty reasoning trace: nothing to review"}


def _breakdown(trace: str, grammars: Grammars) -> Stage:
    """Eq. 19: the ordered steps, or the judge error of an unreadable breakdown."""
    (reply,) = yield [_ask(BREAKDOWN, {"response": trace}, check_breakdown, grammars.get(BREAKDOWN))]
    if reply.parsed is None:
        return _error("breakdown", f"step breakdown: {why(check_breakdown, reply)}", reply)
    return reply.parsed["steps"]


def _earlier(steps: list[str], t: int) -> str:
    """The steps before step t (s_<t of Eq. 26), numbered as in the breakdown."""
    return "\n".join(f"Step {s}: {x}" for s, x in enumerate(steps[:t - 1], start=1)) or "(none: this is the first step)"


def _failed_checks(stage: str, replies: list[Reply], labels: list[str], check: Check,
                   steps: list[str]) -> Verdict | None:
    """One unreadable check makes the item a judge error: a review missing a step is no review."""
    unread = [(label, r) for label, r in zip(labels, replies) if r.parsed is None]
    if not unread:
        return None
    label, first = unread[0]
    return _error(stage, f"{len(unread)} of {len(replies)} {stage.replace('_', ' ')}s failed; {label}: "
                  f"{why(check, first)}", first, steps=steps)


@dataclass(frozen=True)
class ReasoningReview:
    """Completeness and Logical Coherence (B.4): breakdown (1 call), adjacent-pair checks (T − 1 calls,
    one stage), summary (1 call)."""

    name: str = "morphobench_reasoning"
    prompts: tuple[str, ...] = (BREAKDOWN, STEP_CHECK, REASONING_SUMMARY)
    scores: tuple[str, ...] = ("completeness", "coherence")  # the fields of its verdicts' score, in [0, 100]
    grammars: Grammars = field(default_factory=dict)  # its replies' grammars, by prompt

    def calls(self, rec: dict[str, Any], steps: int) -> Calls:
        """The breakdown and the summary carry the whole trace (the evidence is as long); each check two steps."""
        return Calls(whole=2, per_step=steps - 1, step_texts=2 * (steps - 1))

    def steps(self, item: Item) -> Stage:
        trace = item.trajectory
        if not trace.strip():
            return dict(NO_TRACE)
        steps = yield from _breakdown(trace, self.grammars)
        if isinstance(steps, dict):
            return steps
        pairs = list(enumerate(zip(steps, steps[1:]), start=2))
        replies = (yield [_ask(STEP_CHECK, {"previous_index": str(t - 1), "index": str(t), "previous": a,
                                            "current": b}, check_step, self.grammars.get(STEP_CHECK))
                                for t, (a, b) in pairs]) if pairs else []
        labels = [f"steps {t - 1} → {t}" for t, _ in pairs]
        failed = _failed_checks("step_check", replies, labels, check_step, steps)
        if failed:
            return failed
        reviews = [{"steps": [t - 1, t], **r.parsed} for (t, _), r in zip(pairs, replies)]
        (reply,) = yield [_ask(REASONING_SUMMARY, {"evidence": reasoning_evidence(steps, reviews)},
                               check_reasoning_summary, self.grammars.get(REASONING_SUMMARY))]
        if reply.parsed is None:
            return _error("summary", f"summary: {why(check_reasoning_summary, reply)}", reply, steps=steps,
                          reviews=reviews)
        score = {"completeness": reply.parsed["completeness"], "coherence": reply.parsed["coherence"]}
        return {"stage": "summary", "score": score, "steps": steps, "reviews": reviews,
                "judge_comment": reply.parsed["comment"], "raw_judge_reply": reply.text}


@dataclass(frozen=True)
class HintReview:
    """Hint Alignment (B.5), on hint-bearing items only: breakdown (1 call, shared with
    `morphobench_reasoning`), per-step hint checks (T calls, one stage), summary (1 call)."""

    name: str = "morphobench_hint"
    prompts: tuple[str, ...] = (BREAKDOWN, HINT_CHECK, HINT_SUMMARY)
    scores: tuple[str, ...] = ("halign",)  # in [0, 100]; None (NA) for an item without hints
    grammars: Grammars = field(default_factory=dict)  # its replies' grammars, by prompt, but the hint check's:
    hint_check: Callable[[int], str] | None = None    # the grammar of a check against an item's K hints

    def calls(self, rec: dict[str, Any], steps: int) -> Calls:
        """None without hints; else the breakdown (counted here too, though `morphobench_reasoning`'s identical
        request answers it from the judge log when both run) and the summary, and a check of step t with the t − 1
        steps before it."""
        if not any(isinstance(h, str) and h.strip() for h in rec.get("hints") or []):
            return Calls()
        return Calls(whole=2, per_step=steps, step_texts=steps * (steps + 1) / 2)

    def steps(self, item: Item) -> Stage:
        hints = [h.strip() for h in item.rec.get("hints") or [] if h.strip()]
        if not hints:  # HAlign is NA and left out of the mean (Eq. 31): nothing to ask
            return {"stage": "no_hints", "score": {"halign": None}}
        trace = item.trajectory
        if not trace.strip():
            return dict(NO_TRACE)
        steps = yield from _breakdown(trace, self.grammars)
        if isinstance(steps, dict):
            return steps
        check = partial(check_hint, hints=len(hints))
        listed = "\n".join(f"{k}. {h}" for k, h in enumerate(hints, start=1))
        grammar = self.hint_check(len(hints)) if self.hint_check else None
        replies = yield [_ask(HINT_CHECK, {"hint_list": listed, "earlier": _earlier(steps, t), "index": str(t),
                                           "step": step}, check, grammar) for t, step in enumerate(steps, start=1)]
        labels = [f"step {t}" for t in range(1, len(steps) + 1)]
        failed = _failed_checks("hint_check", replies, labels, check, steps)
        if failed:
            return failed
        reviews = [{"step": t, **r.parsed} for t, r in enumerate(replies, start=1)]
        (reply,) = yield [_ask(HINT_SUMMARY, {"evidence": hint_evidence(hints, steps, reviews)}, check_hint_summary,
                               self.grammars.get(HINT_SUMMARY))]
        if reply.parsed is None:
            return _error("summary", f"summary: {why(check_hint_summary, reply)}", reply, steps=steps,
                          reviews=reviews)
        return {"stage": "summary", "score": {"halign": reply.parsed["halign"]}, "steps": steps, "reviews": reviews,
                "judge_comment": reply.parsed["comment"], "raw_judge_reply": reply.text}
