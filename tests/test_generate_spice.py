"""ngspice, as the circuit generator runs it, against steady states computed by hand from the
impedances (R = 1 Ω, C = 1 mF, L = 10 µH, the 1 Ω load R0 between o1 and o2 = ground): amplitude
and phase of the sinusoidal steady state, and DC levels set by the 5 V supply `V1 1 0 DC 5`, which
every deck holds (Fig. 7) and terminal 1's signal rides on. Then Fig. 7's own five netlists."""
from __future__ import annotations

import cmath
import math
import shutil
import subprocess

import numpy as np
import pytest

from data.generate.netlist import Circuit, Part, netlist, valid
from data.generate.spice import SimulationError, Signal, deck, read_raw, simulate, simulate_deck
from data.generate.waveform import steady_state

pytestmark = pytest.mark.skipif(shutil.which("ngspice") is None, reason="ngspice is not installed (bash setup.sh)")

R, C, L, R0 = 1.0, 1e-3, 10e-6, 1.0
FRAME = "* test\nV1 1 0 DC 5\nR0 o1 o2 1\nV_GND o2 0 0\n"


def zc(f: float) -> complex:
    return 1 / (2j * math.pi * f * C)


def zl(f: float) -> complex:
    return 2j * math.pi * f * L


def par(*zs: complex) -> complex:
    return 1 / sum(1 / z for z in zs)


def assert_steady(v: np.ndarray, signals: list[Signal], gains: list[complex], dc: float) -> None:
    """The simulated steady state is dc + Σ |h|·A·sin(2πft + arg h) over the signals."""
    got_dc, waves, residual = steady_state(v, signals)
    assert got_dc == pytest.approx(dc, abs=2e-3)
    for s, h, (amp, phase) in zip(signals, gains, waves):
        assert amp == pytest.approx(abs(h) * s.amplitude, rel=5e-3, abs=1e-4)
        if abs(h) > 1e-3:
            assert phase == pytest.approx(math.degrees(cmath.phase(h)), abs=0.5)
    assert residual < 5e-3


@pytest.mark.parametrize("f", [50, 500, 2000])
def test_rc_low_pass_with_load(f):
    # terminal 1 (5 V + signal) —R— o1, C and R0 from o1 to ground: H = (Zc ∥ R0) / (R + Zc ∥ R0);
    # at DC the capacitor is open: 5 V · R0 / (R + R0)
    v = simulate(FRAME + "R1_1 1 o1 1\nCG_1 o1 0 1m\n.end\n", [Signal(1, 1.0, f)])
    zp = par(zc(f), R0)
    assert_steady(v, [Signal(1, 1.0, f)], [zp / (R + zp)], dc=2.5)


@pytest.mark.parametrize("f", [1000, 8000])
def test_rl_low_pass_with_load(f):
    # terminal 1 —L— o1 —R0— ground: H = R0 / (R0 + jωL), and all 5 V at DC
    v = simulate(FRAME + "L1_1 1 o1 10u\n.end\n", [Signal(1, 0.7, f)])
    assert_steady(v, [Signal(1, 0.7, f)], [R0 / (R0 + zl(f))], dc=5.0)


@pytest.mark.parametrize("f", [500, 1591.55, 5000])
def test_parallel_lc_tank(f):
    # at 1591.55 Hz (1/2π√LC) the tank is open and H = R0 / (R + R0) = 0.5; the inductor grounds DC
    v = simulate(FRAME + "R1_1 1 o1 1\nLG_1 o1 0 10u\nCG_1 o1 0 1m\n.end\n", [Signal(1, 1.0, f)])
    zp = par(zl(f), zc(f), R0)
    assert_steady(v, [Signal(1, 1.0, f)], [zp / (R + zp)], dc=0.0)
    if f == 1591.55:
        assert abs(zp / (R + zp)) == pytest.approx(0.5, abs=1e-4)


Rp, Cp, Lp = Part(("R",)), Part(("C",)), Part(("L",))


@pytest.mark.parametrize("path, dc, h", [
    ((Rp,), 2.5, lambda f: R0 / (R0 + R)),                        # the supply drives R + R0: half of 5 V
    ((Rp, Cp), 0.0, lambda f: R0 / (R0 + R + zc(f))),             # a series capacitor blocks DC
    ((Rp, Lp), 2.5, lambda f: R0 / (R0 + R + zl(f))),             # a series inductor passes it
])
def test_dc_levels_of_the_supply_through_the_generators_netlists(path, dc, h):
    c = Circuit(branches=((path,),))
    assert valid(c)
    f = 200
    assert_steady(simulate(netlist(c), [Signal(1, 0.5, f)]), [Signal(1, 0.5, f)], [h(f)], dc=dc)


