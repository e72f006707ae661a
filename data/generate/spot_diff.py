"""``python -m data.generate spot_diff``: MORPHO-G "spot the different one" items (MorphoBench §3.3,
Appendix A.3 Fig. 8), written as MorphoBench's official format.

An item is an r × c grid of one character with a single different one at a uniform position. The
pair is drawn uniformly from the chosen similarity tier of `glyphs.ranked_pairs`, and which of the
two fills the grid is a coin toss. Difficulty grows with the grid (r, c) and with similarity (tier).
The answer is ``row=r, col=c``, 1-based from the top left, as the Fig. 8 prompt asks.

Every image is checked after it is encoded: the PNG is decoded again and cut into its cells, and
there must be exactly two different cell bitmaps, one of them in the answer's cell only, at least
D_MIN apart in ink.

Output: OUT/Morpho_G_spot_diff/<script>-<r>x<c>-<tier>-s<seed>.parquet, one row per item with the
converter's columns (``index``, ``question``, ``hint``, ``answer``, ``image_base64``, ``caption``,
``split``, ``discipline``, ``task``, taxonomy PERC-CLO-COMP) and the item's parameters: ``rows``,
``cols``, ``script``, ``similarity``, ``pair_rank``, ``pair_distance``, ``char_same``, ``char_odd``,
``font`` (file name), ``seed``.
"""
from __future__ import annotations

import io
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
from PIL import Image
from tqdm import tqdm

from data.generate.common import SPLIT_SPOT_DIFF, fill_template, item_rng, png_bytes, png_data_url, write_run
from data.generate.glyphs import CELL, D_MIN, TIERS, Pair, distance, font_for, glyph, ranked_pairs


TEMPLATE = "morpho_g_spot_diff"
MARGIN = 16
MAX_SIDE = 40
SCHEMA = pa.schema([
    ("index", pa.string()), ("question", pa.string()), ("hint", pa.string()), ("answer", pa.string()),
    ("image_base64", pa.string()), ("caption", pa.string()), ("split", pa.string()),
    ("discipline", pa.string()), ("task", pa.string()),
    ("task_type", pa.string()), ("knowledge", pa.string()), ("sub_task_types", pa.string()),
    ("rows", pa.int64()), ("cols", pa.int64()), ("script", pa.string()), ("similarity", pa.string()),
    ("pair_rank", pa.int64()), ("pair_distance", pa.float64()), ("char_same", pa.string()),
    ("char_odd", pa.string()), ("font", pa.string()), ("seed", pa.int64()),
])


class GridError(RuntimeError):
    pass


@dataclass(frozen=True)
class GridItem:
    rows: int
    cols: int
    pair: Pair
    same: str
    odd: str
    row: int  # 1-based
    col: int


def make_item(rng: random.Random, rows: int, cols: int, pairs: list[Pair]) -> GridItem:
    pair = rng.choice(pairs)
    same, odd = (pair.same, pair.odd) if rng.random() < 0.5 else (pair.odd, pair.same)
    return GridItem(rows, cols, pair, same, odd, rng.randint(1, rows), rng.randint(1, cols))


def draw(item: GridItem, font: Path) -> bytes:
    """The grid as a PNG: black characters on white, one per CELL × CELL cell."""
    ink = np.zeros((item.rows * CELL + 2 * MARGIN, item.cols * CELL + 2 * MARGIN))
    for r in range(item.rows):
        for c in range(item.cols):
            ch = item.odd if (r + 1, c + 1) == (item.row, item.col) else item.same
            y, x = MARGIN + r * CELL, MARGIN + c * CELL
            ink[y:y + CELL, x:x + CELL] = glyph(font, ch)
    return png_bytes(Image.fromarray(np.round(255 * (1 - ink)).astype(np.uint8)))


def check(item: GridItem, png: bytes) -> None:
    """The decoded image shows exactly the item: one odd cell, where the answer says, distinct enough."""
    pixels = np.asarray(Image.open(io.BytesIO(png)).convert("L"), dtype=np.float64)
    cells: dict[bytes, list[tuple[int, int]]] = {}
    content: dict[bytes, np.ndarray] = {}
    for r in range(item.rows):
        for c in range(item.cols):
            y, x = MARGIN + r * CELL, MARGIN + c * CELL
            cell = pixels[y:y + CELL, x:x + CELL]
            cells.setdefault(cell.tobytes(), []).append((r + 1, c + 1))
            content[cell.tobytes()] = 1 - cell / 255
    singles = [key for key, where in cells.items() if len(where) == 1]
    if len(cells) != 2 or len(singles) != 1 or cells[singles[0]] != [(item.row, item.col)]:
        raise GridError(f"the image does not show one odd cell at row {item.row}, col {item.col}")
    common, odd = (content[k] for k in sorted(cells, key=lambda k: len(cells[k]), reverse=True))
    if distance(common, odd) < D_MIN:
        raise GridError(f"{item.same!r} and {item.odd!r} are drawn almost alike")


def question(item: GridItem) -> str:
    return fill_template(TEMPLATE, {"rows": str(item.rows), "cols": str(item.cols)})


def caption(item: GridItem) -> str:
    # An exact caption of this picture names the odd cell: text-only runs are no test of perception.
    return (f"A grid of {item.rows} rows and {item.cols} columns of the character “{item.same}”; "
            f"the character at row {item.row}, column {item.col} is “{item.odd}”.")


def row(item: GridItem, index: str, png: bytes, script: str, font: Path, seed: int) -> dict[str, Any]:
    return {
        "index": index, "question": question(item), "hint": "", "answer": f"row={item.row}, col={item.col}",
        "image_base64": png_data_url(png), "caption": caption(item), "split": SPLIT_SPOT_DIFF,
        "discipline": "Other", "task": "spot_diff", "task_type": "PERC", "knowledge": "CLO", "sub_task_types": "COMP",
        "rows": item.rows, "cols": item.cols, "script": script, "similarity": item.pair.tier,
        "pair_rank": item.pair.rank, "pair_distance": item.pair.distance, "char_same": item.same,
        "char_odd": item.odd, "font": font.name, "seed": seed,
    }


def generate(out: Path, n: int, rows: int, cols: int, seed: int, similarity: str = "high",
             script: str = "latin", font: Path | None = None, progress: bool = True) -> Path:
    """Write N grids under OUT/Morpho_G_spot_diff/; return the parquet file."""
    if not (1 <= rows <= MAX_SIDE and 1 <= cols <= MAX_SIDE and rows * cols >= 3):
        raise ValueError(f"rows and cols must be 1–{MAX_SIDE} with at least 3 cells, got {rows} × {cols}")
    if similarity not in TIERS:
        raise ValueError(f"similarity must be one of {', '.join(TIERS)}, got {similarity!r}")
    font = font_for(script, font)
    pairs = [p for p in ranked_pairs(script, font) if p.tier == similarity]
    if not pairs:
        raise ValueError(f"no {script} pair of {similarity} similarity in {font.name}")
    run = f"{script}-{rows}x{cols}-{similarity}-s{seed}"
    rows_out = []
    for i in tqdm(range(n), desc=f"spot_diff {run}", unit="item", disable=not progress):
        item = make_item(item_rng("spot_diff", seed, run, i), rows, cols, pairs)
        png = draw(item, font)
        check(item, png)
        rows_out.append(row(item, f"{run}-{i:04d}", png, script, font, seed))
    return write_run(Path(out) / SPLIT_SPOT_DIFF, run, rows_out, SCHEMA)
