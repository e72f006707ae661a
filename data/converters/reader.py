"""Reading a release in whatever form users get it, for every converter.

Rows come from JSONL, a JSON array, parquet, Arrow (``datasets``' ``save_to_disk`` shards and plain Arrow
files) or TSV. On the Hugging Face Hub a release is parquet (or Arrow) whose columns are the official
fields; an image column is the ``datasets`` Image feature, a struct ``{"bytes": ..., "path": ...}``
(``bytes`` empty when the image stays a file), or a list of them. Images are also given as raw bytes,
base64 text (a ``data:`` URL, or bare base64 in a field that says so) or a path. Embedded images are
written once per content into the conversion's media folder; paths are looked up by the converter's
own rule and referenced in place.
"""
from __future__ import annotations

import base64
import binascii
import csv
import datetime as dt
import decimal
import hashlib
import io
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

import pyarrow as pa
import pyarrow.parquet as pq
from PIL import Image

from data.converters.fields import Item
from data.jsonl import DataError, iter_json_array, iter_jsonl, problem
from data.media import Media

TABLE_SUFFIXES = (".parquet", ".arrow")
DATA_SUFFIXES = (".parquet", ".arrow", ".json", ".jsonl", ".tsv")
# JSON files that `save_to_disk` writes next to the Arrow shards: metadata, not items.
HF_METADATA = {"dataset_info.json", "state.json", "dataset_dict.json"}

_DATA_URL = re.compile(r"^data:([\w.+-]+/[\w.+-]+)?(;[^,]*)?,", re.I)
_IMAGE_EXT = {"PNG": "png", "JPEG": "jpg", "GIF": "gif", "WEBP": "webp", "BMP": "bmp", "TIFF": "tif"}


# ---------------------------------------------------------------- finding and reading data files

def data_files(src: Path, suffixes: Iterable[str] = DATA_SUFFIXES) -> list[Path]:
    """Every data file below `src` with one of `suffixes`, by path; hidden folders (``.cache/`` of a
    Hub download) and ``save_to_disk`` metadata are left out."""
    suffixes = tuple(suffixes)
    return sorted(
        p for p in src.rglob("*")
        if p.is_file() and p.suffix.lower() in suffixes and p.name not in HF_METADATA
        and not any(part.startswith(".") for part in p.relative_to(src).parts)
    )


def read_arrow(path: Path) -> list[dict[str, Any]]:
    # `save_to_disk` writes the IPC *stream* format; plain Arrow files use the IPC *file* format.
    with pa.memory_map(str(path)) as source:
        try:
            table = pa.ipc.open_stream(source).read_all()
        except pa.ArrowInvalid:
            source.seek(0)
            table = pa.ipc.open_file(source).read_all()
    return table.to_pylist()


@dataclass
class Row:
    """One object of a data file: `where` names it in problems (the file for a line, ``file row n`` for a
    table row), `line` is its line (None for table rows), `pos` its line or row number."""
    where: str | Path
    line: int | None
    pos: int
    data: Any


def read_rows(path: Path, errors: list[str] | None = None) -> Iterator[Row]:
    """The rows of one data file, by its suffix. A JSONL line that does not parse goes to `errors`
    when given (else raises); a file that cannot be read at all raises DataError."""
    suffix = path.suffix.lower()
    try:
        if suffix == ".jsonl":
            for line, obj in iter_jsonl(path, errors=errors):
                yield Row(path, line, line, obj)
            return
        if suffix == ".json":
            for line, obj in iter_json_array(path, "objects"):
                yield Row(path, line, line, obj)
            return
        if suffix == ".parquet":
            table = pq.read_table(path).to_pylist()
        elif suffix == ".arrow":
            table = read_arrow(path)
        elif suffix == ".tsv":
            with open(path, encoding="utf-8-sig", newline="") as f:
                table = list(csv.DictReader(f, delimiter="\t"))
        else:
            raise DataError([problem(path, None, "--src", f"unsupported file type {suffix!r}")])
    except (pa.ArrowException, OSError, UnicodeDecodeError, csv.Error) as e:
        raise DataError([problem(path, None, "-", f"cannot read: {type(e).__name__}: {e}")]) from None
    for n, obj in enumerate(table, start=1):
        yield Row(f"{path} row {n}", None, n, obj)


# ---------------------------------------------------------------- values

def is_empty(value: Any) -> bool:
    """None, NaN, or an empty or blank string, list, dict or bytes."""
    if value is None:
        return True
    if isinstance(value, float) and math.isnan(value):
        return True
    if isinstance(value, (str, list, tuple, dict, bytes)) and not (value.strip() if isinstance(value, str) else value):
        return True
    return False


