"""A file's version, for caches: keyed by (path, version), a cache notices a file that changed."""
from __future__ import annotations

from pathlib import Path


def file_version(path: str | Path) -> tuple[int, int] | None:
    """Size and modification time in nanoseconds; None for a file that is not there."""
    try:
        st = Path(path).stat()
    except OSError:
        return None
    return st.st_size, st.st_mtime_ns
