"""MORPHO-G circuit black-box items (MorphoBench §3.3, Appendix A.3 Fig. 7, Table 5).

Level L has L input terminals, each driven by ``SIN(0, amplitude, frequency)`` with amplitudes and
frequencies distinct within the item. The true circuit is random (`netlist.random_circuit`); its
output V(o1) − V(o2) is simulated by ngspice and drawn as the question image. Six options: five
netlists and "None of the above". The answer is uniform over A–F, so "None of the above" is right in
one item out of six, as often as any letter; then all five listed netlists are distractors.

A distractor is a near miss (one or two mutations of the truth, 3 in 4) or a fresh random circuit
of the same level, and is kept only when its own simulated waveform differs from the truth's by a
normalised RMS difference of more than NRMS_MIN:

    nrms(v, truth) = sqrt(mean((v − truth)²)) / sqrt(mean(truth²))   over the 5001 samples of 0–20 ms

so the option that matches is unique up to far more than simulation error (equivalent rewirings of
the truth, e.g. two series parts swapped, come out near 1e-6 and are rejected).
"""
from __future__ import annotations

import logging
import random
from dataclasses import dataclass

import numpy as np

from data.generate.mutate import mutate
from data.generate.netlist import Circuit, netlist, random_circuit
from data.generate.spice import Signal, simulate, simulate_many

log = logging.getLogger(__name__)

LEVELS = range(1, 11)
LETTERS = "ABCDEF"
NONE_OF_THE_ABOVE = "F"
N_LISTED = 5
NRMS_MIN = 0.1
MIN_RMS_V = 0.01       # a true output this small shows nothing to reason about: draw another circuit
NEAR_MISS = 0.75       # share of distractor draws that mutate the truth
DISTRACTOR_DRAWS = 80  # per item, before the circuit is given up for a new one
BATCH = 4              # candidates simulated together; fixed, so results never depend on the core count
CIRCUIT_DRAWS = 20
AMPLITUDES = tuple(round(0.1 * k, 1) for k in range(1, 21))             # 0.1 … 2.0 V
FREQUENCIES = (50, 100, 200, 300, 500, 800, 1000, 1500, 2000, 3000, 5000, 8000, 10000)  # Hz


class GenerationError(RuntimeError):
    pass


@dataclass(frozen=True)
class CircuitItem:
    level: int
    signals: list[Signal]
    truth: Circuit
    waveform: np.ndarray                 # V(o1) − V(o2) of the truth on the simulation grid
    listed: list[Circuit]                # options A–E
    nrms: list[float]                    # each listed option against the truth (0 for the truth)
    answer: str                          # "A"…"F"

    def netlists(self) -> list[str]:
        return [netlist(c) for c in self.listed]


def rms(v: np.ndarray) -> float:
    return float(np.sqrt(np.mean(np.square(v))))


def nrms(v: np.ndarray, truth: np.ndarray) -> float:
    return rms(v - truth) / rms(truth)


def random_signals(rng: random.Random, n: int) -> list[Signal]:
    amplitudes = rng.sample(AMPLITUDES, n)
    frequencies = rng.sample(FREQUENCIES, n)
    return [Signal(k + 1, a, f) for k, (a, f) in enumerate(zip(amplitudes, frequencies))]


def _distractors(rng: random.Random, truth: Circuit, v_true: np.ndarray, signals: list[Signal],
                 count: int) -> list[tuple[Circuit, float]] | None:
    """`count` distractors, each with its nrms against the truth, or None if the draws run out."""
    seen = {netlist(truth)}
    found: list[tuple[Circuit, float]] = []
    for _ in range(0, DISTRACTOR_DRAWS, BATCH):
        batch = []
        for _ in range(BATCH):
            cand = _candidate(rng, truth)
            if cand is not None and netlist(cand) not in seen:
                seen.add(netlist(cand))
                batch.append(cand)
        waves = simulate_many([netlist(c) for c in batch], signals)
        for cand, v in zip(batch, waves):
            d = nrms(v, v_true)
            if d > NRMS_MIN:
                found.append((cand, d))
                if len(found) == count:
                    return found
    return None


def _candidate(rng: random.Random, truth: Circuit) -> Circuit | None:
    if rng.random() < NEAR_MISS:
        cand = mutate(rng, truth)
        if cand is not None and rng.random() < 0.5:
            cand = mutate(rng, cand)
        return cand
    return random_circuit(rng, truth.n)


def make_item(rng: random.Random, level: int) -> CircuitItem:
    if level not in LEVELS:
        raise ValueError(f"level must be 1–10 (the number of input terminals), got {level}")
    answer = rng.choice(LETTERS)
    for _ in range(CIRCUIT_DRAWS):
        signals = random_signals(rng, level)
        truth = random_circuit(rng, level)
        v_true = simulate(netlist(truth), signals)
        if rms(v_true) < MIN_RMS_V:
            continue
        picked = _distractors(rng, truth, v_true, signals, N_LISTED if answer == NONE_OF_THE_ABOVE else N_LISTED - 1)
        if picked is None:
            log.debug("level %d: too few distractors differ from the truth; drawing another circuit", level)
            continue
        listed, dists = [c for c, _ in picked], [d for _, d in picked]
        if answer != NONE_OF_THE_ABOVE:
            pos = LETTERS.index(answer)
            listed.insert(pos, truth)
            dists.insert(pos, 0.0)
        item = CircuitItem(level, signals, truth, v_true, listed, dists, answer)
        check(item)
        return item
    raise GenerationError(f"level {level}: no circuit with {N_LISTED} distinct distractors in {CIRCUIT_DRAWS} draws")


def check(item: CircuitItem) -> None:
    """What every item must satisfy; a violation is a bug in the generator, never data to keep."""
    texts = item.netlists()
    truth = netlist(item.truth)
    problems = []
    if len(texts) != N_LISTED or len(set(texts)) != N_LISTED:
        problems.append("the five listed netlists are not five distinct netlists")
    if item.answer == NONE_OF_THE_ABOVE and truth in texts:
        problems.append("the answer is 'None of the above' but the true netlist is listed")
    for letter, text, d in zip(LETTERS, texts, item.nrms):
        is_answer = letter == item.answer
        if is_answer != (text == truth):
            problems.append(f"option {letter}: is{'' if is_answer else ' not'} the answer but is{'' if text == truth else ' not'} the truth")
        if not is_answer and not d > NRMS_MIN:
            problems.append(f"option {letter}: nrms {d:.4f} to the truth is not above {NRMS_MIN}")
    if problems:
        raise GenerationError("; ".join(problems))
