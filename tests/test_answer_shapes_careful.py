"""Correct answers a careful grader accepts, in every shape an answer takes, and their wrong neighbours.

OMIBench Appendix C.1 (quoted in tests/test_answer_reading.py) lower-cases both answers, removes units
from numbers and compares text by similarity; the rule judge keeps its guards (negations, opposites, the
order of sequences, numbers as numbers). Each class below holds answers it must accept — the same
answer in another notation — and answers it must reject: the same notation with a different value,
species, coefficient, end point, order, unit or letter. Every expectation is what a careful grader
decides, not what the code does.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from judge.parts import order_free
from judge.rules import mcq_prediction, score

GOLDS = Path(__file__).parent / "data" / "omibench_release_golds.jsonl"


def rec(answer, answer_type="open", choices=(), question="Q", **kw):
    return {"id": "t", "benchmark": "omibench", "question": question, "images": [], "choices": list(choices),
            "answer": list(answer), "answer_type": answer_type, **kw}


def verdict(gold, response, **kw):
    return score(rec(gold, **kw), response)["correct"]


def boxed(gold, response, **kw):
    return verdict(gold, f"The final answer is \\boxed{{{response}}}", **kw)


# --------------------------------------------------------------------------------------------------
# 1. A question that asks for a set: the items in any order. Anything asking for an order: in order.
# --------------------------------------------------------------------------------------------------
SET_QUESTIONS = [
    "Which of the following statements are true? Select all that apply.",
    "Check all that apply",
    "Give the numbers of the correct statements.",
    "Which of the following barbiturates cannot be prepared by the above sequence? (give the names directly)",
    "List the chiral compounds (in any order).",
    "Write the letters of all the true statements.",
    "Find all real solutions of x^2 = 4.",
]
ORDER_QUESTIONS = [
    "Arrange the compounds in order of increasing boiling point.",
    "Rank the following acids from strongest to weakest.",
    "Which of the following shows the correct sequence of events?",
    "Give the coordinates of point P.",
    "Find a and b respectively.",
    "List the steps in the order in which they occur.",
    "Which of the following pairs of values satisfy the equation?",
]


@pytest.mark.parametrize("question", SET_QUESTIONS)
def test_a_question_asking_for_a_set_is_read_as_one(question):
    assert order_free(question) is True


@pytest.mark.parametrize("question", ORDER_QUESTIONS + ["Q", "Compute the two roots.", "Find x and y.",
                                                       "Give the number of moles of A and B.",
                                                       "Find all the angles of triangle ABC."])
def test_a_question_asking_for_an_order_or_saying_nothing_keeps_the_order(question):
    assert order_free(question) is False


SETS = [
    # (gold, response, accepted when the question asks for a set)
    (["1, 3, 4"], "4, 3, 1", True),
    (["1, 3, 4"], "3; 1; 4", True),
    (["1, 3, 4"], "1, 3, 4", True),
    (["1", "3", "4"], "4 and 1 and 3", True),
    (["1, 3, 4"], "1, 3", False),             # an item missing
    (["1, 3, 4"], "1, 3, 4, 5", False),       # an item too many
    (["1, 3, 4"], "1, 1, 3", False),          # an item twice, another missing
    (["1, 3, 4"], "4, 3, 2", False),          # an item wrong
    (["a b c d"], "d, c, b, a", True),        # letters written side by side are items too
    (["a b c d"], "(a), (c), (b), (d)", True),
    (["a b c d"], "a b c", False),
    (["a b c d"], "a, b, c, e", False),
    (["Alphenal", "phenobarbital"], "phenobarbital and alphenal", True),
    # two trivial names of drugs: whether barbital is alphenal only a reader can tell (undecided, not correct)
    (["Alphenal", "phenobarbital"], "phenobarbital and barbital", None),
]


@pytest.mark.parametrize("question", SET_QUESTIONS[:3])
@pytest.mark.parametrize("gold,response,expected", SETS, ids=[f"{g}|{r}" for g, r, _ in SETS])
def test_items_of_a_set_answer_come_in_any_order(question, gold, response, expected):
    assert boxed(gold, response, question=question) is expected


@pytest.mark.parametrize("question", ORDER_QUESTIONS + ["Q"])
def test_a_sequence_stays_a_sequence(question):
    assert boxed(["1, 3, 4"], "1, 3, 4", question=question) is True
    assert boxed(["1, 3, 4"], "4, 3, 1", question=question) is False
    assert boxed(["3", "1", "4", "2"], "3, 1, 2, 4", question=question) is False
    assert boxed(["a b c d"], "d, c, b, a", question=question) is False


def test_a_set_question_does_not_reorder_what_each_item_holds():
    """A point or a labelled part is one item: its inside keeps its order. Items under a heading or a
    name belong to it by their place, so such an answer keeps its order."""
    question = SET_QUESTIONS[0]
    assert boxed(["(2, 5), (1, 3)"], "(1, 3), (2, 5)", question=question) is True
    assert boxed(["(2, 5), (1, 3)"], "(5, 2), (1, 3)", question=question) is False
    assert boxed(["(1) 6", "(2) 7"], "(1) 7; (2) 6", question=question) is False
    groups = ["Lipophilic: 1", "3", "6. Hydrophilic: 2", "4", "5"]
    assert boxed(groups, "Lipophilic: 1, 3, 6. Hydrophilic: 2, 4, 5", question=question) is True
    assert boxed(groups, "Lipophilic: 1, 4, 6. Hydrophilic: 2, 3, 5", question=question) is False
    assert boxed(["x = 1", "2", "y = 3"], "x = 1, 3, y = 2", question=question) is False


# --------------------------------------------------------------------------------------------------
# 2. Multiple choice answered with a lower-case letter, or with the option's text
# --------------------------------------------------------------------------------------------------
TEXT_CHOICES = ["Octahedron", "Tetrahedron", "Cube", "Square pyramid"]
LOWER = [
    ("The answer is c", ["C"], True),
    ("\\boxed{c}", ["C"], True),
    ("Answer: (c)", ["C"], True),
    ("\\boxed{(c)}", ["C"], True),
    ("Answer: c) Cube", ["C"], True),
    ("Answer: c. Cube", ["C"], True),
    ("The correct option is c", ["C"], True),
    ("\\boxed{a, c}", ["A", "C"], True),
    ("\\boxed{(a) and (c)}", ["A", "C"], True),
    ("\\boxed{b}", ["C"], False),
    ("\\boxed{c}", ["A", "C"], False),
    ("\\boxed{e}", ["C"], False),                            # beyond the options
    ("It is a cube.", ["A"], False),                         # the article is no option
    ("The answer is a cube", ["A"], False),
    # no option letter read; words that name no option by a rule: undecided, never correct
    ("A cat is sitting on the mat.", ["A"], None),
    ("so the shape is a\n\nfinal shape: a regular solid", ["A"], None),
    ("e.g. the octahedron", ["E"], False),                   # an abbreviation is no option
    ("All options", ["A"], False),
]


@pytest.mark.parametrize("response,gold,expected", LOWER, ids=[r for r, _, _ in LOWER])
def test_lower_case_letters_are_read_where_the_answer_states_them(response, gold, expected):
    choices = TEXT_CHOICES + (["Prism"] if "E" in gold else [])
    assert verdict(gold, response, answer_type="mcq", choices=choices) is expected


def test_lower_case_letters_answer_options_printed_in_the_question():
    kw = {"question": "Which? (A) 1 (B) 2 (C) 3 (D) 4", "has_inline_choices": True}
    assert verdict(["B"], "\\boxed{b}", **kw) is True
    assert verdict(["B"], "The answer is (b).", **kw) is True
    assert verdict(["B"], "\\boxed{c}", **kw) is False
    assert verdict(["A"], "It is a square.", **kw) is False


def test_a_lower_case_letter_that_is_an_option_s_own_text_is_that_option():
    choices = ["1", "e", "\\pi", "2", "0"]  # "e" is option B's text and also letter E
    assert verdict(["B"], "\\boxed{e}", answer_type="mcq", choices=choices) is True
    assert verdict(["E"], "\\boxed{e}", answer_type="mcq", choices=choices) is False


LATEX_CHOICES = ["\\( {\\mathrm{{CO}}}_{2} \\) is the limiting factor at \\( \\mathbf{X} \\) in experiment1.",
                 "Light can be made to be limiting by decreasing other factors.",
                 "Temperature is limiting at \\( \\mathbf{Y} \\) in experiment 2.",
                 "\\( {\\mathrm{{CO}}}_{2} \\) is limiting at \\( \\mathbf{X} \\) in experiment 2."]
FORMULA_CHOICES = ["\\frac{1}{2}", "\\frac{\\sqrt{3}}{2}", "1", "\\sqrt{3}"]
STIRRED = ["The mixture had been stirred.", "The mixture had not been stirred.", "The pH had been changed.",
           "Iodine had been added."]
OPTION_TEXT = [
    (LATEX_CHOICES, ["A"], "Answer: CO2 is the limiting factor at X in experiment 1.", True),
    (LATEX_CHOICES, ["A"], "\\boxed{\\text{CO}_2 \\text{ is the limiting factor at X in experiment 1}}", True),
    (LATEX_CHOICES, ["A"], "Answer: CO₂ is limiting at X in experiment 2.", False),
    (FORMULA_CHOICES, ["B"], "\\boxed{\\sqrt{3}/2}", True),
    (FORMULA_CHOICES, ["B"], "\\boxed{\\frac{\\sqrt3}{2}}", True),
    (FORMULA_CHOICES, ["B"], "\\boxed{\\sqrt{2}/2}", False),
    (FORMULA_CHOICES, ["D"], "\\boxed{\\sqrt{3}/2}", False),
    (STIRRED, ["B"], "Answer: the mixture had not been stirred", True),
    (STIRRED, ["A"], "Answer: the mixture had not been stirred", False),
    (TEXT_CHOICES, ["A", "C"], "\\boxed{Octahedron; Cube}", True),
    (TEXT_CHOICES, ["A", "C"], "\\boxed{cube and octahedron}", True),
    (TEXT_CHOICES, ["A", "C"], "\\boxed{Octahedron}", False),
    (TEXT_CHOICES, ["A", "C"], "\\boxed{Octahedron; Sphere}", False),
]


@pytest.mark.parametrize("choices,gold,response,expected", OPTION_TEXT, ids=[c[2] for c in OPTION_TEXT])
def test_an_option_answered_with_its_text(choices, gold, response, expected):
    assert verdict(gold, response, answer_type="mcq", choices=choices) is expected


def test_two_options_printed_alike_do_not_make_an_answer_fail():
    choices = ["(1)", "(1)(2)", "(2)(3)", "(1)(2)"]
    assert verdict(["B"], "\\boxed{(1)(2)}", answer_type="mcq", choices=choices) is True


# The value of an option, instead of its letter, is the option only within OMIBench's tolerance
# (|Δ| ≤ 1e-4, Eq. 7): a looser tolerance would pick the nearest option for any number.
NUMBER_CHOICES = ["3", "4", "5", "6"]
OPTION_VALUE = [("3", ["A"]), ("3.0", ["A"]), ("3.00005", ["A"]), ("\\frac{6}{2}", ["A"]),
                ("3.6", None), ("3.0002", None), ("2.5", None), ("3.5", None), ("4.4", None), ("6.9", None)]


@pytest.mark.parametrize("value,letters", OPTION_VALUE, ids=[v for v, _ in OPTION_VALUE])
def test_an_option_answered_with_its_value_needs_the_same_value(value, letters):
    record = rec(["A"], "mcq", NUMBER_CHOICES)
    assert mcq_prediction(record, value) == letters
    assert score(record, f"\\boxed{{{value}}}")["correct"] is (letters == ["A"])


def test_an_option_s_value_in_another_unit_is_not_that_option():
    record = rec(["B"], "mcq", ["30°", "45°", "60°", "90°"])
    assert mcq_prediction(record, "45^\\circ") == ["B"]
    assert mcq_prediction(record, "45 degrees") == ["B"]
    assert mcq_prediction(record, "45 rad") is None


# --------------------------------------------------------------------------------------------------
# 3. Closed forms with a unit or a "symbol =" before them
# --------------------------------------------------------------------------------------------------
CLOSED_FORMS = [
    ("25\\sqrt{2}", "50/\\sqrt{2} m", True),
    ("25\\sqrt{2}", "\\frac{50}{\\sqrt{2}}\\ \\text{m}", True),
    ("25\\sqrt{2}", "d = 25\\sqrt{2}\\,\\mathrm{m}", True),
    ("\\frac{\\pi}{3}", "\\theta = \\pi/3 rad", True),
    ("\\frac{\\pi}{3}", "\\frac{\\pi}{3}\\text{ rad}", True),
    ("-0.25", "-1/4 A", True),
    ("-0.25", "I = -\\frac{1}{4}\\,\\mathrm{A}", True),
    ("2\\sqrt{3} cm", "\\sqrt{12}", True),
    ("2\\sqrt{3} cm", "\\sqrt{12}\\ \\mathrm{cm}", True),
    ("\\frac{\\pi}{3} rad", "\\pi/3", True),
    ("25\\sqrt{2}", "25\\sqrt{3} m", False),            # another value
    ("25\\sqrt{2}", "50/\\sqrt{2} r", False),           # a variable, not a unit
    ("\\frac{\\pi}{3}", "\\theta = \\pi/6 rad", False),
    ("\\frac{\\pi}{3}", "\\frac{\\pi}{3} x", False),
    ("-0.25", "1/4 A", False),
    ("-0.25 A", "-1/4 V", False),                       # another unit
    ("2\\sqrt{3} cm", "\\sqrt{12} m", False),
    ("(2\\sqrt{3}, 30^\\circ)", "(\\frac{4\\sqrt{3}}{3}, 30^\\circ)", False),  # a degree sign inside a point
]


@pytest.mark.parametrize("gold,response,expected", CLOSED_FORMS, ids=[f"{g}|{r}" for g, r, _ in CLOSED_FORMS])
def test_closed_forms_with_a_unit_or_a_name(gold, response, expected):
    assert boxed([gold], response) is expected


# --------------------------------------------------------------------------------------------------
# 4. Intervals and the inequalities that describe them
# --------------------------------------------------------------------------------------------------
INTERVALS = [
    ("x \\le 3", "(-\\infty, 3]", True),
    ("(-\\infty, 3]", "x \\leq 3", True),
    ("x \\le 3", "3 \\ge x", True),
    ("x > 2", "(2, +\\infty)", True),
    ("x > 2", "(2,∞)", True),
    ("2 < x \\leq 5", "(2, 5]", True),
    ("(2, 5]", "5 \\geq x > 2", True),
    ("x \\geq \\frac{1}{2}", "[0.5, \\infty)", True),
    ("x \\in [1, 4)", "1 \\le x < 4", True),
    ("x < -1 \\text{ or } x > 2", "(-\\infty, -1) \\cup (2, +\\infty)", True),
    ("x \\le 3", "(-\\infty, 3)", False),               # an open end for a closed one
    ("x > 2", "[2, \\infty)", False),                   # a closed end for an open one
    ("x < 3", "(-\\infty, 3]", False),
    ("x \\le 3", "x \\ge 3", False),
    ("x \\le 3", "[3, \\infty)", False),
    ("x \\le 3", "(-\\infty, 4]", False),
    ("x \\le 3", "y \\le 3", False),                    # another variable
    ("2 < x \\leq 5", "[2, 5]", False),
    ("x < -1 \\text{ or } x > 2", "(-\\infty, -1)", False),
    ("x < -1 \\text{ or } x > 2", "(-\\infty, -1] \\cup (2, +\\infty)", False),
]


@pytest.mark.parametrize("gold,response,expected", INTERVALS, ids=[f"{g}|{r}" for g, r, _ in INTERVALS])
def test_intervals_and_inequalities(gold, response, expected):
    assert boxed([gold], response) is expected


# --------------------------------------------------------------------------------------------------
# 5. Sequences written with arrows or commas
# --------------------------------------------------------------------------------------------------
MEIOSIS = ["A -> E -> D -> C -> B"]
ARROWS = [
    ("A \\rightarrow E \\rightarrow D \\rightarrow C \\rightarrow B", True),
    ("A → E → D → C → B", True),
    ("A ⟶ E ⟶ D ⟶ C ⟶ B", True),
    ("A \\to E \\to D \\to C \\to B", True),
    ("A \\longrightarrow E \\longrightarrow D \\longrightarrow C \\longrightarrow B", True),
    ("A->E->D->C->B", True),
    ("A, E, D, C, B", True),
    ("A → E → C → D → B", False),
    ("B → C → D → E → A", False),
    ("A, E, D, C", False),
    ("A → E → D → C → B → F", False),
]


@pytest.mark.parametrize("response,expected", ARROWS, ids=[r for r, _ in ARROWS])
def test_sequences_with_arrows_or_commas(response, expected):
    question = "Arrange the sub-stages in the correct sequence:"
    assert boxed(MEIOSIS, response, question=question) is expected


def test_a_sequence_with_arrows_gold_answered_with_commas_and_the_reverse():
    assert boxed(["Leu, Ser, Gly"], "Leu \\rightarrow Ser \\rightarrow Gly") is True
    assert boxed(["Leu, Ser, Gly"], "Leu \\rightarrow Gly \\rightarrow Ser") is False


# --------------------------------------------------------------------------------------------------
# 6. Chemical species and equations in Unicode, LaTeX and mhchem
# --------------------------------------------------------------------------------------------------
SPECIES = [
    ("H₂O", "H_2O", True),
    ("H₂O", "\\mathrm{H_2O}", True),
    ("H₂O", "\\ce{H2O}", True),
    ("SO₄²⁻", "SO_4^{2-}", True),
    ("SO₄²⁻", "\\mathrm{SO_4^{2-}}", True),
    ("SO₄²⁻", "\\ce{SO4^2-}", True),
    ("SO₄²⁻", "SO_4^{-2}", True),
    ("Fe³⁺", "Fe^{3+}", True),
    ("Fe³⁺", "\\mathrm{Fe}^{3+}", True),
    ("Fe³⁺", "\\ce{Fe^3+}", True),
    ("·OH", "\\cdot OH", True),
    ("·OH", "•OH", True),
    ("·OH", "HO•", True),
    ("·OH", "OH^{\\bullet}", True),
    ("CuSO₄·5H₂O", "CuSO_4 \\cdot 5H_2O", True),
    ("NH₃", "H_3N", True),
    ("H₂O", "H_2O_2", False),
    ("H₂O", "2H_2O", False),                            # a coefficient is not part of the formula
    ("SO₄²⁻", "SO_3^{2-}", False),
    ("SO₄²⁻", "SO_4^{-}", False),
    ("Fe³⁺", "Fe^{2+}", False),
    ("·OH", "OH^-", False),
    ("·OH", "OH", False),
    ("CO", "Co", False),
    ("CO₂", "Co_2", False),
    ("CuSO₄·5H₂O", "CuSO_4 \\cdot 3H_2O", False),
    ("C₂H₅OH", "CH_3OCH_3", False),                    # the same atoms, another compound
]


@pytest.mark.parametrize("gold,response,expected", SPECIES, ids=[f"{g}|{r}" for g, r, _ in SPECIES])
def test_chemical_species(gold, response, expected):
    assert boxed([gold], response) is expected


SUPEROXIDE = "2 O₂•⁻ + 2 H⁺ → O₂ + H₂O₂"
EQUATIONS = [
    (SUPEROXIDE, "2O_2^{\\bullet -} + 2H^+ \\rightarrow O_2 + H_2O_2", True),
    (SUPEROXIDE, "\\ce{2 O2^{.-} + 2 H+ -> O2 + H2O2}", True),
    (SUPEROXIDE, "2 O₂•⁻ + 2 H⁺ = O₂ + H₂O₂", True),
    (SUPEROXIDE, "2H^+ + 2O_2^{•-} \\longrightarrow H_2O_2 + O_2", True),   # terms in another order
    (SUPEROXIDE, "2 O₂•⁻ + 2 H⁺ ⟶ O₂ + H₂O₂", True),
    (SUPEROXIDE, "O₂•⁻ + 2 H⁺ → O₂ + H₂O₂", False),                        # a coefficient
    (SUPEROXIDE, "2 O₂•⁻ + 2 H⁺ → O₂ + H₂O", False),                        # a species
    (SUPEROXIDE, "2 O₂⁻ + 2 H⁺ → O₂ + H₂O₂", False),                        # the radical dot
    (SUPEROXIDE, "2 O₂• + 2 H⁺ → O₂ + H₂O₂", False),                        # the charge
    (SUPEROXIDE, "O₂ + H₂O₂ → 2 O₂•⁻ + 2 H⁺", False),                       # the sides
    (SUPEROXIDE, "2 O₂•⁻ + 2 H⁺, O₂ + H₂O₂", False),                        # no equation
    ("2H₂ + O₂ → 2H₂O", "2H_2 + O_2 = 2H_2O", True),
    ("2H₂ + O₂ → 2H₂O", "\\ce{2H2 + O2 -> 2H2O}", True),
    ("2H₂ + O₂ → 2H₂O", "H_2 + O_2 = H_2O", False),
    ("2H₂ + O₂ → 2H₂O", "4H_2 + 2O_2 \\rightarrow 4H_2O", False),
    ("2H₂ + O₂ → 2H₂O", "2H_2 + O_2 \\rightarrow 2H_2O_2", False),
]


@pytest.mark.parametrize("gold,response,expected", EQUATIONS, ids=[f"{g}|{r}" for g, r, _ in EQUATIONS])
def test_chemical_equations(gold, response, expected):
    assert boxed([gold], response) is expected


def test_equations_of_mathematics_are_not_read_as_chemistry():
    assert boxed(["y = 2x + 1"], "y = 1 + 2x") is True
    assert boxed(["y = 2x + 1"], "y = 2x - 1") is False
    assert boxed(["A + B = C"], "B + A = C") is True


# --------------------------------------------------------------------------------------------------
# 7. Electron configurations, in noble-gas shorthand or in full
# --------------------------------------------------------------------------------------------------
CONFIGURATIONS = [
    ("[Ar] 3d⁶ 4s²", "1s² 2s² 2p⁶ 3s² 3p⁶ 3d⁶ 4s²", True),
    ("[Ar] 3d⁶ 4s²", "1s^2 2s^2 2p^6 3s^2 3p^6 4s^2 3d^6", True),
    ("[Ar] 3d⁶ 4s²", "[Ar]4s^{2}3d^{6}", True),
    ("[Ar] 3d⁶ 4s²", "1s2 2s2 2p6 3s2 3p6 3d6 4s2", True),
    ("[Ar] 3d⁷", "1s^2 2s^2 2p^6 3s^2 3p^6 3d^7", True),
    ("1s² 2s² 2p⁶ 3s² 3p⁶ 3d¹⁰ 4s² 4p⁶", "[Kr]", True),
    ("[Ne] 3s¹", "1s^{2}2s^{2}2p^{6}3s^{1}", True),
    ("[Ar] 3d⁶ 4s²", "[Ar] 3d^7 4s^1", False),
    ("[Ar] 3d⁶ 4s²", "1s² 2s² 2p⁶ 3s² 3p⁶ 3d⁶", False),
    ("[Ar] 3d⁶ 4s²", "[Kr] 3d^6 4s^2", False),
    ("[Ar] 3d⁷", "[Ar] 3d^6", False),
    ("[Ne] 3s¹", "[Ne] 3p^1", False),
]


@pytest.mark.parametrize("gold,response,expected", CONFIGURATIONS, ids=[f"{g}|{r}" for g, r, _ in CONFIGURATIONS])
def test_electron_configurations(gold, response, expected):
    assert boxed([gold], response) is expected


# --------------------------------------------------------------------------------------------------
# 8. Multi-part golds whose parts carry their own $…$, answered without them
# --------------------------------------------------------------------------------------------------
DOLLAR_PARTS = [
    (["$H_e$: 9.0", "$C_6 H_5$: 7.4-7.3", "$H_d$: 5.5", "$CH_2$: 4.2"],
     "H_e: 9.0; C_6 H_5: 7.4-7.3; H_d: 5.5; CH_2: 4.2", True),
    (["$H_e$: 9.0", "$C_6 H_5$: 7.4-7.3", "$H_d$: 5.5", "$CH_2$: 4.2"],
     "H_e: 9.0; C_6 H_5: 7.4-7.3; H_d: 5.6; CH_2: 4.2", False),
    (["$H_e$: 9.0", "$C_6 H_5$: 7.4-7.3", "$H_d$: 5.5", "$CH_2$: 4.2"],
     "H_d: 9.0; C_6 H_5: 7.4-7.3; H_e: 5.5; CH_2: 4.2", False),
    (["(1) $a=-1$; $b=1$; $c=6$", "(2) (2,4)"], "(1) a=-1; b=1; c=6; (2) (2,4)", True),
    (["(1) $a=-1$; $b=1$; $c=6$", "(2) (2,4)"], "(1) a=-1; b=1; c=5; (2) (2,4)", False),
    (["(1) $(3,0)$; $(0,3)$", "(2) $(0,3)$; $(2,3)$; $\\frac{21 \\sqrt{2}}{8}$"],
     "(1) (3,0); (0,3); (2) (0,3); (2,3); \\frac{21\\sqrt{2}}{8}", True),
    (["(1) $(3,0)$; $(0,3)$", "(2) $(0,3)$; $(2,3)$; $\\frac{21 \\sqrt{2}}{8}$"],
     "(1) (3,0); (0,3); (2) (0,3); (3,2); \\frac{21\\sqrt{2}}{8}", False),
]


@pytest.mark.parametrize("gold,response,expected", DOLLAR_PARTS, ids=[r for _, r, _ in DOLLAR_PARTS])
def test_parts_with_their_own_dollars_answered_without_them(gold, response, expected):
    assert boxed(gold, response) is expected


@pytest.mark.parametrize("sep", ["; ", ", "], ids=["semicolons", "commas"])
def test_every_release_gold_with_dollars_is_accepted_without_them(sep):
    records = [json.loads(line) for line in GOLDS.read_text(encoding="utf-8").splitlines()]
    with_dollars = [r for r in records if r["answer_type"] != "mcq" and any("$" in a for a in r["answer"])]
    assert len(with_dollars) > 300
    rejected = [r["id"] for r in with_dollars
                if score({**r, "benchmark": "omibench", "question": "", "images": []},
                         "\\boxed{" + sep.join(re.sub(r"\$", "", a).strip() for a in r["answer"]) + "}")["correct"]
                is not True]
    assert rejected == []


# --------------------------------------------------------------------------------------------------
# Units: when both answers state one, a different unit is another answer
# --------------------------------------------------------------------------------------------------
UNITS = [
    ("9.8 m s⁻²", "9.8 m·s⁻²", True),
    ("9.8 m s⁻²", "9.8 m/s^2", True),
    ("9.8 m s⁻²", "9.8\\ \\mathrm{m\\,s^{-2}}", True),
    ("9.8 m s⁻²", "9.8 m s^-2", True),
    ("9.8 m/s²", "9.8 ms^{-2}", True),
    ("9.8 m s⁻²", "9.8", True),                          # no unit: compared by value, as C.1 does
    ("2 moles", "2 mol", True),
    ("3 mol/L", "3 M", True),
    ("1.5 L", "1.5 dm^3", True),
    ("100 mL", "100 ml", True),
    ("8.314 J/(mol K)", "8.314 J mol^{-1} K^{-1}", True),
    ("45°", "45 degrees", True),
    ("20 °C", "20^\\circ\\mathrm{C}", True),
    ("9.8 m s⁻²", "9.8 m s⁻¹", False),
    ("9.8 m/s^2", "9.8 m/s", False),
    ("9.8 m/s^2", "9.8 m^2/s", False),
    ("5 cm", "5 m", False),
    ("45°", "45 rad", False),
    ("20 °C", "20 K", False),
    ("2 mol", "2 M", False),
    ("3 ms", "3 s", False),
]


@pytest.mark.parametrize("gold,response,expected", UNITS, ids=[f"{g}|{r}" for g, r, _ in UNITS])
def test_units_stated_by_both_answers_must_be_the_same_unit(gold, response, expected):
    assert boxed([gold], response) is expected
