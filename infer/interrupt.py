"""Ctrl-C and SIGTERM: a command stops where it is, says in one line what it saved, and exits 130 (SIGINT)
or 143 (SIGTERM), with no traceback.

Nothing is lost: requests in flight are cancelled (asyncio cancels its tasks), each line is written whole
(the store cuts a torn one on the next start), servers the harness started are stopped as their context
managers exit, and a rerun of the same command resumes.
"""
from __future__ import annotations

import functools
import signal
import sys
import threading
from pathlib import Path
from typing import Any, Callable

from infer import store

_received: list[int] = []  # the signal that is stopping the running command
_depth = 0                 # guarded commands running in this process (one may call another's main)


def _on_sigterm(signum: int, frame: Any) -> None:
    if _received:  # already stopping: a second SIGTERM (sent to the process group and forwarded) changes nothing
        return
    _received.append(signum)
    on_sigint = signal.getsignal(signal.SIGINT)
    if callable(on_sigint) and on_sigint is not signal.default_int_handler:
        on_sigint(signal.SIGINT, frame)  # asyncio's: cancels the running tasks, then raises KeyboardInterrupt
    else:
        raise KeyboardInterrupt


def _message(before: dict[Path, int]) -> str:
    saved = {p: n - before.get(p, 0) for p, n in store.written.items() if n > before.get(p, 0)}
    if not saved:
        return "interrupted: no answer saved yet; rerun the same command to resume"
    *others, last = saved  # the file written last
    rest = f" (and {sum(saved[p] for p in others)} in {len(others)} other file{'s' if len(others) > 1 else ''})" \
        if others else ""
    return f"interrupted: {saved[last]} answers saved in {last}{rest}; rerun the same command to resume"


def exits_cleanly(main: Callable[..., int]) -> Callable[..., int]:
    """A command's `main`, stopped by Ctrl-C or SIGTERM with one line and exit code 130 or 143. A guarded
    main called by another (pipeline.demo runs pipeline.experiments in its process) leaves the report to
    the outermost."""

    @functools.wraps(main)
    def guarded(argv: list[str] | None = None, **kwargs: Any) -> int:
        global _depth
        if _depth or threading.current_thread() is not threading.main_thread():  # signals reach the main thread only
            return main(argv, **kwargs)
        before = dict(store.written)
        # Ctrl-C works even where the command was started with SIGINT ignored (a background job of a script)
        previous = signal.signal(signal.SIGINT, signal.default_int_handler), signal.signal(signal.SIGTERM, _on_sigterm)
        _depth += 1
        try:
            return main(argv, **kwargs)
        except KeyboardInterrupt:
            print(_message(before), file=sys.stderr)
            return 128 + (_received[0] if _received else signal.SIGINT)
        finally:
            _depth -= 1
            _received.clear()
            signal.signal(signal.SIGINT, previous[0] or signal.SIG_DFL)
            signal.signal(signal.SIGTERM, previous[1] or signal.SIG_DFL)

    return guarded
