"""Near-miss circuits: the true circuit with one structural change, for the distractor options.

Each mutation returns a new circuit, or None when it does not apply or breaks a rule of
`netlist.valid`; the caller draws again. Whether a near miss is a fair distractor is decided by its
simulated waveform, not here.
"""
from __future__ import annotations

import random
from typing import Callable

from data.generate.netlist import (KINDS, MAX_PARTS, MAX_PATHS, PAIRS, Circuit, Part, build, editable,
                                   random_branch, random_part, random_path, valid)

Edit = list[list[list[Part]]]


def _components(branches: Edit) -> list[tuple[int, int, int]]:
    return [(b, p, i) for b, branch in enumerate(branches) for p, path in enumerate(branch)
            for i in range(len(path))]


def retype(rng: random.Random, branches: Edit, n: int) -> None:
    """One component becomes another kind (R→L, L∥C→R∥C …)."""
    b, p, i = rng.choice(_components(branches))
    part = branches[b][p][i]
    if part.plain:
        branches[b][p][i] = Part((rng.choice([k for k in KINDS if k != part.plain]),))
    else:
        branches[b][p][i] = Part(rng.choice([q for q in PAIRS if q != part.kinds]))


def series_parallel(rng: random.Random, branches: Edit, n: int) -> None:
    """A parallel pair becomes the same two components in series, or two neighbours in series a pair."""
    b, p, i = rng.choice(_components(branches))
    path = branches[b][p]
    part = path[i]
    if not part.plain:
        first, second = rng.sample(part.kinds, 2)
        path[i:i + 1] = [Part((first,)), Part((second,))]
    elif i + 1 < len(path) and path[i + 1].plain not in (None, part.plain):
        path[i:i + 2] = [Part(tuple(sorted((part.plain, path[i + 1].plain), key=KINDS.index)))]


def drop_part(rng: random.Random, branches: Edit, n: int) -> None:
    b, p, i = rng.choice(_components(branches))
    del branches[b][p][i]


def add_part(rng: random.Random, branches: Edit, n: int) -> None:
    b, p, _ = rng.choice(_components(branches))
    path = branches[b][p]
    if len(path) < MAX_PARTS:
        path.insert(rng.randint(0, len(path)), random_part(rng))


def swap_terminals(rng: random.Random, branches: Edit, n: int) -> None:
    if n >= 2:
        a, b = rng.sample(range(n), 2)
        branches[a], branches[b] = branches[b], branches[a]


def paths(rng: random.Random, branches: Edit, n: int) -> None:
    """A branch gains a parallel path, or loses one."""
    b = rng.randrange(n)
    branch = branches[b]
    if len(branch) < MAX_PATHS and rng.random() < 0.5:
        branch.append(list(random_path(rng)))
    elif len(branch) > 1:
        del branch[rng.randrange(len(branch))]


def ground_branch(rng: random.Random, branches: Edit, n: int) -> None:
    """The branch to ground appears, or disappears."""
    branches[n] = [] if branches[n] else [list(path) for path in random_branch(rng)]


MUTATIONS: tuple[Callable[[random.Random, Edit, int], None], ...] = (
    retype, retype, series_parallel, drop_part, add_part, swap_terminals, paths, ground_branch)


def mutate(rng: random.Random, c: Circuit) -> Circuit | None:
    branches = editable(c)
    rng.choice(MUTATIONS)(rng, branches, c.n)
    out = build(c.n, branches)
    return out if valid(out) and out != c else None
