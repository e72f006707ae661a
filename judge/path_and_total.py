"""MIRA's Rolling Dice: Two answer: a path (red / black / same) and an integer, right only when both are.

The record's gold is [path, total] (data/benchmarks/mira.py). The general multi-part rule
(judge/match.py) already settles the two parts written with any separator ("Red, 7", "red and 7",
"**red**; 7"). This reading adds what a careful reader, and the authors' acc.py, also take as the same
answer: words around the parts ("The red path, total 7") and the parts in the other order ("7, red"),
since a path and a number cannot be mistaken for each other. Where acc.py is loose it stays strict: acc.py
takes the first path word and the last integer, so "red or black, 7", "not red, 7" and "black: 3, red: 7"
pass it; here an answer naming more than one path, negating, or stating more than one number is not right.
"""
from __future__ import annotations

import re
from typing import Any

from data.benchmarks.mira import TWO_PART_LABELS, TWO_PART_TASK
from judge.extract import clean

# Words that name a path: the release's three, and "equal" / "tie" for "same".
_PATH_WORDS = {**{label: label for label in TWO_PART_LABELS}, "equal": "same", "tie": "same", "tied": "same"}
_WORD = re.compile(r"[a-z]+")
_NEGATION = re.compile(r"\b(?:not|no|neither|nor|never|none)\b|n't\b")
_NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?")  # "-7" is not 7


def applies(rec: dict[str, Any]) -> bool:
    """Whether a record's gold is Rolling Dice: Two's [path, total]."""
    golds = rec["answer"]
    return (rec.get("benchmark") == "mira" and rec.get("task") == TWO_PART_TASK and len(golds) == 2
            and golds[0] in TWO_PART_LABELS and golds[1].lstrip("-").isdigit())


def same_path_and_total(candidate: str | None, golds: list[str]) -> bool:
    """The candidate names exactly one path, the gold's, without a negation, and states exactly one
    number, the gold's total."""
    text = clean(candidate or "").lower()
    if not text or _NEGATION.search(text):
        return False
    paths = {_PATH_WORDS[w] for w in _WORD.findall(text) if w in _PATH_WORDS}
    numbers = {float(n) for n in _NUMBER.findall(text)}
    return paths == {golds[0]} and numbers == {float(golds[1])}
