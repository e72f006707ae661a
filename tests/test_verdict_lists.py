"""Lists, matchings and relations as a careful grader reads them, each class with its accepted answers and
its rejected neighbours.

- A list is a set where the question asks for one ("Which three compounds are achiral?") and nothing
  orders it: not the question ("arrange", "rank", "from … to …"), nor the gold (arrows or dashes between
  its items), nor a tuple. A sequence takes any separator (→ -> – - , "then"), in the gold's order.
- A labelled matching ("A–4, B–3, C–1") is answered by the same pairs in any order; labelled parts
  ("(1) … (2) …") likewise; true/false verdicts per statement in any spelling (T, True, TRUE).
- Relations: a chain read either way (c < b < a for a > b > c), |x| < 3 for −3 < x < 3, every spelling of
  ≤ and ≥, and the strictness of every end, also inside the parts of a multi-part gold.
"""
from __future__ import annotations

import pytest

from judge import relations
from judge.intervals import read
from judge.match import canonical
from judge.parts import order_free
from judge.rules import score


def rec(answer, question="Q", **kw):
    return {"id": "t", "benchmark": "omibench", "question": question, "images": [], "choices": [],
            "answer": list(answer), "answer_type": "open", **kw}


def boxed(gold, response, question="Q"):
    return score(rec(gold, question), f"The final answer is \\boxed{{{response}}}")["correct"]


# --------------------------------------------------------------------------------------------------
# Sets and sequences
# --------------------------------------------------------------------------------------------------
SET_QUESTIONS = ["Which three compounds are achiral?", "Which compounds are achiral?",
                 "Which carbon atoms are stereocentres?"]
ORDERING_QUESTIONS = ["Which compounds are achiral? List them from left to right.",
                      "Arrange the compounds from the lowest to the highest boiling point.",
                      "Which products form, from the most stable to the least stable?"]


@pytest.mark.parametrize("question", SET_QUESTIONS)
def test_a_question_naming_a_plural_set_is_read_as_one(question):
    assert order_free(question) is True


@pytest.mark.parametrize("question", ORDERING_QUESTIONS + ["Which compound is achiral?"])
def test_from_to_orders_a_list_and_a_singular_question_asks_for_no_set(question):
    assert order_free(question) is False


SETS = [
    (["1, 3, 4"], "4, 1, 3", True),
    (["1, 3, 4"], "3 and 4 and 1", True),
    (["1, 3, 4"], "4, 1", False),                # one missing
    (["1, 3, 4"], "4, 1, 2", False),             # one wrong
    (["1, 3, 4"], "4, 1, 3, 5", False),          # one too many
]


@pytest.mark.parametrize("question", SET_QUESTIONS)
@pytest.mark.parametrize("gold,response,expected", SETS, ids=[f"{g}|{r}" for g, r, _ in SETS])
def test_a_set_is_answered_in_any_order(question, gold, response, expected):
    assert boxed(gold, response, question) is expected


@pytest.mark.parametrize("question", ORDERING_QUESTIONS)
def test_a_list_the_question_orders_is_a_sequence(question):
    assert boxed(["1, 3, 4"], "1, 3, 4", question) is True
    assert boxed(["1, 3, 4"], "4, 1, 3", question) is False


def test_a_gold_ordered_by_arrows_or_dashes_stays_a_sequence_under_a_set_question():
    question = "Which of the following stages occur, and when?"
    assert order_free(question) is True
    for gold in (["A -> E -> D"], ["A – E – D"], ["Leu-Ser-Gly"]):
        items = gold[0].replace("->", ",").replace("–", ",").replace("-", ",")
        assert boxed(gold, items, question) is True
        assert boxed(gold, ", ".join(reversed(items.split(","))), question) is False
    assert boxed(["(2, 5)"], "(5, 2)", question) is False   # a tuple keeps its order


MEIOSIS = ["A -> E -> D -> C -> B"]
SEPARATORS = [
    ("A - E - D - C - B", True),
    ("A – E – D – C – B", True),
    ("A — E — D — C — B", True),
    ("A-E-D-C-B", True),
    ("A, then E, then D, then C, then B", True),
    ("A then E then D then C then B", True),
    ("first A, then E, then D, then C, finally B", True),
    ("A; E; D; C; B", True),
    ("A - E - C - D - B", False),
    ("A, then E, then C, then D, then B", False),
    ("A-E-D-C", False),
    ("B - C - D - E - A", False),
]


@pytest.mark.parametrize("response,expected", SEPARATORS, ids=[r for r, _ in SEPARATORS])
def test_a_sequence_takes_any_separator_but_keeps_its_order(response, expected):
    assert boxed(MEIOSIS, response, "Arrange the sub-stages in the correct sequence.") is expected


