"""Chains of order relations: "a > b > c" is "c < b < a", "M < O" is "O > M".

A chain is read from its smallest side: one written from the largest (> ≥) is turned around, and "="
joins items that are equal, in any order (a > b = c is c = b < a). Two chains of the same items are the
same when they have the same links in the same places: a strict link (<) never answers a non-strict one
(≤). Chains of other items are left to the other rules (an item moved is another chain; x + 1 > 3 is
x > 2 rewritten, which math-verify decides). A chain that mixes directions (a < b > c) is not read.
Sets of numbers written as inequalities of one variable are judge/intervals.py's; this module reads the
chains it leaves (orders of names, of quantities, of formulas). Texts are canonical
(judge.match.canonical: \\geq, \\geqslant and ⩾ are ≥).
"""
from __future__ import annotations

import re
from functools import lru_cache
from itertools import permutations
from typing import Callable

_LINK = re.compile(r"<=|>=|[≤≥<>=]")
_ORDER = re.compile(r"[<>≤≥]")
_UPWARD = {"<": "<", "≤": "≤", "<=": "≤", "=": "="}
_DOWNWARD = {">": "<", "≥": "≤", ">=": "≤", "=": "="}
MAX_EQUAL = 6  # items joined by "=" are matched in every order: a longer run is compared as written

Chain = tuple[tuple[tuple[str, ...], ...], tuple[str, ...]]  # groups of equal items, and the links between


def _pieces(text: str) -> tuple[list[str], list[str]] | None:
    """The items and the links between them, cut outside brackets only; None for a list (a separator
    outside brackets) or an empty item."""
    items, links, start, depth = [], [], 0, 0
    for i, ch in enumerate(text):
        depth = depth + 1 if ch in "([{" else max(0, depth - 1) if ch in ")]}" else depth
        if depth == 0 and ch in ",;\n":
            return None
        m = _LINK.match(text, i) if depth == 0 and i >= start else None
        if m:
            items.append(text[start:i].strip())
            links.append(m.group())
            start = m.end()
    items.append(text[start:].strip())
    return (items, links) if all(items) else None


@lru_cache(maxsize=100_000)
def chain(text: str) -> Chain | None:
    """A chain of order relations read upward (see above), or None when the text is not one."""
    if not _ORDER.search(text):
        return None
    pieces = _pieces(text)
    if pieces is None:
        return None
    items, links = pieces
    if all(link == "=" for link in links):
        return None  # no order outside brackets
    upward = all(link in _UPWARD for link in links)
    if not upward and not all(link in _DOWNWARD for link in links):
        return None  # a < b > c
    if not upward:
        items, links = items[::-1], links[::-1]
    links = [(_UPWARD if upward else _DOWNWARD)[link] for link in links]
    groups, order = [[items[0]]], []
    for item, link in zip(items[1:], links):
        if link == "=":
            groups[-1].append(item)
        else:
            groups.append([item])
            order.append(link)
    return tuple(tuple(g) for g in groups), tuple(order)


def _same_group(pred: tuple[str, ...], gold: tuple[str, ...], item_match: Callable[[str, str], bool]) -> bool:
    if len(pred) != len(gold):
        return False
    orders = permutations(pred) if len(pred) <= MAX_EQUAL else [pred]
    return any(all(item_match(p, g) for p, g in zip(order, gold)) for order in orders)


def same(pred: str, gold: str, item_match: Callable[[str, str], bool]) -> bool | None:
    """Whether two chains (canonical text) of the same items say the same thing, items compared by
    `item_match(pred, gold)`; None when either is not a chain, or their items differ."""
    if not (_ORDER.search(gold) and _ORDER.search(pred)):  # most answers: no sign of order at all
        return None
    g, p = chain(gold), chain(pred)
    if g is None or p is None:
        return None
    (p_groups, p_links), (g_groups, g_links) = p, g
    if len(p_groups) != len(g_groups) or not all(_same_group(a, b, item_match) for a, b in zip(p_groups, g_groups)):
        return None  # other items: another chain, or the same relation rewritten (x + 1 > 3), for math-verify
    return p_links == g_links  # the same items: every link must be as strict as the gold's
