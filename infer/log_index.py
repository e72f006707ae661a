"""Where the last line of each key of an append-only log starts: a sidecar index, so that a reader wanting a few
keys of a large log (a judge run over a cache of 10⁶ calls) reads those lines and nothing else.

The log stays the truth, a file a person can read and append to (infer/store.py AppendLog); the index
(`<log>.index`, SQLite) is a cache of it that may be deleted at any time. It holds, for every key, the offset
of its last complete line, and how far the log was read: the byte size, the line count, the fingerprint of
the bytes read (infer/file_print.py) and how many keys it indexed. Reading brings it up to date from there, so the
log is read whole once and afterwards only what was appended. A log that was not only appended to — shorter than
indexed, or replaced by another file of any size, which the size alone does not show — is indexed again from the
start, and so is one whose line at an indexed offset is not of its key. The index is checked too, since a miss in
it means "never asked" and would send a call again: one holding fewer keys than it counted (rows lost, as
`synchronous=OFF` allows in a crash) is made anew, and so is one SQLite cannot read at all (a torn page).

A line not ending in a newline is being written, or was cut by a crash: it is not indexed (AppendLog cuts it
before writing). Any other line that does not parse is an error naming it, as infer.store.load_latest says.
"""
from __future__ import annotations

import json
import logging
import sqlite3
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from infer.file_print import fingerprint
from infer.layout import index_of

log = logging.getLogger(__name__)

# A line's key read from its bytes (None: not read so; the line is parsed), and from its parsed object.
Fast = Callable[[bytes], "str | None"]
Slow = Callable[[dict[str, Any]], "str | None"]
BATCH = 20_000


def _parse(raw: bytes, where: str) -> dict[str, Any]:
    try:
        return json.loads(raw.decode("utf-8-sig", "surrogatepass"))
    except ValueError as e:
        raise ValueError(f"{where}: -: corrupt result line ({e})") from e


def _scan(f: Any, path: Path, start: int, lineno: int, fast: Fast, slow: Slow
          ) -> Iterator[tuple["str | None", int, int, int]]:
    """(key, offset, line number, offset after it) of every complete line from `start` (line `lineno` + 1 on):
    the key read by `fast` from the line's start where it can, else from the parsed line (None: keyless)."""
    f.seek(start)
    offset = start
    for raw in f:
        if not raw.endswith(b"\n"):
            return  # being written, or cut by a crash
        lineno += 1
        at, offset = offset, offset + len(raw)
        key = fast(raw)
        if key is None and raw.strip():
            key = slow(_parse(raw, f"{path}:{lineno}"))
        yield key, at, lineno, offset


