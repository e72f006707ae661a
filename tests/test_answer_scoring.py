"""Scoring a response end to end (judge.rules.score), by answer class and benchmark: multiple choice, options
printed in the question, numbers, maths and text, multi-part golds, and each paper's answer format.

The protocols (OMIBench Appendix C.1, MIRA's <answer></answer> tag, MorphoBench's grid answers) are quoted
in tests/test_answer_reading.py.

Every expectation states what is right by those protocols and by common sense, not what the code does.
"""
from __future__ import annotations

import pytest

from judge.rules import score


def rec(answer, answer_type="numeric", benchmark="omibench", choices=(), **kw):
    base = {"id": "t", "benchmark": benchmark, "question": "Q", "images": [], "choices": list(choices),
            "answer": list(answer), "answer_type": answer_type}
    return {**base, **kw}


def check(record, response, expected):
    got = score(record, response)
    assert got["correct"] is expected, f"response={response!r} gold={record['answer']!r} got={got!r}"


# --------------------------------------------------------------------------------------------------
# score(): multiple choice end to end
# --------------------------------------------------------------------------------------------------
NUM_CHOICES = ["12", "15", "18", "20"]
MCQ_C = [
    ("boxed", "Computing... \\boxed{C}", True),
    ("answer-is", "The answer is C.", True),
    ("answer-paren", "Answer: (C)", True),
    ("option-last-line", "We compare all options.\nOption C", True),
    ("letter-dot-text", "Answer: C. 18", True),
    ("paren-letter-text", "Answer: (C) 18", True),
    ("bold", "Hence\n**C**", True),
    ("boxed-text", "$\\boxed{\\text{C}}$", True),
    ("boxed-textbf-paren", "\\boxed{\\textbf{(C)}}", True),
    ("bare-last-line", "Let's compute.\nC", True),
    ("bare-last-line-dot", "Let's compute.\nC.", True),
    ("option-text-boxed", "\\boxed{18}", True),
    ("option-text-answer", "Answer: 18", True),
    ("chinese-answer", "答案：C", True),
    ("chinese-xuan", "故选C。", True),
    ("fullwidth", "\\boxed{Ｃ}", True),
    ("fullwidth-answer", "答案：Ｃ", True),
    ("answer-then-explanation", "Answer: C\nExplanation: 18 is the only multiple of 6 and 9.", True),
    ("answer-letter-comma-reason", "The answer is C, since 18 is divisible by 9.", True),
    ("answer-after-negation", "The answer is not A. The final answer is C.", True),
    ("correct-option-is", "After checking, the correct option is C", True),
    ("word-BEDC-before-boxed", "In quadrilateral BEDC the angle BED is 40.\nAnswer: \\boxed{C}", True),
    ("last-boxed-corrected", "\\boxed{A}... wait, I made an error. The correct answer is \\boxed{C}", True),
    ("last-boxed-trap", "\\boxed{C}... wait, I made an error. The correct answer is \\boxed{A}", False),
    ("think-other-answer", "<think>The answer is \\boxed{A}</think>The answer is \\boxed{C}", True),
    ("think-holds-gold", "<think>The answer is \\boxed{C}</think>The answer is \\boxed{A}", False),
    ("think-then-bare", "<think>Maybe A? or B?</think>\nC", True),
    ("wrong-letter", "\\boxed{B}", False),
    ("wrong-option-text", "\\boxed{15}", False),
    ("cyrillic-es", "\\boxed{С}", False),
    ("cyrillic-es-answer", "Answer: С", False),
    ("letter-set-BEDC", "\\boxed{BEDC}", False),
    ("beyond-options", "\\boxed{E}", False),
    ("two-letters-for-one", "\\boxed{B, C}", False),
    ("empty", "", False),
    ("none", None, False),
]


@pytest.mark.parametrize("response,expected", [c[1:] for c in MCQ_C], ids=[c[0] for c in MCQ_C])
def test_score_mcq_single(response, expected):
    check(rec(["C"], "mcq", choices=NUM_CHOICES), response, expected)


def test_score_mcq_extracted_letter():
    assert score(rec(["C"], "mcq", choices=NUM_CHOICES), "\\boxed{C}")["extracted"] == "C"
    assert score(rec(["C"], "mcq", choices=NUM_CHOICES), "\\boxed{С}")["extracted"] != "C"