def test_a_sequence_of_codes_written_with_hyphens():
    assert boxed(["Leu, Ser, Gly"], "Leu-Ser-Gly") is True
    assert boxed(["Leu, Ser, Gly"], "Leu–Ser–Gly") is True
    assert boxed(["Leu, Ser, Gly"], "Ser-Leu-Gly") is False


def test_a_difference_is_not_a_sequence():
    """A hyphen between letters or numbers that are not names is a minus sign."""
    assert boxed(["x, y"], "x - y") is False
    assert boxed(["3, 1, 4"], "3 - 1 - 4") is False
    assert boxed(["4-methoxyphenol"], "4-methoxyphenol") is True


# --------------------------------------------------------------------------------------------------
# Labelled matchings and labelled parts
# --------------------------------------------------------------------------------------------------
MATCHINGS = [
    (["A–4, B–3, C–1"], "B–3, A–4, C–1", True),
    (["A–4, B–3, C–1"], "C-1, A-4, B-3", True),
    (["A–4, B–3, C–1"], "A → 4, B → 3, C → 1", True),
    (["A–4, B–3, C–1"], "A: 4; C: 1; B: 3", True),
    (["A–4, B–3, C–1"], "A=4, B=3, C=1", True),
    (["A–4, B–3, C–1"], "A-3, B-4, C-1", False),        # two matches swapped
    (["A–4, B–3, C–1"], "B-3, A-4", False),             # a label missing
    (["A–4, B–3, C–1"], "A-4, B-3, C-1, D-2", False),   # a label added
    (["A–4, B–3, C–1"], "4, 3, 1", True),               # the matches in label order
    (["A–4, B–3, C–1"], "3, 4, 1", False),
    (["P: III ; Q : I; R: II"], "R: II; P: III; Q: I", True),
    (["P: III ; Q : I; R: II"], "R: III; P: II; Q: I", False),
    (["(i) :C ; (ii) : E ; (iii) : F"], "(iii): F; (i): C; (ii): E", True),
    (["(i) :C ; (ii) : E ; (iii) : F"], "(iii): E; (i): C; (ii): F", False),
    (["A - reduction", "B - neutral reaction", "C - oxidation"], "C - oxidation, A - reduction, B - neutral reaction", True),
    (["A - reduction", "B - neutral reaction", "C - oxidation"], "C - reduction, A - oxidation, B - neutral reaction", False),
    (["a = 1, b = 2"], "b = 2, a = 1", True),
    (["a = 1, b = 2"], "b = 1, a = 2", False),
    (["Lipophilic: 1, 3, 6. Hydrophilic: 2, 4, 5"], "Hydrophilic: 5, 4, 2; Lipophilic: 6, 1, 3", True),
    (["Lipophilic: 1, 3, 6. Hydrophilic: 2, 4, 5"], "Hydrophilic: 1, 3, 6; Lipophilic: 2, 4, 5", False),
    (["Traditional PCR - a e ; SHARP PCR : f ; Both : c ; Neither : b d"],
     "Both: c; Neither: d, b; SHARP PCR: f; Traditional PCR: e, a", True),
    (["Traditional PCR - a e ; SHARP PCR : f ; Both : c ; Neither : b d"],
     "Both: c; Neither: d; SHARP PCR: f; Traditional PCR: e, a, b", False),
]


@pytest.mark.parametrize("gold,response,expected", MATCHINGS, ids=[r for _, r, _ in MATCHINGS])
def test_labelled_matchings_in_any_order_of_the_pairs(gold, response, expected):
    assert boxed(gold, response) is expected


def test_a_matching_inside_a_labelled_part_is_not_read_as_one_matching():
    """"(1) a=-1; b=1; c=6, (2) (2,4)": labels of two kinds are parts holding pairs, not one matching."""
    gold = ["(1) $a=-1$; $b=1$; $c=6$", "(2) (2,4)"]
    assert boxed(gold, "a=-1; b=1; c=6; (2,4)") is True
    assert boxed(gold, "a=-1; b=1; c=5; (2,4)") is False


def test_a_hyphen_glued_to_a_label_pairs_only_a_short_match():
    """"2-dimethylbenzene" is a name and "1-3" a range, not pairs of a matching."""
    gold = ["A: 1, 2-dimethylbenzene; B: toluene"]
    assert boxed(gold, "B: toluene; A: 1, 2-dimethylbenzene") is True
    assert boxed(gold, "B: 1, 2-dimethylbenzene; A: toluene") is False


