"""Is a predicted answer the gold answer? Numbers, mathematics, text, and answers in several parts.

Follows OMIBench Appendix C.1 — normalised text, numbers within 1e-4 after removing units, textual
answers by similarity — with the guards the authors' scorer lacks:
- a number or a formula is never decided as text ("10.5" is not "0.5", 3√3 is not 3√2); formulas are
  compared by math-verify (\\frac{1}{2} = 1/2 = 0.50 = 5\\times10^{-1}), but never sequences, letter
  strings or case-sensitive formulas, which it would compare as sets or products (ABDC = ABCD), and
  never a part of an answer it could not read whole;
- scientific notation in any spelling (6.02e23, 6.02 \\times 10^{23}, 6.02×10²³) is one number, and
  very small numbers are compared relative to their size;
- text matches when it has the same words in the same order, so no negation, opposite or number may
  differ (judge/text.py replaces the paper's LCS ratio ≥ 0.75, which accepts "impossible" for "possible");
- a unit stated by both answers must be of the same dimension, and the values equal once converted by
  pint (judge/units.py: 9.8 m s⁻¹ is not 9.8 m s⁻², 2.5 km is 2500 m); the question's asked unit and a
  proportion it asks for are read too (judge/quantities.py); a closed form is compared without its unit
  (50/√2 m = 25√2);
- an interval and its inequality are one set (judge/intervals.py); chemistry is compared as chemistry:
  species, equations and electron configurations (judge/chem.py);
- a multi-part gold needs every part, in order, however the parts are separated (judge/parts.py,
  judge/sequences.py), or in any order where the question asks for a set and the gold does not order it;
  labelled parts and matchings ("A–4, B–3") pair by label in any order (judge/matchings.py), and the
  values one quantity may take ("x = 1 or x = 2", "1 ± √2") are a set (judge/alternatives.py);
- ratios by all their terms, scaled or not (judge/ratios.py: 2 : 4 : 6 is 1 : 2 : 3, 1 : 6 is not);
- chains of relations read either way (judge/relations.py: c < b < a is a > b > c); a point's name or
  a word of approximation before a value is read through (judge/labels.py); amino acids and true/false
  verdicts have one meaning however written (judge/lexicon.py), as do nuclides (judge/nuclear.py).
A crash inside math-verify is a `MatchError`: the verdict becomes a judge error, not a wrong answer.
Where math-verify's verdict is certain without asking it, it is not asked: formulas of a closed grammar
are read directly (judge/formula.py), and a sentence that cannot be the gold's formula is not parsed
(judge/prose.py).
"""
from __future__ import annotations

import re
from functools import lru_cache

from judge import (alternatives, chem, formula, intervals, labels, lexicon, matchings, nuclear, quantities, ratios,
                   relations, sequences, units)
from judge.errors import MatchError
from judge.extract import clean, option_letters, strip_decoration, unwrap_latex
from judge.parts import flat_parts, labelled_parts, set_items, split_parts
from judge.text import same_phrase, words

_PUNCT = re.compile(r"[.,?!;:，。？！；：]+(?=\s|$)|(?<=\s)[.,?!;:，。？！；：]+")
_SPACING = re.compile(r"\\[ ,;:!]|\\q?quad\b|~|\\left\b|\\right\b")
_SYMBOLS = {"times": "×", "cdot": "·", "approx": "≈", "leq": "≤", "le": "≤", "leqslant": "≤", "geq": "≥", "ge": "≥",
            "geqslant": "≥", "lt": "<", "gt": ">", "neq": "≠", "ne": "≠", "pm": "±", "%": "%", "to": "→",
            "rightarrow": "→", "longrightarrow": "→"}
