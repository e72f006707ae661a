"""Two values with their units compared as quantities, in the light of the question they answer.

judge/units.py reads the unit after a value and converts it (2.5 km = 2500 m). The question says two
more things a careful grader uses:
- the unit it asks for ("in cm", "(in cm)", "in units of cm", "unit: cm", "in kJ/mol"): a bare gold is
  then a value in that unit, so "12 mm" does not answer 12 and "120 mm" does; a bare answer is still
  read in the asked unit, i.e. compared by its value;
- a fraction, proportion, share, percentage, rate or probability: 0.25 and 25 % are then the same
  answer, either way round; a bare gold of at most 1 is a fraction (0.25 % does not answer 0.25), a
  larger one a number of percent (25 % answers 25).
Without a question (a caller with no record) neither applies. `Question` states it for the comparisons
made inside it (judge/rules.py scores each record inside one: `with Question(text):`).
"""
from __future__ import annotations

import re
from contextvars import ContextVar
from functools import lru_cache
from typing import NamedTuple

from judge import units
from judge.extract import clean, unwrap_latex
from judge.numbers import numbers_close

# "in cm", "(in cm)", "in units of cm", "unit: cm", "units of cm", "expressed in m/s": what follows is
# read as a unit up to a mark or a word that ends it ("in m and the time in s"); the whole must be one.
_ASKS = re.compile(r"\bin\s+(?:units?\s+of\s+)?|\bunits?\s*(?:[:：]|of\b|in\b)\s*", re.I)
_ENDS = re.compile(r"[,;?!)\]\n]|[.:](?:\s|$)|\s+(?:and|or|to|for|of|at|if|when|with|as|is|are|the|from|"
                   r"rounded|round|correct|accurate|using|give|keep|express|without)\b|$", re.I)
_PROPORTION = re.compile(r"\b(?:fractions?|proportions?|shares?|percent(?:ages?)?|per\s+cent|rates?|"
                         r"probabilit(?:y|ies))\b", re.I)
_LATEX_SPACE = re.compile(r"\\[ ,;:!]|\\q?quad\b|~|\\[()\[\]]|\$+")


class Asked(NamedTuple):
    """What a question says about the units of its answer."""

    unit: units.Unit | None  # the one unit it asks for, if it names one
    proportion: bool         # it asks for a fraction, proportion, share, percentage, rate or probability


NOTHING_ASKED = Asked(None, False)
_ASKED: ContextVar[Asked] = ContextVar("asked", default=NOTHING_ASKED)


@lru_cache(maxsize=10_000)
def asked(question: str) -> Asked:
    """The unit a question asks for (None when it names none, or several different ones) and whether it
    asks for a proportion."""
    text = units.spelled(unwrap_latex(_LATEX_SPACE.sub(" ", clean(question))))
    found: list[units.Unit] = []
    for m in _ASKS.finditer(text):
        phrase = text[m.end():_ENDS.search(text, m.end()).start()].strip()
        unit = units.read(phrase) if phrase and len(phrase) <= 40 else None
        if unit is not None:
            found.append(unit)
    unit = found[0] if found and all(u.same(found[0]) for u in found) else None
    return Asked(unit, bool(_PROPORTION.search(text)))


class Question:
    """`with Question(text):` the comparisons made inside read their units in the light of this question.
    (A class rather than a generator: it is entered once per verdict, and is cheaper.)"""

    __slots__ = ("asked", "_token")

    def __init__(self, text: str | None) -> None:
        self.asked = asked(text) if text else NOTHING_ASKED

    def __enter__(self) -> Asked:
        self._token = _ASKED.set(self.asked)
        return self.asked

    def __exit__(self, *exc: object) -> None:
        _ASKED.reset(self._token)


def _converted(pred_value: float, pred: units.Unit, gold_value: float, gold: units.Unit) -> bool:
    """The answer written in the gold's unit is the gold's value, within the gold's precision."""
    return any(numbers_close(v, gold_value) for v in units.in_unit(pred_value, pred, gold))


def _proportion(pred_value: float, pred: units.Unit | None, gold_value: float,
                gold: units.Unit | None) -> bool | None:
    """A percentage against a bare number, for a question asking a proportion; None for other units."""
    if gold is not None and pred is None and gold.percent():  # 25 % answered 0.25 (or 25, a number of percent)
        return numbers_close(pred_value * 100, gold_value) or numbers_close(pred_value, gold_value)
    if pred is not None and gold is None and pred.percent():  # 0.25 answered 25 %; 25 answered 25 %
        return numbers_close(pred_value / 100 if abs(gold_value) <= 1 else pred_value, gold_value)
    return None


def same_quantity(pred_value: float, pred: units.Unit | None, gold_value: float, gold: units.Unit | None) -> bool:
    """Whether an answer's value and unit (None: no unit we can read) are the gold's: with both units,
    the same dimension and the same value once written in the gold's unit; else by value, unless the
    question asks a unit or a proportion (see the module's docstring)."""
    if pred is not None and gold is not None:
        return _converted(pred_value, pred, gold_value, gold)
    if pred is None and gold is None:
        return numbers_close(pred_value, gold_value)
    context = _ASKED.get()
    if gold is None and context.unit is not None:  # a bare gold is in the unit the question asks for
        return _converted(pred_value, pred, gold_value, context.unit)
    if context.proportion and (decided := _proportion(pred_value, pred, gold_value, gold)) is not None:
        return decided
    return numbers_close(pred_value, gold_value)


def gold_unit(pred: units.Unit | None, gold: units.Unit | None) -> units.Unit | None:
    """The gold's unit: its own, else the one the question asks for when the answer states a unit."""
    if gold is None and pred is not None:
        return _ASKED.get().unit
    return gold
