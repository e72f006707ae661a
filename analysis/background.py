"""Figures drawn by worker processes while analysis.run builds the next tables.

Building and drawing a figure (matplotlib's import, the artists, tight_layout, savefig) is most of a figure
table's time and runs in Python, so threads would not overlap it. The workers are forked when the block
opens, while the process is still small, and are sent each figure to draw as a call — a module-level function
and the small tables it draws, pickled. (Forking once per figure from a process that holds every run read so
far cost more than a second at 100,000 lines, in pages copied on write.) analysis.plot.draw hands each figure
to the open block's writer, and analysis.run writes a table once its figures are done."""
from __future__ import annotations

import gc
import multiprocessing
import os
import pickle
import signal
import sys
import threading
from contextlib import contextmanager
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Any, Callable, Iterator

from judge.parallel import cores


class BackgroundFigures:
    """`jobs` worker processes. A figure that could not be written is removed (no stale or half-written file
    stands for it) and its error is kept under the table being built when it was saved."""

    def __init__(self, jobs: int) -> None:
        self.owner = ""  # the table being built: its figures' errors are its own
        self.errors: dict[str, str] = {}
        self._idle: list[Connection] = []
        self._busy: dict[Connection, tuple[str, Path]] = {}  # a worker's end of the pipe → the figure it draws
        self._workers = []
        fork = multiprocessing.get_context("fork")
        for _ in range(max(1, jobs)):
            here, there = fork.Pipe()
            # the worker closes the parent's ends it inherits, so that its pipe ends when the parent goes
            worker = fork.Process(target=_serve, args=(there, [*self._idle, here]), daemon=True)
            worker.start()
            there.close()
            self._workers.append(worker)
            self._idle.append(here)

    def submit(self, path: Path, figure: Callable[..., Any], args: tuple, kwargs: dict[str, Any]) -> None:
        """Draw the figure of `path` with figure(*args, **kwargs) in a worker (here, when the call cannot be
        pickled, or no worker is left)."""
        path.unlink(missing_ok=True)
        try:
            job = pickle.dumps((figure, args, kwargs), protocol=pickle.HIGHEST_PROTOCOL)
        except Exception:  # what pickle cannot take (a lambda, a local function): drawn here instead
            job = None
        while job is not None and not self._idle and self._busy:
            self._collect(wait(list(self._busy)))
        if job is None or not self._idle:
            self._done(self.owner, path, _draw(figure, args, kwargs))
            return
        worker = self._idle.pop()
        worker.send_bytes(job)
        self._busy[worker] = (self.owner, path)

    def finish(self, owner: str) -> str | None:
        """Wait for the figures of one table; what went wrong with them, or None."""
        while owner in {who for who, _ in self._busy.values()}:
            self._collect(wait(list(self._busy)))
        return self.errors.get(owner)

    def wait(self) -> dict[str, str]:
        """Wait for every figure; return {table id: error} of the tables whose figure was not written."""
        while self._busy:
            self._collect(wait(list(self._busy)))
        return self.errors

    def close(self) -> None:
        """Stop the workers (a worker still drawing is stopped too: call `wait` first to keep its figure)."""
        for end in [*self._idle, *self._busy]:
            end.close()  # a worker ends when its pipe does
        self._idle, self._busy = [], {}
        for worker in self._workers:
            worker.join(timeout=5)
            if worker.is_alive():
                worker.terminate()
                worker.join()

    def _collect(self, ready: list) -> None:
        for worker in ready:
            owner, path = self._busy.pop(worker)
            try:
                error = worker.recv()
            except EOFError:  # it died drawing this figure; the figures still to come go to the others
                error = "the process drawing it ended without writing it"
                worker.close()
            else:
                self._idle.append(worker)
            self._done(owner, path, error)

    def _done(self, owner: str, path: Path, error: str | None) -> None:
        if error is not None:
            path.unlink(missing_ok=True)
            self.errors[owner] = f"figure {path.name}: {error}"


def _draw(figure: Callable[..., Any], args: tuple, kwargs: dict[str, Any]) -> str | None:
    """Draw one figure; what went wrong, or None."""
    try:
        figure(*args, **kwargs)
        return None
    except Exception as e:  # said as the table's error
        return f"{type(e).__name__}: {e}"


def _serve(pipe: Connection, parent_ends: list[Connection]) -> None:
    """A worker: draw each figure sent until the pipe closes."""
    for end in parent_ends:
        end.close()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C stops the parent, which closes the pipe
    os.nice(10)  # the tables being built come first; a figure takes the time they leave
    gc.freeze()  # the collector never walks what was inherited, so those pages stay shared with the parent
    while True:
        try:
            job = pipe.recv_bytes()
        except (EOFError, OSError):  # the pipe closed, or the parent stopped without closing it (a lone SIGINT)
            return
        try:
            figure, args, kwargs = pickle.loads(job)
        except Exception as e:
            pipe.send(f"it could not be handed over ({type(e).__name__}: {e})")
            continue
        try:
            pipe.send(_draw(figure, args, kwargs))
        except OSError:  # the parent has gone
            return
        del figure, args, kwargs


# A table run draws a few dozen figures in a few seconds: on a many-core node, more workers than this would
# only each import matplotlib
MAX_WORKERS = 4

_background: BackgroundFigures | None = None


def current() -> BackgroundFigures | None:
    """The writer of the open `figures_in_background` block, if any."""
    return _background


@contextmanager
def figures_in_background(jobs: int | None = None) -> Iterator[BackgroundFigures | None]:
    """Within the block, analysis.plot.draw returns at once and the figure is drawn by a worker, one per core
    up to MAX_WORKERS (Linux only; elsewhere, with one core, or when another thread runs — a fork could copy
    a lock it holds — figures are drawn in place as before and None is yielded). Leaving the block waits for
    every figure; its errors are in `.errors`."""
    global _background
    n = cores()
    if not sys.platform.startswith("linux") or n < 2 or threading.active_count() > 1:
        yield None
        return
    _background = BackgroundFigures(jobs or min(n, MAX_WORKERS))
    try:
        yield _background
        _background.wait()
    finally:
        background, _background = _background, None
        background.close()