class LogIndex:
    """The index of one log: open it, `update` it to the log's end, look keys up (`offsets`)."""

    def __init__(self, path: Path, fast: Fast, slow: Slow):
        self.path, self.fast, self.slow = path, fast, slow
        self.db = self._connect()

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(index_of(self.path), timeout=120, isolation_level=None)
        db.execute("PRAGMA synchronous=OFF")  # a cache checked against the log: a torn index is rebuilt
        db.execute("CREATE TABLE IF NOT EXISTS line (key TEXT PRIMARY KEY, offset INTEGER) WITHOUT ROWID")
        # `tail` holds the fingerprint of the part read (it held its last 64 bytes before): under its first name, an
        # index that an earlier version of this module reads, or that it wrote, is not refused but made anew
        db.execute("CREATE TABLE IF NOT EXISTS read (size INTEGER, lines INTEGER, tail BLOB, keys INTEGER)")
        return db

    def _keys(self) -> int:
        return self.db.execute("SELECT count(*) FROM line").fetchone()[0]

    def close(self) -> None:
        self.db.close()

    def update(self) -> None:
        """Index what was appended since the last reader (all of it if the log changed otherwise)."""
        row = self.db.execute("SELECT size, lines, tail, keys FROM read").fetchone()
        if row is not None and self.path.stat().st_size == row[0] and self._keys() == row[3]:
            with open(self.path, "rb") as f:
                if fingerprint(f, row[0]) == row[2]:
                    return  # nothing appended
        self.db.execute("BEGIN IMMEDIATE")  # one reader indexes; another waits and then finds it done
        try:
            done, lines, seen, keys = (self.db.execute("SELECT size, lines, tail, keys FROM read").fetchone()
                                       or (0, 0, None, 0))
            with open(self.path, "rb") as f:
                if done and (fingerprint(f, done) != seen or self._keys() != keys):
                    log.info("%s: not only appended to since it was indexed (shorter, or another file), or its "
                             "index lost rows; indexing it again", self.path)
                    self.db.execute("DELETE FROM line")
                    done, lines = 0, 0
                end, batch = done, []
                for key, at, lines, end in _scan(f, self.path, done, lines, self.fast, self.slow):
                    if key is not None:
                        batch.append((key, at))
                    if len(batch) >= BATCH:
                        self.db.executemany("INSERT OR REPLACE INTO line VALUES (?, ?)", batch)
                        batch.clear()
                self.db.executemany("INSERT OR REPLACE INTO line VALUES (?, ?)", batch)
                seen = fingerprint(f, end)
            self.db.execute("DELETE FROM read")
            self.db.execute("INSERT INTO read VALUES (?, ?, ?, ?)", (end, lines, seen, self._keys()))
            self.db.execute("COMMIT")
        except BaseException:
            self.db.execute("ROLLBACK")
            raise

    def offsets(self, keys: Iterable[str]) -> dict[str, int]:
        keys, found = list(keys), {}
        for i in range(0, len(keys), 500):  # SQLite's limit on a statement's parameters
            chunk = keys[i:i + 500]
            found.update(self.db.execute(
                f"SELECT key, offset FROM line WHERE key IN ({','.join('?' * len(chunk))})", chunk).fetchall())
        return found


def latest_lines(path: Path, keys: Iterable[str], fast: Fast, slow: Slow) -> dict[str, dict[str, Any]]:
    """The last complete line of each of `keys` that the log holds, parsed; read through the log's index."""
    keys = set(keys)
    if not keys or not path.exists() or path.stat().st_size == 0:  # nothing to index (a log just made: no index)
        return {}
    for attempt in (1, 2):
        try:
            offsets = _offsets(path, keys, fast, slow)
        except sqlite3.DatabaseError as e:  # a torn page, a table of an older layout: a cache, made anew
            log.info("%s: its index cannot be read (%s); indexing it again", path, e)
            index_of(path).unlink(missing_ok=True)
            offsets = _offsets(path, keys, fast, slow)
        found = _read_at(path, offsets, slow)
        if found is not None:
            return found
        index_of(path).unlink(missing_ok=True)  # an offset no longer holds its key: the log was rewritten
    raise RuntimeError(f"{path}: its index disagrees with it even when made anew")


def _offsets(path: Path, keys: Iterable[str], fast: Fast, slow: Slow) -> dict[str, int]:
    index = _open(path, fast, slow)
    try:
        index.update()
        return index.offsets(keys)
    finally:
        index.close()


def _open(path: Path, fast: Fast, slow: Slow) -> LogIndex:
    try:
        return LogIndex(path, fast, slow)
    except sqlite3.DatabaseError:  # not an index (a torn write, another file): made anew
        index_of(path).unlink(missing_ok=True)
        return LogIndex(path, fast, slow)


def _read_at(path: Path, offsets: dict[str, int], slow: Slow) -> dict[str, dict[str, Any]] | None:
    """The line at each key's offset, parsed (offsets in order: one pass forward); None if one is of another key."""
    found = {}
    with open(path, "rb") as f:
        for key, at in sorted(offsets.items(), key=lambda kv: kv[1]):
            f.seek(at)
            raw = f.readline()
            if not raw.endswith(b"\n"):
                return None
            try:
                line = _parse(raw, str(path))
            except ValueError:
                return None
            if slow(line) != key:
                return None
            found[key] = line
    return found
