"""Reading an answer: the final answer out of a response, option letters, numbers, the parts of a multi-part
answer, and whether one answer matches one gold — checked against the papers' protocols.

OMIBench Appendix C.1 (seed 001, lines 802-818) is the protocol: text lower-cased, whitespace collapsed,
common punctuation stripped (not inside alphanumeric tokens); numbers parsed after removing units and
non-numeric suffixes, equal when |delta| <= 1e-4; textual answers by LCS ratio >= 0.75; multiple choice
by the extracted letter or, failing that, the option text. MIRA asks for the answer inside
<answer></answer> and its judge looks only at that tag and the final answer (seed 002, lines 28, 305).
MorphoBench's grid tasks answer "row={row}, col={col}" (seed 004, line 506).

Every expectation states what is right by those protocols and by common sense, not what the code does.
"""
from __future__ import annotations

import pytest

from judge.extract import extract_answer, option_letters
from judge.match import match_one, parse_number
from judge.parts import split_parts


# --------------------------------------------------------------------------------------------------
# extract_answer: the final answer from the final text only
# --------------------------------------------------------------------------------------------------
EXTRACT = [
    ("boxed-frac-nested", "So the value is \\boxed{\\frac{1}{2}}.", False, "\\frac{1}{2}"),
    ("boxed-set-nested", "The solution set is \\boxed{\\{1,2\\}}", False, "\\{1,2\\}"),
    ("boxed-deep-nesting", "\\boxed{\\frac{\\sqrt{3}}{2}}", False, "\\frac{\\sqrt{3}}{2}"),
    ("boxed-in-dollars", "Final: $\\boxed{42}$", False, "42"),
    ("boxed-inner-space", "\\boxed{ 42 }", False, "42"),
    ("last-boxed-wins", "First guess \\boxed{3}. Wait, that is wrong; recomputing gives \\boxed{5}.", False, "5"),
    ("last-boxed-wins-3", "\\boxed{1} no \\boxed{2} no \\boxed{7}", False, "7"),
    ("answer-tag", "Reasoning...\n<answer>7</answer>", False, "7"),
    ("answer-tag-spaces", "<answer> 7 </answer>", True, "7"),
    ("tag-preferred-when-asked", "\\boxed{8}\n<answer>7</answer>", True, "7"),
    ("tag-preferred-when-asked-2", "<answer>7</answer> and also \\boxed{8}", True, "7"),
    ("last-answer-tag", "<answer>3</answer> hmm, no. <answer>4</answer>", True, "4"),
    ("answer-colon", "Some reasoning.\nAnswer: 42", False, "42"),
    ("answer-colon-bold", "Some reasoning.\n**Answer:** 42", False, "42"),
    ("final-answer-is", "Thus the final answer is 42.", False, "42"),
    ("final-answer-is-math", "The answer is $\\frac{3}{4}$.", False, "\\frac{3}{4}"),
    ("decimal-not-cut", "Answer: 12.5", False, "12.5"),
    ("last-answer-line", "Answer: 3\nLet me double check.\nAnswer: 4", False, "4"),
    ("answer-then-explanation", "Answer: C\nExplanation: the angle is largest.", False, "C"),
    ("chinese-answer", "因此\n答案：42", False, "42"),
    ("chinese-final-answer", "最终答案为 B", False, "B"),
    ("chinese-answer-is", "所以答案是12", False, "12"),
    ("bare-last-line", "We compute the sum.\n\n42", False, "42"),
    ("answer-colon-then-next-line", "Answer:\n42", False, "42"),
    ("think-ignored-boxed", "<think>maybe \\boxed{3}</think>The answer is \\boxed{5}", False, "5"),
    ("think-ignored-last-line", "<think>The answer is 3</think>\n5", False, "5"),
    ("think-ignored-tag", "<think><answer>3</answer></think><answer>7</answer>", True, "7"),
    ("think-closed-only", "<answer>3</answer> is wrong\n</think>The answer is 7", True, "7"),
    ("second-answer-on-line", "The answer is not A. The final answer is C.", False, "C"),
]


