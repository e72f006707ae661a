"""Forms a careful grader reads through, and words with one fixed meaning, each with its accepted answers
and its rejected neighbours.

- Labels and names around a value: a point's name before its coordinates, "F = …" before a formula, a
  ratio as "a : b = 2 : 1", "a/b = 2" or scaled (4 : 2), every term of it counting; \\frac32 / \\tfrac /
  \\dfrac; "about" / "≈" / "approximately".
- Alternatives: "1 ± √2" is its two values, listed apart in any order; "x = 1 or x = 2" is a set of
  roots. An uncertainty (10.50 ± 0.25) is not.
- Multi-part answers boxed part by part with prose between, or given on "Answer:" lines.
- Words with one fixed meaning: amino acids by one-letter code, three-letter code or name; nuclides and
  particles in nuclear equations, whose terms come in any order on each side.
"""
from __future__ import annotations

import pytest

from judge.rules import score


def rec(answer, question="Q"):
    return {"id": "t", "benchmark": "omibench", "question": question, "images": [], "choices": [],
            "answer": list(answer), "answer_type": "open"}


def boxed(gold, response, question="Q"):
    return score(rec(gold, question), f"The final answer is \\boxed{{{response}}}")["correct"]


# --------------------------------------------------------------------------------------------------
# Labels and names around a value
# --------------------------------------------------------------------------------------------------
NAMED = [
    ("(2, 4)", "P(2, 4)", True),
    ("(2, 4)", "P = (2, 4)", True),
    ("(2, 4)", "( 2 , 4 )", True),
    ("(2, 4)", "P_1(2, 4)", True),
    ("(2, 4)", "P\\left(2, 4\\right)", True),
    ("P(2, 4)", "(2, 4)", True),
    ("P(2, \\frac{10}{3})", "P(2, 3.33)", False),
    ("P(2, \\frac{10}{3})", "(2, \\frac{10}{3})", True),
    ("(2, 4)", "P(4, 2)", False),
    ("(2, 4)", "P(2, 5)", False),
    ("P(2, 4)", "Q(2, 4)", False),                       # another point's name
    ("\\frac{3}{2} mg", "F = \\frac{3}{2} mg", True),
    ("\\frac{3}{2} mg", "F = \\frac{3mg}{2}", True),
    ("\\frac{3}{2} mg", "F = 1.5 mg", True),
    ("\\frac{3}{2} mg", "F = \\frac{2}{3} mg", False),
    ("\\frac{3}{2} mg", "F = \\frac{3}{2} m", False),
]


@pytest.mark.parametrize("gold,response,expected", NAMED, ids=[f"{g}|{r}" for g, r, _ in NAMED])
def test_names_before_a_value(gold, response, expected):
    assert boxed([gold], response) is expected


RATIOS = [
    ("2", "a : b = 2 : 1", True),
    ("2", "a/b = 2", True),
    ("2", "2 : 1", True),
    ("2:1", "2", True),
    ("2:1", "a : b = 2 : 1", True),
    ("2", "a : b = 1 : 2", False),
    ("2", "a/b = 1/2", False),
    ("2:1", "1 : 2", False),
    ("3:2", "2:3", False),
    ("0.5", "1 : 2", True),
    ("0.5", "2 : 1", False),
    ("2 : 1", "4 : 2", True),                      # the same ratio scaled
    ("1 : 2 : 3", "2 : 4 : 6", True),
    ("1 : 2 : 3", "1 : 6", False),                 # 1/2/3 = 1/6 read left to right, but another ratio
    ("1 : 2 : 3", "1 : 4 : 1.5", False),
    ("1 : 2 : 3", "1 : 3 : 2", False),
    ("a : b = 2 : 1", "b : a = 1 : 2", True),     # the names say the order of the terms
    ("a : b = 2 : 1", "b : a = 2 : 1", False),
    ("a : b = 2 : 1", "a : c = 2 : 1", False),
]


@pytest.mark.parametrize("gold,response,expected", RATIOS, ids=[f"{g}|{r}" for g, r, _ in RATIOS])
def test_a_ratio_in_any_of_its_forms(gold, response, expected):
    assert boxed([gold], response) is expected


