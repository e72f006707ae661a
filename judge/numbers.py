"""When two numbers count as the same answer (OMIBench Eq. 7), for plain values and for intervals.

`numbers_close` is the rule; `close_for_all` applies it to two intervals that contain the values
(judge/formula.py reads formulas to such intervals) and answers only when every pair of values in
them gets the same verdict, so a decision near the tolerance's edge is left to exact arithmetic.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

EPS = 1e-4     # |Δ| ≤ 1e-4 (OMIBench Eq. 7)
SMALL = 1e-2   # below this size a gold is compared relative to itself
REL = 1e-9     # float noise on ordinary magnitudes


def numbers_close(pred: float, gold: float) -> bool:
    """|Δ| ≤ 1e-4 (OMIBench Eq. 7) for ordinary magnitudes; relative to the gold's size where an absolute
    1e-4 means nothing: 1.6e-19 is not 1.7e-19, and 6.02e23 equals itself whatever the float rounding."""
    if gold == 0:
        return abs(pred) <= EPS
    if abs(gold) < SMALL:
        return math.isclose(pred, gold, rel_tol=EPS)
    return math.isclose(pred, gold, rel_tol=REL, abs_tol=EPS)


@dataclass(frozen=True)
class Interval:
    """A closed interval [lo, hi] known to contain a value."""

    lo: float
    hi: float

    def magnitudes(self) -> tuple[float, float]:
        """The least and the greatest |v| over the interval."""
        low = 0.0 if self.lo <= 0 <= self.hi else min(abs(self.lo), abs(self.hi))
        return low, max(abs(self.lo), abs(self.hi))


def close_for_all(pred: Interval, gold: Interval) -> bool | None:
    """`numbers_close(p, g)` if it is the same for every p in `pred` and g in `gold`, else None.

    The gold's interval must lie within one of numbers_close's cases (exactly zero, below SMALL, at least
    SMALL); the verdict is then decided by the least and greatest distance against the least and
    greatest tolerance, with a margin for the rounding of the comparison itself."""
    g_low, g_high = gold.magnitudes()
    if gold.lo == gold.hi == 0:
        rel, absolute = 0.0, EPS
    elif g_low == 0:  # the interval holds zero and other values: two different rules
        return None
    elif g_high < SMALL:
        rel, absolute = EPS, 0.0
    elif g_low >= SMALL:
        rel, absolute = REL, EPS
    else:
        return None
    p_low, p_high = pred.magnitudes()
    far = max(pred.hi - gold.lo, gold.hi - pred.lo)
    near = max(0.0, pred.lo - gold.hi, gold.lo - pred.hi)
    tol_low = max(rel * max(p_low, g_low), absolute)
    tol_high = max(rel * max(p_high, g_high), absolute)
    slack = 4 * 2.0 ** -52 * (max(p_high, g_high) + tol_high)
    if far + slack <= tol_low - slack:
        return True
    if near - slack > tol_high + slack:
        return False
    return None
