"""Which file of this checkout is the data file a run was made from. A manifest records its data file relative to
the checkout (infer/layout.py `recorded`; absolute when it lay outside, and in manifests written before paths were
recorded so), with its sha256. Read in another checkout or on another machine — a results folder copied or shared,
a data file moved — the run reads the file of that sha256 among the checkout's data files (data/**/*.jsonl, the
demo sets of data/demo/build/ among them), and analysis says in one line which file it read. Outputs name a data
file by `shown_data`, never by a path of the machine that wrote them."""
from __future__ import annotations

import logging
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path, PurePosixPath
from typing import Any, Mapping

from data.files import file_version
from infer import layout
from infer.manifest import sha256_file

log = logging.getLogger(__name__)
DATA_FILES = "data/**/*.jsonl"  # the checkout's data files, searched by checksum
_found: dict[tuple, Path | None] = {}
_said: set[tuple[str, Path]] = set()


@dataclass(frozen=True)
class NamedData:
    """A data file as a run's manifests name it: the path recorded and its sha256 (None when not recorded)."""

    path: str
    sha256: str | None = None


def named_data(manifest: Mapping[str, Any] | None, *others: Mapping[str, Any] | None) -> NamedData | None:
    """The data file `manifest` records — `{"path", "sha256"}`, or a path alone (judged manifests written before
    they recorded its checksum) — with the checksum of one of `others` (the raw file's manifest) naming the same
    path when `manifest` records none; None when it names none."""
    first = _named((manifest or {}).get("data"))
    if first is None or first.sha256:
        return first
    same = (n for m in others if m and (n := _named(m.get("data"))) and n.path == first.path and n.sha256)
    return next(same, first)


def _named(value: Any) -> NamedData | None:
    if isinstance(value, str) and value:
        return NamedData(value)
    if isinstance(value, Mapping) and value.get("path"):
        return NamedData(str(value["path"]), value.get("sha256"))
    return None


def locate(named: NamedData) -> Path | None:
    """The file of this checkout `named` is: the path recorded, when its sha256 is the one recorded (or none is);
    else the checkout's data file of that sha256; else the file at the path recorded, changed since (its records
    are read as they are now); None when there is none. Kept while the files it looked at are unchanged."""
    places = _places(named.path)
    key = (named, tuple(file_version(p) for p in places))
    if key not in _found or not (_found[key] and _found[key].is_file()):
        _found[key] = _search(named, places)
    found = _found[key]
    if found is not None and found != places[-1] and (named.path, found) not in _said:
        _said.add((named.path, found))
        if found in places:
            log.warning("data file %s: recorded at its path in another checkout, read in this one", shown_data(found))
        else:
            log.warning("data file %s, recorded by the runs, is not there with its sha256: read %s, which has it",
                        shown_data(named.path), shown_data(found))
    return found


def _search(named: NamedData, places: list[Path]) -> Path | None:
    at = [p for p in places if p.is_file()]
    if named.sha256 is None:
        return next(iter(at), None)
    return (next((p for p in at if _sha256(p) == named.sha256), None) or _by_checksum(named)
            or next(iter(at), None))


def _places(text: str) -> list[Path]:
    """Where a recorded path may be, the path itself last: a relative one in this checkout; an absolute one outside
    the checkout (another checkout's, or another machine's) first from each `data` folder it names on, in this
    checkout, so that a copy of the checkout never reads the original's file."""
    path = layout.from_record(text)
    if not Path(text).is_absolute() or path.is_relative_to(layout.ROOT):
        return [path]
    parts = PurePosixPath(text).parts
    return [*(layout.ROOT.joinpath(*parts[k:]) for k in reversed(range(len(parts))) if parts[k] == "data"), path]


def _by_checksum(named: NamedData) -> Path | None:
    """The checkout's data file of the recorded sha256, those of the recorded name looked at first."""
    name = PurePosixPath(named.path).name
    files = sorted(layout.ROOT.glob(DATA_FILES), key=lambda p: (p.name != name, p))
    return next((p for p in files if _sha256(p) == named.sha256), None)


def _sha256(path: Path) -> str:
    return _sha256_of(path, file_version(path))


@lru_cache(maxsize=1024)
def _sha256_of(path: Path, _version: tuple[int, int] | None) -> str:
    return sha256_file(path)


def shown_named(named: NamedData) -> str:
    """A run's data file as outputs name it: the file read in this checkout (`locate`), else the one recorded."""
    return shown_data(locate(named) or named.path)


def shown_data(path: str | Path) -> str:
    """How outputs name a data file: relative to the checkout when inside it; else from its last `data` folder on
    (where it lay in its checkout), else by its file name, said to be outside — never by a path of the machine."""
    recorded = layout.recorded(path) if Path(path).is_absolute() else PurePosixPath(path).as_posix()
    if not PurePosixPath(recorded).is_absolute():
        return recorded
    parts = PurePosixPath(recorded).parts
    last = max((k for k, part in enumerate(parts) if part == "data"), default=len(parts) - 1)
    return f"{PurePosixPath(*parts[last:]).as_posix()} (outside the checkout)"