FRACTIONS_AND_APPROXIMATIONS = [
    ("1.5", "\\frac32", True),
    ("1.5", "\\tfrac{3}{2}", True),
    ("1.5", "\\dfrac{3}{2}", True),
    ("\\frac{3}{2}", "\\tfrac32", True),
    ("1.5", "\\frac23", False),
    ("1.5", "\\tfrac{2}{3}", False),
    ("4.1", "about 4.1", True),
    ("4.1", "approximately 4.1", True),
    ("4.1", "\\approx 4.1", True),
    ("4.1", "≈ 4.1", True),
    ("4.1", "~4.1", True),
    ("4.1 m", "approximately 4.1 m", True),
    ("4.1", "about 4.2", False),
    ("4.1", "approximately 41", False),
    ("4.1", "≈ -4.1", False),
    ("4.1 m", "approximately 4.1 s", False),
]


@pytest.mark.parametrize("gold,response,expected", FRACTIONS_AND_APPROXIMATIONS,
                         ids=[f"{g}|{r}" for g, r, _ in FRACTIONS_AND_APPROXIMATIONS])
def test_fractions_and_words_of_approximation(gold, response, expected):
    assert boxed([gold], response) is expected


def test_an_approximate_value_stated_in_a_sentence():
    assert score(rec(["4.1"]), "The answer is approximately 4.1")["correct"] is True
    assert score(rec(["4.1"]), "The answer is approximately 4.3")["correct"] is False


# --------------------------------------------------------------------------------------------------
# ± and alternatives
# --------------------------------------------------------------------------------------------------
PLUS_MINUS = [
    ("1 \\pm \\sqrt{2}", "1 + \\sqrt{2}, 1 - \\sqrt{2}", True),
    ("1 \\pm \\sqrt{2}", "1 - \\sqrt{2}, 1 + \\sqrt{2}", True),
    ("1 \\pm \\sqrt{2}", "x = 1 + \\sqrt{2} \\text{ or } x = 1 - \\sqrt{2}", True),
    ("1 \\pm \\sqrt{2}", "x_1 = 1 - \\sqrt{2}, x_2 = 1 + \\sqrt{2}", True),
    ("1 \\pm \\sqrt{2}", "x = 1 \\pm \\sqrt{2}", True),
    ("x_1 = 1 + \\sqrt{2}, x_2 = 1 - \\sqrt{2}", "x = 1 \\pm \\sqrt{2}", True),
    ("\\frac{-1 \\pm \\sqrt{5}}{2}", "\\frac{-1 - \\sqrt{5}}{2}, \\frac{-1 + \\sqrt{5}}{2}", True),
    ("1 \\pm \\sqrt{2}", "1 + \\sqrt{2}", False),                     # one root only
    ("1 \\pm \\sqrt{2}", "1 + \\sqrt{2}, 1 - \\sqrt{3}", False),
    ("1 \\pm \\sqrt{2}", "1 + \\sqrt{2}, 1 + \\sqrt{2}", False),
    ("1 \\pm \\sqrt{2}", "1 \\pm \\sqrt{3}", False),
    ("1 \\pm \\sqrt{2}", "y = 1 \\pm \\sqrt{2}", True),                # the gold names no variable
    ("x = 1 \\pm \\sqrt{2}", "y = 1 \\pm \\sqrt{2}", False),
]


@pytest.mark.parametrize("gold,response,expected", PLUS_MINUS, ids=[f"{g}|{r}" for g, r, _ in PLUS_MINUS])
def test_plus_minus_is_its_two_values(gold, response, expected):
    assert boxed([gold], response) is expected


def test_an_uncertainty_is_not_two_values():
    assert boxed(["(10.50 \\pm 0.25) ml"], "10.50 ml") is True
    assert boxed(["(10.50 \\pm 0.25) ml"], "10.75 ml, 10.25 ml") is False
    assert boxed(["450 \\pm 50"], "500, 400") is False


ROOTS = [
    (["1", "2"], "x = 2 \\text{ or } x = 1", True),
    (["1", "2"], "x = 1 or x = 2", True),
    (["1", "2"], "x = 2, x = 1", True),
    (["x = 1 or x = 2"], "x = 2 or x = 1", True),
    (["x = 1 or x = 2"], "2, 1", True),
    (["x = 1 or x = 2"], "x = 2 or x = 3", False),
    (["x = 1 or x = 2"], "x = 1", False),
    (["x = 1 or x = 2"], "y = 2 or y = 1", False),
    (["1 or 5"], "5 or 1", True),
    (["1 or 5"], "5, 1", True),
    (["1 or 5"], "5", False),
    (["2+2 \\sqrt{2} or 2-2 \\sqrt{2} or 2"], "2, 2 - 2\\sqrt{2}, 2 + 2\\sqrt{2}", True),
    (["2+2 \\sqrt{2} or 2-2 \\sqrt{2} or 2"], "2 - 2\\sqrt{2}, 2 + 2\\sqrt{2}", False),
    (["1", "2"], "2 or 1", False),          # nothing says these are one quantity's values
    (["x = 1, y = 2"], "x = 2 or x = 1", False),
]


