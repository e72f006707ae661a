"""The progress bars of long commands, all drawn at one pace.

A run of 10⁶ requests that redrew its bar on every result would write about 126 MB to the terminal; a bar is
redrawn at most every REDRAW_S seconds, and a postfix (ok, failed, tokens/s) waits for the next redraw.
"""
from __future__ import annotations

from typing import Any, TextIO

from tqdm import tqdm

REDRAW_S = 0.5  # at most twice a second


def bar(iterable: Any = None, **kwargs: Any) -> tqdm:
    """A tqdm bar redrawn at most every REDRAW_S seconds (tqdm's `mininterval`; `miniters` left to adapt)."""
    return tqdm(iterable, mininterval=REDRAW_S, **kwargs)


def say(line: str, file: TextIO) -> None:
    """A line printed while a bar may be drawn on the same terminal: on a line of its own, the bar drawn again below
    it (tqdm.write), never inside the bar's line."""
    tqdm.write(line, file=file)