_SYMBOL = re.compile(r"\\(times|cdot|approx|[lg]eqslant|leq?|geq?|[lg]t|neq?|pm|%|to|(?:long)?rightarrow)(?![A-Za-z])")
# One spelling of each sign: minus signs and dashes as "-", every "at least" / "at most" as ≥ / ≤.
_SIGNS = str.maketrans({"−": "-", "–": "-", "⩾": "≥", "≧": "≥", "⩽": "≤", "≦": "≤"})
# Arrows written in text ("A -> B", "A ⟶ B") as the one arrow; "<->" and "<=>" are left whole.
_ARROWS = re.compile(r"(?<![<\-])-+>|⟶")
# Math delimiters inside an answer: "(1) $90$; (2) $\alpha$", "$H_e$: 9.0".
_INLINE_MATH = re.compile(r"\\?\$+|\\[()\[\]]")
# ASCII digits only: look-alike digits of other scripts (Arabic-Indic ٣) never read as numbers.
_NUM = r"[+-]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][+-]?\d+)?|[+-]?\.\d+(?:[eE][+-]?\d+)?"
_SCI = re.compile(rf"({_NUM})?\s*(?:[×xX*·]\s*)?10\s*\^\s*\{{?\s*([+-]?\d+)\s*\}}?", re.ASCII)
_PLAIN = re.compile(f"({_NUM})", re.ASCII)
# "(8.09 ± 0.02)": the value is 8.09 (the uncertainty is not part of the answer's value)
_UNCERTAINTY = re.compile(r"^\(?\s*([+-]?\d+(?:\.\d+)?)\s*±\s*\d+(?:\.\d+)?\s*\)?")
# "1{,}000" and "57{,}35": LaTeX's braced comma, a thousands separator before three digits, else a decimal comma
_BRACED_COMMA = re.compile(r"(?<=\d)\{,\}(\d+)")
# What may follow a number as its unit: degrees, percent, or words ("cm", "m/s^2", "s^{-1}", "元"). A
# single letter glued to the number ("3x") is a variable, not a unit.
_UNIT_WORD = r"[A-Za-zµΩÅ°]+(?:\^\s*\{?\s*[+-]?\d+\s*\}?)?"  # "cm", "m^2", "s^{-1}": digits only as exponents
_UNIT = re.compile(
    r"(?:\s*(?:\^\s*\{?\\circ\}?|°|%))?"
    rf"(?:\s+{_UNIT_WORD}(?:[\s/·.*()-]+{_UNIT_WORD})*\)?|[A-Za-zµΩÅ°]{{2,}}(?:[\s/·.*()-]*{_UNIT_WORD})*\)?"
    r"|\s*[\u4e00-\u9fff][\u4e00-\u9fff/·\s]*)?\s*$")
# "x = 5", "TOF ≈ 21 s^{-1}": a short name, then the value.
_RELATION = re.compile(r"^([A-Za-z\\][^=≈≃<>≤≥]{0,60}?)\s*(?:=|≈|≃)\s*([^=≈≃<>≤≥]+)$")
_WORD = re.compile(r"(?<!\\)\b[A-Za-z]{3,}\b")
MAX_SET_ITEMS = 30  # a longer answer is compared in order: matching it as a set would cost n² comparisons
_MAY_BE_SET = re.compile(r"[<>≤≥∞]|^[(\[].*[)\]]$")


@lru_cache(maxsize=100_000)
def canonical(s: str) -> str:
    """One spelling of an answer: NFKC, superscripts as exponents, LaTeX wrappers and spacing removed,
    operators as symbols (\\times → ×, \\geqslant and ⩾ → ≥), minus signs and dashes as "-", decoration
    stripped."""
    s = _SPACING.sub(" ", unwrap_latex(_INLINE_MATH.sub("", clean(s))))
    s = _BRACED_COMMA.sub(lambda m: ("," if len(m.group(1)) == 3 else ".") + m.group(1), s)
    s = _SYMBOL.sub(lambda m: _SYMBOLS[m.group(1)], s)
    return strip_decoration(_ARROWS.sub("→", s.translate(_SIGNS)))


@lru_cache(maxsize=100_000)
def normalize_text(s: str) -> str:
    """Lower case, one space between words, common punctuation stripped (OMIBench C.1)."""
    s = _PUNCT.sub("", canonical(s).lower())
    return " ".join(s.split()).strip(" .,;:?!")


