"""The judges each paper uses: a rule judge for every benchmark, and its LLM judge(s).

An LLM judge is a prompt under prompts/judges/ and a parser for its reply; the judge *model* is any
model config (the papers used GPT-4o, GPT-4o-mini and o3-mini; the demo uses the embedded model).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from judge import parse

RULES = "rules"


@dataclass(frozen=True)
class LLMJudge:
    name: str                      # also the prompt file: prompts/judges/<prompt>.txt
    prompt: str
    parse: Callable[[str], dict[str, Any] | None]
    sees_images: bool = False      # MIRA's judge is shown the input image; the others judge text


LLM_JUDGES = {
    "omibench_gptscore": LLMJudge("omibench_gptscore", "omibench_gptscore", parse.gptscore),
    "mira_judge": LLMJudge("mira_judge", "mira_judge", parse.correct_incorrect, sees_images=True),
    "c2rbench_judge": LLMJudge("c2rbench_judge", "c2rbench_judge", parse.correct_incorrect),
    "morphobench_correctness": LLMJudge("morphobench_correctness", "morphobench_correctness", parse.morpho_json),
    # Think360's cascade uses two prompts: extraction, then consistency (judge.cascade).
    "think360_extract": LLMJudge("think360_extract", "think360_extract", parse.extracted_answer),
    "think360_judge": LLMJudge("think360_judge", "think360_judge", parse.judgement_01),
}

CASCADE = "think360_cascade"

# What each benchmark is judged with: its rule judge and the paper's LLM judge.
DEFAULT_JUDGES = {
    "think360": [RULES, CASCADE],
    "omibench": [RULES, "omibench_gptscore"],
    "mira": [RULES, "mira_judge"],
    "c2rbench": [RULES, "c2rbench_judge"],
    "morphobench": [RULES, "morphobench_correctness"],
}

KNOWN = [RULES, CASCADE, *LLM_JUDGES]
