"""math-verify's verdict on two answers, with the checks that keep it from judging part of one.

Imported by judge.match only when an answer needs it: math-verify and sympy take half a second to
import, and most runs (and every table) never ask them.
"""
from __future__ import annotations

import math
import re
from functools import lru_cache

from math_verify import ExprExtractionConfig, LatexExtractionConfig, parse, verify
from math_verify.errors import TimeoutException
from math_verify.utils import timeout
from sympy import Number, Rational

from judge import prose
from judge.errors import MatchError
from judge.numbers import numbers_close

_MATH_CONFIG = [LatexExtractionConfig(), ExprExtractionConfig()]
_NUMERIC_COMMANDS = re.compile(r"\\(?:[dt]?frac|sqrt|pi|times|cdot|circ|left|right|ln|log|exp|sin|cos|tan)(?![A-Za-z])")
_WRITTEN_NUMBER = re.compile(r"-?\d{1,15}(?:\.\d{1,15})?", re.ASCII)


@lru_cache(maxsize=100_000)
def read(s: str) -> tuple:
    """math-verify's reading of a formula: [expression, text], or a MatchError when it raises."""
    try:
        return tuple(parse(f"${s}$", extraction_config=_MATH_CONFIG, raise_on_error=True))
    except (Exception, TimeoutException) as e:  # its timeout is a BaseException
        raise MatchError(f"math-verify could not parse {s[:80]!r}: {type(e).__name__}: {e}") from e


@timeout(5)  # math-verify's own time limit: 10^{10^{10^{10}}} must not hang the judge
def _evaluate(expr) -> float | None:
    if getattr(expr, "is_number", False) and expr.is_real:
        return float(expr.evalf(30))
    return None


def value(expr) -> float | None:
    """The value of an expression that is a plain real number (√27, 2^{-61}), else None."""
    try:
        return _evaluate(expr)
    except (TypeError, ValueError, ArithmeticError):
        return None
    except TimeoutException as e:
        raise MatchError(f"evaluating {str(expr)[:60]!r} took too long") from e


def read_whole(text: str, expr, numeric: bool) -> bool:
    """Whether math-verify read the whole answer. It silently reads a part of what it cannot parse —
    "(8.09\\pm0.02)\\times10^{-4} kg" becomes 10 — and two such parts compare equal. So every number
    written in the answer must be a number of the parsed expression (every decimal number, and for a
    formula every integer too but 0 and 1: a plain number's integers may be simplified, √27 = 3√3), and
    an answer that names variables must not have become a plain number."""
    try:
        atoms = expr.atoms(Number)
        if _names(text) and not expr.free_symbols:  # "E_0^2 + …" read as the number 2
            return False
    except AttributeError:  # a string or a set of results: nothing to check against
        return True
    known = {abs(float(v)) for a in atoms for v in ((a.p, a.q) if isinstance(a, Rational) else (a,))}
    pattern = r"\d*\.\d+" if numeric else r"\d+(?:\.\d+)?"
    written = {abs(float(x)) for x in re.findall(pattern, text)} - {0.0, 1.0}
    return all(any(math.isclose(w, k, rel_tol=1e-9) for k in known) for w in written)


def _names(text: str) -> bool:
    """Whether a formula names something (a variable, a unit) besides numeric functions and constants
    (π, and e standing alone: Euler's number)."""
    return bool(re.search(r"[A-Za-z]", re.sub(r"(?<![A-Za-z\\])e(?![A-Za-z])", " ", _NUMERIC_COMMANDS.sub(" ", text))))


def equal(pred: str, gold: str) -> bool | None:
    """`verdict`, without parsing a sentence that judge/prose.py shows cannot be the gold's formula."""
    if prose.is_prose(pred) and prose_cannot_equal(pred, gold):
        return None
    return verdict(pred, gold)


def prose_cannot_equal(pred: str, gold: str) -> bool:
    """Whether verdict(pred, gold) is None or False for plain prose `pred`, from the gold alone: its
    steps on the gold run here in its order (an unreadable gold, or one read only in part, makes it
    None), then judge/prose.py rules out the rest. Anything that raises is left to it, to raise there."""
    if _WRITTEN_NUMBER.fullmatch(gold):  # math-verify reads it as that number, at once
        return True
    try:
        g = read(gold)
        if len(g) < 2:
            return True
        value(g[0])  # its time limit: raised by verdict, not skipped here
        if not read_whole(gold, g[0], False):  # prose names something, so never `numeric`
            return True
    except (Exception, TimeoutException):  # verdict raises it again, as it always did
        return False
    return prose.cannot_equal(g[0], pred)


def verdict(pred: str, gold: str) -> bool | None:
    """math-verify's own verdict on two answers (× · ± ≤ ≥ ≠ already in LaTeX form), or None when
    either is not parseable mathematics.

    Two plain numbers are compared by `numbers_close`: math-verify rounds to six decimals, which makes
    every number below 1e-6 equal (2^{-61} = 2^{-62})."""
    g, p = read(gold), read(pred)
    if len(g) < 2 or len(p) < 2:  # math-verify returns [expression, text]; the text alone is no maths
        return None
    gv, pv = value(g[0]), value(p[0])
    # A formula with names that parses to a plain number lost its names: it is checked as a formula.
    numeric = gv is not None and pv is not None and not _names(gold) and not _names(pred)
    if not (read_whole(gold, g[0], numeric) and read_whole(pred, p[0], numeric)):
        return None
    if numeric:
        return numbers_close(pv, gv)
    try:
        return bool(verify(list(g), list(p), raise_on_error=True))
    except (Exception, TimeoutException) as e:
        raise MatchError(f"math-verify failed on {pred[:60]!r} vs {gold[:60]!r}: {type(e).__name__}: {e}") from e
