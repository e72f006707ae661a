"""MORPHO-G circuit black-box items (MorphoBench §3.3, Appendix A.3 Fig. 7, Table 5).

Level L has L input terminals, each driven by ``SIN(0, amplitude, frequency)`` with amplitudes and
frequencies distinct within the item. The true circuit is random (`netlist.random_circuit`) with L
terminal branches; its output V(o1) − V(o2) is simulated by ngspice and drawn as the question image.
Six options: five netlists and "None of the above". The answer is uniform over A–F, so "None of the
above" is right in one item out of six, as often as any letter; then all five listed netlists are
distractors.

Which netlists the distractors are is the item's *design* (`distractors.DESIGNS`):

same_count  (default, `same_count`) every listed netlist joins the L terminals the question states;
            they differ from the truth in components and topology only
fig7        (`fig7`) the listed netlists join five different numbers of terminals, as the options of
            Fig. 7 do; the count then names the answer on every item

Under both, every distractor's simulated waveform differs from the truth's by nrms > NRMS_MIN
(`distractors.nrms`). Item i draws its answer, inputs and true circuit the same way under both
designs, so two runs of one seed and level differ only in their distractors.
"""
from __future__ import annotations

import logging
import random
from dataclasses import dataclass
from types import ModuleType

import numpy as np

from data.generate import fig7, same_count
from data.generate.distractors import DEFAULT_DESIGN, DESIGNS, FIG7, NRMS_MIN, SAME_COUNT, nrms, rms
from data.generate.netlist import Circuit, netlist, random_circuit, terminals
from data.generate.spice import Signal, simulate

log = logging.getLogger(__name__)

LEVELS = range(1, 11)
LETTERS = "ABCDEF"
NONE_OF_THE_ABOVE = "F"
N_LISTED = 5
MIN_RMS_V = 0.01       # a true output this small shows nothing to reason about: draw another circuit
CIRCUIT_DRAWS = 20
AMPLITUDES = tuple(round(0.1 * k, 1) for k in range(1, 21))             # 0.1 … 2.0 V
FREQUENCIES = (50, 100, 200, 300, 500, 800, 1000, 1500, 2000, 3000, 5000, 8000, 10000)  # Hz
_MODULES = {SAME_COUNT: same_count, FIG7: fig7}


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
    design: str = DEFAULT_DESIGN         # how the distractors were chosen (`distractors.DESIGNS`)

    def netlists(self) -> list[str]:
        return [netlist(c) for c in self.listed]

    def terminal_counts(self) -> list[int]:
        """How many terminals each listed netlist joins to o1."""
        return [c.n for c in self.listed]


def random_signals(rng: random.Random, n: int) -> list[Signal]:
    amplitudes = rng.sample(AMPLITUDES, n)
    frequencies = rng.sample(FREQUENCIES, n)
    return [Signal(k + 1, a, f) for k, (a, f) in enumerate(zip(amplitudes, frequencies))]


def _design(design: str) -> ModuleType:
    if design not in _MODULES:
        raise ValueError(f"unknown distractor design {design!r} (known: {', '.join(DESIGNS)})")
    return _MODULES[design]


def make_item(rng: random.Random, level: int, design: str = DEFAULT_DESIGN) -> CircuitItem:
    """One checked item of `level` whose distractors follow `design`; GenerationError when no circuit
    drawn gets its five options under that design (never another design instead)."""
    if level not in LEVELS:
        raise ValueError(f"level must be 1–10 (the number of input terminals), got {level}")
    module = _design(design)
    answer = rng.choice(LETTERS)
    for _ in range(CIRCUIT_DRAWS):
        signals = random_signals(rng, level)
        truth = random_circuit(rng, level)
        v_true = simulate(netlist(truth), signals)
        if rms(v_true) < MIN_RMS_V:
            continue
        picked = module.distractors(rng, truth, v_true, signals,
                                    N_LISTED if answer == NONE_OF_THE_ABOVE else N_LISTED - 1)
        if picked is None:
            log.debug("level %d, %s: too few distractors differ from the truth; drawing another circuit", level, design)
            continue
        listed, dists = [c for c, _ in picked], [d for _, d in picked]
        if answer != NONE_OF_THE_ABOVE:
            pos = LETTERS.index(answer)
            listed.insert(pos, truth)
            dists.insert(pos, 0.0)
        item = CircuitItem(level, signals, truth, v_true, listed, dists, answer, design)
        check(item)
        return item
    raise GenerationError(f"level {level}, design {design}: no circuit with {N_LISTED} distinct distractors "
                          f"in {CIRCUIT_DRAWS} draws")


def check(item: CircuitItem) -> None:
    """What every item must satisfy, and its design's own rules; a violation is a bug in the generator,
    never data to keep."""
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
    if len(terminals(truth)) != item.level:
        problems.append(f"the true circuit joins {len(terminals(truth))} terminals, not the level's {item.level}")
    problems += _design(item.design).problems(item.level, item.answer, LETTERS, texts)
    if problems:
        raise GenerationError(f"{item.design} item: " + "; ".join(problems))
