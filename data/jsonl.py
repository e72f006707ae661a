"""JSONL reading and writing shared by every stage.

Reading reports bad lines as ``file:line: field: problem``; writing a whole file is atomic
(temporary file + rename) so a crash never leaves half an output behind.
"""
from __future__ import annotations

import gc
import json
import os
import re
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterable, Iterator


class DataError(Exception):
    """One or more problems in an input file, each as ``file:line: field: problem``."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__("\n".join(problems))


@contextmanager
def bulk_read() -> Iterator[None]:
    """Pause the cyclic garbage collector while a large file becomes many small objects.

    Every few hundred new containers (dicts, lists, tuples) start a collection, and the older generations
    are walked whole again and again as they grow: parsing 100,000 records spends almost half its time
    there. Objects read from JSON cannot form reference cycles, so the collector has nothing to find."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def problem(path: str | Path, line: int | None, field: str, message: str) -> str:
    where = f"{path}:{line}" if line is not None else str(path)
    return f"{where}: {field}: {message}"


def parse_line(raw: bytes) -> tuple[dict[str, Any] | None, str | None]:
    """The JSON object of one line, or what is wrong with it."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        return None, f"not UTF-8 ({e.reason} at byte {e.start})"
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as e:
        return None, f"invalid JSON ({e.msg}, column {e.colno})"
    if not isinstance(obj, dict):
        return None, f"expected a JSON object, got {type(obj).__name__}"
    return obj, None


def iter_jsonl(path: str | Path, errors: list[str] | None = None) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield (line number, object) for every non-blank line.

    A bad line raises DataError, or, when `errors` is given, is appended to it and skipped.
    """
    for lineno, obj, _ in iter_jsonl_lines(path, errors):
        yield lineno, obj


def iter_jsonl_lines(path: str | Path, errors: list[str] | None = None
                     ) -> Iterator[tuple[int, dict[str, Any], bytes]]:
    """`iter_jsonl`, with the line each object was read from (for a reader that digests it)."""
    path = Path(path)
    with open(path, "rb") as f:
        for lineno, raw in enumerate(f, start=1):
            if not raw.strip():
                continue
            obj, err = parse_line(raw)
            if err is not None:
                msg = problem(path, lineno, "-", err)
                if errors is None:
                    raise DataError([msg])
                errors.append(msg)
                continue
            yield lineno, obj, raw


def read_jsonl(path: str | Path) -> list[dict[str, Any]]:
    return [obj for _, obj in iter_jsonl(path)]


def dumps(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def write_jsonl_atomic(path: str | Path, records: Iterable[dict[str, Any]]) -> None:
    """Write all records or nothing: a temporary file in the same folder, renamed on success."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            for rec in records:
                f.write(dumps(rec) + "\n")
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def write_text_atomic(path: str | Path, text: str) -> None:
    """Write `text` (UTF-8) in full or not at all: a reader sees the old file or the new one, never half of it."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.chmod(tmp, 0o644)  # mkstemp makes it private; a report is for sharing
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def write_json_atomic(path: str | Path, obj: Any, indent: int | None = 2) -> None:
    """Write `obj` as JSON, in full or not at all (indent None: compact)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(obj, f, ensure_ascii=False, indent=indent)  # written as encoded: never whole in memory
            f.write("\n")
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def iter_json_array(path: str | Path, what: str = "records") -> Iterator[tuple[int, Any]]:
    """Yield (line where the element starts, element) for a file holding one JSON array.

    Elements are decoded one at a time so an error names its line; line numbers are counted
    incrementally, so a large release (base64 images) is read in linear time.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as e:
        raise DataError([problem(path, None, "-", f"not UTF-8 ({e.reason} at byte {e.start})")]) from None
    decoder, ws = json.JSONDecoder(), re.compile(r"[\s,]*")
    i = ws.match(text, 0).end()
    if not text.startswith("[", i):
        raise DataError([problem(path, None, "-", f"expected a JSON array of {what} (or use .jsonl)")])
    i, line, counted = i + 1, 1, 0
    while True:
        i = ws.match(text, i).end()
        if i >= len(text):
            raise DataError([problem(path, text.count("\n") + 1, "-", "invalid JSON (unterminated array)")])
        if text[i] == "]":
            return
        line += text.count("\n", counted, i)
        counted = i
        try:
            obj, i = decoder.raw_decode(text, i)
        except json.JSONDecodeError as e:
            raise DataError([problem(path, e.lineno, "-", f"invalid JSON ({e.msg}, column {e.colno})")]) from None
        yield line, obj