def jsonable(value: Any) -> Any:
    """Official values as JSON (Arrow hands over dates, decimals, bytes)."""
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, (bytes, bytearray)):
        return base64.b64encode(bytes(value)).decode("ascii")
    if isinstance(value, (dt.date, dt.datetime, dt.time)):
        return value.isoformat()
    if isinstance(value, decimal.Decimal):
        return str(value)
    return value


# ---------------------------------------------------------------- images

class ImageError(ValueError):
    """An image value that cannot be read: its message says why."""


def is_image_struct(value: Any) -> bool:
    """The ``datasets`` Image feature as stored: a dict with ``bytes`` and/or ``path``."""
    return isinstance(value, dict) and bool({"bytes", "path"} & set(value)) and set(value) <= {"bytes", "path"}


def is_data_url(value: Any) -> bool:
    return isinstance(value, str) and bool(_DATA_URL.match(value.strip()))


def embeds(value: Any) -> bool:
    """Whether an image field holds images itself (structs, bytes, data URLs), not only paths."""
    items = value if isinstance(value, (list, tuple)) else [value]
    return any(is_image_struct(v) or isinstance(v, (bytes, bytearray)) or is_data_url(v) for v in items)


def image_names(value: Any) -> list[str]:
    """The file names an image value carries (a path, or a struct's ``path``), in order; others skipped."""
    items = value if isinstance(value, (list, tuple)) else [value]
    names = [v.get("path") if is_image_struct(v) else v for v in items]
    return [Path(n).name for n in names if isinstance(n, str) and n.strip() and not is_data_url(n)]


def decode_base64(text: str) -> bytes:
    """The bytes of a ``data:...;base64,`` URL or of bare base64 (standard or URL-safe)."""
    m = _DATA_URL.match(text.strip())
    payload = text.strip()[m.end():] if m else text
    if m and ";base64" not in (m.group(2) or "").lower():
        raise ImageError("data URL is not base64-encoded")
    payload = re.sub(r"\s+", "", payload)
    payload += "=" * (-len(payload) % 4)
    try:
        if "-" in payload or "_" in payload:
            return base64.urlsafe_b64decode(payload)
        return base64.b64decode(payload, validate=True)
    except (binascii.Error, ValueError) as e:
        raise ImageError(f"image does not decode as base64 ({e})") from None


class Images:
    """Images of one conversion as record paths: embedded ones written once per content (the same
    picture recurs across splits and items), files referenced where they are."""

    def __init__(self, media: Media):
        self.media = media
        self.saved: dict[str, str] = {}  # content hash -> record path

    def save(self, data: bytes) -> str:
        digest = hashlib.sha256(data).hexdigest()[:24]
        if digest not in self.saved:
            try:
                with Image.open(io.BytesIO(data)) as im:
                    fmt = im.format
                    im.verify()
            except Exception as e:  # PIL raises many types for bytes that are not an image
                raise ImageError(f"decoded bytes are not an image ({type(e).__name__}: {e})") from None
            self.saved[digest] = self.media.save_bytes(f"{digest}.{_IMAGE_EXT.get(fmt or '', 'png')}", data)
        return self.saved[digest]

    def refs(self, value: Any, find: Callable[[str], Path | None], base64_text: bool = False) -> list[str]:
        """Record paths of one image or a list of them; empty entries are skipped.

        Each is an Image struct (its bytes, else its path), bytes, a data URL, bare base64 when
        `base64_text`, or a path located by `find` (None: not found).
        """
        out = []
        for item in value if isinstance(value, (list, tuple)) else [value]:
            if is_image_struct(item):
                item = item.get("bytes") or item.get("path")
            if is_empty(item):
                continue
            if isinstance(item, (bytes, bytearray)):
                out.append(self.save(bytes(item)))
            elif isinstance(item, str) and (base64_text or is_data_url(item)):
                out.append(self.save(decode_base64(item)))
            elif isinstance(item, str):
                found = find(item.strip())
                if found is None:
                    raise ImageError(f"image not found: {item.strip()}")
                out.append(self.media.ref(found))
            else:
                raise ImageError(f"expected an image (struct, bytes, data URL or path), got {type(item).__name__}")
        return out


def item_images(item: Item, name: str, images: Images, base: Path, find: Callable[[str], Path | None],
                **paths: Any) -> tuple[list[str], list[Path]]:
    """(record paths, files) of image field `name` of `item`; problems are reported on the item.

    A field holding paths only goes through ``Item.images`` (its messages, its checks; `paths` are its
    options) and its files are returned too; one holding embedded images goes through `images`.
    """
    key, value = item.get(name)
    if not embeds(value):
        files = item.images(name, base, find, **paths)
        return [images.media.ref(p) for p in files], files
    try:
        refs = images.refs(value, find)
    except ImageError as e:
        item.fail(key, str(e))
        return [], []
    if not refs and paths.get("required", True):
        item.fail(key, "no image")
    return refs, []
