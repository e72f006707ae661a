"""Sets of real numbers written as intervals or as inequalities: x ≤ 3 is (-∞, 3], x > 2 is (2, ∞).

An answer is read as a union of intervals with their ends (a value and whether it is included):
"(-\\infty, 3]", "[2, +\\infty)", "x \\in (2, 5]", "x \\leq 3", "3 \\geq x", "2 < x \\leq 5", and unions
("x < -1 or x > 2", "(-\\infty, -1) \\cup (2, \\infty)"). Two readings are the same set when every end
has the same value (judge.numbers.numbers_close) and is open or closed alike, so an open end never
answers a closed one. Two inequalities must also name the same variable (x ≤ 3 is not y ≤ 3).
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
    value: float   # ±inf for an unbounded side
    closed: bool   # the value belongs to the set (never for ±inf)


class Reading(NamedTuple):
    variable: str | None                   # the variable an inequality names; None for interval notation
    intervals: tuple[tuple[End, End], ...]


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


def _interval(lo: float, lo_closed: bool, hi: float, hi_closed: bool) -> tuple[End, End] | None:
    if not lo < hi:
        return None
    return End(lo, lo_closed and math.isfinite(lo)), End(hi, hi_closed and math.isfinite(hi))


def _notation(text: str) -> tuple[End, End] | None:
    """"(-\\infty, 3]", "[2, +\\infty)": an interval in brackets."""
    m = _NOTATION.match(text)
    if not m:
        return None
    lo, hi = _number(m.group(2)), _number(m.group(3))
    if lo is None or hi is None:
        return None
    return _interval(lo, m.group(1) == "[", hi, m.group(4) == "]")


def _inequality(text: str) -> tuple[str, tuple[End, End]] | None:
    """"x \\leq 3", "3 > x", "2 < x \\leq 5": a variable bounded on one side or both."""
    pieces = _OP.split(text)
    ops = [_OPS[o] for o in _OP.findall(text)]
    if not 1 <= len(ops) <= 2 or len({d for d, _ in ops}) > 1:
        return None
    pieces = [p.strip() for p in pieces]
    names = [i for i, p in enumerate(pieces) if _VARIABLE.fullmatch(p)]
    if len(names) != 1 or (len(ops) == 2 and names != [1]):
        return None
    values = {i: _number(p) for i, p in enumerate(pieces) if i != names[0]}
    if any(v is None or math.isinf(v) for v in values.values()):
        return None
    direction = ops[0][0]  # -1: the pieces increase left to right ("<"), 1: they decrease
    lo, lo_closed, hi, hi_closed = -math.inf, False, math.inf, False
    for i, v in values.items():
        closed = ops[i if i < names[0] else i - 1][1]
        below = (i < names[0]) == (direction < 0)  # the value lies below the variable
        if below:
            lo, lo_closed = v, closed
        else:
            hi, hi_closed = v, closed
    bounds = _interval(lo, lo_closed, hi, hi_closed)
    return (pieces[names[0]], bounds) if bounds else None


@lru_cache(maxsize=100_000)
def read(text: str) -> Reading | None:
    """The set an answer (canonical text) writes as intervals or inequalities, or None."""
    if not re.search(r"[<>≤≥∞∈]|\\(?:[lg]e|[lg]t|infty|in)\b|^[(\[].*[)\]]$", text):
        return None
    variable = None
    m = _IN.match(text)
    if m:
        variable, text = m.group(1), m.group(2)
    intervals, names = [], set()
    for piece in _UNION.split(text.strip()):
        found = _notation(piece)
        if found is None and variable is None:
            inequality = _inequality(piece)
            if inequality is not None:
                names.add(inequality[0])
                found = inequality[1]
        if found is None:
            return None
        intervals.append(found)
    if len(names) > 1:
        return None
    return Reading(variable or next(iter(names), None), tuple(sorted(intervals)))


def same_set(a: Reading, b: Reading) -> bool:
    """Whether two readings are the same set of numbers (and name the same variable, if both do)."""
    if a.variable and b.variable and a.variable != b.variable:
        return False
    if len(a.intervals) != len(b.intervals):
        return False
    return all(_same_end(x, y) for p, q in zip(a.intervals, b.intervals) for x, y in zip(p, q))


def _same_end(a: End, b: End) -> bool:
    if math.isinf(a.value) or math.isinf(b.value):
        return a.value == b.value
    return a.closed == b.closed and numbers_close(a.value, b.value)