@pytest.mark.parametrize("gold,response,expected", ROOTS, ids=[f"{g}|{r}" for g, r, _ in ROOTS])
def test_alternatives_of_one_quantity_are_a_set(gold, response, expected):
    assert boxed(gold, response, "Solve the equation.") is expected


def test_alternatives_inside_a_labelled_part():
    gold = ["$(1) $90^{\\circ}$\n\n(2) $P D+\\frac{1}{2} A C=C E$ \n\n(3) 1 or 5$"]
    assert boxed(gold, "(1) 90^\\circ; (2) PD + \\frac{1}{2} AC = CE; (3) 5 or 1") is True
    assert boxed(gold, "(1) 90^\\circ; (2) PD + \\frac{1}{2} AC = CE; (3) 5 or 2") is False


# --------------------------------------------------------------------------------------------------
# Multi-part answers boxed one by one, or on answer lines
# --------------------------------------------------------------------------------------------------
PARTS = ["(1) 6", "(2) \\frac{1}{2}"]
SPREAD = [
    ("For part (1) we count the cases and get \\boxed{6}. For part (2) the probability is \\boxed{\\frac{1}{2}}.", True),
    ("(1) The count is \\boxed{6}.\n\nNow the second part: it follows that \\boxed{0.5} is the probability.", True),
    ("Part 1: we count.\nAnswer: 6\n\nPart 2: we divide.\nAnswer: 1/2", True),
    ("**Answer (1):** 6\nReasoning for the next part ...\n**Answer (2):** \\frac{1}{2}", True),
    ("(2) Answer: 1/2\n(1) Answer: 6", True),
    ("Final answer to part (1): 6\nwork ...\nFinal answer to part (2): 0.5", True),
    ("For part (1) we get \\boxed{6}. For part (2) the probability is \\boxed{\\frac{1}{3}}.", False),
    ("Part 1: we count.\nAnswer: 7\n\nPart 2: we divide.\nAnswer: 1/2", False),
    ("(2) Answer: 6\n(1) Answer: 1/2", False),
    ("Answer: 6", False),
]


@pytest.mark.parametrize("response,expected", SPREAD, ids=[r[:40] for r, _ in SPREAD])
def test_the_parts_of_an_answer_spread_over_boxes_or_answer_lines(response, expected):
    assert score(rec(PARTS), response)["correct"] is expected


# --------------------------------------------------------------------------------------------------
# Amino acids
# --------------------------------------------------------------------------------------------------
AMINO_ACIDS = [
    (["Leu"], "L", True),
    (["Leu"], "leucine", True),
    (["Leu"], "L-Leucine", True),
    (["leucine"], "Leu", True),
    (["Asp"], "aspartic acid", True),
    (["Asp"], "aspartate", True),
    (["Leu"], "Ile", False),
    (["Leu"], "I", False),
    (["Leu"], "isoleucine", False),
    (["Gln"], "glutamate", False),                     # Glu, not Gln
    (["Leu", "Ser"], "L, S", True),
    (["Leu", "Ser"], "leucine and serine", True),
    (["Leu", "Ser"], "S, L", False),
    (["Leu-Ser-Gly"], "L-S-G", True),
    (["Leu-Ser-Gly"], "L-G-S", False),
]


@pytest.mark.parametrize("gold,response,expected", AMINO_ACIDS, ids=[f"{g}|{r}" for g, r, _ in AMINO_ACIDS])
def test_amino_acids_by_code_or_name(gold, response, expected):
    assert boxed(gold, response) is expected


def test_a_lone_letter_is_read_as_an_amino_acid_only_against_a_code_or_a_name():
    assert boxed(["L"], "S") is False
    assert boxed(["H"], "His") is True
    assert boxed(["His"], "H") is True
    assert boxed(["His"], "K") is False


