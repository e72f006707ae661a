"""MORPHO-G circuit black-box items (MorphoBench §3.3, Appendix A.3 Fig. 7, Table 5).

Level L has L input terminals, each driven by ``SIN(0, amplitude, frequency)`` with amplitudes and
frequencies distinct within the item. The true circuit is random (`netlist.random_circuit`) with L
terminal branches; its output V(o1) − V(o2) is simulated by ngspice and drawn as the question image.
Six options: five netlists and "None of the above". The answer is uniform over A–F, so "None of the
above" is right in one item out of six, as often as any letter; then all five listed netlists are
distractors.

As in Fig. 7, whose five options join 2, 1, 5, 6 and 3 terminals to o1, the listed netlists differ in
their number of terminals: each distractor has a terminal count of its own, other than L, drawn from
the six counts nearest L, with at least one below L and one above whenever L > 1. A distractor is the
truth cut down or extended to its count (3 in 4; new terminals get random branches), then changed
once more half of the time (`mutate`), or a fresh random circuit of its count. It is kept only when
its own simulated waveform (`spice.deck` says how terminals outside the question's table are driven)
differs from the truth's by a normalised RMS difference of more than NRMS_MIN:

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
from data.generate.netlist import Circuit, netlist, random_circuit, terminals, with_terminals
from data.generate.spice import Signal, simulate, simulate_many

log = logging.getLogger(__name__)

LEVELS = range(1, 11)
LETTERS = "ABCDEF"
NONE_OF_THE_ABOVE = "F"
N_LISTED = 5
NRMS_MIN = 0.1
MIN_RMS_V = 0.01       # a true output this small shows nothing to reason about: draw another circuit
NEAR_MISS = 0.75        # share of distractor draws made from the truth
COUNT_POOL = 6          # distractors' terminal counts come from the six counts nearest the level
DISTRACTOR_ROUNDS = 20  # per item, each drawing one candidate per missing count, before a new circuit
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

    def terminal_counts(self) -> list[int]:
        """How many terminals each listed netlist joins to o1."""
        return [c.n for c in self.listed]


def rms(v: np.ndarray) -> float:
    return float(np.sqrt(np.mean(np.square(v))))


def nrms(v: np.ndarray, truth: np.ndarray) -> float:
    return rms(v - truth) / rms(truth)


def random_signals(rng: random.Random, n: int) -> list[Signal]:
    amplitudes = rng.sample(AMPLITUDES, n)
    frequencies = rng.sample(FREQUENCIES, n)
    return [Signal(k + 1, a, f) for k, (a, f) in enumerate(zip(amplitudes, frequencies))]


def distractor_counts(rng: random.Random, level: int, k: int) -> list[int]:
    """k distinct terminal counts other than `level`, in the order they will be listed."""
    pool = sorted((c for c in range(1, level + COUNT_POOL + 1) if c != level),
                  key=lambda c: (abs(c - level), c))[:COUNT_POOL]
    while True:
        counts = rng.sample(pool, k)
        if level == 1 or min(counts) < level < max(counts):
            return counts


def _distractors(rng: random.Random, truth: Circuit, v_true: np.ndarray, signals: list[Signal],
                 counts: list[int]) -> list[tuple[Circuit, float]] | None:
    """One distractor per terminal count, each with its nrms against the truth, or None if the
    rounds run out. Each round simulates one candidate per missing count together."""
    seen = {netlist(truth)}
    found: dict[int, tuple[Circuit, float]] = {}
    for _ in range(DISTRACTOR_ROUNDS):
        batch = []
        for count in counts:
            if count not in found:
                cand = _candidate(rng, truth, count)
                if cand is not None and netlist(cand) not in seen:
                    seen.add(netlist(cand))
                    batch.append((count, cand))
        waves = simulate_many([netlist(c) for _, c in batch], signals)
        for (count, cand), v in zip(batch, waves):
            d = nrms(v, v_true)
            if d > NRMS_MIN:
                found[count] = (cand, d)
        if len(found) == len(counts):
            return [found[count] for count in counts]
    return None


def _candidate(rng: random.Random, truth: Circuit, count: int) -> Circuit | None:
    if rng.random() < NEAR_MISS:
        cand = with_terminals(rng, truth, count)
        return mutate(rng, cand) if rng.random() < 0.5 else cand
    return random_circuit(rng, count)


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
        counts = distractor_counts(rng, level, N_LISTED if answer == NONE_OF_THE_ABOVE else N_LISTED - 1)
        picked = _distractors(rng, truth, v_true, signals, counts)
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
    counts = [len(terminals(text)) for text in texts]
    if len(terminals(truth)) != item.level:
        problems.append(f"the true circuit joins {len(terminals(truth))} terminals, not the level's {item.level}")
    if len(set(counts)) != N_LISTED:
        problems.append(f"the listed netlists' terminal counts {counts} are not five different counts")
    others = [c for letter, c in zip(LETTERS, counts) if letter != item.answer]
    if item.level in others:
        problems.append(f"a distractor has the question's terminal count ({item.level})")
    if item.level > 1 and not min(others) < item.level < max(others):
        problems.append(f"the distractors' terminal counts {others} are not on both sides of {item.level}")
    if problems:
        raise GenerationError("; ".join(problems))
