"""The careful cascade: the careful rules decide, and the benchmark's judge model is asked about the undecided
answers only, with the request its protocol's own judge makes (so a call already made is answered by the log)."""
from __future__ import annotations

import pytest

from infer.ask import Reply
from judge.judges import JUDGES
from judge.types import Item

CASCADE = JUDGES["careful_cascade"]


def item(bench: str, response: str, gold=("unchanged",)) -> Item:
    return Item({"id": "q", "benchmark": bench, "question": "What happens to the pressure?", "images": [],
                 "choices": [], "answer": list(gold), "answer_type": "text"}, response)


def run(judge, it: Item, reply: str | None = None):
    """The verdict, and the asks made (each answered by `reply`, read by the ask's parser)."""
    steps, asked = judge.steps(it), []
    try:
        asks = next(steps)
        while True:
            asked += asks
            asks = steps.send([Reply(reply, a.parse(reply) if reply is not None else None) for a in asks])
    except StopIteration as done:
        return done.value, asked


def test_what_the_rules_decide_costs_no_call():
    for response, correct in (("\\boxed{unchanged}", True), ("\\boxed{increases}", False)):
        verdict, asked = run(CASCADE, item("omibench", response))
        assert asked == [] and verdict["correct"] is correct and verdict["stage"] == "rules"


def test_an_undecided_answer_is_asked_of_the_benchmarks_judge_with_its_own_request():
    it = item("omibench", "It stays level.\n\\boxed{stays the same}")
    verdict, asked = run(CASCADE, it, "ANSWER: consistent")
    assert [a.prompt for a in asked] == ["omibench_gptscore"]
    assert verdict["correct"] is True and verdict["stage"] == "judge_model" and verdict["reason"]
    _, gptscore = run(JUDGES["omibench_gptscore"], it, "ANSWER: consistent")
    (mine,), (theirs,) = asked, gptscore
    assert (mine.prompt, mine.values, mine.mode, mine.grammar) == (theirs.prompt, theirs.values, theirs.mode,
                                                                    theirs.grammar)  # the same request: one call
    verdict, _ = run(CASCADE, it, "ANSWER: inconsistent")
    assert verdict["correct"] is False


@pytest.mark.parametrize("bench,prompt,reply", [
    ("think360", "think360_judge", "Judgement: 1"), ("mira", "mira_judge", "Correct"),
    ("c2rbench", "c2rbench_judge", "correct"), ("morphobench", "morphobench_correctness",
                                                '{"reasoning": "same", "is_correct": 1}')])
def test_each_benchmark_asks_its_protocols_judge(bench, prompt, reply):
    verdict, asked = run(CASCADE, item(bench, "\\boxed{stays the same}"), reply)
    assert [a.prompt for a in asked] == [prompt] and verdict["correct"] is True
    if bench == "think360":  # the consistency judge gets the answer the rules read
        assert asked[0].values == {"extracted": "stays the same"}


def test_an_unreadable_judge_reply_is_a_judge_error_never_a_verdict():
    verdict, _ = run(CASCADE, item("omibench", "\\boxed{stays the same}"), "maybe")
    assert verdict["status"] == "judge_error" and verdict["reason"]
    assert "correct" not in verdict or verdict["correct"] is None


def test_its_key_follows_the_rules_and_every_prompt():
    assert CASCADE.version == JUDGES["rules"].version
    assert set(CASCADE.prompts) == {"omibench_gptscore", "think360_judge", "mira_judge", "c2rbench_judge",
                                    "morphobench_correctness"}
    assert CASCADE.calls({}, 1).total == 1  # at most one call per answer