LABELLED_PARTS = [
    (["(1) 6", "(2) 7"], "(2) 7; (1) 6", True),
    (["(1) 6", "(2) 7"], "(2) 6; (1) 7", False),
    (["(1) 6", "(2) 7"], "(2) 7", False),
    (["(i) 6", "(ii) 7", "(iii) 8"], "(iii) 8, (i) 6, (ii) 7", True),
    (["(i) 6", "(ii) 7", "(iii) 8"], "(iii) 6, (i) 8, (ii) 7", False),
    (["a) 6", "b) 7"], "6; 7", True),
    (["a) 6", "b) 7"], "b) 7, a) 6", True),
    (["a) 6", "b) 7"], "7; 6", False),
    (["a) 6", "b) 7"], "b) 6, a) 7", False),
    (["(1) $a=-1$; $b=1$; $c=6$", "(2) (2,4)"], "(2) (2,4); (1) a=-1; b=1; c=6", True),   # "4)" is no label
    (["(1) $a=-1$; $b=1$; $c=6$", "(2) (2,4)"], "(2) (2,4); (1) a=-1; b=1; c=5", False),
    (["(1) $a=-1$; $b=1$; $c=6$", "(2) (2,4)"], "(2) (4,2); (1) a=-1; b=1; c=6", False),
]


@pytest.mark.parametrize("gold,response,expected", LABELLED_PARTS, ids=[r for _, r, _ in LABELLED_PARTS])
def test_labelled_parts_in_any_order_of_the_labels(gold, response, expected):
    assert boxed(gold, response) is expected


def test_labelled_parts_are_no_set_even_under_a_set_question():
    """Unlabelled, the answers keep the gold's order of the parts."""
    question = SET_QUESTIONS[0]
    assert boxed(["(1) 6", "(2) 7"], "6; 7", question) is True
    assert boxed(["(1) 6", "(2) 7"], "7; 6", question) is False
    assert boxed(["(1) 6", "(2) 7"], "(2) 7; (1) 6", question) is True


TRUE_FALSE = [
    (["a : F ; b : T ; c :T ;d :F"], "a: False; b: True; c: True; d: False", True),
    (["a : F ; b : T ; c :T ;d :F"], "b: T, a: F, d: F, c: T", True),
    (["a : F ; b : T ; c :T ;d :F"], "A: false, B: true, C: true, D: false", True),
    (["a : F ; b : T ; c :T ;d :F"], "a: True; b: True; c: True; d: False", False),
    (["a : F ; b : T ; c :T ;d :F"], "a: False; b: True; c: True", False),
    (["a : F ; b : T ; c :T ;d :F"], "False, True, True, False", True),   # the verdicts in the labels' order
    (["a : F ; b : T ; c :T ;d :F"], "F, T, T, T", False),
    (["A : TRUE ; B: FALSE ; C: FALSE ; D:  TRUE"], "A: T, B: F, C: F, D: T", True),
    (["A : TRUE ; B: FALSE ; C: FALSE ; D:  TRUE"], "A: T, B: F, C: T, D: T", False),
    (["T", "F", "T"], "True, False, True", True),
    (["T", "F", "T"], "TRUE; FALSE; TRUE", True),
    (["T", "F", "T"], "True, True, False", False),
    (["True", "False"], "T, F", True),
    (["True", "False"], "F, T", False),
    (["a : F ; b : T ; c :T ;d :F"], "(a) F (b) T (c) T (d) F", True),
    (["a : F ; b : T ; c :T ;d :F"], "(b) True (a) False (d) False (c) True", True),
    (["a : F ; b : T ; c :T ;d :F"], "(b) True (a) False (d) True (c) True", False),
    (["T", "F", "T"], "1. True\n2. False\n3. True", True),             # the statements' numbers
    (["T", "F", "T"], "Statement 1: True; Statement 2: False; Statement 3: True", True),
    (["T", "F", "T"], "1. True\n2. True\n3. True", False),
]


@pytest.mark.parametrize("gold,response,expected", TRUE_FALSE, ids=[r for _, r, _ in TRUE_FALSE])
def test_true_false_per_statement_in_any_spelling(gold, response, expected):
    assert boxed(gold, response) is expected


def test_letters_of_a_matching_that_are_not_verdicts_stay_letters():
    """F is option F here, not "false": only a gold made of verdicts reads letters as verdicts."""
    gold = ["(i) :C ; (ii) : E ; (iii) : F"]
    assert boxed(gold, "(i): C; (ii): E; (iii): False") is False


