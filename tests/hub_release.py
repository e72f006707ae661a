"""Releases laid out as a Hub download leaves them: parquet whose image columns are the `datasets` Image
feature, a struct of `bytes` and `path` (stored by pyarrow as struct<bytes: binary, path: string>)."""
from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
from PIL import Image


def png_bytes(color: str, size: tuple[int, int] = (8, 6)) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", size, color).save(buf, format="PNG")
    return buf.getvalue()


def image(color: str, name: str) -> dict[str, Any]:
    """One Image-feature value as `push_to_hub` embeds it: the file's bytes and its original name."""
    return {"bytes": png_bytes(color), "path": name}


def write_parquet(path: Path, rows: list[dict[str, Any]]) -> Path:
    """One parquet file of `rows`; its columns are the first row's keys, so give every row every key."""
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows), path)
    return path


def pixel(path: Path) -> tuple[int, ...]:
    """The colour of an image file's first pixel: which picture was written there."""
    with Image.open(path) as im:
        return im.convert("RGB").getpixel((0, 0))


RGB = {"red": (255, 0, 0), "green": (0, 128, 0), "blue": (0, 0, 255), "yellow": (255, 255, 0)}
