"""A CPU-bound judge over many answers, on every free core: the same results, in the same order.

The rule judge is pure Python and holds the GIL, so threads would not help; and math-verify times its
parsing with signal.alarm, which works only in a process's main thread. Long runs are therefore cut
into contiguous chunks (answers to the same question stay together, so each worker's caches serve
them) and mapped over a process pool whose workers run each chunk in their main thread. Short runs
stay in this process: starting workers costs more than they save.

Only idle cores are used: Linux shares the CPU fairly between groups of processes (autogroups), so
while other work keeps a core busy a second worker gains no CPU time and only adds its overhead. The
cores idle over 50 ms before the run (five clock ticks per core) decide how many workers start.

Workers are forked from this process when it has no other thread (they start at once, with its
modules and caches); when it has (an inference client, a progress bar), forking could copy a lock held
by another thread, so they come from a fork server instead, which imports the judge once for them.
"""
from __future__ import annotations

import gc
import importlib
import logging
import multiprocessing
import os
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Callable, Sequence, TypeVar

log = logging.getLogger(__name__)
T, R = TypeVar("T"), TypeVar("R")

POOL_MIN = 4_000   # below this one process is as fast: the pool costs tens of ms to start and feed
CHUNK = 500        # answers per task: small enough to balance two workers, large enough to amortise
# Imported before the workers start (here when they are forked, in the fork server otherwise), so that
# each worker inherits them: judge.match imports math-verify and sympy only on first need, half a second.
PRELOAD = ["judge.rules", "judge.mathverify"]


def cores() -> int:
    """The cores this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def idle_cores(window: float = 0.05) -> float:
    """How many cores sat idle over the next `window` seconds (all of them where /proc/stat is missing)."""
    def sample() -> tuple[int, int]:
        with open("/proc/stat") as f:
            ticks = [int(x) for x in f.readline().split()[1:]]
        return ticks[3] + ticks[4], sum(ticks)  # idle + iowait, all
    try:
        idle0, total0 = sample()
        time.sleep(window)
        idle1, total1 = sample()
    except (OSError, ValueError, IndexError):
        return float(cores())
    return (os.cpu_count() or 1) * (idle1 - idle0) / max(1, total1 - total0)


def _run_chunk(fn: Callable[[T], R], chunk: Sequence[T]) -> list[R]:
    return [fn(x) for x in chunk]


def map_ordered(fn: Callable[[T], R], items: Sequence[T], min_items: int | None = None,
                chunk: int | None = None, processes: int | None = None) -> list[R]:
    """[fn(x) for x in items], over a process pool when there are at least `min_items` (POOL_MIN) items
    and more than one idle core (or `processes` given). `fn` and the items must pickle (a module-level
    function, a bound method of a frozen dataclass); an exception raised by fn is raised here, as in
    the loop."""
    size = chunk or CHUNK
    if len(items) < (POOL_MIN if min_items is None else min_items):
        return [fn(x) for x in items]
    wanted = processes if processes is not None else min(cores(), int(idle_cores() + 0.5))
    n_workers = min(wanted, -(-len(items) // size))
    if n_workers < 2:
        return [fn(x) for x in items]
    if threading.active_count() == 1:
        ctx = multiprocessing.get_context("fork")
        for name in PRELOAD:
            importlib.import_module(name)
    else:
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(PRELOAD)
    chunks = [items[i:i + size] for i in range(0, len(items), size)]
    log.info("judging %d answers in %d processes", len(items), n_workers)
    out: list[R] = []
    gc.freeze()  # forked workers inherit this process's objects: their collector need not walk them all
    try:
        with ProcessPoolExecutor(n_workers, mp_context=ctx) as pool:
            for part in pool.map(_run_chunk, [fn] * len(chunks), chunks):
                out.extend(part)
    finally:
        gc.unfreeze()
    return out
