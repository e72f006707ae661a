"""A file's fingerprint up to a size: whether a file a cache describes (a judge log's index, infer/log_index.py; a
raw file's resume state, infer/resume_state.py) still holds the bytes it read, only appended to since, or was
replaced by another file, of any size.

The size alone cannot tell: a file rewritten, restored from elsewhere or made anew may be as long as the one read,
or longer. Hashing every byte read would tell exactly but costs about a second a gigabyte on every run, so the
fingerprint is sha256 over samples, at most 256 KiB read whatever the size:
- the first 64 KiB, where another run's file, an older copy or a new one differs (ids, keys, replies, times);
- the 64 KiB before the size, the last lines the cache read;
- 32 blocks of 4 KiB spread evenly between, placed by the size alone, so the same prefix is sampled alike.
A file up to 192 KiB is hashed whole. It is of the bytes, not of the file's identity (an inode): a results folder
copied elsewhere keeps its caches. What it can miss is an edit in the middle of a large file that keeps every
byte count and falls between the samples; the harness never writes so (its result files are only appended to,
infer/store.py AppendLog).
"""
from __future__ import annotations

import hashlib
from typing import BinaryIO

HEAD = 1 << 16    # bytes at the start, and before the size
BLOCK = 1 << 12   # bytes of each sample between
SAMPLES = 32


def spans(size: int) -> list[tuple[int, int]]:
    """(offset, length) of the bytes the fingerprint of the first `size` bytes reads, in order."""
    if size <= 2 * HEAD + SAMPLES * BLOCK:
        return [(0, size)]
    step = (size - 2 * HEAD - BLOCK) / (SAMPLES - 1)
    between = [(HEAD + round(i * step), BLOCK) for i in range(SAMPLES)]
    return [(0, HEAD), *between, (size - HEAD, HEAD)]


def fingerprint(f: BinaryIO, size: int) -> str | None:
    """The fingerprint of the first `size` bytes of the open file `f` (None: the file is shorter)."""
    sha = hashlib.sha256(str(size).encode())
    for offset, length in spans(size):
        f.seek(offset)
        chunk = f.read(length)
        if len(chunk) < length:
            return None
        sha.update(chunk)
    return sha.hexdigest()
