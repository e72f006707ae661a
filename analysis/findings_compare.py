"""The comparisons the findings checks are made of, each on numbers with their 95 % intervals (findings_claims.Est):
True when the intervals say so, False when they say the opposite, None when they overlap the claim's bound or a
number has no interval. Exact numbers (the paper's, counts of the data) have an interval of one point."""
from __future__ import annotations

import math
from typing import Any

from analysis.findings_claims import Est, num

# "About x": within 10 % of x (the papers round what they state; a tighter band would ask more than they say).
ABOUT = 0.10
# "Equal" / "on par" with no size stated: the difference within ±5 points.
EQUAL_MARGIN = 5.0


def greater(a: Est, b: Est) -> bool | None:
    """a above b: True when a's interval lies above b's, False when below it (or both are exactly equal)."""
    if not (a.known and b.known):
        return None
    if a.lo > b.hi:
        return True
    if a.hi < b.lo or (a.lo == a.hi == b.lo == b.hi):
        return False
    return None


def beyond(e: Est, op: str, bound: float) -> bool | None:
    """e against a bound: `above` (>), `at_least` (≥), `below` (<), `at_most` (≤)."""
    if not e.known:
        return None
    lo, hi = e.lo, e.hi
    if op == "above":
        return True if lo > bound else False if hi <= bound else None
    if op == "at_least":
        return True if lo >= bound else False if hi < bound else None
    if op == "below":
        return True if hi < bound else False if lo >= bound else None
    if op == "at_most":
        return True if hi <= bound else False if lo > bound else None
    raise ValueError(f"unknown bound {op!r}")


def within(e: Est, lo: float, hi: float) -> bool | None:
    """e inside [lo, hi]: True when its interval is inside, False when outside it, else None."""
    if not e.known:
        return None
    if e.lo >= lo and e.hi <= hi:
        return True
    if e.hi < lo or e.lo > hi:
        return False
    return None


def about_band(x: float) -> tuple[float, float]:
    """'About x': within 10 % of x, or half a unit of its last stated digit if wider ('about 3×': 2.5–3.5)."""
    tol = max(ABOUT * abs(x), 0.5 * last_digit(x))
    return x - tol, x + tol


def last_digit(x: float) -> float:
    """The unit of x's last non-zero digit as written (3 → 1, 40 → 10, 1.6 → 0.1)."""
    if x == 0:
        return 1.0
    text = repr(float(abs(x)))
    whole, _, frac = text.partition(".")
    frac = frac.rstrip("0")
    if frac:
        return 10.0 ** -len(frac)
    return 10.0 ** (len(whole) - len(whole.rstrip("0")))


def stated_band(x: float) -> tuple[float, float]:
    """A value stated exactly (`equals`): the interval its rounding covers (0.9218: ±0.00005; 140: ±0.5)."""
    decimals = 0 if float(x).is_integer() else len(repr(float(x)).split(".")[1])
    half = 0.5 * 10 ** -decimals
    return x - half, x + half


def size_test(e: Est, size: dict[str, Any]) -> tuple[bool | None, str]:
    """e against every bound of a claim's `size` (or of one of its `values`): the result and the test in words."""
    results, said = [], []
    for op, bound in size.items():
        if op == "unit" or bound is None:
            continue
        if op in ("above", "at_least", "below", "at_most"):
            results.append(beyond(e, op, float(bound)))
            said.append(f"{op.replace('_', ' ')} {num(float(bound))}")
        elif op in ("about", "equals", "between"):
            lo, hi = (about_band(float(bound)) if op == "about" else stated_band(float(bound)) if op == "equals"
                      else (float(bound[0]), float(bound[1])))
            results.append(within(e, lo, hi))
            said.append(f"{op} {num(float(bound)) if op != 'between' else f'{num(lo)}–{num(hi)}'}"
                        + (f" (within {num(lo)}–{num(hi)})" if op == "about" else ""))
    if not results:
        return None, ""
    return all_of(results), " and ".join(said)


def all_of(results: list[bool | None]) -> bool | None:
    return False if False in results else True if all(r is True for r in results) else None


def diff(a: Est, b: Est, what: str = "") -> Est:
    """a − b with the conservative unpaired interval from both sides' intervals: [a.lo − b.hi, a.hi − b.lo]."""
    how = ("" if not (a.known and b.known) else "exact" if a.lo == a.hi and b.lo == b.hi
           else "unpaired, from both sides' intervals (conservative)")
    return Est(a.value - b.value, a.lo - b.hi, a.hi - b.lo, what or f"{a.what} − {b.what}", how)


def ratio(a: Est, b: Est, what: str = "") -> Est:
    """a / b with the interval from both sides' intervals (conservative); no interval when b's reaches 0."""
    name = what or f"{a.what} / {b.what}"
    if b.value == 0:
        return Est(math.nan, math.nan, math.nan, name)
    if not (a.known and b.known) or b.lo <= 0:
        return Est(a.value / b.value, math.nan, math.nan, name)
    return Est(a.value / b.value, a.lo / b.hi, a.hi / b.lo, name, "from both sides' intervals (conservative)")


def absolute(e: Est) -> Est:
    """|e|, its interval folded at 0."""
    if not e.known:
        return Est(abs(e.value), math.nan, math.nan, f"|{e.what}|")
    lo = 0.0 if e.lo <= 0 <= e.hi else min(abs(e.lo), abs(e.hi))
    return Est(abs(e.value), lo, max(abs(e.lo), abs(e.hi)), f"|{e.what}|", e.how)


def mean_of(ests: list[Est], what: str) -> Est:
    """The mean of several numbers, its interval the mean of their ends (as if they moved together: wide)."""
    n = len(ests)
    return Est(sum(e.value for e in ests) / n, sum(e.lo for e in ests) / n, sum(e.hi for e in ests) / n, what,
               "the mean of the members' interval ends (conservative)")


def equal(d: Est, margin: float = EQUAL_MARGIN) -> bool | None:
    """A difference about 0: True when its interval lies within ±margin, False when it excludes ±margin's band."""
    return within(d, -margin, margin)
