"""The adaptation's checks, on planted cases: a hint that gives the answer away (the gold itself, an
equivalent form, the gold as one part of the hint) is rejected by the rule judge's matcher, a harmless
one passes; a perturbed question that keeps a cue, states the answer, changes the options, loses an
image marker or is cut short is rejected, a faithful one passes; a cue phrase must be in the question."""
from __future__ import annotations

import pytest

import pipeline.morphobench_adapt.checks as checks
from judge.errors import MatchError
from pipeline.morphobench_adapt.checks import new_mentions, spoiler
from pipeline.morphobench_adapt.recognition import adapt, cue_problem, problems


def rec(answer: list[str], answer_type: str = "numeric", question: str = "What is it?", **fields) -> dict:
    return {"id": "x", "benchmark": "morphobench", "question": question, "images": [], "choices": [],
            "answer": answer, "answer_type": answer_type, **fields}


SHAPE = rec(["A"], "mcq", "Which shape is drawn in the image?\nA. circle\nB. triangle\nC. square\nD. pentagon",
            has_inline_choices=True, images=["a.png"])
BAR = rec(["24"], question="The bar chart shows four bars labelled A to D. What is the sum of the heights of all bars?",
          images=["a.png"])


# ------------------------------------------------------------------------------------------ spoilers

@pytest.mark.parametrize("gold, hint", [
    (["0.5"], "0.5"),                                              # the gold itself
    (["0.5"], "The answer is 0.5."),
    (["0.5"], "Half of it: 1/2 of the whole."),                    # an equivalent form
    (["0.5"], "It equals $\\frac{1}{2}$ in the end."),
    (["1/2"], "Think of it as 0.5 of the unit."),
    (["6.02e23"], "About 6.02 \\times 10^{23} molecules take part."),
    (["24"], "Adding them, the total of 24 follows quickly."),     # the gold as one part of a hint
    (["the bridge was built"], "Notice that the bridge was built before anything else."),
    (["(1) 6, (2) 7"], "First show that the width is 7."),         # one part of a gold in two parts
    (["row=3, col=1"], "Look closely at row 3, column 1."),
    (["True"], "So the first statement is true."),
])
def test_a_hint_that_gives_the_answer_away_is_rejected(gold, hint):
    why = spoiler(rec(gold, "open"), hint)
    assert why and why.startswith("states the answer")


@pytest.mark.parametrize("hint", ["It is a circle.", "The answer is (A).", "Option A fits best."])
def test_a_hint_naming_the_right_option_or_its_text_is_rejected(hint):
    assert spoiler(SHAPE, hint)


@pytest.mark.parametrize("gold, hint", [
    (["0.5"], "Divide the distance by the time."),
    (["0.5"], "Count the 3 sides first."),
    (["24"], "Read the number above each bar."),
    (["the bridge was built"], "Compare the years of the three events."),
    (["row=3, col=1"], "Scan the grid row by row."),
    (["True"], "Check the pedigree of the second family."),
])
def test_a_harmless_hint_passes(gold, hint):
    assert spoiler(rec(gold, "open"), hint) is None


def test_letters_inside_words_are_not_the_option():
    assert spoiler(SHAPE, "Consider triangle ABC and count its corners.") is None


def test_a_piece_the_matcher_cannot_read_fails_the_hint(monkeypatch):
    def crash(*args, **kwargs):
        raise MatchError("math-verify crashed")

    monkeypatch.setattr(checks, "match_answer", crash)
    assert spoiler(rec(["0.5"]), "Use the value 3 here.").startswith("cannot be checked")


def test_mentions_the_original_already_had_are_no_leak():
    # the options of a multiple-choice question name the answer's text; the rewrite keeps them
    assert new_mentions(SHAPE, SHAPE["question"], SHAPE["question"].replace("shape", "sh_pe")) is None
    assert new_mentions(SHAPE, SHAPE["question"], SHAPE["question"] + "\n(It is A.)")


# ------------------------------------------------------------------------------------------ perturbations

GOOD = "The bar chart shows four bars labelled A to D. What is the combined s_ze of the columns of all bars?"


def test_a_faithful_perturbation_passes():
    assert problems(BAR, GOOD, ["sum of the heights"]) == []


@pytest.mark.parametrize("rewritten, why", [
    (GOOD.replace("combined s_ze of the columns", "Sum of the  Heights"), "still contains"),   # any case, any spacing
    (GOOD + " It comes to 24.", "states the answer"),
    (GOOD.replace("What is", "Its total, twenty-four = 24, is what? What is"), "states the answer"),
    (BAR["question"], "nothing was changed"),
    ("What is the total?", "cut to"),
    ("", "empty"),
])
def test_a_planted_bad_perturbation_is_rejected(rewritten, why):
    found = problems(BAR, rewritten, ["sum of the heights"])
    assert any(why in p for p in found), found


def test_printed_options_and_image_markers_must_survive():
    changed = SHAPE["question"].replace("shape", "outline").replace("C. square", "C. quadrilateral")
    assert any("option 'C. square' was changed" in p for p in problems(SHAPE, changed, ["shape"]))
    dropped = "Which outline is drawn in the image?"
    assert any("answer would read differently" in p for p in problems(SHAPE, dropped, ["shape"]))
    tagged = rec(["24"], question="[IMAGE0] What is the sum of the heights of all bars in the chart?", images=["a.png"])
    assert any("image markers" in p for p in problems(tagged, "What is the total s_ze of all bars in the chart?",
                                                      ["sum of the heights"]))


@pytest.mark.parametrize("phrase, why", [
    ("sum of the heights", None),
    ("SUM OF THE HEIGHTS", None),
    ("height of the tallest bar", "not in the question"),
    ("The bar chart shows four bars labelled A to D. What is the sum", "too long"),
    ("", "no phrase"),
])
def test_a_cue_phrase_must_be_a_short_part_of_the_question(phrase, why):
    found = cue_problem(BAR, phrase)
    assert (found is None) if why is None else why in found


def test_a_cue_phrase_inside_a_printed_option_is_refused():
    assert "option" in cue_problem(SHAPE, "square")
    assert cue_problem(SHAPE, "shape") is None


def test_an_item_without_an_image_is_dropped_without_a_call():
    outcome = adapt(rec(["24"]), "caption", 3)
    assert isinstance(outcome, dict) and outcome["derived"] == []
    assert "no image" in outcome["dropped"][0]["reason"]
