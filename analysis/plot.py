"""Every table figure is drawn on a matplotlib Figure of its own and written as PNG: no pyplot, so no
global state to close between tables and no backend to choose (a Figure renders PNG without a display).

A bar with a 95 % interval (its table's `<name>_ci_lo` / `<name>_ci_hi` columns, analysis/uncertainty.py) gets an
error bar from those ends (`bars`' `ci`; `error_extent` for a line's points). Stacked bars get none: their segments
are shares of one whole, each with its interval in the table.

A figure never shows an empty frame: what was not run is written at its place ("not run"), a zero is drawn
as a thick mark at 0 with its value, and a panel with nothing to draw says why (`bars`, `stacked_bars`,
`mark_missing`, `not_run_at`, `corner_note`, `empty_panel`)."""
from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping, Sequence

import numpy as np

from analysis import background
from analysis.uncertainty import ci_columns

if TYPE_CHECKING:  # matplotlib is imported when a figure is drawn: every table module imports this one
    from matplotlib.axes import Axes
    from matplotlib.container import BarContainer
    from matplotlib.figure import Figure
    from matplotlib.text import Text

NOT_RUN = "not run"
MISSING_COLOR = "0.45"
MISSING_SIZE = 7


def subplots(nrows: int = 1, ncols: int = 1, *, figsize: tuple[float, float], **kwargs: Any) -> tuple[Figure, Any]:
    """A new figure and its axes, as Figure.subplots lays them out (squeeze, sharey, gridspec_kw, …)."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=figsize)
    return fig, fig.subplots(nrows, ncols, **kwargs)


def draw(figure: Callable[..., Any], *args: Any, path: Path, **kwargs: Any) -> Path:
    """Have `figure(*args, path=path, **kwargs)` draw a figure and save it to `path` (with save_figure); return
    the path. Within analysis.background's block it runs in a worker process, so the table's own process
    spends no time on matplotlib: `figure` is a module-level function and its arguments are what it draws
    (small tables: they are pickled). Elsewhere it runs now."""
    writer = background.current()
    if writer is None:
        figure(*args, path=path, **kwargs)
    else:
        writer.submit(path, figure, args, {"path": path, **kwargs})
    return path


def save_figure(fig: Figure, path: Path, dpi: int = 120) -> Path:
    """Lay out and write a figure; return its path."""
    path.parent.mkdir(parents=True, exist_ok=True)
    _write_png(fig, path, dpi)
    return path


def _write_png(fig: Figure, path: Path, dpi: int) -> None:
    fig.tight_layout()
    fig.savefig(path, dpi=dpi)


def is_missing(value: Any) -> bool:
    """NaN or None: nothing to draw (a setting not run, or a quantity undefined)."""
    try:
        return value is None or math.isnan(float(value))
    except (TypeError, ValueError):
        return True


def empty_panel(ax: Axes, message: str) -> Text:
    """Say in the middle of a panel why it has nothing drawn."""
    return ax.text(0.5, 0.5, message, transform=ax.transAxes, ha="center", va="center", wrap=True,
                   color=MISSING_COLOR, fontsize=9, bbox={"boxstyle": "round", "fc": "white", "ec": MISSING_COLOR})


def corner_note(ax: Axes, lines: Sequence[str], title: str = "not drawn:") -> Text | None:
    """List what has no place in a panel (a point not run, or undefined) in its lower left corner."""
    if not lines:
        return None
    return ax.text(0.01, 0.01, "\n".join([title, *lines]), transform=ax.transAxes, ha="left", va="bottom",
                   fontsize=MISSING_SIZE, color=MISSING_COLOR)


def mark_missing(ax: Axes, x: float, text: str = NOT_RUN, *, horizontal: bool = False, width: float = 0.0) -> Text:
    """Write `text` at a bar's place, along the value axis's base (axes coordinates, so any scale shows it)."""
    from matplotlib.transforms import blended_transform_factory

    if horizontal:
        ax.update_datalim([(0, x - width / 2), (0, x + width / 2)], updatex=False)
        ax.autoscale_view(scalex=False)
        where = blended_transform_factory(ax.transAxes, ax.transData)
        return ax.text(0.01, x, text, transform=where, ha="left", va="center", fontsize=MISSING_SIZE,
                       color=MISSING_COLOR)
    # a position with no bar adds nothing to the data limits: keep it inside the frame
    ax.update_datalim([(x - width / 2, 0), (x + width / 2, 0)], updatey=False)
    ax.autoscale_view(scaley=False)
    where = blended_transform_factory(ax.transData, ax.transAxes)
    return ax.text(x, 0.02, text, transform=where, rotation=90, ha="center", va="bottom", fontsize=MISSING_SIZE,
                   color=MISSING_COLOR)


def mark_zero(ax: Axes, x: float, width: float, *, base: float = 0.0, color: Any = "black",
              horizontal: bool = False) -> None:
    """A bar of height 0 is invisible: a thick line across its place at `base`, and its value "0"."""
    span = [x - width / 2, x + width / 2]
    if horizontal:
        ax.plot([base, base], span, color=color, lw=3, solid_capstyle="butt", clip_on=False, zorder=3)
        ax.annotate("0", (base, x), xytext=(3, 0), textcoords="offset points", ha="left", va="center",
                    fontsize=MISSING_SIZE)
    else:
        ax.plot(span, [base, base], color=color, lw=3, solid_capstyle="butt", clip_on=False, zorder=3)
        ax.annotate("0", (x, base), xytext=(0, 3), textcoords="offset points", ha="center", va="bottom",
                    fontsize=MISSING_SIZE)


def _texts(missing: str | Sequence[str], n: int) -> list[str]:
    return [missing] * n if isinstance(missing, str) else list(missing)


def error_extent(values: Sequence[float], ci: tuple[Sequence[Any], Sequence[Any]]) -> np.ndarray:
    """The (2, n) distances below and above each value to its interval's ends, for matplotlib's yerr / xerr (NaN,
    no error bar, where a value or an end is missing)."""
    vals = np.array([np.nan if is_missing(v) else float(v) for v in values])
    lo = np.array([np.nan if is_missing(v) else float(v) for v in ci[0]])
    hi = np.array([np.nan if is_missing(v) else float(v) for v in ci[1]])
    return np.clip(np.vstack([vals - lo, hi - vals]), 0, None)


def bars(ax: Axes, xs: Sequence[float], values: Sequence[Any], width: float = 0.8, *, label: str | None = None,
         horizontal: bool = False, missing: str | Sequence[str] = NOT_RUN,
         ci: tuple[Sequence[Any], Sequence[Any]] | None = None, **style: Any) -> BarContainer:
    """Bars at `xs` (ax.bar, or ax.barh when `horizontal`); a missing value (NaN) is written at its place
    (`missing`: one text, or one per bar; "" when a neighbouring bar's text says it), a zero is drawn with
    `mark_zero`; `ci`: the lower and upper ends of each bar's 95 % interval, drawn as error bars."""
    xs = [float(x) for x in xs]
    vals = [np.nan if is_missing(v) else float(v) for v in values]
    draw = ax.barh if horizontal else ax.bar
    container = draw(xs, vals, width, label=label, **style)
    if ci is not None and len(xs):
        extent = error_extent(vals, ci)
        (ax.errorbar(vals, xs, xerr=extent, fmt="none", ecolor="0.2", elinewidth=0.8, capsize=2) if horizontal else
         ax.errorbar(xs, vals, yerr=extent, fmt="none", ecolor="0.2", elinewidth=0.8, capsize=2))
    color = container.patches[0].get_facecolor() if container.patches else "black"
    for x, v, text in zip(xs, vals, _texts(missing, len(xs))):
        if math.isnan(v) and text:
            mark_missing(ax, x, text, horizontal=horizontal, width=width)
        elif v == 0:
            mark_zero(ax, x, width, color=color, horizontal=horizontal)
    return container


def ci_of(frame: Any, column: str) -> tuple[Sequence[Any], Sequence[Any]] | None:
    """A table column's 95 % interval ends (its interval columns, analysis.uncertainty), for `bars`' `ci`; None when
    the table has none."""
    lo, hi = ci_columns(column)
    if lo not in frame or hi not in frame:
        return None
    return list(frame[lo]), list(frame[hi])


def stacked_bars(ax: Axes, xs: Sequence[float], segments: Mapping[str, Sequence[Any]], width: float = 0.8, *,
                 horizontal: bool = False, missing: str | Sequence[str] = NOT_RUN) -> np.ndarray:
    """Stacked bars, one segment per label; a missing segment adds 0. A position with every segment missing
    is written at its place (`missing`), one whose stack is 0 gets a zero mark. Returns the stack totals."""
    xs = [float(x) for x in xs]
    total = np.zeros(len(xs))
    known = np.zeros(len(xs), dtype=bool)
    for label, values in segments.items():
        vals = np.array([np.nan if is_missing(v) else float(v) for v in values])
        known |= ~np.isnan(vals)
        vals = np.nan_to_num(vals)
        if horizontal:
            ax.barh(xs, vals, width, left=total, label=label)
        else:
            ax.bar(xs, vals, width, bottom=total, label=label)
        total = total + vals
    for x, t, k, text in zip(xs, total, known, _texts(missing, len(xs))):
        if not k:
            mark_missing(ax, x, text, horizontal=horizontal, width=width)
        elif t == 0:
            mark_zero(ax, x, width, horizontal=horizontal)
    return total


def not_run_at(curves: Mapping[str, Mapping[float, Any]], xs: Iterable[float] = ()) -> list[tuple[float, str]]:
    """(x, text) for every x of any curve (and of `xs`) that some curves have no value at: "not run" when none
    has one, else "not run: <their names>" — for line_figure's `missing`."""
    points = {name: {float(x): v for x, v in pts.items()} for name, pts in curves.items()}
    out = []
    for x in sorted({x for pts in points.values() for x in pts} | {float(x) for x in xs}):
        names = [name for name, pts in points.items() if is_missing(pts.get(x))]
        if names:
            out.append((x, NOT_RUN if len(names) == len(curves) else f"{NOT_RUN}: {', '.join(names)}"))
    return out


def line_figure(curves: Iterable[tuple[Sequence[float], Sequence[float], dict[str, Any]]], path: Path, *,
                legend_size: int = 7, log2_x: bool = False, empty: str = "nothing to draw",
                missing: Iterable[tuple[float, str]] = (), **labels: str) -> Path:
    """One panel of curves, each (x, y, Axes.plot keywords); `labels`: xlabel, ylabel, title. `missing`: (x,
    text) of the conditions not run, written at their x; `empty`: what the panel says when it has no point."""
    fig, ax = subplots(figsize=(6, 4))
    ys: set[float] = set()
    for x, y, style in curves:
        ax.plot(x, y, **style)
        ys |= {float(v) for v in y if not is_missing(v)}
    if len(ys) == 1:  # flat curves (e.g. every score 0): a readable range around the value and 0
        (v,) = ys
        ax.set_ylim(min(v, 0) - 1, max(v, 0) + 5)
    for x, text in missing:
        mark_missing(ax, x, text)
    if log2_x:
        ax.set_xscale("log", base=2)
    ax.set(**labels)
    if ys:
        ax.legend(fontsize=legend_size)
    else:
        empty_panel(ax, empty)
    return save_figure(fig, path)