MCQ_TRAPS = [
    # (gold, response, expected)
    ("determined-by-B", ["B"], "The answer is determined by B", False),
    ("A-cat", ["A"], "Look at the picture.\nA cat is sitting on the mat.", False),
    ("word-Both", ["B"], "Both triangles are similar.\nBoth", False),
    ("greek-alpha", ["A"], "\\boxed{Α}", False),
    ("neighbour-10.5", ["A"], "\\boxed{10.5}", False),
    ("neighbour-1000", ["B"], "\\boxed{1000}", False),
]
TRAP_CHOICES = {"neighbour-10.5": ["0.5", "10.5", "1.5", "2"], "neighbour-1000": ["1000", "100", "10", "1"]}


@pytest.mark.parametrize("name,gold,response,expected", MCQ_TRAPS, ids=[c[0] for c in MCQ_TRAPS])
def test_score_mcq_traps(name, gold, response, expected):
    check(rec(gold, "mcq", choices=TRAP_CHOICES.get(name, NUM_CHOICES)), response, expected)


MULTI = [
    ("comma", "Answer: C, D", True),
    ("and", "The answer is C and D.", True),
    ("concatenated", "\\boxed{CD}", True),
    ("boxed-reversed", "\\boxed{D, C}", True),
    ("paren-and", "Answer: (C) and (D)", True),
    ("options-plural", "Options C and D", True),
    ("only-one", "\\boxed{C}", False),
    ("extra-letter", "\\boxed{B, C, D}", False),
    ("wrong-set", "\\boxed{A, B}", False),
]


@pytest.mark.parametrize("gold", [["D", "C"], ["CD"]], ids=["gold-D,C", "gold-CD"])
@pytest.mark.parametrize("response,expected", [c[1:] for c in MULTI], ids=[c[0] for c in MULTI])
def test_score_mcq_multi_select(gold, response, expected):
    check(rec(gold, "mcq", choices=["w", "x", "y", "z"]), response, expected)


def test_score_multi_select_extracted():
    assert score(rec(["D", "C"], "mcq", choices=NUM_CHOICES), "C and D")["extracted"] == "CD"


TEXT_CHOICES = ["Octahedron", "Tetrahedron", "Cube", "Square pyramid"]
DEG_CHOICES = ["30°", "45°", "60°", "90°"]
OPTION_TEXT = [
    ("text-exact", TEXT_CHOICES, ["A"], "The answer is octahedron.", True),
    ("text-boxed", TEXT_CHOICES, ["A"], "\\boxed{\\text{Octahedron}}", True),
    ("text-other-option", TEXT_CHOICES, ["A"], "Tetrahedron", False),
    ("two-words", TEXT_CHOICES, ["D"], "Answer: square pyramid", True),
    ("degrees-latex", DEG_CHOICES, ["B"], "\\boxed{45^\\circ}", True),
    ("degrees-bare-number", DEG_CHOICES, ["B"], "\\boxed{45}", True),
    ("degrees-wrong", DEG_CHOICES, ["B"], "\\boxed{60^\\circ}", False),
]


@pytest.mark.parametrize("choices,gold,response,expected", [c[1:] for c in OPTION_TEXT],
                         ids=[c[0] for c in OPTION_TEXT])
def test_score_option_text(choices, gold, response, expected):
    check(rec(gold, "mcq", choices=choices), response, expected)


# --------------------------------------------------------------------------------------------------
# OMIBench: options printed in the question (has_inline_choices) are scored as MCQ
# --------------------------------------------------------------------------------------------------
INLINE = [
    ("boxed", ["B"], "\\boxed{B}", True),
    ("boxed-paren", ["B"], "\\boxed{(B)}", True),
    ("answer-is", ["B"], "The answer is B.", True),
    ("wrong", ["B"], "\\boxed{A}", False),
    ("BEDC", ["B"], "\\boxed{BEDC}", False),
    ("A-cat", ["A"], "A cat", False),
    ("greek-alpha", ["A"], "\\boxed{Α}", False),
    ("fullwidth", ["B"], "\\boxed{Ｂ}", True),
    ("set", ["AC"], "\\boxed{A, C}", True),
    ("set-partial", ["AC"], "\\boxed{A}", False),
]


@pytest.mark.parametrize("gold,response,expected", [c[1:] for c in INLINE], ids=[c[0] for c in INLINE])
def test_score_inline_choices(gold, response, expected):
    check(rec(gold, "text", question="Which? (A) 1 (B) 2 (C) 3 (D) 4", has_inline_choices=True),
          response, expected)


