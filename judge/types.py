"""What every judge shares: the item it judges, its verdict, its steps, and the verdict of a reply that failed.

A judge's `steps(item)` either returns the verdict at once (a rule judge) or is a generator of steps
(infer/ask.py): it yields the requests (`Ask`) of its next stage, receives their `Reply`s, possibly over
several stages (Think360: extract, then judge), and returns the verdict. No judge is imported here, so that
every judge module can import this one; judge/judges.py registers the judges.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Union

from infer import ask
from infer.ask import Reply

UNREADABLE = "judge reply could not be parsed"
Verdict = dict[str, Any]  # verdict fields: correct, extracted, status, error, raw_judge_reply, stage, …
Steps = Union[Verdict, ask.Steps[Verdict]]


@dataclass(frozen=True)
class Item:
    """What is judged: the record, the model's final text and, when the model returned one separately,
    its reasoning (answer judges read only the final text; process judges review the trajectory)."""

    rec: dict[str, Any]
    response: str
    reasoning: str | None = None
    reasoning_tokens: int | None = None  # the reasoning tokens the model reported generating
    # Whether the model's endpoint returns its reasoning, as its config declares (returned / hidden / none);
    # None for a run recorded before configs declared it
    declared: str | None = None

    @property
    def trajectory(self) -> str:
        """The complete reasoning trajectory (Think360 §4.1; MorphoBench's trace ρ, Eq. 14): the reasoning
        returned apart (reasoning_content or the <think> part), then the final response, whole."""
        return "\n\n".join(t.strip() for t in (self.reasoning, self.response) if t and t.strip())

    @property
    def trajectory_hidden(self) -> bool:
        """The model reasons but its endpoint returns only the final text, as its config declares (`reasoning:
        hidden`): what it shows is a summary, not the trajectory (Think360 §4.2 leaves such models, o3 and
        Gemini-2.5-Pro, out). A run recorded before configs declared it is read by its usage: reasoning tokens
        reported and no reasoning returned."""
        if self.declared is not None:
            return self.declared == "hidden"
        return bool(self.reasoning_tokens) and not (self.reasoning or "").strip()


def failed(reply: Reply, **fields: Any) -> Verdict:
    """A judge reply that failed or could not be read: a judge error, never a default verdict."""
    return {"status": "judge_error", "error": reply.error or UNREADABLE,
            "raw_judge_reply": reply.text, **fields}


@dataclass(frozen=True)
class Calls:
    """What judging one item asks of the judge model at most, for a cost estimate made before anything is sent
    (pipeline/cost.py): calls carrying the whole response; calls carrying steps of it, with the number of steps'
    texts they carry together (a step and its context); and how many of all these also show the item's images."""

    whole: int = 0
    per_step: int = 0
    step_texts: float = 0.0
    with_images: int = 0

    @property
    def total(self) -> int:
        return self.whole + self.per_step
