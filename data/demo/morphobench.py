"""A procedural MorphoBench demo set, written like the Hugging Face release (parquet per split).

Layout (as ``OpenDCAI/MorphoBench`` on the Hub)::

    MorphoBench/
      Morpho_R_v0/train-00000-of-00001.parquet        6 items, no hints
      Morpho_R_Lite/train-00000-of-00001.parquet      the same items with helpful "- " hints
      Morpho_R_Complex/train-00000-of-00001.parquet   the same items with finer / misleading hints
      Morpho_P_v0/train-00000-of-00001.parquet        the 3 image items
      Morpho_P_Perturbed/train-00000-of-00001.parquet the 3 image items, key words obfuscated

Columns: ``index``, ``question``, ``hint``, ``answer``, ``image_base64`` (a ``data:image/png;base64``
URL of a PNG drawn here with Pillow, empty for text-only items), ``caption`` (the exact content of
the picture, for text-only models), ``discipline`` and the taxonomy (``task_type``: L1,
``knowledge``: L2, ``sub_task_types``: L3, abbreviations of the paper's Appendix A.1).

The items cover the answer kinds of the release: a "spot the different one" grid (``row=r, col=c``),
numeric answers, an MCQ with options printed in the question, and free text. Every answer is
computed from the same parameters that draw the picture, so it is exact. Deterministic: a fixed
seed, and Pillow writes the same PNG bytes for the same drawing.
"""
from __future__ import annotations

import base64
import io
import logging
import random
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
from PIL import Image, ImageDraw, ImageFont

log = logging.getLogger(__name__)

SEED = 4  # MorphoBench is paper 004
FILE = "train-00000-of-00001.parquet"


def _png_data_url(img: Image.Image) -> str:
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def _canvas(w: int, h: int, font_size: int = 11) -> tuple[Image.Image, ImageDraw.ImageDraw, ImageFont.ImageFont]:
    img = Image.new("RGB", (w, h), "white")
    try:  # a scalable default font needs Pillow >= 10.1 built with FreeType
        font = ImageFont.load_default(size=font_size)
    except (TypeError, ImportError, OSError):
        font = ImageFont.load_default()
    return img, ImageDraw.Draw(img), font


def grid_item(rng: random.Random) -> dict[str, Any]:
    """Spot the different one: a grid of one letter with a single look-alike."""
    rows, cols = 4, 6
    same, odd = rng.choice([("O", "Q"), ("E", "F"), ("P", "R")])
    r, c = rng.randint(1, rows), rng.randint(1, cols)
    img, draw, font = _canvas(40 * cols + 20, 40 * rows + 20, font_size=22)
    for i in range(rows):
        for j in range(cols):
            draw.text((18 + 40 * j, 14 + 40 * i), odd if (i + 1, j + 1) == (r, c) else same, fill="black", font=font)
    return {
        "question": (f"The image shows {rows} rows and {cols} columns of letters. All are the same except one. "
                     "Give its position as row={row}, col={col} (row 1 is the top, col 1 is the left)."),
        "answer": f"row={r}, col={c}",
        "image": img,
        "caption": (f"A grid of {rows} rows and {cols} columns of the letter {same}; "
                    f"the letter at row {r}, column {c} is {odd}."),
        "discipline": "Other",
        "task_type": "PERC", "knowledge": "CLO", "sub_task_types": "COUNT",
        "hints_lite": ["Compare each letter with its neighbours.", f"The different letter is a {odd}."],
        "hints_complex": ["Scan the grid row by row.", "Count rows from the top and columns from the left.",
                          "The odd letter may be in the first column."],
        "perturb": ("letters", "symb*ls"),
    }


def bar_item(rng: random.Random) -> dict[str, Any]:
    """A bar chart: the answer is the total of the bar heights."""
    names = ["A", "B", "C", "D"]
    values = [rng.randint(2, 9) for _ in names]
    img, draw, font = _canvas(260, 200)
    for k, (name, v) in enumerate(zip(names, values)):
        x = 30 + 55 * k
        draw.rectangle([x, 170 - 15 * v, x + 35, 170], fill="steelblue", outline="black")
        draw.text((x + 14, 176), name, fill="black", font=font)
        draw.text((x + 14, 156 - 15 * v), str(v), fill="black", font=font)
    return {
        "question": "The bar chart shows four bars labelled A to D. What is the sum of the heights of all bars?",
        "answer": str(sum(values)),
        "image": img,
        "caption": "A bar chart with bars " + ", ".join(f"{n} = {v}" for n, v in zip(names, values)) + ".",
        "discipline": "Mathematics",
        "task_type": "PERC", "knowledge": "CLO", "sub_task_types": "ARITH",
        "hints_lite": ["Read the number above each bar.", "Add the four numbers."],
        "hints_complex": ["Read each bar's height.", "Add them two at a time.",
                          "The tallest bar counts twice."],  # misleading (Complex may mislead)
        "perturb": ("sum of the heights", "s_m of the h*ights"),
    }