@lru_cache(maxsize=100_000)
def squash(s: str) -> str:
    """Spaces removed, and braces around a one-character exponent or a numeric subscript: e^{2} = e^2,
    H_{2}O = H_2O = H2O."""
    s = re.sub(r"\s+", "", canonical(s))
    s = re.sub(r"([\^_])\{(\w)\}", r"\1\2", s)
    return re.sub(r"_(\d+)", r"\1", s)


_NUMBER_WORDS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen twenty".split())} | {"thirty": 30, "forty": 40, "fifty": 50, "sixty": 60,
                                                  "seventy": 70, "eighty": 80, "ninety": 90, "hundred": 100}


@lru_cache(maxsize=100_000)
def parse_number(s: str) -> float | None:
    """A number, after removing units and non-numeric suffixes (OMIBench C.1); None if it is not one.

    Scientific notation in any spelling: 6.02e23, 6.02E+23, 6.02 \\times 10^{23}, 6.02×10²³, 10^{5}."""
    s = _UNCERTAINTY.sub(r"\1", canonical(s))
    m = _SCI.match(s)
    if m and _UNIT.match(s, m.end()):
        mantissa = float(m.group(1).replace(",", "")) if m.group(1) else 1.0
        return mantissa * 10.0 ** int(m.group(2))
    m = _PLAIN.match(s)
    if not m:  # a number written as a word, alone or before its unit: "three", "twelve triangles"
        word = re.match(r"[A-Za-z]+", s)
        if word and word.group().lower() in _NUMBER_WORDS and _UNIT.match(s, word.end()):
            return float(_NUMBER_WORDS[word.group().lower()])
        return None
    if not _UNIT.match(s, m.end()):
        return None
    return float(m.group(1).replace(",", ""))  # a percent sign is a unit like any other: "50%" is 50


@lru_cache(maxsize=100_000)
def is_textual(gold: str) -> bool:
    """A gold made of words (not a number or a formula): compared as text, as the paper does."""
    return bool(_WORD.search(re.sub(r"\\[A-Za-z]+", " ", unwrap_latex(gold))))


_FRACTION = re.compile(r"^\s*([+-])?\s*(?:\\[dt]?frac\s*\{\s*(\d+)\s*\}\s*\{\s*(\d+)\s*\}|(\d+)\s*/\s*(\d+))\s*$", re.ASCII)


def simple_fraction(s: str) -> float | None:
    """`\\frac{3}{4}`, `\\dfrac{3}{4}`, `3/4`, `-1/2`: decided exactly, without the LaTeX parser."""
    m = _FRACTION.match(strip_decoration(clean(s)))
    if not m:
        return None
    num, den = (m.group(2), m.group(3)) if m.group(2) else (m.group(4), m.group(5))
    if int(den) == 0:
        return None
    value = int(num) / int(den)
    return -value if m.group(1) == "-" else value


_LATEX_FORM = {"×": "\\times ", "·": "\\cdot ", "±": "\\pm ", "≤": "\\leq ", "≥": "\\geq ", "≠": "\\neq "}


def latex_form(s: str) -> str:
    """× · ± ≤ ≥ ≠ written as LaTeX commands again, the form math-verify reads."""
    return re.sub("[×·±≤≥≠]", lambda m: _LATEX_FORM[m.group()], s)


@lru_cache(maxsize=100_000)
def math_equal(pred: str, gold: str) -> bool | None:
    """math-verify's verdict on two canonical answers, or None (not equal) when either is not parseable
    mathematics. Decided without math-verify where its verdict is certain (judge/formula.py,
    judge/prose.py); math-verify's verdicts are kept for the run (this cache and judge.mathverify's)."""
    gold, pred = latex_form(gold), latex_form(pred)
    decided = formula.math_verdict(pred, gold)
    if decided is not None:
        return decided
    from judge import mathverify  # imported on first need: math-verify and sympy take half a second

    return mathverify.equal(pred, gold)


