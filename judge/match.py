"""Is a predicted answer the gold answer? Text, numbers, mathematics and multi-part golds.

Follows OMIBench Appendix C.1 — normalised text, numbers within 1e-4 after removing units, LCS ratio
≥ 0.75 for textual answers — with two guards the authors' scorer lacks: a numeric or mathematical gold
is never decided by LCS (so "10.5" is not "0.5" and 3√3 is not 3√2), and mathematical equivalence is
decided by math-verify (\\frac{1}{2} = 1/2 = 0.50 = 5\\times10^{-1}).
"""
from __future__ import annotations

import re
from functools import lru_cache

from math_verify import ExprExtractionConfig, LatexExtractionConfig, parse, verify
from rapidfuzz.distance import LCSseq

from judge.extract import clean, strip_decoration, unwrap_latex

EPS = 1e-4
LCS_THRESHOLD = 0.75
_PUNCT = re.compile(r"[.,?!;:，。？！；：]+(?=\s|$)|(?<=\s)[.,?!;:，。？！；：]+")
# ASCII digits only: look-alike digits of other scripts (Arabic-Indic ٣) never read as numbers.
_NUMBER = re.compile(r"^[+-]?(?:\d{1,3}(?:,\d{3})+|\d+)?(?:\.\d+)?(?:[eE][+-]?\d+)?$", re.ASCII)
_SCI_TIMES = re.compile(r"^([+-]?\d+(?:\.\d+)?)\s*(?:\\times|×|x|\*)\s*10\s*\^\s*\{?\s*([+-]?\d+)\s*\}?$", re.ASCII)
# A number and an optional unit: degrees, percent, or words ("cm", "m/s", "kg m^2"). A single letter
# glued to the number ("3x") is a variable, not a unit.
_UNIT_TAIL = re.compile(
    r"^([+-]?[\d.,]+(?:[eE][+-]?\d+)?)"
    r"(\s*(?:\^\s*\{?\\circ\}?|°|%|\\%)|\s+[A-Za-zµΩ°][A-Za-zµΩ°/·^\d\s]*|[A-Za-zµΩ°]{2,}[A-Za-zµΩ°/·^\d\s]*"
    r"|\s*[\u4e00-\u9fff][\u4e00-\u9fff/·^\d\s]*)?$", re.ASCII)  # Chinese units: 15元, 3个
_WORD = re.compile(r"(?<!\\)\b[A-Za-z]{3,}\b")
_MATH_CONFIG = [LatexExtractionConfig(), ExprExtractionConfig()]


def normalize_text(s: str) -> str:
    """Lower case, one space between words, common punctuation stripped (OMIBench C.1)."""
    s = unwrap_latex(clean(s)).lower()
    s = _PUNCT.sub("", s)
    s = " ".join(s.split())
    return s.strip(" .,;:?!")


def parse_number(s: str) -> float | None:
    """A plain number, after removing units and non-numeric suffixes; None if it is not one."""
    s = strip_decoration(unwrap_latex(clean(s))).replace("\\,", "").replace("\\!", "").replace("−", "-")
    s = s.replace("\\left", "").replace("\\right", "").strip()
    m = _SCI_TIMES.match(s)
    if m:
        return float(m.group(1)) * 10 ** int(m.group(2))
    m = _UNIT_TAIL.match(s)
    if not m:
        return None
    num = m.group(1).rstrip(".,")
    if not num or not _NUMBER.match(num) or not re.search(r"[0-9]", num):
        return None
    return float(num.replace(",", ""))  # a percent sign is a unit like any other: "50%" is 50


def is_textual(gold: str) -> bool:
    """A gold made of words (not a number or a formula): compared by LCS ratio, as the paper does."""
    return bool(_WORD.search(re.sub(r"\\[A-Za-z]+", " ", unwrap_latex(gold))))


@lru_cache(maxsize=100_000)
def _math(s: str) -> tuple:
    try:
        return tuple(parse(f"${s}$", extraction_config=_MATH_CONFIG))
    except Exception:  # math-verify raises on exotic LaTeX; that only means "not maths"
        return ()


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


@lru_cache(maxsize=100_000)
def math_equal(pred: str, gold: str) -> bool | None:
    """math-verify's verdict, or None when either side is not parseable mathematics."""
    g, p = _math(gold), _math(pred)
    if not g or not p:
        return None
    try:
        return bool(verify(list(g), list(p)))
    except Exception:
        return None


def lcs_ratio(a: str, b: str) -> float:
    if not a and not b:
        return 1.0
    return LCSseq.similarity(a, b) / max(len(a), len(b))


def match_one(pred: str | None, gold: str) -> bool:
    """One predicted answer against one gold answer (neither a multiple-choice letter set)."""
    if pred is None:
        return False
    p, g = normalize_text(pred), normalize_text(gold)
    if not p:
        return False
    if is_textual(gold):  # words: case and punctuation do not matter, near-spellings do (LCS)
        return p == g or lcs_ratio(p, g) >= LCS_THRESHOLD
    if _squash(pred) == _squash(gold):
        return True
    gold_value = parse_number(gold)
    if gold_value is None:
        gold_value = simple_fraction(gold)
    if gold_value is not None:
        pred_value = parse_number(pred)
        if pred_value is None:
            pred_value = simple_fraction(pred)
        if pred_value is not None:
            return abs(pred_value - gold_value) <= EPS
        if not re.search(r"[0-9\\]", pred):  # no digit and no LaTeX: cannot name a number
            return False
        return bool(math_equal(pred, gold))
    if not _case_sensitive(gold):
        verdict = math_equal(pred, gold)
        if verdict is not None:
            return verdict
    # Not parseable maths (e.g. "row=3, col=5"), or a formula where b and B are different quantities
    # (math-verify folds case): exact match, ignoring spaces only.
    return False


def _squash(s: str) -> str:
    return re.sub(r"\s+", "", strip_decoration(unwrap_latex(clean(s))))


def _case_sensitive(gold: str) -> bool:
    """A formula using the same letter in both cases (b and B)."""
    letters = set(re.findall(r"[A-Za-z]", re.sub(r"\\[A-Za-z]+", " ", gold)))
    return any(ch.lower() in letters and ch.upper() in letters for ch in letters)


def split_parts(answer: str) -> list[str]:
    """Split "3, 5" / "3; 5" / "3 and 5" into parts, at top level only (not inside brackets)."""
    parts, depth, cur = [], 0, ""
    i = 0
    while i < len(answer):
        ch = answer[i]
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        # "1,000" is one number: a comma between a digit and exactly three digits is a thousands separator
        thousands = (ch == "," and i > 0 and answer[i - 1].isdigit()
                     and re.match(r"\d{3}(?!\d)", answer[i + 1:i + 5]) is not None)
        if depth == 0 and not thousands and (ch in ",;，；" or answer.startswith(" and ", i)):
            parts.append(cur)
            cur = ""
            i += 5 if answer.startswith(" and ", i) else 1
            continue
        cur += ch
        i += 1
    parts.append(cur)
    return [x.strip() for x in parts if x.strip()]


def match_all(preds: list[str], golds: list[str]) -> bool:
    """Every gold part needs its own matching predicted part (a multi-part gold is all or nothing)."""
    if len(golds) == 1:
        return any(match_one(p, golds[0]) for p in preds[-1:])
    remaining = list(preds)
    for g in golds:
        hit = next((i for i, p in enumerate(remaining) if match_one(p, g)), None)
        if hit is None:
            return False
        remaining.pop(hit)
    return True