# --------------------------------------------------------------------------------------------------
# OMIBench ACC: numbers, maths and text end to end
# --------------------------------------------------------------------------------------------------
OMI = [
    ("half-decimal", ["0.5"], "\\boxed{0.50}", True),
    ("half-frac", ["0.5"], "The result is \\boxed{\\frac{1}{2}}.", True),
    ("half-slash", ["0.5"], "\\boxed{1/2}", True),
    ("half-sci", ["0.5"], "\\boxed{5\\times10^{-1}}", True),
    ("half-unit", ["0.5"], "\\boxed{0.5 m}", True),
    ("half-within-eps", ["0.5"], "\\boxed{0.50001}", True),
    ("half-beyond-eps", ["0.5"], "\\boxed{0.5002}", False),
    ("trap-10.5", ["0.5"], "\\boxed{10.5}", False),
    ("trap-negative", ["0.5"], "Answer: -0.5", False),
    ("hundred-trap-1000", ["100"], "\\boxed{1000}", False),
    ("hundred-decimals", ["100"], "\\boxed{100.00}", True),
    ("hundred-sci", ["100"], "\\boxed{1 \\times 10^{2}}", True),
    ("hundred-e", ["100"], "Answer: 1e2", True),
    ("deg-bare", ["45^\\circ"], "\\boxed{45}", True),
    ("deg-braced", ["45^\\circ"], "\\boxed{45^{\\circ}}", True),
    ("deg-symbol", ["45°"], "\\boxed{45°}", True),
    ("deg-wrong", ["45°"], "\\boxed{135^\\circ}", False),
    ("deg-4.5", ["45°"], "\\boxed{4.5}", False),
    ("cm-bare", ["5 cm"], "\\boxed{5}", True),
    ("cm-text", ["5 cm"], "\\boxed{5\\text{ cm}}", True),
    ("cm-mathrm", ["5 cm"], "\\boxed{5 \\mathrm{cm}}", True),
    ("cm-glued", ["5 cm"], "\\boxed{5cm}", True),
    ("cm-wrong", ["5 cm"], "\\boxed{50 cm}", False),
    ("sci-e", ["1500"], "Answer: 1.5e3", True),
    ("sci-latex", ["1500"], "\\boxed{1.5 \\times 10^{3}}", True),
    ("sci-latex-unbraced", ["1500"], "\\boxed{1.5\\times 10^3}", True),
    ("sci-unicode", ["1500"], "The final answer is 1.5 × 10^3", True),
    ("sci-mantissa-trap", ["1500"], "\\boxed{15}", False),
    ("sqrt-ok", ["3\\sqrt{3}"], "\\boxed{3\\sqrt{3}}", True),
    ("sqrt-unbraced", ["3\\sqrt{3}"], "\\boxed{3\\sqrt 3}", True),
    ("sqrt-27", ["3\\sqrt{3}"], "\\boxed{\\sqrt{27}}", True),
    ("sqrt-trap", ["3\\sqrt{3}"], "\\boxed{3\\sqrt{2}}", False),
    ("sqrt-prefix-trap", ["3\\sqrt{3}"], "\\boxed{3}", False),
    ("set-nested", ["\\{1,2\\}"], "\\boxed{\\{1,2\\}}", True),
    ("set-nested-wrong", ["\\{1,2\\}"], "\\boxed{\\{1,3\\}}", False),
    ("last-boxed-wins", ["5"], "Initially \\boxed{3}. Correction: \\boxed{5}", True),
    ("last-boxed-trap", ["3"], "Initially \\boxed{3}. Correction: \\boxed{5}", False),
    ("think-trap", ["3"], "<think>so it is \\boxed{3}</think>\\boxed{5}", False),
    ("think-ignored", ["5"], "<think>so it is \\boxed{3}</think>\\boxed{5}", True),
    ("equation-pred", ["5"], "Answer: $x = 5$", True),
    ("math-dollars-full-stop", ["\\frac{3}{4}"], "The answer is $\\frac{3}{4}$.", True),
    ("math-dollars-full-stop-wrong", ["\\frac{3}{4}"], "The answer is $\\frac{3}{5}$.", False),
    ("words-after-number", ["5"], "Answer: 5 apples.", True),
    ("two-statements-one-line", ["5"], "I first thought the answer is 3, but the final answer is 5.", True),
    ("text", ["octahedron"], "The final answer is **Octahedron**.", True),
    ("text-boxed", ["octahedron"], "\\boxed{\\text{Octahedron}}", True),
    ("text-wrong", ["octahedron"], "\\boxed{\\text{tetrahedron}}", False),
    ("text-hyphen", ["square planar"], "Answer: Square-planar.", True),
    ("yes", ["No"], "Answer: no.", True),
    ("yes-wrong", ["No"], "Answer: Yes", False),
    ("empty", ["5"], "", False),
    ("none", ["5"], None, False),
]