def case_sensitive(gold: str) -> bool:
    """A formula using the same letter in both cases (b and B)."""
    letters = set(re.findall(r"[A-Za-z]", re.sub(r"\\[A-Za-z]+", " ", gold)))
    return any(ch.lower() in letters and ch.upper() in letters for ch in letters)


def _letters_only(s: str) -> bool:
    """"ABDC", "AB", "x y": letter strings are names or orders, not products of variables."""
    return bool(re.fullmatch(r"[A-Za-z]+(?:\s+[A-Za-z]+)*", canonical(s)))


def _relation(s: str) -> tuple[str, str] | None:
    m = _RELATION.match(canonical(s))
    return (re.sub(r"\s+", "", m.group(1)), m.group(2).strip()) if m else None


_YES_NO = {"yes": True, "true": True, "correct": True, "是": True, "对": True, "正确": True,
           "no": False, "false": False, "incorrect": False, "否": False, "不是": False, "错": False, "错误": False}


def _yes_no(s: str, leading: bool = False) -> bool | None:
    """A yes/no answer: the whole text, or with `leading` its first word before a comma or full stop
    ("No, it cannot be tiled")."""
    text = normalize_text(s)
    if leading:
        text = re.split(r"[,.;:，。；：!！]|\s[-–]\s", canonical(s).lower(), maxsplit=1)[0].strip()
    return _YES_NO.get(text)


def _value(s: str) -> float | None:
    """A plain number (units removed, as C.1 does) or a plain fraction."""
    value = parse_number(s)
    return simple_fraction(s) if value is None else value


def _constant(s: str) -> bool:
    """A value written without variables: digits, π and LaTeX commands."""
    return bool(re.search(r"\d|\\pi", s)) and not re.search(r"[A-Za-z]", re.sub(r"\\[A-Za-z]+", "", s))


def _number(s: str) -> float | None:
    """A plain number, a plain fraction, or a constant formula's value (judge/formula.py)."""
    if (value := _value(s)) is not None:
        return value
    written = formula.read(s)
    return None if written is None or written.value is None else (written.value.lo + written.value.hi) / 2


def _values_before_units(pred: str, gold: str) -> tuple[str, str] | bool | None:
    """The values of two answers (canonical text) without their units, when either states a readable
    unit after a constant that is not a plain number ("50/\\sqrt{2} m"); when both state units (the
    gold's may be the one its question asks for) and the units differ, whether the values agree once
    converted to the gold's unit (90° = \\pi/2 rad); None when neither states a unit."""
    p, g = units.split(pred), units.split(gold)
    if not (p.unit or g.unit) or not _constant(p.value) or not _constant(g.value):
        return None
    gold_unit = quantities.gold_unit(p.unit, g.unit)
    if p.unit and gold_unit and not p.unit.same(gold_unit):
        pred_value, gold_value = _number(p.value), _number(g.value)
        return (pred_value is not None and gold_value is not None
                and quantities.same_quantity(pred_value, p.unit, gold_value, gold_unit))
    return p.value, g.value


def _same_by_notation(pred: str, gold: str) -> bool | None:
    """Answers (canonical text) whose notation says what they are: chemistry (judge/chem.py), nuclear
    equations and particles (judge/nuclear.py), or sets written as intervals or inequalities
    (judge/intervals.py), ratios (judge/ratios.py). None when none of them reads them both."""
    if (decided := ratios.same(pred, gold)) is not None:
        return decided
    if re.search(r"[A-Z]|\d[spdf]", gold):
        decided = chem.same(pred, gold)
        if decided is not None:
            return decided
    if (decided := nuclear.same(pred, gold)) is not None:
        return decided
    if _MAY_BE_SET.search(gold) or _MAY_BE_SET.search(pred):
        a, b = intervals.read(pred), intervals.read(gold)
        if a is not None and b is not None:
            return intervals.same_set(a, b)  # None: ends of letters not decided there
    return None