@pytest.mark.parametrize("text,prefer_tag,expected", [c[1:] for c in EXTRACT], ids=[c[0] for c in EXTRACT])
def test_extract_answer(text, prefer_tag, expected):
    assert extract_answer(text, prefer_tag=prefer_tag) == expected


@pytest.mark.parametrize("text", ["", None, "   \n  ", "<think>unfinished reasoning that never ends"],
                         ids=["empty", "none", "blank", "only-unclosed-think"])
def test_extract_answer_nothing(text):
    assert extract_answer(text) is None


# --------------------------------------------------------------------------------------------------
# option_letters: letters a candidate clearly states, never letters inside words or sentences
# --------------------------------------------------------------------------------------------------
LETTERS = [
    ("single", "C", 4, ["C"]),
    ("parenthesised", "(C)", 4, ["C"]),
    ("close-paren", "C)", 4, ["C"]),
    ("comma-set", "C, D", 4, ["C", "D"]),
    ("and-set", "C and D", 4, ["C", "D"]),
    ("concatenated", "CD", 4, ["C", "D"]),
    ("reversed-order", "D, C", 4, ["C", "D"]),
    ("space-set", "C D", 4, ["C", "D"]),
    ("chinese-comma-set", "C、D", 4, ["C", "D"]),
    ("paren-and-set", "(C) and (D)", 4, ["C", "D"]),
    ("option-word", "Option C", 4, ["C"]),
    ("option-word-paren", "Option (B)", 4, ["B"]),
    ("choice-colon", "choice: D", 4, ["D"]),
    ("options-plural-set", "Options C and D", 4, ["C", "D"]),
    ("correct-option-is", "The correct option is C", 4, ["C"]),
    ("letter-dot-text", "C. 45 degrees", 4, ["C"]),
    ("paren-letter-text", "(C) 18", 4, ["C"]),
    ("latex-text", "\\text{C}", 4, ["C"]),
    ("latex-boxed", "\\boxed{C}", 4, ["C"]),
    ("markdown-bold", "**C**", 4, ["C"]),
    ("math-dollars", "$C$", 4, ["C"]),
    ("fullwidth", "Ｃ", 4, ["C"]),
    ("fullwidth-parens", "（Ｃ）", 4, ["C"]),
    ("chinese-xuan", "答案选C", 4, ["C"]),
    ("chinese-xuanxiang", "选项 C", 4, ["C"]),
    ("chinese-guxuan", "故选C。", 4, ["C"]),
    ("five-letter-set", "ACE", 5, ["A", "C", "E"]),
    ("cyrillic-es", "С", 4, None),              # U+0421, looks like C
    ("cyrillic-a", "А", 4, None),               # U+0410
    ("greek-alpha", "Α", 4, None),              # U+0391
    ("cyrillic-in-set", "В, С", 4, None),
    ("beyond-options", "E", 4, None),
    ("set-beyond-options", "BEDC", 4, None),
    ("word-starting-with-letter", "A cat", 4, None),
    ("letter-at-sentence-end", "determined by B", 4, None),
    ("letter-in-sentence", "It is determined by B and the angle", 4, None),
    ("plain-word", "None", 26, None),
    ("capital-word", "Both", 26, None),
    ("plural-options-word", "All options", 26, None),    # the "s" of "options" is not option S
    ("plural-choices-word", "Choices", 26, None),
    ("number", "18", 4, None),
    ("empty", "", 4, None),
    ("none", None, 4, None),
    ("no-options", "C", 0, None),
]


@pytest.mark.parametrize("cand,n,expected", [c[1:] for c in LETTERS], ids=[c[0] for c in LETTERS])
def test_option_letters(cand, n, expected):
    assert option_letters(cand, n) == expected


