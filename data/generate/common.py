"""What both MORPHO-G generators share: seeded randomness, the quoted question templates, and
writing one run as MorphoBench's official format (a parquet file in a split folder), reproducibly.

Reproducible means byte for byte: every item draws from its own generator seeded by
(task, seed, run parameters, item number), so item i is the same whatever N is; PNGs carry no
software or date metadata; parquet files are written with a fixed schema by the pinned pyarrow;
numbers are formatted by the code, never by the default `repr`.
"""
from __future__ import annotations

import base64
import io
import logging
import random
import re
import shutil
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

log = logging.getLogger(__name__)

PROMPTS = Path(__file__).resolve().parents[2] / "prompts" / "morphobench"

# One split folder per generated task. The converter keeps these names from each row's `split`
# field (its paper splits are the R and P families; see data/README.md).
SPLIT_CIRCUITS = "Morpho_G_circuits"
SPLIT_SPOT_DIFF = "Morpho_G_spot_diff"

_COMMENT = re.compile(r"\{\{!.*?\}\}\n?", re.S)
_PLACEHOLDER = re.compile(r"\{\{(\w+)\}\}")


def item_rng(task: str, seed: int, run: str, i: int) -> random.Random:
    # A string seed is hashed with SHA-512 by `random`, independent of PYTHONHASHSEED.
    return random.Random(f"morpho-g/{task}/{seed}/{run}/{i}")


def fill_template(name: str, values: dict[str, str]) -> str:
    """`prompts/morphobench/<name>.txt` with its `{{! comments }}` removed and `{{key}}` filled in.

    One pass, so a value is never read for placeholders itself (netlists hold no braces, but a
    question text must not change with what a value happens to contain).
    """
    path = PROMPTS / f"{name}.txt"
    text = _COMMENT.sub("", path.read_text(encoding="utf-8"))
    wanted = set(_PLACEHOLDER.findall(text))
    if wanted != set(values):
        raise ValueError(f"{path}: placeholders {sorted(wanted)}, values given for {sorted(values)}")
    return _PLACEHOLDER.sub(lambda m: values[m.group(1)], text).strip("\n")


def png_data_url(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def fmt(x: float, digits: int = 9) -> str:
    """A float as text, the same on every run and platform (`g` format, no negative zero)."""
    text = f"{x:.{digits}g}"
    return "0" if text in ("-0", "0") else text


def write_run(split_dir: Path, run: str, rows: list[dict[str, Any]], schema: pa.Schema,
              item_files: dict[str, dict[str, bytes]] | None = None) -> Path:
    """Write `<split_dir>/<run>.parquet` and the items' files under `<split_dir>/<run>/<item>/`.

    Everything is written into a hidden staging folder first (the converter skips dot-folders) and
    moved into place at the end, replacing an earlier run of the same name: an interrupted run
    leaves the previous output intact and never a half-written one.
    """
    split_dir.mkdir(parents=True, exist_ok=True)
    stage = split_dir / f".{run}.partial"
    shutil.rmtree(stage, ignore_errors=True)
    stage.mkdir()
    try:
        table = pa.Table.from_pylist(rows, schema=schema)
        pq.write_table(table, stage / f"{run}.parquet")
        for item, files in (item_files or {}).items():
            folder = stage / run / item
            folder.mkdir(parents=True)
            for name, data in files.items():
                (folder / name).write_bytes(data)
        target_file, target_dir = split_dir / f"{run}.parquet", split_dir / run
        shutil.rmtree(target_dir, ignore_errors=True)
        if item_files:
            (stage / run).rename(target_dir)
        (stage / f"{run}.parquet").replace(target_file)
    finally:
        shutil.rmtree(stage, ignore_errors=True)
    log.info("%s: %d items", target_file, len(rows))
    return target_file


def png_bytes(image: Any) -> bytes:
    """A Pillow image as PNG bytes; Pillow writes no timestamp, so the bytes follow the pixels."""
    buf = io.BytesIO()
    image.save(buf, format="PNG", optimize=False)
    return buf.getvalue()
