"""Rule verdicts a careful reader agrees with, one class of answer shape at a time.

Each class holds answers that must be accepted and answers that must be rejected: a text that differs by
a negation, an opposite or a number is another answer however many characters it shares with the gold
(OMIBench's LCS ratio is meant only for the same phrase written differently); sequences, tuples and
assignments compare in order; a multi-part gold is answered whatever separates its parts; scientific
notation and superscripts are numbers; letters stated in a sentence are read; and a crash inside
math-verify is a judge error, never a wrong answer.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from judge import match, mathverify
from judge.errors import MatchError
from judge.match import match_one
from judge.rules import judge_predictions, score

GOLDS = Path(__file__).parent / "data" / "omibench_release_golds.jsonl"


def rec(answer, answer_type="open", choices=(), benchmark="omibench", **kw):
    return {"id": "t", "benchmark": benchmark, "question": "Q", "images": [], "choices": list(choices),
            "answer": list(answer), "answer_type": answer_type, **kw}


def verdict(gold, response, **kw):
    return score(rec(gold, **kw), response)["correct"]


# --------------------------------------------------------------------------------------------------
# Text: the same phrase written differently passes; a negation, an opposite or a number does not
# --------------------------------------------------------------------------------------------------
TEXT_DIFFERENT = [
    ("possible", "impossible"),
    ("The polygon can be tiled", "The polygon cannot be tiled"),
    ("The polygon can be tiled", "The polygon can't be tiled"),
    ("The polygon can be tiled", "The polygon can not be tiled"),
    ("It is possible", "It is not possible"),
    ("increases", "decreases"),
    ("The pressure increases", "The pressure decreases"),
    ("exothermic", "endothermic"),
    ("The reaction is exothermic", "The reaction is endothermic"),
    ("clockwise", "counterclockwise"),
    ("clockwise", "counter-clockwise"),
    ("clockwise", "anticlockwise"),
    ("polar", "nonpolar"),
    ("polar", "non-polar"),
    ("soluble in water", "insoluble in water"),
    ("stable", "unstable"),
    ("unchanged", "changed"),
    ("The solution turns blue", "The solution does not turn blue"),
    ("more stable", "less stable"),
    ("hydrophilic", "hydrophobic"),
    ("the higher one", "the lower one"),
    ("always spontaneous", "never spontaneous"),
    ("spontaneous at all temperatures", "spontaneous at low temperatures"),
    ("Only SAα2,6-Gal", "SAα2,6-Gal"),
    ("ethane", "ethene"),
    ("nitrate", "nitrite"),
    ("3 moles of gas", "4 moles of gas"),
    ("the ratio is 2 to 1", "the ratio is 1 to 2"),
    ("Yes", "No"),
    ("可以", "不可以"),
    ("增大", "减小"),
    ("左边", "右边"),
]

TEXT_SAME = [
    ("The polygon can be tiled", "the polygon can be tiled."),
    ("The polygon cannot be tiled", "The polygon can not be tiled"),
    ("The polygon cannot be tiled", "the polygon can't be tiled"),
    ("square planar", "Square-planar"),
    ("nonpolar", "non-polar"),
    ("quasi-right triangle", "Quasi right triangle"),
    ("colour change", "color change"),
    ("centre of mass", "center of mass"),
    ("increase", "increases"),
    ("octahedron", "The octahedron"),
    ("The reaction is exothermic", "the reaction is exothermic!"),
    ("Sulphur dioxide", "sulfur dioxide"),
    ("光合作用", "光合作用。"),
]


@pytest.mark.parametrize("gold,response", TEXT_DIFFERENT, ids=[f"{g}|{r}" for g, r in TEXT_DIFFERENT])
def test_text_that_says_something_else_is_rejected(gold, response):
    assert verdict([gold], f"The final answer is \\boxed{{{response}}}") is False
    assert verdict([gold], f"Answer: {response}") is False


@pytest.mark.parametrize("gold,response", TEXT_SAME, ids=[f"{g}|{r}" for g, r in TEXT_SAME])
def test_the_same_phrase_written_differently_is_accepted(gold, response):
    assert verdict([gold], f"The final answer is \\boxed{{{response}}}") is True


# --------------------------------------------------------------------------------------------------
# Order: sequences, tuples and assignments compare element by element
# --------------------------------------------------------------------------------------------------
COLOURS = "[1][Red] [2][Green] [3][Blue] [4][Green]"
ORDER = [
    (["ABDC"], "\\boxed{ABCD}", False),
    (["ABDC"], "\\boxed{ABDC}", True),
    (["ABDC"], "\\boxed{A, B, D, C}", True),
    (["AB"], "\\boxed{BA}", False),
    ([COLOURS], "\\boxed{[1][Red] [2][Green] [3][Blue] [4][Red]}", False),
    ([COLOURS], "\\boxed{[1][Red] [2][Blue] [3][Green] [4][Green]}", False),
    ([COLOURS], f"\\boxed{{{COLOURS}}}", True),
    ([COLOURS], "Final answer: [1][Red], [2][Green], [3][Blue], [4][Green]", True),
    (["3, 1, 4, 2"], "\\boxed{3, 1, 2, 4}", False),
    (["3, 1, 4, 2"], "\\boxed{3; 1; 4; 2}", True),
    (["3", "1", "4", "2"], "\\boxed{3, 1, 2, 4}", False),
    (["3", "1", "4", "2"], "\\boxed{3, 1, 4, 2}", True),
    (["(2, 5)"], "\\boxed{(5, 2)}", False),
    (["(2, 5)"], "\\boxed{(2,5)}", True),
    (["Leu", "Ser"], "\\boxed{Ser, Leu}", False),
    (["Leu", "Ser"], "\\boxed{Leu and Ser}", True),
    (["A - IV; B - V; C - II"], "\\boxed{A - V; B - IV; C - II}", False),
    (["A - IV; B - V; C - II"], "\\boxed{A - IV, B - V, C - II}", True),
]


@pytest.mark.parametrize("gold,response,expected", ORDER, ids=[f"{g}|{r}" for g, r, _ in ORDER])
def test_sequences_compare_in_order(gold, response, expected):
    assert verdict(gold, response) is expected


def test_a_multi_select_option_set_is_still_a_set():
    choices = ["p", "q", "r", "s", "t"]
    assert verdict(["B", "E"], "\\boxed{E, B}", answer_type="mcq", choices=choices) is True
    assert verdict(["B", "E"], "\\boxed{E}", answer_type="mcq", choices=choices) is False


# --------------------------------------------------------------------------------------------------
# Multi-part golds: every part, in order, whatever separates them
# --------------------------------------------------------------------------------------------------
MATH393 = ["(1) 90", "(2) $\\alpha$", "(3) $\\frac{10 \\sqrt{13}}{13}$"]
MULTIPART_RIGHT = [
    "\\boxed{(1) 90; (2) \\alpha; (3) \\frac{10 \\sqrt{13}}{13}}",
    "\\boxed{(1) 90, (2) \\alpha, (3) \\frac{10 \\sqrt{13}}{13}}",
    "\\boxed{(1) 90 and (2) \\alpha and (3) \\frac{10\\sqrt{13}}{13}}",
    "(1) \\boxed{90}\n(2) \\boxed{\\alpha}\n(3) \\boxed{\\frac{10\\sqrt{13}}{13}}",
    "The answers are \\boxed{90}, \\boxed{\\alpha} and \\boxed{\\frac{10\\sqrt{13}}{13}}.",
    "Final answers:\n(1) 90\n(2) $\\alpha$\n(3) $\\frac{10\\sqrt{13}}{13}$",
    "Answer: 90; $\\alpha$; $\\frac{10\\sqrt{13}}{13}$",
    "\\boxed{(1)\\ 90^\\circ;\\ (2)\\ \\alpha;\\ (3)\\ \\frac{10}{\\sqrt{13}}}",
]
MULTIPART_WRONG = [
    "\\boxed{(1) 90; (2) \\alpha; (3) \\frac{10 \\sqrt{13}}{12}}",   # one part wrong
    "\\boxed{(1) 90; (2) \\alpha}",                                  # a part missing
    "\\boxed{(1) \\alpha; (2) 90; (3) \\frac{10 \\sqrt{13}}{13}}",   # two parts swapped
    "\\boxed{(1) 90; (2) \\alpha; (3) \\frac{10 \\sqrt{13}}{13}; (4) 7}",  # a part too many
    "\\boxed{(1) 90; (2) \\alpha; (3) \\frac{10 \\sqrt{13}}{13}}. Wait, (3) is \\boxed{2}",
]


@pytest.mark.parametrize("response", MULTIPART_RIGHT)
def test_multi_part_answers_in_any_form_are_accepted(response):
    assert verdict(MATH393, response) is True


@pytest.mark.parametrize("response", MULTIPART_WRONG)
def test_multi_part_answers_with_a_wrong_missing_or_moved_part_are_rejected(response):
    assert verdict(MATH393, response) is False


@pytest.mark.parametrize("gold", [
    ["(1) 6", "12 (2) 7 (3)8 (4) 10 (5) 9"],           # the release cut part (1) "6, 12" at its comma
    ["(1) 90", "(2) 90", "(3) $\\angle E M D$; 45"],   # a part with parts of its own
    ["a) TOF = 21 s⁻¹; b) TOF = 210 s⁻¹", "TON ≈ 5×10⁵."],
    ["1,000", "5"],
])
@pytest.mark.parametrize("sep", [", ", "; ", " and "])
def test_golds_whose_parts_hold_separators(gold, sep):
    assert verdict(gold, "\\boxed{" + sep.join(gold) + "}") is True


def test_labelled_parts_answered_out_of_order_by_label_are_still_matched_by_label():
    assert verdict(["(1) 6", "(2) 7"], "\\boxed{(1) 6; (2) 8}") is False
    assert verdict(["a) 6", "b) 7"], "a) \\boxed{6}\nb) \\boxed{7}") is True


def _release():
    return [json.loads(line) for line in GOLDS.read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize("sep", [", ", "; "], ids=["commas", "semicolons"])
def test_every_gold_of_the_real_omibench_release_is_accepted_when_answered_exactly(sep):
    records = [{**r, "benchmark": "omibench", "question": "", "images": []} for r in _release()]
    assert len(records) == 1322
    rejected = [r["id"] for r in records
                if score(r, "So the final answer is \\boxed{" + sep.join(r["answer"]) + "}")["correct"] is not True]
    assert rejected == []


def test_real_release_golds_with_a_changed_number_are_rejected():
    """The other direction on the same golds: the last integer of a multi-part numeric gold, plus one."""
    import re
    checked = 0
    for r in _release():
        joined = "; ".join(r["answer"])
        if r["answer_type"] == "mcq" or len(r["answer"]) < 2 or not re.fullmatch(r"[\d.;\s-]+", joined):
            continue
        last = list(re.finditer(r"\d+", joined))[-1]
        wrong = joined[:last.start()] + str(int(last.group()) + 1) + joined[last.end():]
        rec_ = {**r, "benchmark": "omibench", "question": "", "images": []}
        assert score(rec_, f"\\boxed{{{wrong}}}")["correct"] is False, (r["id"], wrong)
        checked += 1
    assert checked >= 10


# --------------------------------------------------------------------------------------------------
# Scientific notation and superscripts are numbers
# --------------------------------------------------------------------------------------------------
NUMBERS = [
    ("6.02 \\times 10^{23}", "6.02e23", True),
    ("6.02 \\times 10^{23}", "6.02E+23", True),
    ("6.02 \\times 10^{23}", "6.02×10²³", True),
    ("6.02 \\times 10^{23}", "602000000000000000000000", True),
    ("6.02 \\times 10^{23}", "6.02e22", False),
    ("6.02 \\times 10^{23}", "6.03e23", False),
    ("1.6 \\times 10^{-19}", "1.6e-19", True),
    ("1.6 \\times 10^{-19}", "1.6\\cdot10^{-19}", True),
    ("1.6 \\times 10^{-19}", "1.7e-19", False),
    ("1.6 \\times 10^{-19}", "1.6e-18", False),
    ("1.6 \\times 10^{-19}", "0", False),
    ("5×10⁵", "5 \\times 10^{5}", True),
    ("5×10⁵", "500000", True),
    ("5×10⁵", "105", False),
    ("5×10⁵", "5×10⁶", False),
    ("21 s⁻¹", "21\\ \\mathrm{s^{-1}}", True),
    ("21 s⁻¹", "21 s^-1", True),
    ("21 s⁻¹", "22 s⁻¹", False),
    ("TOF = 21 s⁻¹", "TOF = 21\\ \\mathrm{s^{-1}}", True),
    ("TOF = 21 s⁻¹", "21 \\mathrm{s}^{-1}", True),
    ("8.8×10³", "8800", True),
    ("1.476x10⁻⁴", "1.476 \\times 10^{-4}", True),
    ("1.476x10⁻⁴", "1.476 \\times 10^{-5}", False),
    ("\\frac{1}{2^{61}}", "\\frac{1}{2^{62}}", False),
    ("\\frac{1}{2^{61}}", "2^{-61}", True),
    ("57{,}35 MJ", "57.35", True),
    ("57{,}35 MJ", "57.36", False),
    ("1{,}000", "1000", True),
    ("(8.09 \\pm 0.02) \\times 10^{-4} kg", "8.09e-4 kg", True),
    ("(8.09 \\pm 0.02) \\times 10^{-4} kg", "8.09e-5 kg", False),
]


@pytest.mark.parametrize("gold,response,expected", NUMBERS, ids=[f"{g}|{r}" for g, r, _ in NUMBERS])
def test_scientific_notation_and_superscripts(gold, response, expected):
    assert verdict([gold], f"\\boxed{{{response}}}") is expected


def test_superscripts_are_exponents_in_multi_part_golds():
    gold = ["0.1018", "0.06115", "1.476x10⁻⁴"]
    assert verdict(gold, "\\boxed{0.1018; 0.06115; 1.476 \\times 10^{-4}}") is True
    assert verdict(gold, "\\boxed{0.1018; 0.06115; 1.476 \\times 10^{-3}}") is False


# --------------------------------------------------------------------------------------------------
# Other ways of writing the same answer
# --------------------------------------------------------------------------------------------------
FORMS = [
    (["Yes"], "\\boxed{Yes, it can be tiled}", True),
    (["No"], "\\boxed{No, it cannot be tiled.}", True),
    (["No"], "\\boxed{Yes, it cannot be tiled.}", False),
    (["TRUE", "FALSE"], "\\boxed{True, False}", True),
    (["TRUE", "FALSE"], "\\boxed{False, True}", False),
    (["2"], "\\boxed{two}", True),
    (["3"], "There are three triangles.\nAnswer: three", True),
    (["3"], "Answer: four", False),
    (["A"], "\\boxed{(A)}", True),
    (["A"], "Answer: Option A", True),
    (["A"], "\\boxed{B}", False),
    (["H2O"], "\\boxed{H_2O}", True),
    (["H₂O"], "\\boxed{H2O}", True),
    (["H2O"], "\\boxed{H_2O_2}", False),
    (["e^{2}"], "\\boxed{e^2}", True),
    (["e^{2}"], "\\boxed{e^3}", False),
    (["x = 4"], "\\boxed{4}", True),
    (["4"], "\\boxed{x=4}", True),
    (["y = 2x + 1"], "\\boxed{y = 1 + 2x}", True),
    (["y = 2x + 1"], "\\boxed{y = 2x - 1}", False),
    (["a = 1, b = 2"], "\\boxed{a=1; b=2}", True),
    (["a = 1, b = 2"], "\\boxed{a=2, b=1}", False),
    (["\\{1, 2, 3\\}"], "\\boxed{\\{3, 2, 1\\}}", True),
    (["(-\\infty, 2]"], "\\boxed{(-\\infty,2)}", False),
    (["2 moles"], "\\boxed{2 mol}", True),
    (["24 m/s"], "\\boxed{24\\ \\mathrm{m\\,s^{-1}}}", True),
    (["3:2"], "\\boxed{2:3}", False),
]


@pytest.mark.parametrize("gold,response,expected", FORMS, ids=[f"{g}|{r}" for g, r, _ in FORMS])
def test_other_ways_of_writing_an_answer(gold, response, expected):
    assert verdict(gold, response) is expected


# --------------------------------------------------------------------------------------------------
# Letters stated in a sentence
# --------------------------------------------------------------------------------------------------
FIVE = ["p", "q", "r", "s", "t"]
LETTERS = [
    (["B", "E"], "The answers are B and E.", True),
    (["B", "E"], "The correct options are B and E", True),
    (["B", "E"], "B and E are correct.", True),
    (["B", "E"], "Only B is correct.", False),
    (["B", "E"], "B is correct.", False),
    (["B"], "Only B is correct.", True),
    (["B"], "B is the correct answer.", True),
    (["B"], "B is not correct.", False),
    (["B"], "The answer is not B.", False),
    (["A"], "A cat is sitting on the mat.", False),
]


@pytest.mark.parametrize("gold,response,expected", LETTERS, ids=[f"{g}|{r}" for g, r, _ in LETTERS])
def test_letters_stated_in_prose(gold, response, expected):
    assert verdict(gold, response, answer_type="mcq", choices=FIVE) is expected


# --------------------------------------------------------------------------------------------------
# A crash inside math-verify is a judge error, never a wrong answer
# --------------------------------------------------------------------------------------------------
def test_a_math_verify_crash_is_a_judge_error(monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("sympy blew up")

    monkeypatch.setattr(mathverify, "verify", broken)
    match.math_equal.cache_clear()
    try:
        v = score(rec(["x^2+1"]), "\\boxed{1+x^2}")
    finally:
        match.math_equal.cache_clear()
    assert v["status"] == "judge_error" and v["correct"] is None and "sympy blew up" in v["error"]


def test_a_formula_math_verify_cannot_finish_is_a_judge_error():
    """10^{10^{10^{10}}} cannot be evaluated in the time limit: not a wrong answer."""
    with pytest.raises(MatchError):
        match_one("10^{10^{10^{11}}}", "10^{10^{10^{10}}}")
    v = score(rec(["10^{10^{10^{10}}}"]), "\\boxed{10^{10^{10^{11}}}}")
    assert v["status"] == "judge_error" and v["correct"] is None


def test_judge_errors_are_counted_apart_from_wrong_answers(monkeypatch):
    monkeypatch.setattr(mathverify, "verify", lambda *a, **k: (_ for _ in ()).throw(RuntimeError("boom")))
    match.math_equal.cache_clear()
    try:
        records = [rec(["x^2+1"]) | {"id": "a"}, rec(["5"]) | {"id": "b"}]
        out, counts = judge_predictions(records, {"a": "\\boxed{1+x^2}", "b": "\\boxed{6}"})
    finally:
        match.math_equal.cache_clear()
    assert [v["status"] for v in out] == ["judge_error", "ok"]
    assert counts["judge_error"] == 1 and counts["scored"] == 1 and counts["correct"] == 0