# --------------------------------------------------------------------------------------------------
# parse_number: floats after removing units and non-numeric suffixes (OMIBench C.1, Eq. 7)
# --------------------------------------------------------------------------------------------------
NUMBERS = [
    ("int", "42", 42.0),
    ("negative", "-3.5", -3.5),
    ("unicode-minus", "−2", -2.0),
    ("thousands", "1,000", 1000.0),
    ("decimal", "3.14159", 3.14159),
    ("trailing-dot", "12.", 12.0),
    ("e-notation", "1.5e3", 1500.0),
    ("latex-times-sci", "1.5 \\times 10^{3}", 1500.0),
    ("latex-times-sci-neg", "5\\times10^{-1}", 0.5),
    ("unicode-times-sci", "1.5 × 10^3", 1500.0),
    ("degrees-latex", "45^\\circ", 45.0),
    ("degrees-latex-braced", "45^{\\circ}", 45.0),
    ("degrees-symbol", "45°", 45.0),
    ("unit-cm", "5 cm", 5.0),
    ("unit-glued", "5cm", 5.0),
    ("unit-text-latex", "5\\text{ cm}", 5.0),
    ("unit-compound", "9.8 m/s^2", 9.8),
    ("percent", "50%", 50.0),
    ("unit-word", "12 apples", 12.0),
    ("math-dollars", "$12$", 12.0),
    ("fullwidth-digits", "１２", 12.0),
    ("chinese-unit", "15元", 15.0),
    ("chinese-unit-ge", "3个", 3.0),
    ("word", "abc", None),
    ("empty", "", None),
    ("variable-glued", "3x", None),
]


@pytest.mark.parametrize("s,expected", [c[1:] for c in NUMBERS], ids=[c[0] for c in NUMBERS])
def test_parse_number(s, expected):
    got = parse_number(s)
    if expected is None:
        assert got is None
    else:
        assert got is not None and abs(got - expected) <= 1e-9


@pytest.mark.parametrize("s,value", [("3\\sqrt{3}", 3 * 3 ** 0.5), ("2 \\sqrt{3}", 2 * 3 ** 0.5),
                                     ("1/2", 0.5), ("2\\pi", 6.283185307179586)],
                         ids=["sqrt", "sqrt-spaced", "slash", "pi"])
def test_parse_number_never_reads_a_prefix(s, value):
    """A formula is either its exact value or not a number; never its leading digits ("3" of 3√3)."""
    got = parse_number(s)
    assert got is None or abs(got - value) <= 1e-9


# --------------------------------------------------------------------------------------------------
# split_parts: multi-part answers split at top level only
# --------------------------------------------------------------------------------------------------
SPLITS = [
    ("comma", "3, 5", ["3", "5"]),
    ("semicolon", "3; 5", ["3", "5"]),
    ("and", "3 and 5", ["3", "5"]),
    ("chinese-comma", "3，5", ["3", "5"]),
    ("tuples", "(1, 2), (3, 4)", ["(1, 2)", "(3, 4)"]),
    ("latex-set", "\\{1,2\\}", ["\\{1,2\\}"]),
    ("function-args", "f(x, y)", ["f(x, y)"]),
    ("interval", "[0, 1)", ["[0, 1)"]),
    ("single", "42", ["42"]),
    ("empty", "", []),
]


@pytest.mark.parametrize("s,expected", [c[1:] for c in SPLITS], ids=[c[0] for c in SPLITS])
def test_split_parts(s, expected):
    assert split_parts(s) == expected


