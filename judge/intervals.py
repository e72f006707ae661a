"""Sets of real numbers written as intervals or as inequalities: x ≤ 3 is (-∞, 3], x > 2 is (2, ∞).

An answer is read as a union of intervals with their ends (a value and whether it is included):
"(-\\infty, 3]", "[2, +\\infty)", "x \\in (2, 5]", "x \\leq 3", "3 \\geq x", "2 < x \\leq 5", "|x| < 3"
(-3 < x < 3), "|x - 1| \\geq 2", "\\{x \\mid x \\geq 2\\}", and unions ("x < -1 or x > 2",
"(-\\infty, -1) \\cup (2, \\infty)"). Two readings are the same set when every end has the same value
(judge.numbers.numbers_close) and is open or closed alike, so an open end never answers a closed one.
Two inequalities must also name the same variable (x ≤ 3 is not y ≤ 3). An end may be a formula of
letters ("x \\geq a" is [a, +∞)) where the variable is plain: the only letter, or the one x, y or z among
them; such ends are the same when they are the same polynomial, and are left undecided otherwise. Texts
are canonical (judge.match.canonical).
"""
from __future__ import annotations

import math
import re
from functools import lru_cache
from typing import NamedTuple

from judge import formula
from judge.numbers import numbers_close

_INFINITY = re.compile(r"\\infty|∞|\binf(?:inity)?\b")
_UNION = re.compile(r"\s*(?:∪|\\cup|\bor\b|\\text\{\s*or\s*\}|\\lor|∨)\s*")
_NOTATION = re.compile(r"^([(\[])\s*([^,;()\[\]]+?)\s*[,;]\s*([^,;()\[\]]+?)\s*([)\]])$")
_IN = re.compile(r"^\s*([A-Za-z](?:_\{?\w+\}?)?)\s*(?:\\in|∈)\s*(.+)$")
_OPS = {"<": (-1, False), "≤": (-1, True), "<=": (-1, True), "\\le": (-1, True), "\\leq": (-1, True),
        "\\leqslant": (-1, True), "\\lt": (-1, False), ">": (1, False), "≥": (1, True), ">=": (1, True),
        "\\ge": (1, True), "\\geq": (1, True), "\\geqslant": (1, True), "\\gt": (1, False)}
_OP = re.compile(r"\\leqslant|\\geqslant|\\leq?|\\geq?|\\lt|\\gt|<=|>=|[<>≤≥]")
_VARIABLE = re.compile(r"[A-Za-z](?:_\{?\w+\}?)?")


class End(NamedTuple):
    value: float | str   # ±inf for an unbounded side; a formula of letters, spaces removed ("a", "2k+1")
    closed: bool         # the value belongs to the set (never for ±inf)


class Reading(NamedTuple):
    variable: str | None                   # the variable an inequality names; None for interval notation
    intervals: tuple[tuple[End, End], ...]


_USUAL = ("x", "y", "z")  # the variable of "x ≥ a", "a ≤ x ≤ b"
# "|x| < 3", "|x - 1| ≥ 2", "3 > |x|": a distance from a centre
_ABS = re.compile(r"^\|\s*([A-Za-z](?:_\{?\w+\}?)?)\s*(?:([+-])\s*([^|]+?))?\s*\|\s*(<|≤|>|≥)\s*(.+)$")
_FLIP = {"<": ">", "≤": "≥", ">": "<", "≥": "≤"}
# Set-builder notation: "\\{x \\mid x \\geq 2\\}", "{x | x > 2}", "{x : x < 0}"
_BUILDER = re.compile(r"^\\?\{\s*([A-Za-z](?:_\{?\w+\}?)?)\s*(?:\||\\mid|:)\s*(.+?)\s*\\?\}$")


def _number(text: str) -> float | None:
    text = text.strip()
    if _INFINITY.fullmatch(text.lstrip("+")):
        return math.inf
    if text.startswith("-") and _INFINITY.fullmatch(text[1:].strip()):
        return -math.inf
    try:
        return float(text)
    except ValueError:
        pass
    read = formula.read(text)  # fractions, roots, π
    if read is None or read.letters or read.value is None:
        return None
    return (read.value.lo + read.value.hi) / 2


def _end(text: str, variable: str | None) -> float | str | None:
    """A number, or a formula of letters where `variable` is not None (and not named by the formula)."""
    value = _number(text)
    if value is not None or variable is None:
        return value
    read = formula.read(text)
    if read is None or not read.letters or (variable and variable in re.findall(r"[A-Za-z]", text)):
        return None
    return re.sub(r"\s+", "", text)


def _interval(lo: float | str, lo_closed: bool, hi: float | str, hi_closed: bool) -> tuple[End, End] | None:
    numbers = not isinstance(lo, str) and not isinstance(hi, str)
    if numbers and not lo < hi:
        return None
    return (End(lo, lo_closed and (isinstance(lo, str) or math.isfinite(lo))),
            End(hi, hi_closed and (isinstance(hi, str) or math.isfinite(hi))))


def _notation(text: str, variable: str | None) -> tuple[End, End] | None:
    """"(-\\infty, 3]", "[2, +\\infty)", "[a, +\\infty)": an interval in brackets. Its ends may be
    formulas of letters where it cannot be a point: a variable is said to lie in it, an end is infinite or
    a bracket is square ("(a, b)" may be a point)."""
    m = _NOTATION.match(text)
    if not m:
        return None
    symbolic = variable or ("" if "[" in text or "]" in text or _INFINITY.search(text) else None)
    lo, hi = _end(m.group(2), symbolic), _end(m.group(3), symbolic)
    if lo is None or hi is None:
        return None
    return _interval(lo, m.group(1) == "[", hi, m.group(4) == "]")


