"""Simulating a netlist with ngspice in batch mode: the transient output voltage V(o1) − V(o2).

The deck is the candidate netlist plus the question's input sources ``Vin<k> k 0 SIN(0 A f)`` and a
transient analysis over WINDOW seconds from the DC operating point. Every netlist holds Fig. 7's
supply ``V1 1 0 DC 5``, which already fixes node 1: an input source across terminal 1 as well would
put two ideal voltage sources in parallel (ngspice: singular matrix, no operating point). So terminal
1's signal is applied in series with the supply: in the deck the components that the netlist joins to
node 1 join ``in1`` instead, and ``Vin1 in1 1 SIN(0 A f)`` lies between the two, so terminal 1 carries
5 V plus its signal. A terminal the netlist has but the question's table lacks (an option with more
terminals than the question) is held at 0 V, its signal's amplitude being none: left open, a branch
with a capacitor at each end would float at DC. A table row for a terminal the netlist lacks drives a
node nothing else touches. Its control block interpolates
the result onto a uniform grid of STEP (``linearize``), so waveforms of different circuits are
compared sample by sample, and writes ``out.raw`` in the working folder as binary float64: no
precision is lost in printing. The internal step is capped at MAX_STEP, 25 steps per period of the
fastest input: against a 0.25 µs cap the waveforms differ by a normalised RMS below 2e-3 (level-10
circuits; 1e-4 for small ones), fifty times below the distractor threshold. ``ngspice -b -n deck.cir``
reruns any deck the generator writes.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from data.generate.netlist import SUPPLY_LINE, SUPPLY_NODE, terminals

WINDOW = "20m"    # 20 ms: one period of the slowest input (50 Hz)
STEP = "4u"       # output grid: 5001 samples, 25 per period of the fastest input (10 kHz)
MAX_STEP = "4u"   # internal time step cap
WORKERS = max(1, min(4, os.cpu_count() or 1))
STEP_S, WINDOW_S = 4e-6, 20e-3
RAW = "out.raw"
SERIES_NODE = "in1"  # terminal 1 as the network sees it: the supply plus terminal 1's signal
N_SAMPLES = 5001


class SimulationError(RuntimeError):
    pass


@dataclass(frozen=True)
class Signal:
    terminal: int
    amplitude: float  # V
    frequency: float  # Hz


def _num(x: float) -> str:
    return f"{x:g}"


def _sin(s: Signal) -> str:
    return f"SIN(0 {_num(s.amplitude)} {_num(s.frequency)})"


def _off_supply_node(line: str) -> str:
    """An element line with its connections to node 1 moved to SERIES_NODE."""
    fields = line.split()
    if line[:1] in ("*", ".") or line.strip() == SUPPLY_LINE or len(fields) < 3:
        return line
    fields[1:3] = [SERIES_NODE if node == SUPPLY_NODE else node for node in fields[1:3]]
    return " ".join(fields)


def sources(netlist: str, signals: list[Signal]) -> list[str]:
    """The input sources of a deck (see the module's docstring), comments included."""
    given = {s.terminal for s in signals}
    out = ["* input signals (the question's table). V1 already holds node 1, so terminal 1's signal is applied",
           f"* in series with it: the components the netlist joins to node {SUPPLY_NODE} join {SERIES_NODE} here."]
    present = set(terminals(netlist))
    for s in signals:
        if s.terminal != 1 and s.terminal not in present:
            out.append(f"* terminal {s.terminal}: in the question's table, not in this netlist")
        out.append(f"Vin1 {SERIES_NODE} {SUPPLY_NODE} {_sin(s)}" if s.terminal == 1
                   else f"Vin{s.terminal} {s.terminal} 0 {_sin(s)}")
    for k in sorted(present - given - {1}):  # V1 holds terminal 1 in any case
        out += [f"* terminal {k}: not in the question's table, held at 0 V", f"Vin{k} {k} 0 DC 0"]
    return out


def deck(netlist: str, signals: list[Signal], window: str = WINDOW, step: str = STEP,
         max_step: str = MAX_STEP) -> str:
    """A complete ngspice deck: the netlist (title first, `.end` last) with sources and analysis."""
    lines = netlist.rstrip("\n").split("\n")
    if lines[-1].strip().lower() != ".end":
        raise ValueError("a netlist ends with .end")
    if SUPPLY_LINE not in (line.strip() for line in lines[1:]):
        raise ValueError(f"a netlist holds the supply line {SUPPLY_LINE!r} (Fig. 7)")
    body = [lines[0]] + [_off_supply_node(line) for line in lines[1:-1]]
    analysis = [f".tran {step} {window} 0 {max_step}", ".control", "set filetype=binary", "run",
                "linearize v(o1) v(o2)", f"write {RAW} v(o1) v(o2)", "quit", ".endc"]
    return "\n".join(body + sources(netlist, signals) + analysis + [".end"]) + "\n"


def ngspice() -> str:
    path = shutil.which("ngspice")
    if path is None:
        raise SimulationError("ngspice is not installed: run `bash setup.sh` (installs the Debian package "
                              "ngspice) or `apt-get install ngspice`")
    return path


def read_raw(path: Path) -> dict[str, np.ndarray]:
    """The vectors of a real-valued binary ngspice raw file, by lower-cased name."""
    data = path.read_bytes()
    head, sep, body = data.partition(b"Binary:\n")
    if not sep:
        raise SimulationError(f"{path}: not a binary raw file")
    header = head.decode("ascii", errors="replace").splitlines()
    n_vars = n_points = 0
    names: list[str] = []
    for i, line in enumerate(header):
        if line.startswith("No. Variables:"):
            n_vars = int(line.split(":")[1])
        elif line.startswith("No. Points:"):
            n_points = int(line.split(":")[1])
        elif line.startswith("Variables:"):
            names = [header[i + 1 + k].split()[1].lower() for k in range(n_vars)]
    values = np.frombuffer(body, dtype="<f8", count=n_vars * n_points).reshape(n_points, n_vars)
    return {name: values[:, k].copy() for k, name in enumerate(names)}


def simulate_deck(text: str, timeout: float = 120) -> tuple[np.ndarray, np.ndarray]:
    """(time, V(o1) − V(o2)) of a deck, on the deck's output grid."""
    exe = ngspice()
    with tempfile.TemporaryDirectory(prefix="morpho-g-") as tmp:
        cir, raw = Path(tmp) / "deck.cir", Path(tmp) / RAW
        cir.write_text(text, encoding="ascii")
        # -n: no spinit/.spiceinit, so a user's ngspice settings cannot change a result
        proc = subprocess.run([exe, "-b", "-n", str(cir)], capture_output=True, text=True,
                              timeout=timeout, cwd=tmp)
        if proc.returncode != 0 or not raw.is_file():
            tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-15:])
            raise SimulationError(f"ngspice failed (exit {proc.returncode}):\n{tail}\n--- deck ---\n{text}")
        vectors = read_raw(raw)
    t, v1, v2 = vectors.get("time"), vectors.get("v(o1)"), vectors.get("v(o2)")
    if t is None or v1 is None or v2 is None or not np.all(np.isfinite(v1)):
        raise SimulationError(f"ngspice gave no finite V(o1), V(o2) (vectors: {sorted(vectors)})\n--- deck ---\n{text}")
    return t, v1 - v2


def simulate(netlist: str, signals: list[Signal]) -> np.ndarray:
    """V(o1) − V(o2) of a netlist driven by `signals`, on the fixed grid of N_SAMPLES points."""
    t, v = simulate_deck(deck(netlist, signals))
    if len(t) != N_SAMPLES or not np.allclose(t, np.arange(N_SAMPLES) * STEP_S, rtol=0, atol=1e-12):
        raise SimulationError(f"ngspice returned {len(t)} time points, not the {N_SAMPLES}-point grid")
    return v


def simulate_many(netlists: list[str], signals: list[Signal]) -> list[np.ndarray]:
    """`simulate` for several netlists at once, one ngspice process per core; results in order."""
    if len(netlists) <= 1 or WORKERS == 1:
        return [simulate(n, signals) for n in netlists]
    with ThreadPoolExecutor(max_workers=WORKERS) as pool:
        return list(pool.map(lambda n: simulate(n, signals), netlists))