def shape_item(rng: random.Random) -> dict[str, Any]:
    """Which shape is drawn: an MCQ whose options are printed in the question."""
    options = ["circle", "triangle", "square", "pentagon"]
    k = rng.randrange(3)  # the pentagon is never drawn
    img, draw, _ = _canvas(160, 160)
    if k == 0:
        draw.ellipse([30, 30, 130, 130], outline="black", width=3)
    elif k == 1:
        draw.polygon([(80, 25), (135, 130), (25, 130)], outline="black", width=3)
    else:
        draw.rectangle([30, 30, 130, 130], outline="black", width=3)
    letters = "ABCD"
    return {
        "question": "Which shape is drawn in the image?\n" + "\n".join(f"{x}. {o}" for x, o in zip(letters, options)),
        "answer": letters[k],
        "image": img,
        "caption": f"A single black outline of a {options[k]} on a white background.",
        "discipline": "Mathematics",
        "task_type": "PERC", "knowledge": "HYB", "sub_task_types": "TAXO",
        "hints_lite": ["Count the corners of the shape.", f"It has {[0, 3, 4][k]} corners."],
        "hints_complex": ["Look at the outline.", "Shapes with equal sides can look alike."],
        "perturb": ("shape", "sh_pe"),
    }


def speed_item(rng: random.Random) -> dict[str, Any]:
    """A text-only numeric item."""
    hours = rng.choice([2, 3, 4])
    speed = rng.choice([30, 40, 50])
    return {
        "question": (f"A train travels {hours * speed} km in {hours} hours at constant speed. "
                     "What is its speed in km/h?"),
        "answer": str(speed),
        "discipline": "Natural Sciences",
        "task_type": "RSYN", "knowledge": "CLO", "sub_task_types": "ARITH",
        "hints_lite": ["Speed is distance divided by time."],
        "hints_complex": ["Write down the distance.", "Write down the time.", "Divide the distance by the time."],
    }


def resistor_item(rng: random.Random) -> dict[str, Any]:
    """Engineering: resistors in series, the total resistance."""
    r1, r2 = rng.randint(1, 9), rng.randint(1, 9)
    return {
        "question": (f"Two resistors of {r1} ohm and {r2} ohm are connected in series. "
                     "What is the total resistance in ohm?"),
        "answer": str(r1 + r2),
        "discipline": "Engineering",
        "task_type": "RSYN", "knowledge": "HYB", "sub_task_types": "FLOW",
        "hints_lite": ["In series, resistances add up."],
        "hints_complex": ["The same current flows through both.", "Voltages across them add.",
                          "Parallel resistors combine as 1/R = 1/R1 + 1/R2."],  # distracting
    }


def timeline_item(rng: random.Random) -> dict[str, Any]:
    """Social Sciences: an ordering question with a free-text answer."""
    events = [("the bridge was built", 1820), ("the school opened", 1850), ("the railway arrived", 1880)]
    shown = events[:]
    rng.shuffle(shown)
    text = "; ".join(f"{e} in {y}" for e, y in shown)
    return {
        "question": f"In a town, {text}. Which event happened first?",
        "answer": events[0][0],
        "discipline": "Social Sciences",
        "task_type": "RETR", "knowledge": "CLO", "sub_task_types": "TIME",
        "hints_lite": ["Compare the years.", "The smallest year is the earliest."],
        "hints_complex": ["Sort the events by year.", "Schools usually come before railways."],
    }


ITEMS = (grid_item, bar_item, shape_item, speed_item, resistor_item, timeline_item)


def _bullets(hints: list[str]) -> str:
    return "\n".join(f"- {h}" for h in hints)


def _row(index: int, item: dict[str, Any], question: str, hint: str) -> dict[str, Any]:
    img = item.get("image")
    return {
        "index": index,
        "question": question,
        "hint": hint,
        "answer": item["answer"],
        "image_base64": _png_data_url(img) if img is not None else "",
        "caption": item.get("caption", ""),
        "discipline": item["discipline"],
        "task_type": item["task_type"],
        "knowledge": item["knowledge"],
        "sub_task_types": item["sub_task_types"],
    }


def _write(folder: Path, rows: list[dict[str, Any]]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows), folder / FILE)


def generate(out_dir: Path) -> Path:
    """Write the demo release under `out_dir`; return the folder to pass as ``--src``."""
    rng = random.Random(SEED)
    items = [make(rng) for make in ITEMS]
    root = Path(out_dir) / "MorphoBench"
    n = len(items)
    splits = {
        "Morpho_R_v0": [_row(i, it, it["question"], "") for i, it in enumerate(items)],
        # Derived splits get their own indices, as the release's adaption scripts number them.
        "Morpho_R_Lite": [_row(n + i, it, it["question"], _bullets(it["hints_lite"])) for i, it in enumerate(items)],
        "Morpho_R_Complex": [_row(2 * n + i, it, it["question"], _bullets(it["hints_complex"]))
                             for i, it in enumerate(items)],
    }
    visual = [(i, it) for i, it in enumerate(items) if "image" in it]
    splits["Morpho_P_v0"] = [_row(i, it, it["question"], "") for i, it in visual]
    splits["Morpho_P_Perturbed"] = [
        _row(3 * n + i, it, it["question"].replace(*it["perturb"]), "") for i, it in visual
    ]
    for split, rows in splits.items():
        _write(root / split, rows)
        log.info("morphobench demo: %s: %d items", split, len(rows))
    return root
