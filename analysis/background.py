"""Figures written by forked processes while analysis.run builds the next tables.

Drawing a figure (tight_layout, savefig) is most of a figure table's time and runs in Python, so threads
would not overlap it; a forked child has the figure without pickling it. analysis.plot.save_figure hands
each figure to the open block's writer, and analysis.run writes a table once its figures are done."""
from __future__ import annotations

import multiprocessing
import os
import sys
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator

if TYPE_CHECKING:
    from matplotlib.figure import Figure


class BackgroundFigures:
    """At most `jobs` children at a time. A figure that could not be written is removed (no stale or
    half-written file stands for it) and its error is kept under the table being built when it was saved."""

    def __init__(self, jobs: int) -> None:
        self.jobs = max(1, jobs)
        self.owner = ""  # the table being built: its figures' errors are its own
        self.errors: dict[str, str] = {}
        self._running: list[tuple[str, Path, Any, Any]] = []  # (owner, path, process, end of its pipe)
        self._fork = multiprocessing.get_context("fork")

    def submit(self, write: Callable[[Figure, Path, int], None], fig: Figure, path: Path, dpi: int) -> None:
        """Write `fig` to `path` with write(fig, path, dpi) in a forked process."""
        while len(self._running) >= self.jobs:
            self._reap(self._running.pop(0))
        path.unlink(missing_ok=True)
        receive, send = self._fork.Pipe(duplex=False)
        child = self._fork.Process(target=_write_in_child, args=(write, fig, path, dpi, send), daemon=True)
        child.start()
        send.close()
        self._running.append((self.owner, path, child, receive))

    def wait(self) -> dict[str, str]:
        """Wait for every figure; return {table id: error} of the tables whose figure was not written."""
        while self._running:
            self._reap(self._running.pop(0))
        return self.errors

    def _reap(self, job: tuple[str, Path, Any, Any]) -> None:
        owner, path, child, receive = job
        try:
            error = receive.recv()
        except EOFError:  # it died before saying anything
            error = None
        child.join()
        if error is None and child.exitcode != 0:
            error = f"the process writing it exited with code {child.exitcode}"
        receive.close()
        if error is not None:
            path.unlink(missing_ok=True)
            self.errors[owner] = f"figure {path.name}: {error}"


def _write_in_child(write: Callable[[Figure, Path, int], None], fig: Figure, path: Path, dpi: int, send: Any) -> None:
    try:
        write(fig, path, dpi)
        send.send(None)
    except Exception as e:  # sent to the parent, which reports it as the table's error
        send.send(f"{type(e).__name__}: {e}")
    send.close()


_background: BackgroundFigures | None = None


def current() -> BackgroundFigures | None:
    """The writer of the open `figures_in_background` block, if any."""
    return _background


@contextmanager
def figures_in_background(jobs: int | None = None) -> Iterator[BackgroundFigures | None]:
    """Within the block, save_figure returns at once and the figure is written by a forked process (Linux
    only; elsewhere, with one core, or when another thread runs — a fork could copy a lock it holds —
    figures are drawn in place as before and None is yielded). Leaving the block waits for every figure;
    its errors are in `.errors`."""
    global _background
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    if not sys.platform.startswith("linux") or cores < 2 or threading.active_count() > 1:
        yield None
        return
    _background = BackgroundFigures(jobs or cores)
    try:
        yield _background
    finally:
        background, _background = _background, None
        background.wait()
