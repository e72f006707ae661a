"""Every table figure is drawn on a matplotlib Figure of its own and written as PNG: no pyplot, so no
global state to close between tables and no backend to choose (a Figure renders PNG without a display)."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable, Sequence

from matplotlib.figure import Figure


def subplots(nrows: int = 1, ncols: int = 1, *, figsize: tuple[float, float], **kwargs: Any) -> tuple[Figure, Any]:
    """A new figure and its axes, as Figure.subplots lays them out (squeeze, sharey, gridspec_kw, …)."""
    fig = Figure(figsize=figsize)
    return fig, fig.subplots(nrows, ncols, **kwargs)


def save_figure(fig: Figure, path: Path, dpi: int = 120) -> Path:
    """Lay out and write a figure; return its path."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    fig.savefig(path, dpi=dpi)
    return path


def line_figure(curves: Iterable[tuple[Sequence[float], Sequence[float], dict[str, Any]]], path: Path, *,
                legend_size: int = 7, log2_x: bool = False, **labels: str) -> Path:
    """One panel of curves, each (x, y, Axes.plot keywords); `labels`: xlabel, ylabel, title."""
    fig, ax = subplots(figsize=(6, 4))
    for x, y, style in curves:
        ax.plot(x, y, **style)
    if log2_x:
        ax.set_xscale("log", base=2)
    ax.set(**labels)
    ax.legend(fontsize=legend_size)
    return save_figure(fig, path)
