"""The arithmetic judge/formula.py reads formulas with: values that carry a bound on their rounding, and
polynomials with integer coefficients.

A `Ball` is a float m and a radius r such that the exact value lies within r of m: every operation
rounds once (by at most 2⁻⁵² of its result, twice the unit roundoff) and adds the propagated radii;
integers stay exact while they fit a float's 53 bits. Values are kept within MAGNITUDES, where sympy's
30-digit evaluation (math-verify's value of a formula) is the exact value rounded once more. A
polynomial is a dict from monomials to integer coefficients, kept expanded.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

ROUNDING = 2.0 ** -52      # the error of one rounded operation, relative to its result
MAGNITUDES = (1e-30, 1e30)  # every value on the way; beyond them sympy's evaluation may need more digits
ZERO_NOISE = 1e-100        # sympy evaluates a sum that cancels to zero ("3-3") to a value of no sign below this
MAX_TERMS = 400            # a larger expansion is left to math-verify

Monomial = tuple[tuple[str, int], ...]   # ((letter, power), …) sorted; () is the constant term
Poly = dict[Monomial, int]


class OutOfRange(ArithmeticError):
    """A value the bounds do not cover: too large or small, a division by what may be zero, the root of
    what may be negative, or too many terms."""


@dataclass(frozen=True)
class Ball:
    """A value m ± r (midpoint and radius): the exact value lies within r of the float m."""

    m: float
    r: float = 0.0

    @staticmethod
    def rounded(m: float, r: float) -> Ball:
        if not math.isfinite(m) or not math.isfinite(r) or (m != 0 and not MAGNITUDES[0] < abs(m) < MAGNITUDES[1]):
            raise OutOfRange("value out of range")
        return Ball(m, r + abs(m) * ROUNDING)

    def exact_int(self) -> int | None:
        return int(self.m) if self.r == 0 and self.m.is_integer() and abs(self.m) < 2 ** 53 else None

    def __add__(self, o: Ball) -> Ball:
        a, b = self.exact_int(), o.exact_int()
        if a is not None and b is not None and a + b != 0 and abs(a + b) < 2 ** 53:
            return Ball(float(a + b))
        out = Ball.rounded(self.m + o.m, self.r + o.r)
        # sympy evaluates a sum that cancels to zero ("3-3") to a value of no sign below 1e-100
        return Ball(out.m, out.r + ZERO_NOISE) if abs(out.m) <= out.r else out

    def __neg__(self) -> Ball:
        return Ball(-self.m, self.r)

    def __mul__(self, o: Ball) -> Ball:
        a, b = self.exact_int(), o.exact_int()
        if a is not None and b is not None and abs(a * b) < 2 ** 53:
            return Ball(float(a * b))
        return Ball.rounded(self.m * o.m, abs(self.m) * o.r + abs(o.m) * self.r + self.r * o.r)

    def __truediv__(self, o: Ball) -> Ball:
        if abs(o.m) <= 2 * o.r or o.m == 0:  # zero may lie in the divisor's interval
            raise OutOfRange("division by zero")
        m = self.m / o.m
        return Ball.rounded(m, (abs(self.m) * o.r + abs(o.m) * self.r) / (abs(o.m) * (abs(o.m) - o.r)))

    def sqrt(self) -> Ball:
        if self.m - self.r < 0:  # the root of a negative number: not a real value
            raise OutOfRange("root of a negative number")
        n = self.exact_int()
        if n is not None and math.isqrt(n) ** 2 == n:  # sympy keeps a square's root exact: √4 = 2
            return Ball(float(math.isqrt(n)))
        m = math.sqrt(self.m)  # m > 0 here; |√x - √m²| ≤ r / m for |x - m²| ≤ r
        return Ball.rounded(m, self.r / m)

    def power(self, k: int) -> Ball:
        n = self.exact_int()
        if n == 0 and k <= 0:
            raise OutOfRange("zero to a power that is not positive")
        if n is not None:
            exact = Fraction(n) ** k
            if exact.denominator == 1 and abs(exact) < 2 ** 53:
                return Ball(float(exact))
            return Ball.rounded(float(exact), 0.0)
        out = Ball(1.0)
        for _ in range(abs(k)):
            out = out * self
        return Ball(1.0) / out if k < 0 else out


def poly_add(a: Poly, b: Poly, sign: int = 1) -> Poly:
    """a + sign·b."""
    out = dict(a)
    for mono, c in b.items():
        out[mono] = out.get(mono, 0) + sign * c
    return {mono: c for mono, c in out.items() if c}


def poly_mul(a: Poly, b: Poly) -> Poly:
    """a·b, expanded."""
    out: Poly = {}
    for ma, ca in a.items():
        for mb, cb in b.items():
            powers = dict(ma)
            for letter, k in mb:
                powers[letter] = powers.get(letter, 0) + k
            mono = tuple(sorted(powers.items()))
            out[mono] = out.get(mono, 0) + ca * cb
    if len(out) > MAX_TERMS:
        raise OutOfRange("too many terms")
    return {mono: c for mono, c in out.items() if c}


def poly_power(poly: Poly, k: int) -> Poly:
    """poly to the power k ≥ 0, expanded."""
    out: Poly = {(): 1}
    for _ in range(k):
        out = poly_mul(out, poly)
    return out
