"""Ratios: "2 : 1", "1 : 2 : 3", "a : b = 2 : 1".

A ratio is the same ratio with all its terms scaled (4 : 2 = 2 : 1, 2 : 4 : 6 = 1 : 2 : 3), and a ratio of
two terms is also its quotient (2 : 1 = 2). Every term counts: 1 : 6 is not 1 : 2 : 3, although both
divide out to 1/6 from left to right, which is how a formula reader takes them. Named on both sides, the
names say the order of the terms (b : a = 1 : 2 answers a : b = 2 : 1). Texts are canonical
(judge.match.canonical).
"""
from __future__ import annotations

import re
from functools import lru_cache

from judge import formula
from judge.numbers import numbers_close

_NAMED = re.compile(r"^([A-Za-z][\w{}]*(?:\s*[:∶]\s*[A-Za-z][\w{}]*)+)\s*=\s*(.+)$")


def _value(term: str) -> float | None:
    try:
        return float(term)
    except ValueError:
        read = formula.read(term)
        if read is None or read.letters or read.value is None:
            return None
        return (read.value.lo + read.value.hi) / 2


@lru_cache(maxsize=100_000)
def read(text: str) -> tuple[tuple[str, ...] | None, tuple[float, ...]] | None:
    """(the names of the terms, or None; the terms) of a ratio, or None when the text is not one."""
    names = None
    if m := _NAMED.match(text):
        names = tuple(n.strip() for n in re.split(r"[:∶]", m.group(1)))
        text = m.group(2)
    terms = [_value(t.strip()) for t in re.split(r"[:∶]", text)]
    if len(terms) < 2 or None in terms or (names and len(names) != len(terms)):
        return None
    return names, tuple(terms)  # type: ignore[arg-type]


def _proportional(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    if len(a) != len(b) or not a[0] or not b[0]:
        return len(a) == len(b) and all(numbers_close(x, y) for x, y in zip(a, b))
    return all(numbers_close(x / a[0], y / b[0]) for x, y in zip(a, b))


def same(pred: str, gold: str) -> bool | None:
    """Whether two answers are the same ratio, or a two-term ratio and its quotient; None when neither is
    a ratio, or a ratio is set against something that is not a number."""
    if ":" not in pred and ":" not in gold and "∶" not in pred + gold:
        return None
    p, g = read(pred), read(gold)
    if p is None and g is None:
        return None
    if p is None or g is None:  # a ratio of two terms and a number: its quotient
        (_, terms), number = (p, _value(gold)) if g is None else (g, _value(pred))
        if number is None or len(terms) != 2 or not terms[1]:
            return None
        quotient = terms[0] / terms[1]
        return numbers_close(quotient, number) if g is None else numbers_close(number, quotient)
    (p_names, p_terms), (g_names, g_terms) = p, g
    if p_names and g_names and p_names != g_names:
        if sorted(p_names) != sorted(g_names):
            return False
        p_terms = tuple(p_terms[p_names.index(name)] for name in g_names)
    return _proportional(p_terms, g_terms)
