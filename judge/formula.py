"""A reader for the formulas most answers use, in a closed grammar that math-verify reads the same way.

judge.match asks math-verify whether two formulas are equal, and parsing LaTeX with it costs
milliseconds. The formulas most answers use are read here directly:

    expr  := ['-'] term (('+' | '-') term)*
    term  := group [('/' | '\\times' | '\\cdot') group]
    group := item+                      a product written without a sign
    item  := atom ['^' (digit | '{' ['-'] integer '}')]
    atom  := integer | decimal | letter | '\\pi' | '\\sqrt{' expr '}' | '\\frac{' expr '}{' expr '}'
             | '(' expr ')'             (\\dfrac and \\tfrac are \\frac)

A constant formula becomes an `Interval` holding its value (every rounding bounded: judge/arith.py),
a formula with letters its expanded polynomial with integer coefficients (None when it uses roots, π,
fractions, decimals or negative powers). The grammar leaves out every construct math-verify reads in
a way of its own, found by comparing the two (tests/test_judge_shortcut.py): two numbers side by side
("2 3" is 5 to it), a number or a product before a fraction ("2\\frac{1}{2}" is a mixed number), an
unbraced root or an exponent followed by a digit, letters it drops as units after a number ("2m",
"5t") or reads as constants (e, i) or in lower case (capitals), two letters side by side (a word or a
unit), a letter before a bracket (a function call), more than one division or explicit product in a
term (their order). A text outside the grammar is not read (None), and the caller asks math-verify.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

from judge.arith import Ball, OutOfRange, Poly, ROUNDING, poly_add, poly_mul, poly_power
from judge.numbers import Interval, close_for_all

# Letters math-verify keeps as a variable in every position, e.g. after a number at the end ("2x");
# it drops c d g h l m o s t there (units), reads e and i as constants and capitals in lower case.
LETTERS = frozenset("abknpqruvwxyz")
_COMMANDS = {"frac": "frac", "dfrac": "frac", "tfrac": "frac", "sqrt": "sqrt", "pi": "pi", "times": "*",
             "cdot": "*"}
_TOKEN = re.compile(r"\s*(?:(\d+(?:\.\d+)?)|\\([A-Za-z]+)|([A-Za-z])|(\S))", re.ASCII)  # ASCII digits only
# Two letters side by side, or a letter before a bracket, once the commands are blanked out.
_WORD_OR_CALL = re.compile(r"[A-Za-z]\s*[A-Za-z(]")
_COMMAND = re.compile(r"\\[A-Za-z]+")
MAX_CHARS, MAX_DIGITS, MAX_EXPONENT = 120, 12, 64


class _Outside(Exception):
    """The text leaves the grammar."""


@dataclass(frozen=True)
class Formula:
    """What a text in the grammar means: its value (constants) or its polynomial (formulas with letters)."""

    value: Interval | None      # contains the exact value, and math-verify's float of it
    poly: Poly | None           # the expanded polynomial, None when not one with integer coefficients
    letters: bool               # names a variable
    decimals: bool              # writes a decimal number
    radicals: bool              # writes a root or π

    @property
    def nonconstant(self) -> bool:
        return self.poly is not None and any(mono for mono, c in self.poly.items() if c)


class _Part(NamedTuple):
    """What a piece of a formula reads to so far: its value (None once it names a letter) and its
    polynomial (None once it uses a root, π, a fraction, a decimal or a negative power)."""

    ball: Ball | None
    poly: Poly | None

    def combine(self, other: _Part, ball_op, poly_op=None) -> _Part:
        ball = ball_op(self.ball, other.ball) if self.ball is not None and other.ball is not None else None
        poly = (poly_op(self.poly, other.poly) if poly_op and self.poly is not None and other.poly is not None
                else None)
        return _Part(ball, poly)


class _Reader:
    """Recursive descent over the tokens, one method per rule of the grammar."""

    def __init__(self, text: str):
        self.tokens = [next((kind, v) for kind, v in zip(("num", "cmd", "var", "ch"), m.groups()) if v is not None)
                       for m in _TOKEN.finditer(text)]
        self.pos = 0
        self.letters = 0  # letters read so far
        self.radicals = any(kind == "cmd" and _COMMANDS.get(v) in ("sqrt", "pi") for kind, v in self.tokens)
        self.decimals = any(kind == "num" and "." in v for kind, v in self.tokens)

    def peek(self) -> tuple[str, str] | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def at(self, kind: str, value: str) -> bool:
        return self.peek() == (kind, value)

    def take(self, kind: str, value: str | None = None) -> str:
        tok = self.peek()
        if tok is None or tok[0] != kind or (value is not None and tok[1] != value):
            raise _Outside(f"expected {value or kind} at token {self.pos}")
        self.pos += 1
        return tok[1]

    def read(self) -> _Part:
        out = self.expr()
        if self.peek() is not None:
            raise _Outside("text after the formula")
        return out

    def expr(self) -> _Part:
        negative = self.at("ch", "-")
        self.pos += negative
        out = self.term()
        if negative:
            out = _Part(-out.ball if out.ball is not None else None,
                        {m: -c for m, c in out.poly.items()} if out.poly is not None else None)
        while self.at("ch", "+") or self.at("ch", "-"):
            sign = 1 if self.take("ch") == "+" else -1
            right = self.term()
            out = out.combine(right, lambda a, b: a + (b if sign > 0 else -b), lambda a, b: poly_add(a, b, sign))
        return out

    def term(self) -> _Part:
        out = self.group()
        tok = self.peek()
        if tok == ("ch", "/"):
            self.pos += 1
            return out.combine(self.group(), lambda a, b: a / b)
        if tok and tok[0] == "cmd" and _COMMANDS.get(tok[1]) == "*":
            self.pos += 1
            return out.combine(self.group(), lambda a, b: a * b, poly_mul)
        return out

    def group(self) -> _Part:
        out, kind = self.item(first=True)
        while (tok := self.peek()) is not None and (
                tok[0] == "var" or (tok[0] == "cmd" and _COMMANDS.get(tok[1]) in ("sqrt", "pi"))
                # math-verify reads "2(7)" as 9 and "\pi(2)" as a function: a bracket multiplies only
                # after a number or a bracket with letters, and only when it holds letters itself
                or (tok == ("ch", "(") and kind in ("num", "letters"))):
            right, kind = self.item(first=False)
            if tok == ("ch", "(") and kind != "letters":
                raise _Outside("a number in brackets after a factor")
            out = out.combine(right, lambda a, b: a * b, poly_mul)
        return out

    def item(self, first: bool) -> tuple[_Part, str]:
        """One factor and its kind: num, var, pi, sqrt, frac, letters (a bracket with letters) or const."""
        kind, value = self.peek() or ("end", "")
        self.pos += 1
        command = _COMMANDS.get(value) if kind == "cmd" else None
        if kind == "num" and first:
            if len(value.replace(".", "")) > MAX_DIGITS:
                raise _Outside("number too long")
            out = (_Part(Ball.rounded(float(value), 0.0), None) if "." in value
                   else _Part(Ball(float(value)), {(): int(value)}))
        elif kind == "var" and value in LETTERS:
            self.letters += 1
            out, kind = _Part(None, {((value, 1),): 1}), "var"
        elif command == "pi":
            out, kind = _Part(Ball(math.pi, 1.3e-16), None), "pi"  # |π - float(π)| < 1.3e-16
        elif command == "sqrt":
            inner = self.braced()
            out, kind = _Part(inner.ball.sqrt() if inner.ball is not None else None, None), "sqrt"
        elif command == "frac" and first:  # never raised to a power
            return self.braced().combine(self.braced(), lambda a, b: a / b), "frac"
        elif (kind, value) == ("ch", "("):
            before = self.letters
            out = self.expr()
            self.take("ch", ")")
            kind = "letters" if self.letters > before else "const"
        else:
            raise _Outside(f"{value or 'the end'} is outside the grammar here")
        if self.at("ch", "^"):
            self.pos += 1
            k = self.exponent()
            out = _Part(out.ball.power(k) if out.ball is not None else None,
                        poly_power(out.poly, k) if out.poly is not None and k >= 0 else None)
        return out, kind

    def braced(self) -> _Part:
        self.take("ch", "{")
        out = self.expr()
        self.take("ch", "}")
        return out

    def exponent(self) -> int:
        if self.at("ch", "{"):
            self.pos += 1
            negative = self.at("ch", "-")
            self.pos += negative
            k = self.take("num")
            self.take("ch", "}")
        else:
            k, negative = self.take("num"), False
            if len(k) != 1:  # "x^23" is x^{23} to math-verify, x^2·3 to LaTeX
                raise _Outside("unbraced exponent of several digits")
        if "." in k or int(k) > MAX_EXPONENT:
            raise _Outside("exponent not a small integer")
        return -int(k) if negative else int(k)


@lru_cache(maxsize=100_000)
def read(text: str) -> Formula | None:
    """The formula a text writes, if it lies in the grammar (see the module's docstring), else None."""
    if len(text) > MAX_CHARS or _WORD_OR_CALL.search(_COMMAND.sub("\\\\", text)):
        return None
    try:
        reader = _Reader(text)
        if reader.decimals and len(reader.tokens) > 1 + (reader.tokens[0] == ("ch", "-")):
            return None  # sympy can hang evaluating a decimal inside a formula: sqrt(sqrt(24)*9.22)
        ball, poly = reader.read()
    except (_Outside, OutOfRange, ZeroDivisionError, OverflowError, ValueError):
        return None
    if reader.letters:
        return Formula(None, poly, True, reader.decimals, reader.radicals)
    # math-verify's value (sympy's evalf to 30 digits, then a float) is the exact value rounded once more
    radius = ball.r * (1 + ROUNDING) + abs(ball.m) * ROUNDING
    return Formula(Interval(ball.m - radius, ball.m + radius), poly, False, reader.decimals, reader.radicals)


def math_verdict(pred: str, gold: str) -> bool | None:
    """What judge.match.math_equal makes of two formulas in the grammar, as a truth value (its None is
    False), or None when only math-verify can tell.

    - Two constants: math_equal compares math-verify's values with numbers_close, and the intervals hold
      them, so close_for_all gives its verdict. An acceptance also needs every decimal written to be
      one math-verify kept (mathverify.read_whole), which holds when none is written; with decimals only a
      rejection is certain.
    - A formula with letters: math_equal asks math-verify's `verify`, which accepts only formulas equal
      as functions (a string, a set, a relation or a percentage, its other cases, cannot occur here). So
      two different polynomials, or a polynomial in a variable and a rational number, are different
      answers; equal ones are left to it (it may still reject them, e.g. when a number written is not in
      its reading: 2(x+3) is read as 2x+6), and so are roots and π beside letters, which sympy may take
      longer than math-verify's time limit to compare (a judge error).
    """
    a, b = read(pred), read(gold)
    if a is None or b is None:
        return None
    if not a.letters and not b.letters:
        close = close_for_all(a.value, b.value)
        return None if close and (a.decimals or b.decimals) else close
    if a.letters and b.letters:
        return False if a.poly is not None and b.poly is not None and a.poly != b.poly else None
    constant, letters = (b, a) if a.letters else (a, b)
    return False if letters.nonconstant and not constant.radicals else None
