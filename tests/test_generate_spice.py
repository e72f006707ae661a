"""ngspice, as the circuit generator runs it, against steady states computed by hand from the
impedances (R = 1 Ω, C = 1 mF, L = 10 µH, the 1 Ω load R0 between o1 and o2 = ground): amplitude
and phase of the sinusoidal steady state, and DC levels set by the 5 V supply."""
from __future__ import annotations

import cmath
import math
import shutil

import numpy as np
import pytest

from data.generate.netlist import SUPPLY, Circuit, Part, netlist, valid
from data.generate.spice import Signal, read_raw, simulate
from data.generate.waveform import steady_state

pytestmark = pytest.mark.skipif(shutil.which("ngspice") is None, reason="ngspice is not installed (bash setup.sh)")

R, C, L, R0 = 1.0, 1e-3, 10e-6, 1.0
FRAME = "* test\nR0 o1 o2 1\nV_GND o2 0 0\n"


def zc(f: float) -> complex:
    return 1 / (2j * math.pi * f * C)


def zl(f: float) -> complex:
    return 2j * math.pi * f * L


def par(*zs: complex) -> complex:
    return 1 / sum(1 / z for z in zs)


def assert_steady(v: np.ndarray, f: float, h: complex, dc: float = 0.0, amplitude: float = 1.0) -> None:
    """The simulated steady state is dc + |h|·A·sin(2πft + arg h)."""
    got_dc, [(amp, phase)], residual = steady_state(v, [Signal(1, amplitude, f)])
    assert got_dc == pytest.approx(dc, abs=2e-3)
    assert amp == pytest.approx(abs(h) * amplitude, rel=5e-3)
    assert phase == pytest.approx(math.degrees(cmath.phase(h)), abs=0.5)
    assert residual < 5e-3


@pytest.mark.parametrize("f", [50, 500, 2000])
def test_rc_low_pass_with_load(f):
    # terminal 1 —R— o1, C and R0 from o1 to ground: H = (Zc ∥ R0) / (R + Zc ∥ R0)
    v = simulate(FRAME + "R1_1 1 o1 1\nCG_1 o1 0 1m\n.end\n", [Signal(1, 1.0, f)])
    zp = par(zc(f), R0)
    assert_steady(v, f, zp / (R + zp))


@pytest.mark.parametrize("f", [1000, 8000])
def test_rl_low_pass_with_load(f):
    # terminal 1 —L— o1 —R0— ground: H = R0 / (R0 + jωL)
    v = simulate(FRAME + "L1_1 1 o1 10u\n.end\n", [Signal(1, 0.7, f)])
    assert_steady(v, f, R0 / (R0 + zl(f)), amplitude=0.7)


@pytest.mark.parametrize("f", [500, 1591.55, 5000])
def test_parallel_lc_tank(f):
    # at 1591.55 Hz (1/2π√LC) the tank is open and H = R0 / (R + R0) = 0.5
    v = simulate(FRAME + "R1_1 1 o1 1\nLG_1 o1 0 10u\nCG_1 o1 0 1m\n.end\n", [Signal(1, 1.0, f)])
    zp = par(zl(f), zc(f), R0)
    assert_steady(v, f, zp / (R + zp))
    if f == 1591.55:
        assert abs(zp / (R + zp)) == pytest.approx(0.5, abs=1e-4)


S, Rp, Cp, Lp = Part((SUPPLY,)), Part(("R",)), Part(("C",)), Part(("L",))


@pytest.mark.parametrize("path, dc, h", [
    ((S, Rp), 2.5, lambda f: R0 / (R0 + R)),                      # the supply drives R + R0: half of 5 V
    ((Part((SUPPLY,), flip=True), Rp), -2.5, lambda f: R0 / (R0 + R)),
    ((S, Rp, Cp), 0.0, lambda f: R0 / (R0 + R + zc(f))),          # a series capacitor blocks DC
    ((S, Rp, Lp), 2.5, lambda f: R0 / (R0 + R + zl(f))),          # a series inductor passes it
])
def test_dc_levels_of_the_supply_through_the_generators_netlists(path, dc, h):
    c = Circuit(branches=((path,),))
    assert valid(c)
    f = 200
    assert_steady(simulate(netlist(c), [Signal(1, 0.5, f)]), f, h(f), dc=dc, amplitude=0.5)


def test_a_branch_to_ground_holding_the_supply():
    # o1 joins terminal 1 (R), ground (R0) and ground through +5 V and R: Millman gives 5/3 V DC,
    # and the terminal's signal arrives with gain 1/3
    c = Circuit(branches=(((Rp,),),), ground=((S, Rp),))
    text = netlist(c)
    assert "V1 o1 ag DC 5" in text and "RG_1 ag 0 1" in text
    assert_steady(simulate(text, [Signal(1, 1.0, 300)]), 300, 1 / 3, dc=5 / 3)


def test_read_raw_reads_a_binary_raw_file(tmp_path):
    header = ("Title: t\nPlotname: Transient Analysis\nFlags: real\nNo. Variables: 2\nNo. Points: 3\n"
              "Variables:\n\t0\ttime\ttime\n\t1\tv(o1)\tvoltage\nBinary:\n")
    data = np.array([[0, 1.5], [1, 2.5], [2, -3.0]], dtype="<f8")
    (tmp_path / "x.raw").write_bytes(header.encode() + data.tobytes())
    vectors = read_raw(tmp_path / "x.raw")
    assert vectors["time"].tolist() == [0, 1, 2] and vectors["v(o1)"].tolist() == [1.5, 2.5, -3.0]
