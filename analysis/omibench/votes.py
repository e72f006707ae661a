"""Vote keys: the "normalized final answer" that OMIBench's majority voting counts (Appendix H.3: "apply the
common post-processing pipeline to extract and normalize the final answer from each of the k samples").
Two answers are one vote when their keys are equal: numbers by value, formulas by math-verify's reading,
text by judge.match's normalisation, option letters as judge.rules reads them. Used by analysis/omibench/scaling.py
and omibench.sig.
"""
from __future__ import annotations

import math
from typing import Any

from judge.errors import MatchError
from judge.match import case_sensitive, is_textual, normalize_text, parse_number, squash
from judge.parts import split_parts
from judge.mcq import is_mcq
from judge.rules import grid_cell, mcq_prediction


def _number_key(value: float) -> str:
    """A canonical string for a number: integers exactly, others to 12 significant digits.

    12 digits only removes floating-point noise (0.1 + 0.2 is 0.3); it does not merge answers written to
    different precision ("0.3333" and "1/3" stay two votes, as in exact-answer self-consistency).
    """
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    if value.is_integer() and abs(value) < 2 ** 53:
        return str(int(value))  # also turns -0.0 into "0"
    return repr(float(f"{value:.12g}"))


def _math_key(s: str) -> str | None:
    """The key of a LaTeX / plain-text formula parsed by math-verify (judge.match's cached parser).

    A numeric expression (1/2, \\frac{1}{2}, 3\\sqrt{3}, \\pi/2) becomes its float key, so it votes with
    the same decimal; "x = 2" is the number 2; any other expression is sympy's printed form, which
    orders terms canonically (x + 1 and 1 + x are one vote). None when it does not parse.
    """
    import sympy  # imported on first need, like judge.mathverify: half a second that most tables never use

    from judge import mathverify

    try:
        parsed = mathverify.read(s)
    except MatchError:  # math-verify failed on it: the answer votes under its text
        return None
    if not parsed:
        return None
    expr = parsed[0]
    try:
        if isinstance(expr, sympy.Eq) and isinstance(expr.lhs, sympy.Symbol) and expr.rhs.is_number:
            expr = expr.rhs
        if getattr(expr, "is_number", False):
            return _number_key(float(expr))
    except (TypeError, ValueError, AttributeError):  # complex numbers, nan, non-sympy results
        pass
    return str(expr)


def _single_key(s: str) -> str | None:
    """The vote key of one (non-MCQ) answer part: number → formula → normalised text.

    Words ("the cat") are text: math-verify would read them as a product of symbols. A formula using
    both b and B is not given to math-verify, which folds case; like judge.match, it is compared as
    exact text with spaces removed.
    """
    text = normalize_text(s)
    if not text:
        return None
    value = parse_number(s)  # a regex: cheap, and tried before the (slower) maths parser
    if value is not None:
        return _number_key(value)
    if is_textual(s):
        return text
    if case_sensitive(s):  # b and B are different quantities: exact text, spaces removed, case kept
        return squash(s)
    key = _math_key(s)
    return key if key is not None else text


def vote_key(extracted: str | None, record: dict[str, Any]) -> str | None:
    """The normalised form of an extracted answer that majority voting counts (OMIBench H.3).

    * None, or an answer that normalises to nothing → None: an abstention, not a vote.
    * Multiple choice (judge.rules.is_mcq) → the stated letters, sorted and joined ("C, A" → "AC");
      an option's text is mapped to its letter as judge.rules does. An answer naming no option is
      still an answer (a wrong one): it votes under its normalised text.
    * A grid-cell gold ("row=3, col=5") → "row=3,col=5" when the answer states a cell.
    * A multi-part gold → each part keyed as below, joined by "; " in the order given.
    * Otherwise: a number (judge.match.parse_number, units stripped) → canonical float string; else a
      formula math-verify parses → float string if it is a number ("1/2", "\\frac{1}{2}", "0.50" all
      give "0.5"), else sympy's printed form; else judge.match.normalize_text.
    """
    if extracted is None or not normalize_text(extracted):
        return None
    if is_mcq(record):
        found = mcq_prediction(record, extracted)
        return "".join(found) if found else normalize_text(extracted)
    golds = record["answer"]
    if len(golds) == 1 and grid_cell(golds[0]):
        cell = grid_cell(extracted)
        if cell:
            return f"row={cell[0]},col={cell[1]}"
    if len(golds) > 1:
        parts = [k for k in (_single_key(p) for p in split_parts(extracted)) if k is not None]
        return "; ".join(parts) if parts else None
    return _single_key(extracted)