# --------------------------------------------------------------------------------------------------
# match_one: normalised text, numbers within 1e-4, LCS for words, maths by equivalence
# --------------------------------------------------------------------------------------------------
MATCH = [
    # numbers
    ("same-number", "0.5", "0.5", True),
    ("trap-10.5-vs-0.5", "10.5", "0.5", False),
    ("trap-1000-vs-100", "1000", "100", False),
    ("trap-100-vs-1000", "100", "1000", False),
    ("trap-sign", "-2", "2", False),
    ("unicode-minus", "−2", "-2", True),
    ("trailing-zeros", "0.50", "0.5", True),
    ("within-eps", "1.00005", "1", True),
    ("beyond-eps", "1.0002", "1", False),
    ("thousands", "1,000", "1000", True),
    ("decimal-point-kept", "3.14", "314", False),
    ("variable-not-unit", "3x", "3", False),
    ("equation-rhs", "x = 5", "5", True),
    # fractions and scientific notation
    ("frac-vs-decimal", "\\frac{1}{2}", "0.5", True),
    ("decimal-vs-frac", "0.50", "\\frac{1}{2}", True),
    ("slash-vs-frac", "1/2", "\\frac{1}{2}", True),
    ("dfrac", "\\dfrac{1}{2}", "0.5", True),
    ("sci-vs-decimal", "5\\times10^{-1}", "0.5", True),
    ("rounded-third", "0.33", "\\frac{1}{3}", False),
    ("e-notation", "1.5e3", "1500", True),
    ("latex-sci", "1.5 \\times 10^{3}", "1500", True),
    ("plain-vs-sci-gold", "1500", "1.5\\times10^3", True),
    ("sci-wrong-exponent", "1.5 \\times 10^{2}", "1500", False),
    # roots and constants
    ("sqrt-same", "3\\sqrt{3}", "3\\sqrt{3}", True),
    ("trap-sqrt3-vs-sqrt2", "3\\sqrt{3}", "3\\sqrt{2}", False),
    ("sqrt-equivalent", "\\sqrt{27}", "3\\sqrt{3}", True),
    ("trap-sqrt-prefix", "3", "3\\sqrt{3}", False),
    ("frac-sqrt", "\\frac{\\sqrt3}{2}", "\\frac{\\sqrt{3}}{2}", True),
    ("frac-sqrt-wrong", "\\frac{\\sqrt{2}}{2}", "\\frac{\\sqrt{3}}{2}", False),
    ("pi", "2\\pi", "2\\pi", True),
    ("pi-wrong", "\\pi", "2\\pi", False),
    # units and degrees
    ("degrees-latex", "45^\\circ", "45", True),
    ("degrees-symbol", "45°", "45", True),
    ("degrees-gold", "45", "45^\\circ", True),
    ("degrees-word", "45 degrees", "45°", True),
    ("degrees-wrong", "135^\\circ", "45^\\circ", False),
    ("unit-pred", "5 cm", "5", True),
    ("unit-gold", "5", "5 cm", True),
    ("unit-wrong-value", "6 cm", "5 cm", False),
    ("chinese-unit-gold", "3", "3个", True),
    ("chinese-unit-pred", "15元", "15", True),
    # expressions and sets
    ("expr-spacing", "x^2 + 1", "x^2+1", True),
    ("expr-commuted", "1+x^2", "x^2+1", True),
    ("trap-expr-lcs", "x^2+2", "x^2+1", False),
    ("set-order", "\\{2,1\\}", "\\{1,2\\}", True),
    ("set-wrong", "\\{1,3\\}", "\\{1,2\\}", False),
    # text (normalisation + LCS >= 0.75)
    ("text-case-punct", "Octahedron.", "octahedron", True),
    ("text-whitespace", "  The   Octahedron ", "the octahedron", True),
    ("text-punct-inside", "Hello, world!", "hello world", True),
    ("text-hyphen-lcs", "square-planar", "Square planar", True),
    # LCS 8/10 = 0.8 >= 0.75 (Eq. 6), but another word: word forms are not told apart from other words by
    # their letters (ethanal / ethane, cyclohexane / cyclohexene), so the rule judge leaves them to LLM judges
    ("text-other-word-form", "octahedral", "octahedron", False),
    ("text-lcs-0.89", "increases", "increase", True),             # 8/9
    ("text-lcs-below", "tetrahedron", "octahedron", False),       # 8/11 = 0.727 < 0.75
    ("yes-no", "yes", "no", False),
    ("yes-yes", "Yes.", "yes", True),
    ("colours", "red", "blue", False),
    ("chinese-text", "光合作用。", "光合作用", True),
    ("chinese-text-wrong", "呼吸作用", "光合作用", False),
    ("short-code-case", "ag", "Ag", True),
    ("short-code-wrong", "Ar", "Ag", False),
    ("fullwidth-digits", "１２", "12", True),
    # nothing
    ("empty-pred", "", "5", False),
    ("none-pred", None, "5", False),
]


@pytest.mark.parametrize("pred,gold,expected", [c[1:] for c in MATCH], ids=[c[0] for c in MATCH])
def test_match_one(pred, gold, expected):
    assert match_one(pred, gold) is expected
