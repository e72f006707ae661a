"""MIRA's published scoring, the authors' acc.py (github.com/aiming-lab/MIRA) run with --use-llm-judge, as a judge.

For each response acc.py reads the first <answer>…</answer> of it (`extract_answer`) and then:
  - no answer tag: wrong, and the LLM judge is not asked;
  - Rolling Dice: Two: right when the first path word (red / black / same) and the last integer of the tag
    are the gold's two parts (`parse_rolling_dice_two_answer`), never asked of the LLM judge;
  - otherwise the tag, stripped and lower-cased, equal to the gold so written: right without asking;
  - else the LLM judge decides (the supplementary's Evaluation Prompt, prompts/judges/mira_judge.txt, with the
    question, the gold and the full response; acc.py sends its judge no image, and the paper names none).
A response that is missing or empty gets no verdict in acc.py and leaves its denominator: judge.run records it as
`no_response`, and the MIRA tables show the accuracy over answered units (acc.py's) beside the one over every unit.
Where acc.py counts a failed judge call as wrong, the judge error is kept as such and counted (analysis/stats.py).
acc.py is looser than a careful reader on Rolling Dice: Two ("red or black, 7" passes); the careful rule judge
(judge/path_and_total.py) stands beside it.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from infer.ask import Ask
from judge import grammars, parse, path_and_total
from judge.types import Calls, Item, Steps, failed

ANSWER_TAG = re.compile(r"<answer>(.*?)</answer>", re.S)  # acc.py's: the first tag, case as written
PATH_WORD = re.compile(r"\b(red|black|same)\b", re.I)
INTEGER = re.compile(r"\d+")


def tagged_answer(response: str) -> str | None:
    """acc.py's extract_answer: the stripped content of the first <answer>…</answer>, or None."""
    m = ANSWER_TAG.search(response)
    return m.group(1).strip() if m else None


def path_and_total_right(tagged: str, golds: list[str]) -> bool:
    """acc.py's Rolling Dice: Two rule: the first path word and the last integer equal the gold's two parts."""
    path = PATH_WORD.search(tagged)
    numbers = INTEGER.findall(tagged)
    return (path is not None and path.group(1).lower() == golds[0].strip().lower()
            and bool(numbers) and int(numbers[-1]) == int(golds[1]))


@dataclass(frozen=True)
class MiraPublished:
    """The judge `mira_judge`: acc.py's rule first, the paper's LLM judge (text only) for what the rule does not
    accept. `answer_only` (the careful variant, `mira_judge_careful`): the judge is shown the tagged answer acc.py
    read, not the full response — §7 tells it to judge that answer and ignore all reasoning — with a prompt that
    declares it data (prompts/judges/mira_judge_careful.txt)."""

    name: str = "mira_judge"
    prompts: tuple[str, ...] = ("mira_judge",)
    answer_only: bool = False
    version: str = "acc.py"  # part of the verdicts' key: verdicts of the earlier LLM-only judge are redone

    def calls(self, rec: dict[str, Any], steps: int) -> Calls:
        return Calls(whole=1)

    def steps(self, item: Item) -> Steps:
        tagged = tagged_answer(item.response)
        if tagged is None:
            return {"correct": False, "extracted": None, "stage": "no_answer_tag"}
        if path_and_total.applies(item.rec):
            return {"correct": path_and_total_right(tagged, item.rec["answer"]), "extracted": tagged,
                    "stage": "two_part_rule"}
        if tagged.lower() == ", ".join(item.rec["answer"]).strip().lower():
            return {"correct": True, "extracted": tagged, "stage": "exact_match"}
        shown = {"extracted": tagged} if self.answer_only else {"response": item.response}
        (reply,) = yield [Ask(self.prompts[0], shown, parse.correct_incorrect, "text", grammars.CORRECT_INCORRECT)]
        if reply.parsed is None:
            return failed(reply, extracted=tagged, stage="llm_judge")
        return {"extracted": tagged, "raw_judge_reply": reply.text, "stage": "llm_judge", **reply.parsed}
