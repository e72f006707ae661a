"""Think360° demo set, in the release format read by data/converters/think360.py.

One JSON array (``think360_demo.json``) next to an ``images/`` folder. Every item is a single-image,
width-centric puzzle whose answer is computed, not typed: shortest lattice paths in a grid, rectangles
in a grid, shadings of a row with no two neighbours shaded, coin placement, a Latin-square row, a
chessboard colour, prime digits, and a path-count formula. Each item carries the paper's taxonomy:
difficulty tier (all five are used), answer type (all five kinds), cognitive skills (a list), question
types (a list) and an exact caption that states everything the question needs.

Generation is deterministic.
"""
from __future__ import annotations

import json
import logging
from math import comb
from pathlib import Path
from typing import Any, Callable

from PIL import Image, ImageDraw, ImageFont

log = logging.getLogger(__name__)

CELL = 40


def _font(size: int = 18) -> ImageFont.ImageFont:
    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # Pillow < 10.1
        return ImageFont.load_default()


def _grid(rows: int, cols: int, marks: dict[tuple[int, int], str] | None = None,
          corners: bool = False, width_label: str | None = None) -> Image.Image:
    """A rows x cols grid of square cells, optional text in cells, S/E corner marks, a width label."""
    pad = 30
    im = Image.new("RGB", (cols * CELL + 2 * pad, rows * CELL + 2 * pad), "white")
    d = ImageDraw.Draw(im)
    for r in range(rows + 1):
        d.line([pad, pad + r * CELL, pad + cols * CELL, pad + r * CELL], fill="black", width=2)
    for c in range(cols + 1):
        d.line([pad + c * CELL, pad, pad + c * CELL, pad + rows * CELL], fill="black", width=2)
    for (r, c), text in (marks or {}).items():
        centre = (pad + c * CELL + CELL // 2, pad + r * CELL + CELL // 2)
        if text == "#":
            d.rectangle([pad + c * CELL + 2, pad + r * CELL + 2, pad + (c + 1) * CELL - 2, pad + (r + 1) * CELL - 2],
                        fill="black")
        elif text == "o":
            d.ellipse([centre[0] - 12, centre[1] - 12, centre[0] + 12, centre[1] + 12], outline="black", width=3)
        else:
            d.text(centre, text, fill="black", font=_font(), anchor="mm")
    if corners:
        d.text((pad - 12, pad - 12), "S", fill="blue", font=_font(), anchor="mm")
        d.text((pad + cols * CELL + 12, pad + rows * CELL + 12), "E", fill="red", font=_font(), anchor="mm")
    if width_label:
        d.text((pad + cols * CELL // 2, pad + rows * CELL + 15), width_label, fill="black", font=_font(), anchor="mm")
    return im


def _no_adjacent_shadings(n: int) -> int:
    """Subsets of a row of n cells with no two neighbours, by brute force (the reference answer)."""
    return sum(1 for mask in range(1 << n) if not mask & (mask >> 1))


def _items() -> list[tuple[dict[str, Any], Image.Image]]:
    items: list[tuple[dict[str, Any], Image.Image]] = []

    def add(image: Image.Image, **fields: Any) -> None:
        items.append((fields, image))

    paths_q = ("Moving only right or down along the grid lines, how many shortest paths go from corner S "
               "to corner E?")
    for (rows, cols), tier in zip([(1, 2), (2, 2), (2, 3), (3, 3)], ["Easy", "Basic", "Medium", "Hard"]):
        add(_grid(rows, cols, corners=True), id=f"paths-{rows}x{cols}", question=paths_q,
            answer=str(comb(rows + cols, rows)), difficulty=tier, answer_type="Numerical",
            skills=["Divide-and-Conquer", "Trial-and-Error"], question_type=["Combinatorics"],
            caption=f"A grid of unit squares {rows} high and {cols} wide. Corner S is the top-left corner "
                    f"and corner E is the bottom-right corner.",
            solution=f"Each path makes {cols} right and {rows} down moves: C({rows + cols}, {rows}) = "
                     f"{comb(rows + cols, rows)}.")

    rect_q = "How many rectangles (squares included) can be traced along the lines of this grid?"
    for (rows, cols), tier in zip([(1, 3), (2, 2), (2, 3)], ["Easy", "Basic", "Medium"]):
        n = comb(rows + 1, 2) * comb(cols + 1, 2)
        add(_grid(rows, cols), id=f"rects-{rows}x{cols}", question=rect_q, answer=str(n), difficulty=tier,
            answer_type="Numerical", skills=["Divide-and-Conquer", "Perceive-and-Comprehend"],
            question_type=["Combinatorics", "Geometry"],
            caption=f"A grid of unit squares {rows} high and {cols} wide, with all grid lines drawn.",
            solution=f"Choose 2 of the {rows + 1} horizontal and 2 of the {cols + 1} vertical lines: "
                     f"{comb(rows + 1, 2)} x {comb(cols + 1, 2)} = {n}.")

    shade_q = ("In how many ways can you shade some of the cells (possibly none) so that no two shaded cells "
               "share a side?")
    for n, tier in [(4, "Medium"), (6, "Hard")]:
        add(_grid(1, n), id=f"shade-row-{n}", question=shade_q, answer=str(_no_adjacent_shadings(n)),
            difficulty=tier, answer_type="Numerical", skills=["Branch-and-Bound", "Hypothesize-and-Test"],
            question_type=["Combinatorics", "Logic"], caption=f"A single row of {n} empty square cells.",
            solution="Let a(n) count the shadings; a(n) = a(n-1) + a(n-2) (last cell blank or shaded), "
                     f"a(1) = 2, a(2) = 3, so a({n}) = {_no_adjacent_shadings(n)}.")

    add(_grid(1, 5, marks={(0, 0): "o", (0, 2): "o"}), id="coins-row-5",
        question="The cells are numbered 1 to 5 from left to right. Add one coin to an empty cell so that no "
                 "two coins are in cells that share a side. Which cell can take it?",
        options=["cell 2", "cell 4", "cell 5"], answer="C", difficulty="Easy", answer_type="Multiple-choice",
        skills=["Trial-and-Error"], question_type=["Logic"],
        caption="A row of 5 square cells. Counting from the left, cells 1 and 3 hold a coin (a circle); "
                "cells 2, 4 and 5 are empty.",
        solution="Cell 2 touches cells 1 and 3, cell 4 touches cell 3; only cell 5 (C) is free.")

    _more_items(add)
    return items


def _more_items(add: Callable[..., None]) -> None:
    """The demo problems on small boards: a Latin square, paths on a 2 × n grid, a chessboard, prime digits."""
    latin = {(0, 0): "1", (0, 1): "2", (0, 2): "3", (1, 0): "2", (1, 1): "3", (1, 2): "1"}
    add(_grid(3, 3, marks=latin), id="latin-3",
        question="Fill the empty bottom row so that every row and every column contains 1, 2 and 3 exactly once. "
                 "Give the bottom row from left to right.",
        answer="3, 1, 2", difficulty="Medium", answer_type="Structure",
        skills=["Hypothesize-and-Test", "Branch-and-Bound"], question_type=["Logic"],
        caption="A 3 by 3 grid. Top row: 1, 2, 3. Middle row: 2, 3, 1. Bottom row: three empty cells.",
        solution="Each column misses one number: column 1 misses 3, column 2 misses 1, column 3 misses 2.")

    add(_grid(2, 5, corners=True, width_label="n"), id="paths-2xn",
        question="For a grid 2 squares high and n squares wide, how many shortest paths along the grid lines go "
                 "from S to E? Answer with a formula in n.",
        answer="(n+1)(n+2)/2", difficulty="Olympiad", answer_type="Formula",
        skills=["Divide-and-Conquer", "Hypothesize-and-Test"], question_type=["Combinatorics", "Algebra"],
        caption="A grid of unit squares 2 high; its width is labelled n. Corner S is the top-left corner and "
                "corner E is the bottom-right corner.",
        solution="Choose where the 2 down moves go among n + 2 moves: C(n+2, 2) = (n+1)(n+2)/2.")

    board = {(0, 0): "#", (1, 1): "#"}
    add(_grid(2, 2, marks=board), id="chess-2x2",
        question="The cells are coloured like a chessboard. What colour is the bottom-right cell?",
        answer="black", difficulty="Easy", answer_type="Others", skills=["Perceive-and-Comprehend"],
        question_type=["Logic"],
        caption="A 2 by 2 grid coloured like a chessboard: the top-left cell is black, the top-right and "
                "bottom-left cells are white, the bottom-right cell is black.",
        solution="Diagonal cells of a chessboard share a colour: black.")

    digits = {(r, c): str(3 * r + c + 1) for r in range(3) for c in range(3)}
    add(_grid(3, 3, marks=digits), id="prime-digits",
        question="What is the sum of the prime numbers written in the grid?",
        answer="17", difficulty="Basic", answer_type="Numerical", skills=["Perceive-and-Comprehend"],
        question_type=["Number Theory"],
        caption="A 3 by 3 grid holding the digits 1 to 9: top row 1, 2, 3; middle row 4, 5, 6; bottom row 7, 8, 9.",
        solution="The primes are 2, 3, 5 and 7: 2 + 3 + 5 + 7 = 17.")


def generate(out_dir: Path) -> Path:
    """Write ``think360_demo.json`` and ``images/`` into `out_dir`; return the folder to convert."""
    (out_dir / "images").mkdir(parents=True, exist_ok=True)
    records = []
    for fields, image in _items():
        rel = f"images/{fields['id']}.png"
        image.save(out_dir / rel, format="PNG")
        # Key order as a release would have it: identity, content, then taxonomy.
        records.append({"id": fields.pop("id"), "question": fields.pop("question"), "image_path": rel,
                        **fields, "source": "procedural demo"})
    (out_dir / "think360_demo.json").write_text(json.dumps(records, ensure_ascii=False, indent=2) + "\n",
                                                encoding="utf-8")
    log.info("think360 demo: %d items in %s", len(records), out_dir)
    return out_dir
