"""Black-box circuits of 1 Ω resistors, 1 mF capacitors and 10 µH inductors behind the 5 V DC supply,
and their SPICE netlists in the layout of the paper's Figure 7.

The frame is the paper's, in every netlist: ``V1 1 0 DC 5`` (the supply, between terminal 1 and
ground, as all five netlists of Fig. 7 print it), ``R0 o1 o2 1`` loads the output and
``V_GND o2 0 0`` ties o2 to ground. Inside, a *branch* joins o1 to each input terminal k = 1…n, and
optionally one more to ground (node 0). A branch is one or two parallel *paths*; a path is a series of
*parts*; a part is one component or two different components in parallel. Components are named as in
the figure, kind + branch + ``_`` + count within the branch (``R1_1``, ``L2_1``, ``C1_2``), internal
nodes by letter + branch (``a1``, ``b1``); a branch's first path is written from o1 to the terminal,
further paths from the terminal back to o1 (``R1_3 1 o1 1``).

Two rules keep every circuit physical and simulable: every path holds a plain resistor, so no
loop of sources and inductors (or, at high frequency, capacitors) shorts a source; and a path
holds at most one plain capacitor, so no node floats at DC between two capacitors.
"""
from __future__ import annotations

import random
from dataclasses import dataclass

VALUES = {"R": "1", "C": "1m", "L": "10u"}
KINDS = ("R", "L", "C")
PAIRS = (("R", "L"), ("R", "C"), ("L", "C"))
SUPPLY_LINE = "V1 1 0 DC 5"  # Fig. 7, every option
SUPPLY_NODE = "1"
MAX_PARTS = 4   # components in series on one path
MAX_PATHS = 2


@dataclass(frozen=True)
class Part:
    kinds: tuple[str, ...]  # ("R",); ("L", "C") is L in parallel with C

    @property
    def plain(self) -> str | None:
        return self.kinds[0] if len(self.kinds) == 1 else None


Path = tuple[Part, ...]
Branch = tuple[Path, ...]


@dataclass(frozen=True)
class Circuit:
    branches: tuple[Branch, ...]  # branches[k - 1] joins o1 to terminal k
    ground: Branch = ()           # a branch from o1 to node 0, or none

    @property
    def n(self) -> int:
        """The number of input terminals (terminal branches)."""
        return len(self.branches)

    def all_branches(self) -> list[tuple[str, Branch]]:
        """(label, branch): labels "1"…"n" are the terminals' branches, "G" the ground branch."""
        out = [(str(k + 1), b) for k, b in enumerate(self.branches)]
        return out + ([("G", self.ground)] if self.ground else [])


def path_ok(path: Path) -> bool:
    plains = [p.plain for p in path]
    return (1 <= len(path) <= MAX_PARTS and "R" in plains and plains.count("C") <= 1
            and all(len(p.kinds) == 1 or (p.kinds in PAIRS) for p in path))


def valid(c: Circuit) -> bool:
    return c.n >= 1 and all(1 <= len(b) <= MAX_PATHS and all(path_ok(p) for p in b) for _, b in c.all_branches())


# ---------------------------------------------------------------- netlists

def netlist(c: Circuit, title: str = "* candidate circuit") -> str:
    """The SPICE netlist: supply, load and ground tie first, then branch by branch, as in Fig. 7.

    The title line is a comment: ngspice reads a deck's first line as its title, so a netlist that
    opened with the supply, as the figure prints them, would lose it.
    """
    body: list[str] = []
    for label, branch in c.all_branches():
        end = "0" if label == "G" else label
        tag = label.lower() if label == "G" else label  # internal nodes: a1, b1 … or ag, bg …
        counts: dict[str, int] = {}
        letters = iter("abcdefghijklmnopqrstuvwxyz")
        for k, path in enumerate(branch):
            inner = [f"{next(letters)}{tag}" for _ in path[1:]]
            nodes, parts = (["o1", *inner, end], path) if k == 0 else ([end, *inner, "o1"], path[::-1])
            for part, (a, b) in zip(parts, zip(nodes, nodes[1:])):
                for kind in part.kinds:
                    counts[kind] = counts.get(kind, 0) + 1
                    body.append(f"{kind}{label}_{counts[kind]} {a} {b} {VALUES[kind]}")
    return "\n".join([title, SUPPLY_LINE, "R0 o1 o2 1", "V_GND o2 0 0", *body, ".end"]) + "\n"


def terminals(text: str) -> list[int]:
    """The numbered terminals a netlist's components join (the supply line not counted), in order."""
    return sorted({int(node) for line in text.splitlines() if line[:1] in KINDS
                   for node in line.split()[1:3] if node.isdigit() and node != "0"})


# ---------------------------------------------------------------- random circuits

def random_part(rng: random.Random) -> Part:
    if rng.random() < 0.3:
        return Part(rng.choice(PAIRS))
    return Part((rng.choice(KINDS),))


def random_path(rng: random.Random) -> Path:
    while True:
        path = [random_part(rng) for _ in range(rng.randint(1, 3))]
        if not any(p.plain == "R" for p in path):
            path.insert(rng.randint(0, len(path)), Part(("R",)))
        if path_ok(tuple(path)):
            return tuple(path)


def random_branch(rng: random.Random) -> Branch:
    return tuple(random_path(rng) for _ in range(1 if rng.random() < 0.6 else 2))


def editable(c: Circuit) -> list[list[list[Part]]]:
    """The circuit as nested lists to edit: branches 0…n−1 to the terminals, branch n to ground."""
    return [[list(path) for path in branch] for branch in list(c.branches) + [c.ground]]


def build(n: int, branches: list[list[list[Part]]]) -> Circuit:
    """The circuit of edited lists (empty paths dropped; `valid` tells whether it is still one)."""
    frozen = [tuple(tuple(path) for path in branch if path) for branch in branches]
    return Circuit(tuple(frozen[:n]), frozen[n] if len(frozen) > n else ())


def random_circuit(rng: random.Random, n: int) -> Circuit:
    ground = random_branch(rng) if rng.random() < 0.4 else ()
    c = Circuit(tuple(random_branch(rng) for _ in range(n)), ground)
    return c if valid(c) else random_circuit(rng, n)


def with_terminals(rng: random.Random, c: Circuit, n: int) -> Circuit:
    """`c` with n terminals: branches beyond n dropped, or new random branches for terminals n+1…"""
    kept = c.branches[:n]
    return Circuit(kept + tuple(random_branch(rng) for _ in range(n - len(kept))), c.ground)
