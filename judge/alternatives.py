"""Alternatives: an answer listing the values one quantity may take is the set of those values.

"x = 1 or x = 2", "x = 1, x = 2", "x_1 = 1, x_2 = 2" (one quantity, its roots numbered), "2 or 5" and
"1 ± √2" (1 + √2 and 1 − √2; ∓ the other way round) list alternatives, answered in any order and in any
of these forms: "x = 2 or x = 1" and "1 - √2, 1 + √2" answer "1 ± √2". An uncertainty is not an
alternative: in "(10.50 ± 0.25) ml" and "450 ± 50" a number's ± is its error (judge.match reads the
value). Texts are canonical (judge.match.canonical: \\pm is ±, "\\text{or}" is "or").
"""
from __future__ import annotations

import re
from functools import lru_cache

from judge.parts import split_parts

_MAY_LIST = re.compile(r"\bor\b|或|[±∓]|=")
_OR = re.compile(r"\s(?:or)\s|或")
_NAMED = re.compile(r"^([A-Za-z])(?:_\{?\w+\}?)?\s*=\s*([^=]+)$")
_UNCERTAINTY = re.compile(r"(?<![\w}.])\d+(?:\.\d+)?\s*[±∓]\s*\d")


def _expand(value: str) -> list[str]:
    """A value with ± (or ∓) as its two values; any other value alone."""
    if not re.search("[±∓]", value) or _UNCERTAINTY.search(value):
        return [value]
    return [value.replace("±", "+").replace("∓", "-"), value.replace("±", "-").replace("∓", "+")]


@lru_cache(maxsize=100_000)
def read(text: str) -> tuple[str | None, tuple[str, ...]] | None:
    """(the quantity's letter or None, its values) for an answer that lists alternatives (see above); None
    for any other answer, a list of different quantities included (x = 1, y = 2)."""
    if not _MAY_LIST.search(text):
        return None
    names, values, expanded = [], [], False
    for part in split_parts(text):
        m = _NAMED.match(part)
        names.append(m.group(1) if m else None)
        options = _expand(m.group(2).strip() if m else part)
        expanded = expanded or len(options) > 1
        values += options
    named = {name for name in names if name}
    if len(named) > 1:
        return None
    name = next(iter(named), None)
    one_quantity = name is not None and names.count(name) > 1  # "x = 1, x = 2"
    if not (expanded or one_quantity or (_OR.search(text) and len(values) > 1)):
        return None
    return name, tuple(values)


def signals(text: str) -> bool:
    """Whether an answer says by its form that it lists alternatives of one named quantity, or of a
    quantity with ± (what lets its values answer a plain list in any order)."""
    found = read(text)
    return found is not None and (found[0] is not None or bool(re.search("[±∓]", text)))
