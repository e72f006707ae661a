"""The careful rule judge's third verdict: undecided, where only a reader of language can tell.

An answer in words that no rule accepts is undecided unless a rule contradicts the gold: another number,
another option letter, a negation or an opposite, another species, the same words in another order. And a gold
decides against itself: every gold, answered exactly, is correct, never undecided.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from data.demo.__main__ import build as build_demo
from data.records import BENCHMARKS
from judge.rules import judge_predictions, score

GOLDS = Path(__file__).parent / "data" / "omibench_release_golds.jsonl"
PRESSURE = ["The pressure increases", "The pressure decreases", "The pressure stays the same", "It cannot be told"]


def rec(answer, answer_type="open", choices=(), question="Q"):
    return {"id": "t", "benchmark": "omibench", "question": question, "images": [], "choices": list(choices),
            "answer": list(answer), "answer_type": answer_type}


def boxed(gold, answer, **kw):
    v = score(rec(gold, **kw), f"So the final answer is \\boxed{{{answer}}}")
    return "undecided" if v.get("status") == "undecided" else v["correct"]


UNDECIDED = [  # (gold, answer): only a reader can tell
    (["unchanged"], "stays the same"),
    (["unchanged"], "It does not change"),
    (["The pressure increases"], "The pressure rises"),
    (["The reaction is exothermic"], "heat is released, so it is exothermic"),
    (["ethanol"], "ethyl alcohol"),                      # systematic and trivial names of one compound
    (["propan-2-ol"], "isopropanol"),
    (["acetic acid"], "ethanoic acid"),
    (["sodium chloride"], "table salt"),
    (["NaCl"], "sodium chloride"),                       # a formula and a name
    (["$\\mathrm{CH_4}$"], "methane"),
    (["octahedron"], "octahedral"),                      # word forms: letters alone cannot tell
    (["Yes"], "The polygon can be tiled"),
    (["increases"], "it increases by 5 units"),          # a number the gold does not state: the answer's working
    (["(1) 6", "(2) unchanged"], "(1) 6; (2) stays the same"),  # a labelled part in other words, the others equal
]
WRONG = [  # (gold, answer): a rule contradicts the gold
    (["unchanged"], "changed"),                          # a negation of the gold phrase
    (["unchanged"], "increases"),                        # directions that exclude each other
    (["The pressure increases"], "The pressure does not increase"),
    (["The pressure increases"], "The pressure goes down"),
    (["possible"], "impossible"),
    (["clockwise"], "anticlockwise"),
    (["3 moles of gas"], "4 moles of gas"),              # a different number
    (["spontaneous above 300 K"], "spontaneous at high temperature"),  # the gold's number left out
    (["ethanol"], "methanol"),                           # a different compound
    (["ethane"], "ethene"),
    (["nitrate"], "nitrite"),
    (["propan-2-ol"], "propan-1-ol"),
    (["sodium chloride"], "potassium chloride"),
    (["carbon dioxide"], "carbon monoxide"),
    (["NaCl"], "KCl"),
    (["octahedron"], "tetrahedron"),
    (["Yes"], "No, it cannot be tiled"),
    (["Only SAα2,6-Gal"], "SAα2,6-Gal"),                 # a qualifier dropped
    (["red: A, blue: B, green: C"], "red: A, blue: C, green: B"),  # the same words in another order
    (["(1) 6", "(2) increases"], "(1) 6, (2) decreases"),
    (["(1) 6", "(2) increases"], "(1) 7, (2) rises"),
    (["unchanged"], "I'm sorry, I cannot tell from the figure"),  # a refusal
    (["unchanged"], "0"),                                # a number for an answer in words
    (["ABDC"], "ABCD"),                                  # letter strings are orders, compared exactly
    (["Leu"], "isoleucine"),                             # words of one fixed meaning: another amino acid
    (["True"], "False"),
    (["Leu-Ser-Gly"], "Gly, Ser, Leu"),                  # the gold's very words in another order: a sequence
    (["The range is m > 0 or m < -3"], "The range is m ≥ 0 or m < -3"),  # another sign between the same words
    (["(1) C", "(2) unchanged"], "(1) D; (2) stays the same"),  # a part that is a letter differs
]


@pytest.mark.parametrize("gold,answer", UNDECIDED, ids=[f"{g}|{a}" for g, a in UNDECIDED])
def test_what_only_a_reader_can_tell_is_undecided(gold, answer):
    assert boxed(gold, answer) == "undecided"


@pytest.mark.parametrize("gold,answer", WRONG, ids=[f"{g}|{a}" for g, a in WRONG])
def test_what_a_rule_contradicts_is_wrong(gold, answer):
    assert boxed(gold, answer) is False


OPTIONS = [
    (["C"], "the pressure remains constant", "undecided"),   # an option's text reworded
    (["C"], "B", False),                                      # another option letter
    (["C"], "the pressure decreases", False),                 # another option's text
    (["C"], "the pressure goes up", False),                   # words that contradict the gold option's
    (["C"], "pressure decreases, as the volume grows", False),  # another option's words, not the gold's
    (["C"], "All of the above", False),
    (["C"], "It is impossible to tell from the figure", False),
    (["C"], "the pressure stays the same", True),
]


@pytest.mark.parametrize("gold,answer,expected", OPTIONS, ids=[a for _, a, _ in OPTIONS])
def test_an_option_in_other_words_is_undecided_and_another_option_is_wrong(gold, answer, expected):
    assert boxed(gold, answer, answer_type="mcq", choices=PRESSURE) == expected


def test_an_option_that_is_a_picture_or_a_number_is_named_by_its_letter_or_text_only():
    assert boxed(["B"], "the second picture", answer_type="mcq", choices=["[IMAGE1]", "[IMAGE2]"]) is False
    assert boxed(["B"], "four of them", answer_type="mcq", choices=["3", "5"]) is False


def test_an_undecided_verdict_is_neither_correct_nor_a_failure():
    v = score(rec(["unchanged"]), "\\boxed{stays the same}")
    assert v["status"] == "undecided" and v["correct"] is None and "reader" in v["reason"]
    assert v["extracted"] == "stays the same"
    records = [{**rec(["unchanged"]), "id": "a"}, {**rec(["unchanged"]), "id": "b"}, {**rec(["5"]), "id": "c"}]
    out, counts = judge_predictions(records, {"a": "\\boxed{stays the same}", "b": "\\boxed{unchanged}",
                                              "c": "\\boxed{6}"})
    assert [v["status"] for v in out] == ["undecided", "ok", "ok"]
    assert (counts["undecided"], counts["scored"], counts["correct"], counts["judge_error"]) == (1, 2, 1, 0)


def test_the_exact_match_of_think360s_cascade_is_never_undecided():
    assert score(rec(["unchanged"]), "\\boxed{stays the same}", strict=True)["correct"] is False


def test_every_gold_of_the_omibench_release_decides_against_itself():
    """The 1,322 golds of the real release, each boxed: all correct, 0 undecided."""
    records = [{**json.loads(line), "benchmark": "omibench", "question": "", "images": []}
               for line in GOLDS.read_text(encoding="utf-8").splitlines()]
    assert len(records) == 1322
    verdicts = [score(r, "So the final answer is \\boxed{" + ", ".join(r["answer"]) + "}") for r in records]
    assert [r["id"] for r, v in zip(records, verdicts) if v.get("status") == "undecided"] == []
    assert [r["id"] for r, v in zip(records, verdicts) if v["correct"] is not True] == []


def test_every_gold_of_the_demo_sets_decides_against_itself(tmp_path):
    for bench, path in build_demo(tmp_path, list(BENCHMARKS)).items():
        records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        for r in records:
            gold = "".join(r["answer"]) if r["answer_type"] == "mcq" else ", ".join(r["answer"])
            v = score(r, f"So the final answer is \\boxed{{{gold}}}")
            assert v.get("status", "ok") == "ok" and v["correct"] is True, (bench, r["id"], gold, v)


def test_a_judge_run_summary_gives_the_careful_range():
    from judge.run import describe, summarize
    s = summarize([{"status": "ok", "correct": True}, {"status": "undecided", "correct": None},
                   {"status": "ok", "correct": False}])
    assert (s["accuracy"], s["accuracy_hi"], s["undecided"], s["scored"]) == (1 / 3, 2 / 3, 1, 2)
    assert "to 66.67% with the undecided right" in describe(s) and "1 undecided" in describe(s)
