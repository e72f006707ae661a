"""When an answer written in plain words can never be the gold's formula, without reading it.

A model's final line is often a sentence with a number in it ("So the result is approximately 2,850").
judge.match hands it to math-verify, which spends tens of milliseconds reading the sentence as a
product of one-letter symbols, only to reject it. Plain prose — letters, digits, spaces, commas and
full stops, at most 200 characters, no backslash, no operator — is read quickly and without fail, and
only as products of numbers, constants (e, π, ∞, a percentage) and symbols named by its own letters
(square roots at most: "sqrt x"), or a set of such products at its commas: never a sum, a quotient, a
relation or a negative power. A product that names a symbol is not a constant. So math-verify cannot
find such a reading equal to the gold's when the gold's reading

- is a constant (names no symbol): the prose's reading must then name none either to be equal, and a
  sentence read without symbols is rejected by mathverify.read_whole (it names something but lost it);
- names a symbol spelt with a letter the prose does not contain ("4853 J" is 4853·j); or
- divides by a symbol ("2852 m/s" is 2852·m·s⁻¹).

It would still have to compare them, and sympy can take longer than math-verify's time limit to
compare some formulas (a judge error): only a gold read as a monomial (a number, a percentage, powers
of symbols) is decided here, which sympy compares at once.

judge.mathverify reads the gold first (its parse is shared by every response to it) and skips the
prose's parse when `cannot_equal` says so; tests/test_judge_shortcut.py checks the verdicts against
math-verify's on generated sentences.
"""
from __future__ import annotations

import re

from sympy import Expr, Integer, Mul, Number, NumberSymbol, Pow, Symbol, UnevaluatedExpr

# Words with numbers, commas and full stops only; digit runs short enough to stay floats.
_PROSE = re.compile(r"(?=.*[A-Za-z]{2})(?!.*\d{16})[A-Za-z0-9 ,.]{1,200}", re.ASCII)


def is_prose(text: str) -> bool:
    """Plain words and numbers, with at least one word of two letters (so it names something)."""
    return _PROSE.fullmatch(text) is not None


def _monomial(e: Expr) -> bool:
    """A number times integer powers of symbols (a percentage's unevaluated 1/100 included)."""
    if isinstance(e, Symbol):
        return True
    if isinstance(e, (Number, NumberSymbol)):
        return e.is_finite is True  # not nan, zoo or ∞, which math-verify's comparison refuses
    if isinstance(e, UnevaluatedExpr):
        return isinstance(e.args[0], Number)
    if isinstance(e, Pow):
        return isinstance(e.base, Symbol) and isinstance(e.exp, Integer)
    return isinstance(e, Mul) and all(_monomial(a) for a in e.args)


def cannot_equal(reading: object, prose: str) -> bool:
    """Whether math-verify's reading of the gold can never equal its reading of `prose` (see above)."""
    if not isinstance(reading, Expr) or not _monomial(reading):
        return False
    symbols = reading.free_symbols
    if not symbols:
        return True
    letters = set(prose.lower())
    if any(ch not in letters for s in symbols for ch in s.name.lower()):
        return True
    return any(isinstance(base, Symbol) and exp.is_negative for base, exp in reading.as_powers_dict().items())