# --------------------------------------------------------------------------------------------------
# Relations and intervals
# --------------------------------------------------------------------------------------------------
CHAINS = [
    ("a > b > c", "c < b < a", True),
    ("a > b > c", "a > b > c", True),
    ("b>c>a", "a < c < b", True),
    ("a > b > c", "c \\le b < a", False),      # a strict link answered by a non-strict one
    ("a > b > c", "a > c > b", False),         # an item moved
    ("a > b > c", "c > b > a", False),         # the order reversed
    ("a > b > c", "a > b", False),
    ("a \\geq b > c", "c < b \\leq a", True),
    ("a \\geq b > c", "c < b < a", False),
    ("a > b = c", "c = b < a", True),
    ("a > b = c", "b = c < a", True),
    ("a > b = c", "b < c < a", False),
    ("M < O", "O > M", True),
    ("M < O", "O < M", False),
    ("\\sqrt{2} < 1.5 < \\frac{\\pi}{2}", "\\frac{\\pi}{2} > 1.5 > \\sqrt 2", True),
    ("\\sqrt{2} < 1.5 < \\frac{\\pi}{2}", "\\frac{\\pi}{2} > 1.6 > \\sqrt 2", False),
]


@pytest.mark.parametrize("gold,response,expected", CHAINS, ids=[f"{g}|{r}" for g, r, _ in CHAINS])
def test_a_chain_of_relations_read_either_way(gold, response, expected):
    assert boxed([gold], response) is expected


def test_a_list_of_relations_compares_each_relation():
    gold = ["M < O", "Q < N", "R < P"]
    assert boxed(gold, "O > M, N > Q, P > R") is True
    assert boxed(gold, "O > M, Q > N, P > R") is False


SPELLINGS = ["x ⩾ 2", "x ≧ 2", "x ≥ 2", "x >= 2", "x \\geq 2", "x \\ge 2", "x \\geqslant 2", "2 ⩽ x",
             "2 ≦ x", "2 \\leqslant x", "2 \\le x", "[2, +\\infty)"]


@pytest.mark.parametrize("response", SPELLINGS)
@pytest.mark.parametrize("gold", ["x \\geq 2", "[2, +\\infty)", "x ⩾ 2"])
def test_every_spelling_of_at_least(gold, response):
    assert boxed([gold], response) is True
    assert boxed([gold], response.replace("2", "3")) is False
    strict = response.replace("⩾", ">").replace("≧", ">").replace(">=", ">").replace("≥", ">").replace(
        "\\geqslant", ">").replace("\\geq", ">").replace("\\ge", ">").replace("⩽", "<").replace("≦", "<").replace(
        "\\leqslant", "<").replace("\\le", "<").replace("[", "(")
    assert boxed([gold], strict) is False


AT_MOST = ["x ⩽ 5", "x ≦ 5", "x ≤ 5", "x <= 5", "x \\leq 5", "x \\le 5", "x \\leqslant 5", "5 ⩾ x", "5 ≧ x",
           "5 \\geqslant x", "5 \\ge x", "(-\\infty, 5]"]


@pytest.mark.parametrize("response", AT_MOST)
def test_every_spelling_of_at_most(response):
    assert boxed(["x \\leq 5"], response) is True
    assert boxed(["x \\leq 5"], response.replace("5", "6")) is False
    assert boxed(["x < 5"], response) is False
    assert boxed(["x \\geq 5"], response) is False


ABSOLUTE = [
    ("-3 < x < 3", "|x| < 3", True),
    ("-3 < x < 3", "\\left|x\\right| < 3", True),
    ("(-3, 3)", "|x| < 3", True),
    ("-3 \\le x \\le 3", "|x| \\le 3", True),
    ("-3 < x < 3", "3 > |x|", True),
    ("-1 < x < 3", "|x - 1| < 2", True),
    ("x < -1 \\text{ or } x > 3", "|x - 1| > 2", True),
    ("x \\le -1 \\text{ or } x \\ge 3", "|x - 1| \\geq 2", True),
    ("-3 < x < 3", "|x| \\le 3", False),
    ("-3 < x < 3", "|x| > 3", False),
    ("-3 < x < 3", "|x| < 9", False),
    ("-3 < x < 3", "|y| < 3", False),
    ("-1 < x < 3", "|x + 1| < 2", False),
]


@pytest.mark.parametrize("gold,response,expected", ABSOLUTE, ids=[f"{g}|{r}" for g, r, _ in ABSOLUTE])
def test_an_absolute_value_bound_is_its_interval(gold, response, expected):
    assert boxed([gold], response) is expected


