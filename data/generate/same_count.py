"""The `same_count` distractor design (the default): every listed netlist joins the level's L
terminals, as the truth does, so the count the question states names no option and the waveform has
to decide.

The options are drawn alike, so that their text does not single out the truth either. Distractors
made by editing the truth would surround it, and the option sharing the most parts with the others would
point at the truth. Here a hidden *root* is the truth after one
to MAX_EDITS structural edits in a row (`mutate`: a component's kind, series ↔ parallel, a part added
or removed, two terminals swapped, a path or the ground branch added or removed), and every
distractor is the root after one to MAX_EDITS edits of its own: the truth is one more walk from the
root among the options (`heuristics.closest_guess` measures what is left: 21.5 % right over levels
1–10, chance 16.7 %). Like every distractor, each must differ from the truth's waveform by nrms >
NRMS_MIN, and the five listed netlists must be distinct. When the walks from one root find too few (a
level-10 truth whose output is mostly the supply's DC may hardly change under a few edits), another
root is tried before another true circuit is drawn.
"""
from __future__ import annotations

import random

import numpy as np

from data.generate.distractors import fill
from data.generate.mutate import mutate
from data.generate.netlist import Circuit, terminals
from data.generate.spice import Signal

MAX_EDITS = 3     # each option lies one to three edits from the root
ROUNDS = 20       # per root, each drawing one candidate per open option
ROOTS = 3         # roots tried before a new true circuit: a root whose walks keep the truth's waveform is rare


def walk(rng: random.Random, c: Circuit) -> Circuit:
    """`c` after one to MAX_EDITS edits in a row (an edit that does not apply leaves it as it was)."""
    for _ in range(rng.randint(1, MAX_EDITS)):
        c = mutate(rng, c) or c
    return c


def distractors(rng: random.Random, truth: Circuit, v_true: np.ndarray, signals: list[Signal],
                k: int) -> list[tuple[Circuit, float]] | None:
    """k distractors of the truth's terminal count, with their nrms, or None if the rounds of every root
    run out."""
    for _ in range(ROOTS):
        root = walk(rng, truth)
        found = fill(rng, truth, v_true, signals, list(range(k)), lambda r, _slot: walk(r, root), ROUNDS)
        if found is not None:
            return found
    return None


def problems(level: int, answer: str, letters: str, texts: list[str]) -> list[str]:
    """Every listed netlist must join exactly terminals 1…L."""
    want = list(range(1, level + 1))
    return [f"option {letter} joins terminals {terminals(text)}, not the question's 1…{level}"
            for letter, text in zip(letters, texts) if terminals(text) != want]