def test_terminal_1_carries_the_supply_and_its_signal_in_series():
    # o1 joins terminals 1 and 2 through 1 Ω each, and ground through R0: Millman gives
    # V(o1) = (V(1) + V(2)) / 3, so 5/3 V DC and each signal with gain 1/3
    signals = [Signal(1, 1.0, 300), Signal(2, 0.4, 2000)]
    text = netlist(Circuit(branches=(((Rp,),), ((Rp,),))))
    assert "V1 1 0 DC 5" in text.splitlines() and "R1_1 o1 1 1" in text.splitlines()
    d = deck(text, signals).splitlines()
    assert "V1 1 0 DC 5" in d and "R1_1 o1 in1 1" in d and "Vin1 in1 1 SIN(0 1 300)" in d
    assert "Vin2 2 0 SIN(0 0.4 2000)" in d
    assert_steady(simulate(text, signals), signals, [1 / 3, 1 / 3], dc=5 / 3)


def test_a_terminal_outside_the_table_is_held_at_0_v():
    # the netlist has terminals 1 and 2, the table only 1: terminal 2 grounded gives 5/3 V DC and
    # gain 1/3 (left open it would be 2.5 V and 1/2)
    text = netlist(Circuit(branches=(((Rp,),), ((Rp,),))))
    assert "Vin2 2 0 DC 0" in deck(text, [Signal(1, 1.0, 300)]).splitlines()
    assert_steady(simulate(text, [Signal(1, 1.0, 300)]), [Signal(1, 1.0, 300)], [1 / 3], dc=5 / 3)


def test_a_table_row_for_a_terminal_the_netlist_lacks_drives_nothing():
    signals = [Signal(1, 1.0, 300), Signal(2, 0.8, 2000)]
    text = netlist(Circuit(branches=(((Rp,),),)))
    assert_steady(simulate(text, signals), signals, [0.5, 0.0], dc=2.5)


def test_a_branch_to_ground():
    # o1 joins terminal 1 (R), ground (R0) and ground through R: Millman gives 5/3 V DC, gain 1/3
    c = Circuit(branches=(((Rp,),),), ground=((Rp,),))
    text = netlist(c)
    assert "RG_1 o1 0 1" in text
    assert_steady(simulate(text, [Signal(1, 1.0, 300)]), [Signal(1, 1.0, 300)], [1 / 3], dc=5 / 3)


def test_a_netlist_without_the_supply_line_is_refused():
    with pytest.raises(ValueError, match="V1 1 0 DC 5"):
        deck("* test\nR0 o1 o2 1\nV_GND o2 0 0\nR1_1 o1 1 1\n.end\n", [Signal(1, 1.0, 300)])


# ---------------------------------------------------------------- the figure's own netlists

# MorphoBench Fig. 7, options (A)-(E) as printed (one line each in the PDF text), split into lines.
FIG7 = {
    "A": "V1 1 0 DC 5 R0 o1 o2 1 V_GND o2 0 0 R1_1 o1 a1 1 L1_1 a1 b1 10u C1_1 a1 b1 1m R1_2 b1 1 1 R1_3 1 o1 1 "
         "R2_1 o1 a2 1 L2_1 a2 b2 10u C2_1 b2 2 1m R2_2 2 o1 1 .end",
    "B": "V1 1 0 DC 5 R0 o1 o2 1 V_GND o2 0 0 R1_1 o1 a1 1 C1_1 a1 b1 1m L1_1 b1 c1 10u R1_2 c1 1 1 R1_3 1 o1 1 .end",
    "C": "V1 1 0 DC 5 R0 o1 o2 1 V_GND o2 0 0 R1_1 o1 a1 1 C1_1 a1 b1 1m R1_2 b1 1 1 L1_1 1 o1 10u R2_1 o1 a2 1 "
         "C2_1 a2 b2 1m L2_1 b2 2 10u R2_2 2 o1 1 R3_1 o1 a3 1 L3_1 a3 b3 10u C3_1 b3 3 1m R3_2 3 o1 1 R1_4 o1 a4 1 "
         "C1_4 a4 b4 1m L1_4 b4 4 10u R2_4 4 o1 1 R5_1 o1 a5 1 C5_1 a5 b5 1m L5_1 b5 5 10u R5_2 5 o1 1 .end",
    "D": "V1 1 0 DC 5 R0 o1 o2 1 V_GND o2 0 0 R1_1 o1 a1 1 C1_1 a1 b1 1m L1_1 b1 c1 10u R1_2 c1 1 1 C1_2 1 o1 1m "
         "R2_1 o1 a2 1 C2_1 a2 b2 1m L2_1 b2 2 10u R2_2 2 o1 1 R3_1 o1 a3 1 C3_1 a3 b3 1m L3_1 b3 3 10u R3_2 3 o1 1 "
         "C4_1 o1 a4 1m R4_1 a4 b4 1 L4_1 b4 4 10u R4_2 4 o1 1 R5_1 o1 a5 1 C5_1 a5 b5 1m L5_1 b5 c5 10u "
         "R5_2 c5 5 1 C5_2 5 o1 1m R6_1 o1 a6 1 C6_1 a6 b6 1m L6_1 b6 6 10u R6_2 6 o1 1 .end",
    "E": "V1 1 0 DC 5 R0 o1 o2 1 V_GND o2 0 0 R1_1 o1 a1 1 C1_1 a1 b1 1m R1_2 b1 c1 1 L1_1 c1 1 10u C1_2 o1 1 1m "
         "R2_1 o1 a2 1 C2_1 a2 b2 1m L2_1 b2 2 10u R2_2 2 o1 1 R3_1 o1 a3 1 L3_1 a3 b3 10u C3_1 b3 3 1m "
         "R3_2 3 o1 1 .end",
}
EXAMPLE = [Signal(1, 0.3, 2000)]  # the figure's example input table


