"""Answering a circuit black box from the options' text alone, without the waveform: what an item
gives away.

count    the first option (A–E) whose netlist joins the n terminals the question states, else
         "None of the above". Under the `fig7` design exactly the true netlist has n terminals, so
         this is right on every item; under `same_count` every option has n, so it always says A.
closest  the option sharing the most component lines with the other four (Jaccard overlap of the
         lines ``R1_1 o1 a1 1`` …, summed; the first on a tie): right where distractors are drawn
         around the truth, as edits of it would be.
random   a uniform guess over the six letters: 1/6 expected (`random_guesses` draws seeded ones).

Each guess takes the level and the five listed netlists and returns a letter, so the same functions
score freshly generated items (`measure_heuristics`) and converted records (morphobench.T5).
"""
from __future__ import annotations

import random
from typing import Callable

from pathlib import Path

from data.generate.circuit_items import LETTERS, NONE_OF_THE_ABOVE
from data.generate.netlist import terminals

# Where `python -m data.generate circuit_heuristics` (measure_heuristics.py) writes its measurement, which
# morphobench.T5 reads without importing the generator (and matplotlib with it)
DEFAULT_OUT = Path(__file__).with_name("circuit_heuristics.csv")
COMMAND = "python -m data.generate circuit_heuristics"

RANDOM_EXPECTED_PCT = 100 / 6

Guess = Callable[[int, list[str]], str]


def count_guess(level: int, netlists: list[str]) -> str:
    return next((letter for letter, text in zip(LETTERS, netlists) if len(terminals(text)) == level),
                NONE_OF_THE_ABOVE)


def _parts(text: str) -> set[str]:
    """The component lines of a netlist, without the load R0 that every netlist holds."""
    return {line.strip() for line in text.splitlines() if line[:1] in "RLC" and not line.startswith("R0 ")}


def _overlap(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a | b else 1.0


def closest_guess(level: int, netlists: list[str]) -> str:
    parts = [_parts(text) for text in netlists]
    scores = [sum(_overlap(p, q) for j, q in enumerate(parts) if j != i) for i, p in enumerate(parts)]
    return LETTERS[scores.index(max(scores))]


GUESSES: dict[str, Guess] = {"count": count_guess, "closest": closest_guess}


def random_guesses(key: str, n: int) -> list[str]:
    """n uniform guesses over the six letters, the same for the same key."""
    rng = random.Random(f"morpho-g/random-guess/{key}")
    return [rng.choice(LETTERS) for _ in range(n)]


def percent_right(items: list[tuple[int, list[str], str]], key: str) -> dict[str, float]:
    """Of items given as (level, the five listed netlists, answer): the % each guess answers, and
    `random`, the % a seeded uniform guess (`random_guesses(key, …)`) answers."""
    if not items:
        raise ValueError("no items to score")
    out = {name: 100 * sum(guess(level, netlists) == answer for level, netlists, answer in items) / len(items)
           for name, guess in GUESSES.items()}
    guesses = random_guesses(key, len(items))
    out["random"] = 100 * sum(g == answer for g, (_, _, answer) in zip(guesses, items)) / len(items)
    return out
