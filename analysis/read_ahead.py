"""The runs a set of tables will read, read on every core before the tables are built.

Reading a run (parsing its raw and verdict files, hashing every response) takes one core: at 10⁶ judged lines
the first `analysis.run --all` spent more time reading runs one after another than building every table. So
before the tables, this process and forked workers take the runs not yet read, largest first, one at a time
from a shared counter. A worker makes the run's frame and keeps it on disk (analysis/frame_cache.py); this
process then reads it back from there (a few hundredths of a second) instead of from the files. Nothing
depends on it: a run a worker could not read (a missing data file, a broken line) is read again by the first
table that asks for it, which says what is wrong, as it would without reading ahead; and where no frame can be
kept, nothing is read ahead.
"""
from __future__ import annotations

import logging
import multiprocessing
import signal
import sys
import threading
from typing import Iterator

from analysis import frame_cache, inputs
from analysis.run_files import Run, record_digests
from infer.progress import bar as progress_bar
from judge.parallel import cores

log = logging.getLogger(__name__)
# Each worker holds the data index and one run's frame at a time: on a many-core node more would mostly add memory.
MAX_WORKERS = 8


def read_ahead(runs: list[Run], jobs: int | None = None) -> None:
    """Read those of `runs` whose frames are not kept yet (holding them in this process, as tables read them) on
    `jobs` cores (all this process may use)."""
    jobs = jobs or cores()
    # as analysis/background.py: forked on Linux only, and never while another thread runs (a fork could copy a lock
    # it holds); with one core there is nothing to gain
    if jobs < 2 or not sys.platform.startswith("linux") or threading.active_count() > 1 or not frame_cache.writable():
        return
    # largest first: no core is left with a large run at the end
    runs = sorted((r for r in runs if not _kept(r)), key=_size, reverse=True)
    # One process more than the cores: runs are few and large, and a core whose process has no run left to take is
    # then still kept busy by the others' runs.
    n_workers = min(jobs, MAX_WORKERS, len(runs) - 1)
    if n_workers < 1:  # (a single run is read by the table that asks for it)
        return
    for data in {r.data for r in runs} - {None}:  # what every run is checked against: read once, before forking
        try:
            record_digests(data)
        except Exception as e:  # noqa: BLE001  (as in _work)
            log.debug("%s: not read ahead (%s)", data, e)
    fork = multiprocessing.get_context("fork")
    taken, done = fork.Value("i", 0), fork.Value("i", 0)
    workers = [fork.Process(target=_work, args=(runs, taken, done), daemon=True) for _ in range(n_workers)]
    for worker in workers:
        worker.start()
    try:
        with progress_bar(total=len(runs), desc="reading runs", unit="run", leave=False, disable=None) as shown:
            for run in _next(runs, taken):
                _read(run)
                _count(done)
                shown.update(done.value - shown.n)
            for worker in workers:
                worker.join()
            shown.update(done.value - shown.n)
    finally:
        for worker in workers:  # Ctrl-C, or an error here: the workers go too
            if worker.is_alive():
                worker.terminate()
                worker.join()
    for run in runs:  # the workers' runs, back from the frames they kept
        _read(run)


def _work(runs: list[Run], taken, done) -> None:
    """A worker: keep the frame of each run it takes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C stops the parent, which stops the workers
    for run in _next(runs, taken):
        try:
            inputs.keep_frame(run)
        except Exception as e:  # noqa: BLE001  (the table that reads the run says what is wrong)
            log.debug("%s: not read ahead (%s)", run.path, e)
        _count(done)


def _next(runs: list[Run], taken) -> Iterator[Run]:
    """The runs not yet taken by another process, one at a time."""
    while True:
        with taken.get_lock():
            i = taken.value
            taken.value += 1
        if i >= len(runs):
            return
        yield runs[i]


def _count(done) -> None:
    with done.get_lock():
        done.value += 1


def _read(run: Run) -> None:
    try:
        inputs.read_run(run)
    except Exception as e:  # noqa: BLE001  (as in _work)
        log.debug("%s: not read ahead (%s)", run.path, e)


def _kept(run: Run) -> bool:
    try:
        return inputs.frame_kept(run)
    except Exception:  # noqa: BLE001  (a missing data file: the table that reads the run says so)
        return True


def _size(run: Run) -> int:
    return sum(p.stat().st_size for p in (run.path, run.raw) if p.exists())