LETTER_ENDS = [
    ("[a, +\\infty)", "x ⩾ a", True),
    ("[a, +\\infty)", "x \\geq a", True),
    ("[a, +\\infty)", "a \\le x", True),
    ("x \\geq a", "x \\in [a, +\\infty)", True),
    ("(-\\infty, 2k+1)", "x < 2k + 1", True),
    ("[a, +\\infty)", "x > a", False),
    ("[a, +\\infty)", "x \\geq b", False),
    ("[a, +\\infty)", "x \\le a", False),
    ("a < x < b", "x \\in (a, b)", True),
    ("a < x < b", "x \\in [a, b)", False),
]


@pytest.mark.parametrize("gold,response,expected", LETTER_ENDS, ids=[f"{g}|{r}" for g, r, _ in LETTER_ENDS])
def test_ends_written_with_letters(gold, response, expected):
    assert boxed([gold], response) is expected


SET_BUILDER = [
    ("\\{x \\mid x \\geq 2\\}", "[2, +\\infty)", True),
    ("\\{x \\mid x \\geq 2\\}", "\\{x | x ⩾ 2\\}", True),
    ("\\{x \\mid x \\geq 2\\}", "\\{t \\mid t \\geq 2\\}", True),      # the variable is bound
    ("[2, +\\infty)", "\\{x : x \\ge 2\\}", True),
    ("\\{x \\mid x \\geq 2\\}", "\\{x | x > 2\\}", False),
    ("\\{x \\mid x \\geq 2\\}", "(2, +\\infty)", False),
    ("\\{x \\mid x \\geq 2\\}", "\\{x | y \\geq 2\\}", False),
]


@pytest.mark.parametrize("gold,response,expected", SET_BUILDER, ids=[f"{g}|{r}" for g, r, _ in SET_BUILDER])
def test_set_builder_notation_is_its_interval(gold, response, expected):
    assert boxed([gold], response) is expected


def test_a_pair_in_round_brackets_is_not_read_as_an_interval_of_letters():
    assert read(canonical("(a, b)")) is None
    assert boxed(["(a, b)"], "(b, a)") is False


STRICTNESS_IN_PARTS = [
    # (gold parts, right answer, the same answer with one end's strictness changed)
    (["(1) $\\sqrt{3}$", "(2) unchanged; $\\sqrt{3}$", "(3) $\\frac{\\sqrt{3}}{2} \\leq D F \\leq \\sqrt{3}$"],
     "(1) \\sqrt{3}; (2) unchanged; \\sqrt{3}; (3) \\frac{\\sqrt{3}}{2} \\le DF \\le \\sqrt{3}",
     "(1) \\sqrt{3}; (2) unchanged; \\sqrt{3}; (3) \\frac{\\sqrt{3}}{2} < DF \\le \\sqrt{3}"),
    (["(1) $\\frac{2 \\sqrt{3}}{3}$", "(2) $8 \\leq S_{\\triangle A D G} \\leq 4+4 \\sqrt{2}$"],
     "(1) \\frac{2\\sqrt{3}}{3}; (2) 8 \\leqslant S_{\\triangle ADG} ⩽ 4+4\\sqrt{2}",
     "(1) \\frac{2\\sqrt{3}}{3}; (2) 8 \\leqslant S_{\\triangle ADG} < 4+4\\sqrt{2}"),
    (["(1) $0 \\leq x \\leq 10$", "(2) $315 \\pi$"], "(1) 0 ⩽ x ⩽ 10; (2) 315\\pi", "(1) 0 < x ⩽ 10; (2) 315\\pi"),
    (["The range is m > 0 or m < -3", "3"], "The range is m > 0 or m < -3; 3", "The range is m ≥ 0 or m < -3; 3"),
    (["x \\leq 3", "y > 2"], "x ⩽ 3, y > 2", "x < 3, y > 2"),
]


@pytest.mark.parametrize("gold,right,wrong", STRICTNESS_IN_PARTS, ids=[w for _, _, w in STRICTNESS_IN_PARTS])
def test_the_strictness_of_an_end_is_checked_inside_the_parts_of_a_gold(gold, right, wrong):
    assert boxed(gold, right) is True
    assert boxed(gold, wrong) is False


def test_a_chain_decides_only_where_its_items_are_the_gold_s():
    """Other items are another chain or the same relation rewritten, which the other rules decide."""
    def same_text(p, g):
        return p == g
    assert relations.same("c < b < a", "a > b > c", same_text) is True
    assert relations.same("c ≤ b < a", "a > b > c", same_text) is False
    assert relations.same("x + 1 > 3", "x > 2", same_text) is None
    assert relations.same("a > c > b", "a > b > c", same_text) is None
    assert relations.same("a, b, c", "a > b > c", same_text) is None