# --------------------------------------------------------------------------------------------------
# Nuclear equations
# --------------------------------------------------------------------------------------------------
CARBON = "^{14}_{6}C \\rightarrow ^{14}_{7}N + e^-"
NUCLEAR = [
    (CARBON, "^{14}_{6}C \\rightarrow e^- + ^{14}_{7}N", True),       # products in another order
    (CARBON, "{}^{14}_{6}\\mathrm{C} \\to {}^{0}_{-1}e + {}^{14}_{7}\\mathrm{N}", True),
    (CARBON, "¹⁴₆C → ¹⁴₇N + β⁻", True),
    (CARBON, "C-14 → N-14 + \\beta^-", True),
    (CARBON, "^{14}C \\rightarrow ^{14}N + ^{0}_{-1}\\beta + \\bar{\\nu}_e", True),   # the antineutrino added
    (CARBON, "^{14}_{6}C \\rightarrow ^{14}_{7}N + e^+", False),      # a positron
    (CARBON, "^{14}_{6}C \\rightarrow ^{14}_{6}N + e^-", False),      # a wrong atomic number
    (CARBON, "^{14}_{6}C \\rightarrow ^{13}_{7}N + e^-", False),
    (CARBON, "^{14}_{7}N + e^- \\rightarrow ^{14}_{6}C", False),      # the sides swapped
    (CARBON, "^{14}_{6}C \\rightarrow ^{14}_{7}N", False),             # the electron missing
    (CARBON, "^{14}C \\rightarrow ^{14}N + e^- + \\nu_e", False),       # a neutrino for an antineutrino
    ("¹⁸F → ¹⁸O + β⁺ (+ νₑ)", "^{18}F \\to ^{18}O + \\beta^+", True),   # the bracketed term left out
    ("¹⁸F → ¹⁸O + β⁺ (+ νₑ)", "^{18}_{9}F \\rightarrow ^{18}_{8}O + e^{+} + \\nu_e", True),
    ("¹⁸F → ¹⁸O + β⁺ (+ νₑ)", "^{18}F → ^{18}O + β^+ + \\bar{\\nu}_e", False),
    ("¹⁸F → ¹⁸O + β⁺ (+ νₑ)", "^{18}F → ^{18}O + β^-", False),
    ("^{235}_{92}U + n \\rightarrow ^{141}_{56}Ba + ^{92}_{36}Kr + 3n",
     "n + ^{235}U → 3 ^{1}_{0}n + ^{92}Kr + ^{141}Ba", True),
    ("^{235}_{92}U + n \\rightarrow ^{141}_{56}Ba + ^{92}_{36}Kr + 3n",
     "n + ^{235}U → 2 ^{1}_{0}n + ^{92}Kr + ^{141}Ba", False),
    ("^{238}_{92}U \\rightarrow ^{234}_{90}Th + \\alpha", "^{238}U → ^{4}_{2}He + ^{234}Th", True),
    ("^{238}_{92}U \\rightarrow ^{234}_{90}Th + \\alpha", "^{238}U → ^{4}_{2}He + ^{234}Pa", False),
]


CHEMICAL = [
    ("2H₂ + O₂ → 2H₂O", "O_2 + 2H_2 \\rightarrow 2H_2O", True),        # reactants in another order
    ("CH₄ + 2O₂ → CO₂ + 2H₂O", "2O_2 + CH_4 \\to 2H_2O + CO_2", True),   # both sides reordered
    ("CH₄ + 2O₂ → CO₂ + 2H₂O", "2O_2 + CH_4 \\to 2H_2O + CO", False),
    ("CH₄ + 2O₂ → CO₂ + 2H₂O", "CO_2 + 2H_2O \\to CH_4 + 2O_2", False),  # the sides swapped
]


@pytest.mark.parametrize("gold,response,expected", CHEMICAL, ids=[r for _, r, _ in CHEMICAL])
def test_reactants_and_products_in_any_order(gold, response, expected):
    assert boxed([gold], response) is expected


@pytest.mark.parametrize("gold,response,expected", NUCLEAR, ids=[r for _, r, _ in NUCLEAR])
def test_nuclear_equations(gold, response, expected):
    assert boxed([gold], response) is expected


PARTICLES = [("\\alpha", "^{4}_{2}He", True), ("β⁻", "e^-", True), ("β⁻", "^{0}_{-1}e", True),
             ("β⁺", "^{0}_{+1}e", True), ("n", "^{1}_{0}n", True), ("p", "^{1}_{1}H", True),
             ("^{14}_{6}C", "^{14}C", True), ("^{14}_{6}C", "C-14", True),
             ("\\alpha", "^{3}_{2}He", False), ("β⁻", "e^+", False), ("n", "^{1}_{1}p", False),
             ("^{14}_{6}C", "^{12}C", False), ("^{14}_{6}C", "^{14}_{7}C", False)]


@pytest.mark.parametrize("gold,response,expected", PARTICLES, ids=[f"{g}|{r}" for g, r, _ in PARTICLES])
def test_nuclides_and_particles(gold, response, expected):
    assert boxed([gold], response) is expected
