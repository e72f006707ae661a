"""Where converters put the files a record points to, staged so a failed conversion leaves nothing."""
from __future__ import annotations

import os
import shutil
from pathlib import Path


class Media:
    """Files written next to a converted JSONL, in ``<stem>_files/``, and references to existing files.

    Files are written to a staging folder and moved into place by `commit`; `discard` removes them.
    Returned paths are relative to the JSONL's folder, as the unified record requires.
    """

    def __init__(self, out: Path):
        self.base = out.parent.resolve()
        self.final = self.base / f"{out.stem}_files"
        self.staging = self.base / f".{out.stem}_files.partial"
        self.written = 0

    def _rel(self, name: str) -> str:
        return os.path.relpath(self.final / name, self.base)

    def save_bytes(self, name: str, data: bytes) -> str:
        """Write `data` as `name` (a relative path inside the media folder); return the record path."""
        target = self.staging / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        self.written += 1
        return self._rel(name)

    def copy(self, src: Path, name: str | None = None) -> str:
        name = name or src.name
        target = self.staging / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, target)
        self.written += 1
        return self._rel(name)

    def ref(self, src: Path) -> str:
        """Point at an existing file of the release, without copying it."""
        return os.path.relpath(Path(src).resolve(), self.base)

    def commit(self) -> None:
        if not self.written:
            return
        if self.final.exists():
            shutil.rmtree(self.final)
        os.replace(self.staging, self.final)

    def discard(self) -> None:
        shutil.rmtree(self.staging, ignore_errors=True)