def match_one(pred: str | None, gold: str, strict: bool = False) -> bool:
    """One predicted answer against one gold answer (neither a multiple-choice letter set).

    `strict`: text must be the very same words (no spelling, inflection or article left out), for the
    exact-match stage of Think360's cascade."""
    if pred is None or not normalize_text(pred):
        return False
    if (amino_acid := lexicon.same_amino_acid(canonical(pred), canonical(gold))) is not None:
        return amino_acid  # L = Leu = leucine
    if re.fullmatch(r"[A-Z]", gold.strip()):  # a letter (a region, a point, an inline option): "(A)", "Option A"
        return option_letters(pred, 26) == [gold.strip()]
    if (yes_no := _yes_no(gold)) is not None:
        return _yes_no(pred, leading=True) == yes_no
    if squash(pred) == squash(gold):
        return True
    if (through := labels.read_through(canonical(pred), canonical(gold))) and match_one(*through, strict):
        return True  # "P(2, 4)" for (2, 4), "about 4.1" for 4.1; else the other rules decide
    if (notation := _same_by_notation(canonical(pred), canonical(gold))) is not None:
        return notation
    if (chained := relations.same(canonical(pred), canonical(gold), lambda p, g: match_one(p, g, strict))) is not None:
        return chained  # "c < b < a" for "a > b > c"
    if normalize_text(pred) == normalize_text(gold) and not case_sensitive(gold):
        return True
    gold_rel, pred_rel = _relation(gold), _relation(pred)
    if gold_rel and (pred_rel is None or pred_rel[0] == gold_rel[0]):  # "TOF = 21" vs "21" or "TOF = 21.0"
        return match_one(pred_rel[1] if pred_rel else pred, gold_rel[1], strict)
    if pred_rel and not gold_rel and not is_textual(gold):  # "x = 5" answers "5"
        return match_one(pred_rel[1], gold, strict)
    gold_value = _value(gold)
    if gold_value is not None and (pred_value := _value(pred)) is not None:
        return quantities.same_quantity(pred_value, units.split(canonical(pred)).unit,
                                        gold_value, units.split(canonical(gold)).unit)  # 2.5 km = 2500 m
    if (values := _values_before_units(canonical(pred), canonical(gold))) is not None:
        return values if isinstance(values, bool) else match_one(*values, strict)  # "50/\sqrt{2} m", "\pi/3 rad"
    if gold_value is not None:
        if not re.search(r"[0-9\\]", pred) or len(split_parts(pred)) > 1:
            return False  # no digit and no LaTeX cannot name a number; a list is not one number
        return bool(math_equal(canonical(pred), canonical(gold)))
    if is_textual(gold):
        p, g = normalize_text(pred), normalize_text(gold)
        return words(p) == words(g) if strict else same_phrase(p, g)
    if len(split_parts(gold)) > 1 or _letters_only(gold) or _letters_only(pred) or case_sensitive(gold):
        # Sequences are compared part by part (match_answer); letter strings and formulas where b and B
        # differ only exactly: math-verify would read them as sets or products and fold case.
        return False
    return bool(math_equal(canonical(pred), canonical(gold)))


def _parts_match(preds: list[str], golds: list[str], strict: bool) -> bool:
    return len(preds) == len(golds) and all(match_one(p, g, strict) for p, g in zip(preds, golds))


def _same_items(preds: list[str], golds: list[str], strict: bool) -> bool:
    """Every gold item answered by its own predicted item, in any order (a perfect matching)."""
    if len(preds) != len(golds) or len(golds) > MAX_SET_ITEMS:
        return len(preds) == len(golds) and _parts_match(preds, golds, strict)
    answers = [[j for j, p in enumerate(preds) if match_one(p, g, strict)] for g in golds]
    owner: dict[int, int] = {}  # predicted item → gold item it answers

    def assign(i: int, seen: set[int]) -> bool:
        for j in answers[i]:
            if j not in seen:
                seen.add(j)
                if j not in owner or assign(owner[j], seen):
                    owner[j] = i
                    return True
        return False

    return all(assign(i, set()) for i in range(len(golds)))


