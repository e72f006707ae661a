"""A file's fingerprint up to a size (infer/file_print.py): the same while the file is only appended to (or copied),
another when it is shorter or other bytes are where it samples; a bounded read at any size."""
from __future__ import annotations

import os

from infer.file_print import BLOCK, HEAD, SAMPLES, fingerprint, spans


def printed(path, size):
    with open(path, "rb") as f:
        return fingerprint(f, size)


def test_a_small_file_is_hashed_whole_and_a_large_one_sampled():
    assert spans(1000) == [(0, 1000)]
    big = 10 ** 9
    got = spans(big)
    assert got[0] == (0, HEAD) and got[-1] == (big - HEAD, HEAD) and len(got) == SAMPLES + 2
    assert sum(n for _, n in got) == 2 * HEAD + SAMPLES * BLOCK   # 256 KiB, whatever the size
    assert all(a + n <= b for (a, n), (b, _) in zip(got, got[1:]))  # in order, never overlapping


def test_appending_keeps_the_print_of_the_part_read(tmp_path):
    path = tmp_path / "f"
    body = os.urandom(1 << 20)
    path.write_bytes(body)
    size = len(body)
    before = printed(path, size)
    with open(path, "ab") as f:
        f.write(b"more\n")
    assert printed(path, size) == before != printed(path, size + 5)
    assert printed(path, size + 6) is None  # the file is shorter


def test_other_bytes_where_it_samples_change_the_print_a_copy_does_not(tmp_path):
    path = tmp_path / "f"
    body = bytearray(os.urandom(1 << 20))
    path.write_bytes(body)
    size = len(body)
    before = printed(path, size)
    for at in (10, size - 10, spans(size)[SAMPLES // 2][0]):   # the head, the end read, a sample between
        changed = bytearray(body)
        changed[at] ^= 1
        path.write_bytes(changed)   # in place: the same inode
        assert printed(path, size) != before, at
    path.write_bytes(body)
    assert printed(path, size) == before
    other = tmp_path / "g"
    other.write_bytes(body)
    other.replace(path)  # the very bytes, another file: a results folder copied elsewhere keeps its caches
    assert printed(path, size) == before