def fig7_lines(option: str) -> list[str]:
    words, lines = FIG7[option].split(), []
    while words:
        width = 1 if words[0] == ".end" else 5 if words[0] == "V1" else 4
        lines.append(" ".join(words[:width]))
        words = words[width:]
    return lines


def test_the_figures_options_differ_in_their_terminal_counts():
    counts = {k: len({n for line in fig7_lines(k)[3:-1] for n in line.split()[1:3] if n.isdigit()})
              for k in FIG7}
    assert counts == {"A": 2, "B": 1, "C": 5, "D": 6, "E": 3}
    assert all(fig7_lines(k)[0] == "V1 1 0 DC 5" for k in FIG7)


def _run(text: str, tmp_path) -> str:
    (tmp_path / "d.cir").write_text(text)
    done = subprocess.run(["ngspice", "-b", "-n", str(tmp_path / "d.cir")], capture_output=True, text=True,
                          timeout=120, cwd=tmp_path)
    return done.stdout + done.stderr


def test_as_printed_ngspice_takes_the_supply_for_the_title(tmp_path):
    # no title line: ngspice reads "V1 1 0 DC 5" as the deck's title and the supply is gone
    text = "\n".join(fig7_lines("B")[:-1] + ["Vin1 1 0 SIN(0 0.3 2000)", ".op", ".end"]) + "\n"
    out = _run(text, tmp_path).lower()
    assert "circuit: v1 1 0 dc 5" in out
    assert "vin1#branch" in out and "\tv1#branch" not in out  # no supply among the sources
    assert float(out.split("v(1)")[1].split()[0]) == 0.0       # node 1 at 0 V, not 5 V, at the operating point


def test_as_printed_with_the_example_table_options_d_and_e_coincide():
    # the supply gone (title) and terminals 2-6 undriven: the branches there are loops from o1 back
    # to o1 that carry nothing, and D and E keep the same terminal-1 branch up to order
    def as_printed(option: str) -> str:
        return "\n".join(fig7_lines(option)[:-1] + ["Vin1 1 0 SIN(0 0.3 2000)", ".tran 4u 20m 0 4u", ".control",
                                                    "set filetype=binary", "run", "linearize v(o1) v(o2)",
                                                    "write out.raw v(o1) v(o2)", "quit", ".endc", ".end"]) + "\n"
    (_, d), (_, e) = simulate_deck(as_printed("D")), simulate_deck(as_printed("E"))
    assert np.sqrt(np.mean(e ** 2)) > 0.1 and np.sqrt(np.mean((d - e) ** 2)) < 1e-4


def test_the_supply_and_terminal_1s_source_in_parallel_have_no_operating_point():
    parallel = "\n".join(["* option B", *fig7_lines("B")[:-1], "Vin1 1 0 SIN(0 0.3 2000)",
                          ".tran 4u 20m 0 4u", ".control", "set filetype=binary", "run",
                          "linearize v(o1) v(o2)", "write out.raw v(o1) v(o2)", "quit", ".endc", ".end"]) + "\n"
    with pytest.raises(SimulationError):
        simulate_deck(parallel)


def test_the_figures_netlists_run_as_the_generator_runs_them():
    # B by hand: R1_3 (1 Ω) in parallel with R1_1 + C1_1 + L1_1 + R1_2 joins terminal 1 to o1;
    # DC: the capacitor is open, 5 V over R1_3 + R0 gives 2.5 V
    f = 2000
    zb = par(R, 2 * R + zc(f) + zl(f))
    waves = {k: simulate("\n".join(["* option " + k, *fig7_lines(k)]) + "\n", EXAMPLE) for k in FIG7}
    assert_steady(waves["B"], EXAMPLE, [R0 / (R0 + zb)], dc=2.5)
    # every pair of options gives a different output once the terminals outside the table are held
    # at 0 V (left open, D and E would coincide: their extra branches are loops from o1 to o1)
    for a in FIG7:
        for b in FIG7:
            if a < b:
                assert np.sqrt(np.mean((waves[a] - waves[b]) ** 2)) > 0.01, (a, b)


def test_read_raw_reads_a_binary_raw_file(tmp_path):
    header = ("Title: t\nPlotname: Transient Analysis\nFlags: real\nNo. Variables: 2\nNo. Points: 3\n"
              "Variables:\n\t0\ttime\ttime\n\t1\tv(o1)\tvoltage\nBinary:\n")
    data = np.array([[0, 1.5], [1, 2.5], [2, -3.0]], dtype="<f8")
    (tmp_path / "x.raw").write_bytes(header.encode() + data.tobytes())
    vectors = read_raw(tmp_path / "x.raw")
    assert vectors["time"].tolist() == [0, 1, 2] and vectors["v(o1)"].tolist() == [1.5, 2.5, -3.0]
