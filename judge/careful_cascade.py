"""The careful cascade (`careful_cascade`): the careful rule judge decides, and the judge model of the benchmark's
protocol adjudicates only the answers the rules leave undecided, so that the careful accuracy is one number.

The rules accept what is the gold written another way and reject what contradicts it (judge/rules.py,
judge/undecided.py); what is left — a paraphrase, a synonym, an option's text reworded — is what a judge model
reads language for. Each benchmark's item goes to its protocol's own judge prompt, with the values that judge
sends, so that a request the paper's judge has already made is answered from the judge log at no cost:
- OMIBench: GPTScore (C.2), the whole response;
- Think360°: the cascade's consistency judge, given the answer the rules read (the extraction stage is not asked:
  the rules have read the final answer);
- MIRA: §7's judge, as acc.py asks it, with the whole response;
- C²RBench (Fig. 6) and MorphoBench (Eq. 16): their judges, with the final answer read from the response.
A judge reply that cannot be read is a judge error; every verdict says which `stage` decided it (`rules`,
`judge_model`) and keeps the rules' `reason` where they could not decide. It costs one judge call per undecided
answer, none for the others.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from infer.ask import Ask
from data.benchmarks import get as benchmark
from judge import grammars, parse, rules
from judge.status import UNDECIDED
from judge.types import Calls, Item, Steps, failed


@dataclass(frozen=True)
class Adjudicator:
    """A benchmark's judge model call: its prompt, how its reply is read, its reply's grammar, and what it is
    shown: the whole response and the final answer the rules read (`extracted`) or only that answer."""

    prompt: str
    parse: Callable[[str], dict[str, Any] | None]
    grammar: str
    values: Callable[[Item, str | None], dict[str, str]]


def _response_and_final(item: Item, extracted: str | None) -> dict[str, str]:
    """What a single-call judge of judge/judges.py sends: the response, and the final answer it reads (none there
    for GPTScore: its prompt reads the response)."""
    return {"response": item.response, "extracted": rules.final_answer(item.rec, item.response) or ""}


# The judge prompt that settles an answer the rules leave undecided, by name: each benchmark names its own
# (data/benchmarks/, `adjudicator`).
ADJUDICATORS = {
    "omibench_gptscore": Adjudicator("omibench_gptscore", parse.gptscore, grammars.GPTSCORE,
                                     lambda item, _: {"response": item.response, "extracted": ""}),
    "think360_judge": Adjudicator("think360_judge", parse.judgement_01, grammars.JUDGEMENT_01,
                                  lambda _, extracted: {"extracted": extracted or ""}),
    "mira_judge": Adjudicator("mira_judge", parse.correct_incorrect, grammars.CORRECT_INCORRECT,
                              lambda item, _: {"response": item.response}),
    "c2rbench_judge": Adjudicator("c2rbench_judge", parse.correct_incorrect, grammars.CORRECT_INCORRECT_LOWER,
                                  _response_and_final),
    "morphobench_correctness": Adjudicator("morphobench_correctness", parse.morpho_json, grammars.MORPHO_CORRECTNESS,
                                           _response_and_final),
}


@dataclass(frozen=True)
class CarefulCascade:
    """The judge `careful_cascade` (module doc): `steps` gives the rules' verdict, or asks the benchmark's
    `Adjudicator` about an undecided answer."""

    name: str = "careful_cascade"
    prompts: tuple[str, ...] = tuple(dict.fromkeys(a.prompt for a in ADJUDICATORS.values()))
    version: str = rules.RuleJudge().version  # the rules' meaning is part of the verdicts' key

    def calls(self, rec: dict[str, Any], steps: int) -> Calls:
        """At most one call with the response, made only when the rules leave the answer undecided."""
        return Calls(whole=1)

    def steps(self, item: Item) -> Steps:
        verdict = rules.score(item.rec, item.response)
        if verdict.get("status") != UNDECIDED:
            return {**verdict, "stage": "rules"}
        judge = ADJUDICATORS.get(benchmark(item.rec["benchmark"]).adjudicator or "")
        if judge is None:  # a benchmark with no judge model to settle it: the answer stays undecided
            return {**verdict, "stage": "rules"}
        extracted, why = verdict["extracted"], verdict["reason"]
        (reply,) = yield [Ask(judge.prompt, judge.values(item, extracted), judge.parse, "text", judge.grammar)]
        if reply.parsed is None:
            return failed(reply, extracted=extracted, stage="judge_model", reason=why)
        return {"extracted": extracted, "raw_judge_reply": reply.text, "stage": "judge_model", "reason": why,
                **reply.parsed}
