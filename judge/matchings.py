"""Labelled matchings: "A–4, B–3, C–1", "P: III; Q: I; R: II", "a: F; b: T", "x = 1, y = 2".

A gold that pairs every label with its match is answered by the same pairs in any order ("B–3, A–4,
C–1"), written with any of the pair signs (: = → - –): every label must be matched to the same thing,
and no label may be missing or added. A value may itself be a list ("Lipophilic: 1, 3, 6. Hydrophilic:
2, 4, 5"), compared by the caller's rule. Texts are canonical (judge.match.canonical: every dash "-",
every arrow "→").
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Callable

from judge import lexicon
from judge.parts import split_parts

# A label: a letter or a code (A, b, B1, H_e, iv), a number, a name of up to three words ("Traditional
# PCR", "Foregut-fermenter"), in brackets or not.
_WORD = r"[A-Za-z][\w'′]*(?:[-_]\{?\w+\}?)*"
_LABEL = rf"\(?(?:{_WORD}(?: {_WORD}){{0,2}}|\d{{1,2}})\)?"
# A label opens a pair at the start of the text or after a separator, and is followed by a pair sign; a
# label in brackets may open one after a space, with or without a sign ("(a) F (b) T").
_PAIR = re.compile(rf"(?:(?:^|(?<=[;,\n])|(?<=\.\s))\s*({_LABEL})\s*(:|=|→|—|\s-\s|-(?=\S))"
                   rf"|(?:^|(?<=\s))\((\w{{1,4}})\)\s*(:|=|→|-)?)\s*")
_SHORT = re.compile(r"\S{1,4}")  # what a hyphen glued to its label may pair it with: "A-4", "1-c", "P-III"
_NUMBER = re.compile(r"\d+(?:\.\d+)?")


def _short(label: str, value: str) -> bool:
    """A value a hyphen may pair with its label: a short code, and not a range of two numbers."""
    return bool(_SHORT.fullmatch(value)) and not (_NUMBER.fullmatch(label) and _NUMBER.fullmatch(value))


def _depths(text: str) -> list[int]:
    """The bracket depth before each character."""
    out, depth = [], 0
    for ch in text:
        out.append(depth)
        depth = depth + 1 if ch in "([{" else max(0, depth - 1) if ch in ")]}" else depth  # "a)" closes none
    return out


@lru_cache(maxsize=100_000)
def read(text: str) -> tuple[tuple[str, str], ...] | None:
    """(label, value) of every pair of a matching, in the order written; None unless the whole text is two
    pairs or more with distinct labels."""
    if not re.search(r"[:=→—-]|\(\w{1,4}\)", text):
        return None
    depth = _depths(text)
    found = [m for m in _PAIR.finditer(text) if depth[m.start(1) if m.group(1) else m.start(3) - 1] == 0]
    while True:  # a label glued to a hyphen pairs only a short value: "4-methoxyphenol", "1-3" are no pairs
        pairs = [((m.group(1) or m.group(3)).strip("()"), m.group(2) or m.group(4),
                  text[m.end():nxt.start() if nxt else len(text)].strip(" ,;\n."))
                 for m, nxt in zip(found, found[1:] + [None])]
        wrong = [i for i, (label, sign, value) in enumerate(pairs) if sign == "-" and not _short(label, value)]
        if not wrong:
            break
        del found[wrong[0]]
    if len(found) < 2 or text[:found[0].start()].strip() or len({m.group(3) is None for m in found}) > 1:
        return None  # too few pairs, text before them, or labels of both kinds: "(1) a=1; b=2, (2) 5"
    pairs = [(label, value) for label, _, value in pairs]
    labels = [label for label, _ in pairs]
    return tuple(pairs) if len(set(labels)) == len(labels) else None


def _keys(labels: list[str]) -> list[str]:
    """Labels compared without spaces, and without case where no two of them differ only by case."""
    squashed = [re.sub(r"\s+", "", label) for label in labels]
    folded = [label.lower() for label in squashed]
    return folded if len(set(folded)) == len(set(squashed)) else squashed


def same(pred: str, gold: str, value_match: Callable[[str, str], bool]) -> bool | None:
    """Whether a matching answers a gold matching: the same labels, each with a value `value_match`
    accepts (pred value, gold value), or the same verdict where every gold value is one ("a: F; b: T"
    answered "b: True; a: False"); or the gold's matches alone, in its order. None when the gold is not a
    matching, or the answer is neither a matching nor those matches."""
    gold_pairs = read(gold)
    if gold_pairs is None:
        return None
    gold_values = [value for _, value in gold_pairs]
    if lexicon.truths(gold_values) is not None:  # "a: F; b: T": verdicts in any spelling
        value_match = lambda p, g: lexicon.truth(p, letters=True) is lexicon.truth(g, letters=True)  # noqa: E731
    pred_pairs = read(pred)
    if pred_pairs is None:  # the matches alone, in the gold's order of the labels: "4, 3, 1"
        matches = split_parts(pred)
        if len(matches) == len(gold_pairs) and all(value_match(p, g) for p, g in zip(matches, gold_values)):
            return True
        return None
    gold_keys = _keys([label for label, _ in gold_pairs])
    pred_keys = _keys([label for label, _ in pred_pairs])
    if sorted(gold_keys) != sorted(pred_keys):
        return False
    answered = dict(zip(pred_keys, (value for _, value in pred_pairs)))
    return all(value_match(answered[key], value) for key, value in zip(gold_keys, gold_values))
