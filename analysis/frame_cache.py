"""A judged run's frame as the tables read it (analysis.inputs.load_run), kept on disk while its files are unchanged.

Reading a run means parsing its raw and verdict files whole (every response, to know which verdict is current):
at 10⁶ judged lines that is most of `analysis.run --all`. The frame it gives is kept in this user's cache,
~/.cache/mmr-harness/frames/ (infer.layout.frame_cache_path), never in results/: people share results folders,
and a pickle is loaded only from where this user's own runs wrote it. It is kept with what it was made from:
the versions (size, mtime) of the verdict, raw, data and manifest files, and the code that reads them. The next
run whose stamp is the same reads the frame back; any other stamp reads the files again and replaces it. It is
only a cache of the harness's own output: deleting it costs one slower run.
"""
from __future__ import annotations

import hashlib
import logging
import os
import pickle
import tempfile
from functools import lru_cache
from pathlib import Path
from typing import Callable

import pandas as pd

from data.checkout import ROOT
from infer.layout import frame_cache_folder

log = logging.getLogger(__name__)
# The modules that make a frame from a run's files: a change to any of them makes every frame anew.
CODE = ("analysis/inputs.py", "analysis/run_files.py", "analysis/run_frame.py", "analysis/columns.py",
        "judge/current.py", "judge/extract.py")


@lru_cache(maxsize=1)
def code_version() -> str:
    h = hashlib.sha256(pd.__version__.encode())
    for name in CODE:
        h.update((ROOT / name).read_bytes())
    return h.hexdigest()[:16]


def cached_frame(path: Path, stamp: tuple, make: Callable[[], pd.DataFrame]) -> pd.DataFrame:
    """The frame kept at `path` if it was made from `stamp` by this code, else `make()`, kept there for next time."""
    stamp = (code_version(), *stamp)
    frame = _read(path, stamp)
    if frame is not None:
        return frame
    frame = make()
    _write(path, stamp, frame)
    return frame


def keep(path: Path, stamp: tuple, make: Callable[[], pd.DataFrame]) -> None:
    """`cached_frame` for a process that only makes the frame for another to read: a frame already kept is not
    loaded, and none is held."""
    stamp = (code_version(), *stamp)
    if not _kept(path, stamp):
        _write(path, stamp, make())


def kept(path: Path, stamp: tuple) -> bool:
    """Whether a frame made from `stamp` by this code is kept at `path` (told without loading it)."""
    return _kept(path, (code_version(), *stamp))


def writable() -> bool:
    """Whether frames can be kept (the cache folder can be made and written)."""
    folder = frame_cache_folder()
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return False
    return os.access(folder, os.W_OK)


# A kept file holds two pickles: the stamp, then the frame, so that a stale one is told without loading its frame.
def _kept(path: Path, stamp: tuple) -> bool:
    try:
        with open(path, "rb") as f:
            return pickle.load(f) == stamp
    except Exception:  # noqa: BLE001  (missing, or whatever is wrong with it: it is made again)
        return False


def _read(path: Path, stamp: tuple) -> pd.DataFrame | None:
    try:
        with open(path, "rb") as f:
            if pickle.load(f) != stamp:
                return None
            return pickle.load(f)
    except FileNotFoundError:
        return None
    except Exception as e:  # noqa: BLE001  (a cache: whatever is wrong with it, the files are read instead)
        log.debug("%s: unreadable (%s): the run is read from its files", path, e)
        return None


def _write(path: Path, stamp: tuple, frame: pd.DataFrame) -> None:
    """Written whole or not at all (a temporary file renamed); a cache folder that cannot be written is no error."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as e:
        log.debug("%s: not kept (%s)", path, e)
        return
    try:
        with os.fdopen(fd, "wb") as f:
            pickle.dump(stamp, f, protocol=pickle.HIGHEST_PROTOCOL)
            pickle.dump(frame, f, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise
