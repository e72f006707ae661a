"""What the two distractor designs of the circuit black boxes share: the measure that keeps a
distractor apart from the truth, and the search that fills the options with candidates that pass it.

A distractor is kept only when its own simulated waveform (`spice.deck` says how terminals outside
the question's table are driven) differs from the truth's by a normalised RMS difference of more than
NRMS_MIN:

    nrms(v, truth) = sqrt(mean((v − truth)²)) / sqrt(mean(truth²))   over the 5001 samples of 0–20 ms

so the option that matches is unique up to far more than simulation error (equivalent rewirings of
the truth, e.g. two series parts swapped, come out near 1e-6 and are rejected).

The designs (`fig7`, `same_count`) differ in which candidates they draw and what else their options
must satisfy; each is a module of its own.
"""
from __future__ import annotations

import random
from typing import Callable, Hashable

import numpy as np

from data.generate.netlist import Circuit, netlist
from data.generate.spice import Signal, simulate_many

NRMS_MIN = 0.1
SAME_COUNT, FIG7 = "same_count", "fig7"
DESIGNS = (SAME_COUNT, FIG7)
DEFAULT_DESIGN = SAME_COUNT

# One candidate for a slot (None: this draw gave nothing usable, try again next round).
Draw = Callable[[random.Random, Hashable], "Circuit | None"]


def rms(v: np.ndarray) -> float:
    return float(np.sqrt(np.mean(np.square(v))))


def nrms(v: np.ndarray, truth: np.ndarray) -> float:
    return rms(v - truth) / rms(truth)


def fill(rng: random.Random, truth: Circuit, v_true: np.ndarray, signals: list[Signal], slots: list[Hashable],
         draw: Draw, rounds: int) -> list[tuple[Circuit, float]] | None:
    """One distractor per slot, each with its nrms against the truth, in the slots' order; None when
    `rounds` rounds leave a slot open. Each round draws one candidate per open slot and simulates them
    together (one ngspice process per core); netlists already drawn, the truth's included, are skipped,
    so the distractors are distinct netlists."""
    seen = {netlist(truth)}
    found: dict[Hashable, tuple[Circuit, float]] = {}
    for _ in range(rounds):
        batch = []
        for slot in slots:
            if slot in found:
                continue
            cand = draw(rng, slot)
            if cand is not None and netlist(cand) not in seen:
                seen.add(netlist(cand))
                batch.append((slot, cand))
        for (slot, cand), v in zip(batch, simulate_many([netlist(c) for _, c in batch], signals)):
            d = nrms(v, v_true)
            if d > NRMS_MIN:
                found[slot] = (cand, d)
        if len(found) == len(slots):
            return [found[slot] for slot in slots]
    return None