@pytest.mark.parametrize("gold,response,expected", [c[1:] for c in OMI], ids=[c[0] for c in OMI])
def test_score_omibench(gold, response, expected):
    check(rec(gold, "open"), response, expected)


def test_score_none_response_extracts_nothing():
    assert score(rec(["5"], "numeric"), None) == {"extracted": None, "correct": False}


# --------------------------------------------------------------------------------------------------
# Multi-element golds: every part must be right
# --------------------------------------------------------------------------------------------------
MULTIPART = [
    ("two-boxes", ["3", "5"], "\\boxed{3}, \\boxed{5}", True),
    ("two-boxes-and", ["3", "5"], "\\boxed{3} and \\boxed{5}", True),
    ("one-box-comma", ["3", "5"], "\\boxed{3, 5}", True),
    ("answer-comma", ["3", "5"], "Answer: 3, 5", True),
    ("answer-semicolon", ["3", "5"], "Answer: 3; 5", True),
    ("answer-and", ["3", "5"], "Answer: 3 and 5", True),
    ("one-part-wrong", ["3", "5"], "\\boxed{3}, \\boxed{6}", False),
    ("one-part-wrong-text", ["3", "5"], "Answer: 3, 6", False),
    ("only-first", ["3", "5"], "\\boxed{3}", False),
    ("only-second", ["3", "5"], "Answer: 5", False),
    ("repeated-part", ["3", "5"], "Answer: 3, 3", False),
    ("maths-parts", ["\\frac{1}{2}", "\\sqrt{2}"], "\\boxed{0.5}, \\boxed{\\sqrt2}", True),
    ("maths-one-wrong", ["\\frac{1}{2}", "\\sqrt{2}"], "\\boxed{0.5}, \\boxed{\\sqrt{3}}", False),
    ("think-ignored", ["3", "5"], "<think>\\boxed{3} \\boxed{5}</think>\\boxed{3}, \\boxed{6}", False),
    ("corrected-final-pair", ["3", "5"], "\\boxed{3}, \\boxed{5}. Wait, rechecking: \\boxed{3}, \\boxed{6}", False),
    ("thousands-part", ["1000", "5"], "Answer: 1,000; 5", True),
    ("units-parts", ["5 cm", "45°"], "Answer: 5 cm, 45^\\circ", True),
    # a word and a number are compared as one phrase first: the number's sign is part of it
    ("word-and-number", ["north", "3"], "Answer: North, 3", True),
    ("word-and-negated-number", ["north", "3"], "Answer: north, -3", False),
    ("word-and-signed-number", ["north", "-3"], "Answer: north, -3", True),
    ("word-and-unsigned-number", ["north", "-3"], "Answer: north, 3", False),
    ("empty", ["3", "5"], "", False),
]


@pytest.mark.parametrize("gold,response,expected", [c[1:] for c in MULTIPART], ids=[c[0] for c in MULTIPART])
def test_score_multi_part(gold, response, expected):
    check(rec(gold, "multi-part"), response, expected)


# --------------------------------------------------------------------------------------------------
# MIRA: <answer></answer> is read before \boxed{}
# --------------------------------------------------------------------------------------------------
MIRA = [
    ("tag-before-box", ["7"], "<answer>7</answer> so \\boxed{8}", True),
    ("box-before-tag", ["7"], "\\boxed{8}\n<answer>7</answer>", True),
    ("tag-wrong-box-right", ["8"], "\\boxed{8}\n<answer>7</answer>", False),
    ("only-box", ["7"], "The count is \\boxed{7}", True),
    ("last-tag", ["4"], "<answer>3</answer> no wait <answer>4</answer>", True),
    ("think-tag-ignored", ["7"], "<think><answer>3</answer></think><answer>7</answer>", True),
    ("think-tag-trap", ["3"], "<think><answer>3</answer></think><answer>7</answer>", False),
    ("boxed-inside-tag", ["7"], "<answer>\\boxed{7}</answer>", True),
    ("spaces", ["7"], "<answer> 7 </answer>", True),
    ("letter-tag", ["B"], "<answer>B</answer>", True),
    ("letter-tag-cyrillic", ["B"], "<answer>В</answer>", False),
]