def _variable(pieces: list[str], n_ops: int) -> int | None:
    """Which piece of an inequality is its variable: the only plain letter (in the middle of a double
    inequality), else the one x, y or z among the letters."""
    names = [i for i, p in enumerate(pieces) if _VARIABLE.fullmatch(p) and (n_ops == 1 or i == 1)]
    if len(names) == 1 and not any(_VARIABLE.fullmatch(p) for i, p in enumerate(pieces) if i != names[0]):
        return names[0]
    usual = [i for i in names if pieces[i] in _USUAL]
    return usual[0] if len(usual) == 1 else None


def _inequality(text: str) -> tuple[str, tuple[End, End]] | None:
    """"x \\leq 3", "3 > x", "2 < x \\leq 5", "x \\geq a": a variable bounded on one side or both."""
    pieces = _OP.split(text)
    ops = [_OPS[o] for o in _OP.findall(text)]
    if not 1 <= len(ops) <= 2 or len({d for d, _ in ops}) > 1:
        return None
    pieces = [p.strip() for p in pieces]
    var = _variable(pieces, len(ops))
    if var is None:
        return None
    values = {i: _end(p, pieces[var]) for i, p in enumerate(pieces) if i != var}
    if any(v is None or (not isinstance(v, str) and math.isinf(v)) for v in values.values()):
        return None
    direction = ops[0][0]  # -1: the pieces increase left to right ("<"), 1: they decrease
    lo, lo_closed, hi, hi_closed = -math.inf, False, math.inf, False
    for i, v in values.items():
        closed = ops[i if i < var else i - 1][1]
        below = (i < var) == (direction < 0)  # the value lies below the variable
        if below:
            lo, lo_closed = v, closed
        else:
            hi, hi_closed = v, closed
    bounds = _interval(lo, lo_closed, hi, hi_closed)
    return (pieces[var], bounds) if bounds else None


def _absolute(text: str) -> tuple[str, list[tuple[End, End]]] | None:
    """"|x| < 3" is (-3, 3); "|x - 1| ≥ 2" is (-∞, -1] ∪ [3, ∞); "3 > |x|" is |x| < 3."""
    m = re.match(r"^(.+?)\s*(<|≤|>|≥)\s*(\|.+\|)$", text)
    if m:  # the distance written on the right
        text = f"{m.group(3)} {_FLIP[m.group(2)]} {m.group(1)}"
    m = _ABS.match(text.strip())
    if not m:
        return None
    shift = _number(m.group(3)) if m.group(3) else 0.0
    radius = _number(m.group(5))
    if shift is None or radius is None or math.isinf(shift) or not 0 < radius < math.inf:
        return None
    centre = -shift if m.group(2) == "+" else shift
    closed = m.group(4) in "≤≥"
    if m.group(4) in "<≤":
        return m.group(1), [_interval(centre - radius, closed, centre + radius, closed)]
    return m.group(1), [_interval(-math.inf, False, centre - radius, closed), _interval(centre + radius, closed, math.inf, False)]


def _order(bounds: tuple[End, End]) -> tuple:
    """Intervals sorted by their ends, formulas of letters after numbers."""
    return tuple((isinstance(e.value, str), e.value) for e in bounds)


@lru_cache(maxsize=100_000)
def read(text: str) -> Reading | None:
    """The set an answer (canonical text) writes as intervals or inequalities, or None."""
    if not re.search(r"[<>≤≥∞∈]|\\(?:[lg]e|[lg]t|infty|in)\b|^[(\[].*[)\]]$", text):
        return None
    if m := _BUILDER.match(text):  # {x | x ≥ 2}: the set its condition describes
        inner = read(m.group(2))  # its variable is bound: {y | y ≥ 2} is {x | x ≥ 2}
        return Reading(None, inner.intervals) if inner is not None and inner.variable == m.group(1) else None
    variable = None
    m = _IN.match(text)
    if m:
        variable, text = m.group(1), m.group(2)
    intervals, names = [], set()
    for piece in _UNION.split(text.strip()):
        found = _notation(piece, variable)
        if found is None and variable is None:
            inequality = _inequality(piece) or _absolute(piece)
            if inequality is not None:
                names.add(inequality[0])
                found = inequality[1]
        if found is None:
            return None
        intervals += found if isinstance(found, list) else [found]
    if len(names) > 1:
        return None
    return Reading(variable or next(iter(names), None), tuple(sorted(intervals, key=_order)))


def same_set(a: Reading, b: Reading) -> bool | None:
    """Whether two readings are the same set of numbers (and name the same variable, if both do); None when
    an end is a formula of letters whose sameness is not decided here."""
    if a.variable and b.variable and a.variable != b.variable:
        return False
    if len(a.intervals) != len(b.intervals):
        return False
    ends = [_same_end(x, y) for p, q in zip(a.intervals, b.intervals) for x, y in zip(p, q)]
    return False if False in ends else None if None in ends else True


def _same_end(a: End, b: End) -> bool | None:
    if isinstance(a.value, str) or isinstance(b.value, str):
        return _same_formula(a.value, b.value) if a.closed == b.closed else False
    if math.isinf(a.value) or math.isinf(b.value):
        return a.value == b.value
    return a.closed == b.closed and numbers_close(a.value, b.value)


def _same_formula(a: float | str, b: float | str) -> bool | None:
    """Two ends of which one is a formula of letters: the same polynomial, or undecided."""
    if not (isinstance(a, str) and isinstance(b, str)):
        return False  # a number or ±∞ is no formula of letters
    if a == b:
        return True
    fa, fb = formula.read(a), formula.read(b)
    if fa is None or fb is None or fa.poly is None or fb.poly is None:
        return None
    return fa.poly == fb.poly
