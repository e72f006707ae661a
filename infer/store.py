"""Append-only JSONL result files (raw outputs, verdicts): keyed, locked, repaired after a crash.

The last line for a key wins, so a retried request simply appends its new outcome; nothing is ever
rewritten in place. One writer at a time: a second run on the same file is refused by a lock. A cache that
runs share (a judge model's or an adaptation's log, infer/ask.py) is opened `shared`: each line is written
whole under the lock, held for that line only, so runs judging different settings with one judge model
append to it side by side; the same call made by both is paid twice, and its last line wins.
"""
from __future__ import annotations

import fcntl
import json
import logging
import os
import time
from pathlib import Path
from typing import Any, Callable, Hashable

from data.jsonl import bulk_read, dumps

log = logging.getLogger(__name__)


class LockedError(RuntimeError):
    pass


SHARED_WAIT = 60.0  # seconds a shared log's writer waits for the lock (others hold it for one line at a time)


# Lines each file got from this process, the file written last at the end: what an interrupted command
# says it saved (infer/interrupt.py).
written: dict[Path, int] = {}


def repair_tail(path: Path) -> int:
    """Cut a last line left half-written by a crash; return the number of bytes removed."""
    if not path.exists() or path.stat().st_size == 0:
        return 0
    with open(path, "rb+") as f:
        f.seek(0, os.SEEK_END)
        size = f.tell()
        f.seek(size - 1)
        if f.read(1) == b"\n":
            return 0
        # Walk back to the previous newline in blocks.
        pos, block = size, 65536
        while pos > 0:
            start = max(0, pos - block)
            f.seek(start)
            chunk = f.read(pos - start)
            i = chunk.rfind(b"\n")
            if i >= 0:
                keep = start + i + 1
                break
            pos = start
        else:
            keep = 0
        f.truncate(keep)
    log.warning("%s: removed a half-written last line (%d bytes) left by an interrupted run", path, size - keep)
    return size - keep


def load_latest(path: Path, key: Callable[[dict[str, Any]], Hashable],
                keep: tuple[str, ...] | None = None) -> dict[Hashable, dict[str, Any]]:
    """The last line of each key (only the fields in `keep`, if given, to bound memory).

    Lines that do not parse are an error naming the line.
    """
    latest: dict[Hashable, dict[str, Any]] = {}
    if not path.exists():
        return latest
    with open(path, "rb") as f, bulk_read():
        for lineno, raw in enumerate(f, start=1):
            if not raw.strip():
                continue
            try:
                # decoded here as json.loads decodes bytes, without its per-line guess of the encoding
                obj = json.loads(raw.decode("utf-8-sig", "surrogatepass"))
            except ValueError as e:
                if not raw.endswith(b"\n"):  # half-written by a crash: AppendLog cuts it, with a warning
                    continue
                raise ValueError(f"{path}:{lineno}: -: corrupt result line ({e})") from e
            latest[key(obj)] = obj if keep is None else {k: obj.get(k) for k in keep}
    return latest


class AppendLog:
    """An exclusive, append-only JSONL writer. Use as a context manager."""

    def __init__(self, path: str | Path, shared: bool = False):
        self.path = Path(path)
        self.shared = shared
        self._lock_file = None
        self._out = None

    @property
    def _lock_path(self) -> Path:
        return self.path.with_name(self.path.name + ".lock")

    def __enter__(self) -> "AppendLog":
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._made = [p for p in (self.path, self._lock_path) if not p.exists()]  # removed again if nothing is written
        self._lock_file = open(self._lock_path, "w")
        try:
            self._lock(SHARED_WAIT if self.shared else 0)
        except BlockingIOError:
            self._lock_file.close()
            raise LockedError(f"{self.path} is being written by another run; refusing to interleave") from None
        repair_tail(self.path)  # under the lock: no other writer is inside a line
        self._out = open(self.path, "a", encoding="utf-8")
        if self.shared:
            fcntl.flock(self._lock_file, fcntl.LOCK_UN)
        return self

    def _lock(self, wait: float) -> None:
        """Take the lock, waiting up to `wait` seconds for another writer to let go (BlockingIOError after)."""
        deadline = time.monotonic() + wait
        while True:
            try:
                fcntl.flock(self._lock_file, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise
                time.sleep(0.01)

    def write(self, obj: dict[str, Any]) -> None:
        # One write call per line and a flush: a crash loses at most the line being written.
        if self.shared:
            self._lock(SHARED_WAIT)
        try:
            self._out.write(dumps(obj) + "\n")
            self._out.flush()
        finally:
            if self.shared:
                fcntl.flock(self._lock_file, fcntl.LOCK_UN)
        written[self.path] = written.pop(self.path, 0) + 1

    def __exit__(self, exc_type: type | None, *exc: object) -> None:
        if self._out:
            self._out.flush()
            os.fsync(self._out.fileno())
            self._out.close()
        # A run stopped by an error before its first line (an endpoint down, a key not set) leaves no file
        # behind. The lock file goes while still held: a run that opens it from now on makes a new one.
        if self.shared and self._lock_file:
            self._lock(SHARED_WAIT)  # released below; another writer is not inside a line while the file is checked
        if exc_type is not None and self.path in self._made and self.path.stat().st_size == 0:
            for path in self._made:
                path.unlink(missing_ok=True)
        if self._lock_file:
            fcntl.flock(self._lock_file, fcntl.LOCK_UN)
            self._lock_file.close()