@pytest.mark.parametrize("gold,response,expected", [c[1:] for c in MIRA], ids=[c[0] for c in MIRA])
def test_score_mira(gold, response, expected):
    atype = "mcq" if gold == ["B"] else "numeric"
    choices = ["p", "q", "r", "s"] if atype == "mcq" else []
    check(rec(gold, atype, benchmark="mira", choices=choices), response, expected)


# --------------------------------------------------------------------------------------------------
# MorphoBench grid answers: row={row}, col={col}
# --------------------------------------------------------------------------------------------------
GRID = [
    ("exact", "row=3, col=5", True),
    ("no-space", "row=3,col=5", True),
    ("spaced-caps", "Row = 3, Col = 5", True),
    ("words", "row 3, column 5", True),
    ("sentence", "The different character is at row 3 and column 5.", True),
    ("boxed", "\\boxed{row=3, col=5}", True),
    ("answer-line", "Scanning every row...\nAnswer: row=3, col=5", True),
    ("earlier-guess", "row=1, col=2 looks similar but is not.\nrow=3, col=5", True),
    ("think-ignored", "<think>row=1, col=1</think>row=3, col=5", True),
    ("swapped", "row=5, col=3", False),
    ("wrong-row", "row=13, col=5", False),
    ("wrong-col", "row=3, col=50", False),
    ("final-wrong", "I first thought row=3, col=5.\nrow=4, col=5", False),
    ("think-trap", "<think>row=3, col=5</think>row=4, col=5", False),
    ("empty", "", False),
]


@pytest.mark.parametrize("response,expected", [c[1:] for c in GRID], ids=[c[0] for c in GRID])
def test_score_morphobench_grid(response, expected):
    check(rec(["row=3, col=5"], "structured", benchmark="morphobench"), response, expected)


# --------------------------------------------------------------------------------------------------
# C²RBench short answers: numbers, letters, short Chinese text
# --------------------------------------------------------------------------------------------------
C2R = [
    ("number", ["12"], "open", "所以答案是12", True),
    ("number-colon-stop", ["12"], "open", "最终答案：12。", True),
    ("number-fullwidth", ["12"], "open", "答案：１２", True),
    ("number-wrong", ["12"], "open", "答案：120", False),
    ("unit-gold", ["15元"], "open", "答案：15", True),
    ("unit-pred", ["15"], "open", "答案：15元", True),
    ("unit-wrong", ["15元"], "open", "答案：16元", False),
    ("text", ["北京"], "open", "答案：北京", True),
    ("text-wrong", ["北京"], "open", "答案：上海", False),
    ("text-stop", ["光合作用"], "open", "答案为光合作用。", True),
    ("letter-open", ["A"], "open", "答案：A", True),
    ("letter-open-wrong", ["A"], "open", "答案：B", False),
    ("mcq-letter", ["B"], "mcq", "答案：B", True),
    ("mcq-xuan", ["B"], "mcq", "综上，答案选B", True),
    ("mcq-wrong", ["B"], "mcq", "答案：C", False),
]


@pytest.mark.parametrize("gold,atype,response,expected", [c[1:] for c in C2R], ids=[c[0] for c in C2R])
def test_score_c2rbench(gold, atype, response, expected):
    choices = ["甲", "乙", "丙", "丁"] if atype == "mcq" else []
    check(rec(gold, atype, benchmark="c2rbench", choices=choices), response, expected)


# --------------------------------------------------------------------------------------------------
# Think360: short formatted answers and relations
# --------------------------------------------------------------------------------------------------
THINK = [
    ("colour-code", ["Ag"], "Answer: Ag", True),
    ("colour-code-wrong", ["Ag"], "Answer: Ar", False),
    ("relation", ["4(b-w)=B-W"], "\\boxed{4(b - w) = B - W}", True),
    ("relation-wrong", ["4(b-w)=B-W"], "\\boxed{4(b - w) = W - B}", False),
    ("relation-case-swapped", ["4(b-w)=B-W"], "\\boxed{4(B-W)=b-w}", False),  # b, w, B, W are distinct
    ("yes-no", ["no"], "Could it be tiled? No.\nAnswer: No", True),
]


@pytest.mark.parametrize("gold,response,expected", [c[1:] for c in THINK], ids=[c[0] for c in THINK])
def test_score_think360(gold, response, expected):
    check(rec(gold, "open", benchmark="think360"), response, expected)