def match_answer(pred: str | None, golds: list[str], strict: bool = False, unordered: bool = False) -> bool:
    """A whole answer against the gold list: as one answer, or part by part in order (`unordered`: as a
    set of items, for a question that asks for one, see judge.parts.order_free).

    The gold list is joined and split again like the response, so "(1) 90; (2) α" answers the gold
    ["(1) 90", "(2) α"] as well as a response with its parts in any separator or in several boxes, and
    labelled parts may come in any order ("(2) α; (1) 90"). A chemical equation is compared whole
    (judge/chem.py), never as the parts its arrow separates."""
    if pred is None:
        return False
    gold = ", ".join(golds)
    if match_one(pred, gold, strict):
        return True
    gold, pred = canonical(gold), canonical(pred)
    gold_labels = labelled_parts(gold)
    pred_labels = (labelled_parts(pred) or labelled_parts(pred, any_order=True)) if gold_labels else None
    if gold_labels and pred_labels:
        answered = dict(pred_labels)
        return (sorted(answered) == [n for n, _ in gold_labels]
                and all(_parts_match(split_parts(answered[n]), split_parts(g), strict)
                        or _list_match(answered[n], g, strict, unordered) for n, g in gold_labels))
    if "→" in gold and (chem.equation(gold) is not None or nuclear.equation(gold) is not None):
        return False
    return _list_match(pred, gold, strict, unordered)


def _list_match(pred: str, gold: str, strict: bool, unordered: bool) -> bool:
    """A list (canonical text) against a gold list: a labelled matching pair by pair (judge/matchings.py,
    each label's list of members a set), alternatives as a set (judge/alternatives.py: "x = 1 or x = 2",
    "1 ± √2"), true/false verdicts as verdicts (judge/lexicon.py), a set of items where the question asks
    for one and the gold does not order it (judge/sequences.py), else item by item in order, with any
    separator."""
    paired = matchings.same(pred, gold, lambda p, g: match_one(p, g, strict) or _list_match(p, g, strict, True))
    if paired is not None:
        return paired
    if (alternative := _same_alternatives(pred, gold, strict)) is not None:
        return alternative
    gold_parts = flat_parts(gold)
    if len(gold_parts) > 1 and (verdicts := lexicon.truths(gold_parts)) is not None:
        return lexicon.truths(flat_parts(pred)) == verdicts
    if (unordered and not sequences.ordered(gold) and not labelled_parts(gold)
            and not any(re.search(r"[:=]", part) for part in gold_parts)):
        # a set of items; not when an item names a part, a group or a variable ("Lipophilic: 1, 3;
        # Hydrophilic: 2, 4"), whose other items belong to it by their place
        items = set_items(gold_parts)
        return len(items) > 1 and _same_items(set_items(flat_parts(pred)), items, strict)
    if len(gold_parts) > 1 and _parts_match(flat_parts(pred), gold_parts, strict):
        return True
    gold_items = sequences.items(gold)  # "A → E → D" answered "A - E - D", "A, then E, then D"
    return len(gold_items) > 1 and _parts_match(list(sequences.items(pred)), list(gold_items), strict)


def _same_alternatives(pred: str, gold: str, strict: bool) -> bool | None:
    """Two lists of alternatives (judge/alternatives.py) as sets of values; None unless the gold lists
    alternatives, or the answer does by its form and the gold is a list of plain values (1, 2)."""
    g, p = alternatives.read(gold), alternatives.read(pred)
    if g is None:
        if not alternatives.signals(pred) or any(re.search(r"[:=]", part) for part in flat_parts(gold)):
            return None
        g = (None, tuple(flat_parts(gold)))
    if p is None:
        p = (None, tuple(flat_parts(pred)))
    if g[0] and p[0] and g[0] != p[0]:
        return False  # the values of another quantity
    return len(g[1]) > 1 and _same_items(list(p[1]), list(g[1]), strict)
