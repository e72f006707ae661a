"""The `fig7` distractor design: the options of the paper's Figure 7, which join 2, 1, 5, 6 and 3
terminals to o1 (true circuit: one of them).

Each distractor has a terminal count of its own, other than the level L, drawn from the six counts
nearest L, with at least one below L and one above whenever L > 1. A distractor is the truth cut down
or extended to its count (3 in 4; new terminals get random branches), then changed once more half of
the time (`mutate`), or a fresh random circuit of its count.

The question states L, so under this design the count alone names the answer: the option that joins
L terminals, or "None of the above" when none does (`heuristics.count_guess` is right on every item).
It is kept to reproduce the figure; `same_count` is the default.
"""
from __future__ import annotations

import random

import numpy as np

from data.generate.distractors import fill
from data.generate.mutate import mutate
from data.generate.netlist import Circuit, random_circuit, terminals, with_terminals
from data.generate.spice import Signal

NEAR_MISS = 0.75        # share of distractor draws made from the truth
COUNT_POOL = 6          # distractors' terminal counts come from the six counts nearest the level
ROUNDS = 20             # per item, each drawing one candidate per missing count, before a new circuit


def distractor_counts(rng: random.Random, level: int, k: int) -> list[int]:
    """k distinct terminal counts other than `level`, in the order they will be listed."""
    pool = sorted((c for c in range(1, level + COUNT_POOL + 1) if c != level),
                  key=lambda c: (abs(c - level), c))[:COUNT_POOL]
    while True:
        counts = rng.sample(pool, k)
        if level == 1 or min(counts) < level < max(counts):
            return counts


def _candidate(rng: random.Random, truth: Circuit, count: int) -> Circuit | None:
    if rng.random() < NEAR_MISS:
        cand = with_terminals(rng, truth, count)
        return mutate(rng, cand) if rng.random() < 0.5 else cand
    return random_circuit(rng, count)


def distractors(rng: random.Random, truth: Circuit, v_true: np.ndarray, signals: list[Signal],
                k: int) -> list[tuple[Circuit, float]] | None:
    """k distractors of k different terminal counts, with their nrms, or None if the rounds run out."""
    counts = distractor_counts(rng, truth.n, k)
    return fill(rng, truth, v_true, signals, counts, lambda r, count: _candidate(r, truth, count), ROUNDS)


def problems(level: int, answer: str, letters: str, texts: list[str]) -> list[str]:
    """The figure's rules the listed netlists break: five different terminal counts, no distractor
    with the level's, distractors on both sides of the level when it is above 1."""
    out = []
    counts = [len(terminals(text)) for text in texts]
    if len(set(counts)) != len(texts):
        out.append(f"the listed netlists' terminal counts {counts} are not {len(texts)} different counts")
    others = [c for letter, c in zip(letters, counts) if letter != answer]
    if level in others:
        out.append(f"a distractor has the question's terminal count ({level})")
    if level > 1 and not min(others) < level < max(others):
        out.append(f"the distractors' terminal counts {others} are not on both sides of {level}")
    return out
