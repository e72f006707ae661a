"""The output waveform as the question's image (a matplotlib Figure, never pyplot's global state),
as CSV data, and as an exact caption for text-only models."""
from __future__ import annotations

import io

import matplotlib.style
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from data.generate.common import fmt
from data.generate.spice import N_SAMPLES, STEP_S, Signal

STEADY_FROM_S = 10e-3  # the caption's sinusoids are fitted from here on, after most of the start-up


def times() -> np.ndarray:
    return np.arange(N_SAMPLES) * STEP_S


def plot_png(v: np.ndarray) -> bytes:
    """The waveform as a PNG. Default style (a user's matplotlibrc must not change the picture) and
    no Software metadata, so the bytes depend only on the data and the matplotlib version."""
    with matplotlib.style.context("default"):
        fig = Figure(figsize=(10, 3.6), dpi=100)
        FigureCanvasAgg(fig)
        ax = fig.add_subplot()
        ax.plot(times() * 1e3, v, color="tab:blue", linewidth=0.7)
        ax.set_xlim(0, times()[-1] * 1e3)
        ax.set_xlabel("time (ms)")
        ax.set_ylabel("V(o1) − V(o2) (V)")
        ax.set_title("Output voltage between o1 and o2")
        ax.grid(True, alpha=0.3)
        fig.tight_layout()
        buf = io.BytesIO()
        fig.savefig(buf, format="png", metadata={"Software": None})
    return buf.getvalue()


def csv_bytes(v: np.ndarray) -> bytes:
    """`time_s,voltage_v` rows, numbers formatted here (9 significant digits)."""
    rows = ["time_s,voltage_v"] + [f"{fmt(t)},{fmt(x)}" for t, x in zip(times(), v)]
    return ("\n".join(rows) + "\n").encode("ascii")


def steady_state(v: np.ndarray, signals: list[Signal]) -> tuple[float, list[tuple[float, float]], float]:
    """(DC level, [(amplitude, phase in degrees)] per input, residual RMS) of the waveform from
    STEADY_FROM_S on, by least squares. The circuit is linear, so its steady state holds exactly the
    DC level and the input frequencies; the residual is what the start-up transient leaves."""
    t = times()
    keep = t >= STEADY_FROM_S - 1e-12
    t, y = t[keep], v[keep]
    columns = [np.ones_like(t)]
    for s in signals:
        w = 2 * np.pi * s.frequency
        columns += [np.sin(w * t), np.cos(w * t)]
    a = np.stack(columns, axis=1)
    coef = np.linalg.lstsq(a, y, rcond=None)[0]
    waves = [(float(np.hypot(coef[1 + 2 * k], coef[2 + 2 * k])),
              float(np.degrees(np.arctan2(coef[2 + 2 * k], coef[1 + 2 * k])))) for k in range(len(signals))]
    residual = float(np.sqrt(np.mean(np.square(a @ coef - y))))
    return float(coef[0]), waves, residual


def _v(x: float) -> str:
    text = f"{x:.3f}"
    return "0.000" if text == "-0.000" else text


def caption(v: np.ndarray, signals: list[Signal]) -> str:
    """The plot in words: its range, and its steady state as a DC level plus one sinusoid per input
    frequency (amplitude, and phase of A·sin(2πft + φ)), which is what the plot shows to the eye."""
    dc, waves, residual = steady_state(v, signals)
    parts = "; ".join(f"{_v(amp)} V at {fmt(s.frequency)} Hz, phase {fmt(round(ph), 4)}°"
                      for s, (amp, ph) in zip(signals, waves))
    end = fmt(times()[-1] * 1e3, 4)
    return (f"A line plot of the output voltage V(o1) − V(o2) in volts against time from 0 to {end} ms. "
            f"It ranges from {_v(v.min())} V to {_v(v.max())} V. From {fmt(STEADY_FROM_S * 1e3, 4)} ms to "
            f"{end} ms it is {_v(dc)} V DC plus sinusoids A·sin(2πft + φ) of {parts} (what remains, the "
            f"decaying start-up, is {_v(residual)} V RMS).")
