"""Names and words around a value that a grader reads through: "P(2, 4)" and "P = (2, 4)" are the point
(2, 4); "about 4.1", "approximately 4.1", "≈ 4.1" and "~4.1" are 4.1.

A name written on both sides must be the same name (Q(2, 4) does not answer P(2, 4)). A name written
as "x = …" is judge.match's relation rule; this module reads the names it does not: a point's letter
before its coordinates, and a word of approximation before a number. Texts are canonical
(judge.match.canonical: \\approx is ≈).
"""
from __future__ import annotations

import re

# A point's name (P, P_1, P', A_{2}) glued to its coordinates, a tuple in brackets.
_POINT = re.compile(r"^([A-Z](?:_\{?\w+\}?|['′])*)\s*=?\s*(\(.+,.+\))$")
_APPROXIMATELY = re.compile(
    r"^(?:about|approximately|approx\.?|roughly|around|nearly|circa|ca\.|≈|≃|~|∼|\\sim|\\simeq)\s*(?=[-+.\d\\])",
    re.I)

_MAY_NAME = re.compile(r"[A-Z][^(]{0,8}\(|[aArRnNcC≈≃~∼\\]")


def _coordinates(text: str) -> tuple[str | None, str]:
    """(name, coordinates) of a named point; (None, text) for anything else."""
    m = _POINT.match(text)
    if not m or not _balanced(m.group(2)):
        return None, text
    return m.group(1), m.group(2)


def _balanced(text: str) -> bool:
    """The brackets of "(…)" close only at its end: "(2, 4)", not "(2)(4)"."""
    depth = 0
    for i, ch in enumerate(text):
        depth += 1 if ch in "([{" else -1 if ch in ")]}" else 0
        if depth == 0 and i < len(text) - 1:
            return False
    return depth == 0


def read_through(pred: str, gold: str) -> tuple[str, str] | None:
    """The two answers without a point's name or a word of approximation before the value, or None when
    neither has one (or both name a point, with different names)."""
    if not (_MAY_NAME.match(pred) or _MAY_NAME.match(gold)):  # most answers: no name, no approximation
        return None
    p, g = _APPROXIMATELY.sub("", pred), _APPROXIMATELY.sub("", gold)
    (p_name, p), (g_name, g) = _coordinates(p), _coordinates(g)
    if p_name and g_name and p_name != g_name:
        return None
    return (p, g) if (p, g) != (pred, gold) else None
