"""OMIBench demo set, written in the official release format (``test.jsonl`` + ``images/``).

Fifteen small multi-image problems drawn with Pillow (dots, grids, polygons, bar charts, labels),
each with its exact answer, a short solution and one exact caption per image, so a text-only model can
answer from the captions. The items deliberately exercise every quirk of the real release that the
converter must handle:

- MCQ and open answers; 2-6 images per item; images shared between items;
- an image as an option (``[IMAGE3]`` inside ``choice_list``) and MCQs with no tag in the question;
- tags out of order; a file name repeated within one record;
- multi-letter golds both as ``["CD"]`` and as ``["C", "A"]``;
- a ``has_inline_choices`` open item with a letter gold;
- ``known_issue``, ``img_category`` and an unknown field (``source``), which land in ``extra``;
- an open answer in words, which a response may give in other words.

Generation is deterministic: no randomness, fixed drawing parameters.
"""
from __future__ import annotations

import json
import logging
import math
import re
from pathlib import Path
from typing import Any, Callable

from PIL import Image, ImageDraw, ImageFont

log = logging.getLogger(__name__)

SIZE = 160
# Fixed dot positions on a 4x4 lattice, in the order they are filled (spread out, not row by row).
DOT_ORDER = [(0, 0), (2, 2), (1, 3), (3, 1), (0, 2), (2, 0), (3, 3), (1, 1),
             (0, 3), (3, 0), (1, 2), (2, 1), (0, 1), (1, 0), (2, 3), (3, 2)]
SHAPE_NAMES = {0: "circle", 3: "triangle", 4: "square", 5: "pentagon", 6: "hexagon"}


def _font(size: int = 22) -> ImageFont.ImageFont:
    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # Pillow < 10.1 has only the fixed bitmap font
        return ImageFont.load_default()


class Images:
    """Draws each distinct image once into images/ and remembers its caption."""

    def __init__(self, folder: Path):
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self.captions: dict[str, str] = {}

    def _save(self, name: str, im: Image.Image, caption: str) -> str:
        if name not in self.captions:
            im.save(self.folder / name, format="PNG")
            self.captions[name] = caption
        return name

    def dots(self, n: int) -> str:
        im = Image.new("RGB", (SIZE, SIZE), "white")
        d = ImageDraw.Draw(im)
        for col, row in DOT_ORDER[:n]:
            x, y = 25 + col * 37, 25 + row * 37
            d.ellipse([x - 9, y - 9, x + 9, y + 9], fill="black")
        return self._save(f"dots_{n}.png", im, f"{n} black dot{'s' if n != 1 else ''} on a white background.")

    def grid(self, rows: int, cols: int) -> str:
        im = Image.new("RGB", (SIZE, SIZE), "white")
        d = ImageDraw.Draw(im)
        cell = 120 // max(rows, cols)
        for r in range(rows + 1):
            d.line([20, 20 + r * cell, 20 + cols * cell, 20 + r * cell], fill="black", width=2)
        for c in range(cols + 1):
            d.line([20 + c * cell, 20, 20 + c * cell, 20 + rows * cell], fill="black", width=2)
        return self._save(f"grid_{rows}x{cols}.png", im,
                          f"A grid of {rows} rows and {cols} columns of square cells ({rows * cols} cells).")

    def shape(self, sides: int) -> str:
        im = Image.new("RGB", (SIZE, SIZE), "white")
        d = ImageDraw.Draw(im)
        if sides == 0:
            d.ellipse([30, 30, 130, 130], outline="black", width=3)
        else:
            pts = [(80 + 55 * math.sin(2 * math.pi * k / sides), 85 - 55 * math.cos(2 * math.pi * k / sides))
                   for k in range(sides)]
            d.polygon(pts, outline="black", width=3)
        name = SHAPE_NAMES[sides]
        caption = "A circle." if sides == 0 else f"A {'' if sides == 4 else 'regular '}{name} ({sides} sides)."
        return self._save(f"shape_{name}.png", im, caption)

    def label(self, text: str, caption: str) -> str:
        im = Image.new("RGB", (SIZE, 80), "white")
        d = ImageDraw.Draw(im)
        d.rectangle([2, 2, SIZE - 3, 77], outline="black", width=2)
        d.text((SIZE // 2, 40), text, fill="black", font=_font(24), anchor="mm")
        slug = re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")
        return self._save(f"label_{slug}.png", im, caption)

    def bars(self, heights: list[int], title: str) -> str:
        im = Image.new("RGB", (SIZE, SIZE), "white")
        d = ImageDraw.Draw(im)
        d.line([15, 140, 150, 140], fill="black", width=2)
        for i, h in enumerate(heights):
            x = 25 + i * 42
            d.rectangle([x, 140 - h * 20, x + 28, 140], fill="gray", outline="black")
            d.text((x + 14, 150), "ABC"[i], fill="black", font=_font(12), anchor="mm")
        d.text((80, 10), title, fill="black", font=_font(12), anchor="mm")
        parts = ", ".join(f"{'ABC'[i]} = {h}" for i, h in enumerate(heights))
        return self._save(f"bars_{'_'.join(map(str, heights))}.png", im,
                          f"A bar chart titled '{title}' with bars A, B and C of heights {parts}.")


def _items(img: Images) -> list[dict[str, Any]]:
    """The demo problems in release format (captions are filled in by the caller)."""
    items: list[dict[str, Any]] = []

    def add(**fields: Any) -> None:
        fields.setdefault("known_issue", None)
        fields.setdefault("source", "procedural demo")
        items.append(fields)

    add(subject="Mathematics", answer_type="open", img_category="dots",
        question="How many dots are there in [IMAGE0] and [IMAGE1] together?",
        image_list=[img.dots(3), img.dots(4)], answer=["7"],
        solution="[IMAGE0] has 3 dots and [IMAGE1] has 4, so 3 + 4 = 7.")
    # Tags out of order: [IMAGE1] is mentioned first.
    add(subject="Mathematics", answer_type="open", img_category="dots",
        question="How many more dots does [IMAGE1] have than [IMAGE0]?",
        image_list=[img.dots(2), img.dots(6)], answer=["4"],
        solution="[IMAGE1] has 6 dots and [IMAGE0] has 2, so 6 - 2 = 4.")
    # An image as an option: [IMAGE3] sits in choice_list.
    add(subject="Mathematics", answer_type="mcq", img_category="shapes",
        question="[IMAGE0] shows a polygon. Which option shows a polygon with exactly one more side?",
        image_list=[img.shape(4), img.shape(3), img.shape(6), img.shape(5), img.shape(0)],
        choice_list=["[IMAGE1]", "[IMAGE2]", "[IMAGE3]", "[IMAGE4]"], answer=["C"],
        solution="[IMAGE0] is a square (4 sides); the pentagon in [IMAGE3] (option C) has 5.")
    # MCQ whose question has no tag: the options are the images.
    add(subject="Mathematics", answer_type="mcq", img_category="grids",
        question="Which grid has the most cells?",
        image_list=[img.grid(2, 2), img.grid(3, 2), img.grid(2, 4)],
        choice_list=["[IMAGE0]", "[IMAGE1]", "[IMAGE2]"], answer=["C"],
        solution="The grids have 4, 6 and 8 cells; option C has the most.")
    # The same file twice in one record: both positions are kept.
    add(subject="Mathematics", answer_type="open", img_category="grids",
        question="[IMAGE0] and [IMAGE1] are two copies of the same grid. How many cells do they have in total?",
        image_list=[img.grid(3, 3), img.grid(3, 3)], answer=["18"],
        solution="Each 3 by 3 grid has 9 cells; 9 + 9 = 18.")
    # Multi-letter gold as one string.
    add(subject="Mathematics", answer_type="mcq", img_category="dots",
        question="Which of the options show an even number of dots? Choose all that apply.",
        image_list=[img.dots(3), img.dots(5), img.dots(2), img.dots(4)],
        choice_list=["[IMAGE0]", "[IMAGE1]", "[IMAGE2]", "[IMAGE3]"], answer=["CD"],
        solution="The options show 3, 5, 2 and 4 dots; 2 and 4 are even, so C and D.")
    # An answer in words: the same answer may be written in other words ("unchanged", "it does not change").
    add(subject="Physics", answer_type="open", img_category="labels",
        question="[IMAGE0] shows the reading of a spring balance holding a ball on the table, and [IMAGE1] its "
                 "reading after the ball is carried to a shelf. How does the reading change?",
        image_list=[img.label("5 N", "A label reading '5 N'."), img.label("5 N", "A label reading '5 N'.")],
        answer=["It stays the same"], solution="Both readings are 5 N: the weight of the ball does not change.")
    # Multi-letter gold as separate strings, out of order; tags inside text options.
    add(subject="Physics", answer_type="mcq", img_category="labels",
        question="[IMAGE0] and [IMAGE1] show two resistors. Which statements are true? Choose all that apply.",
        image_list=[img.label("R = 3 ohm", "A label reading 'R = 3 ohm'."),
                    img.label("R = 6 ohm", "A label reading 'R = 6 ohm'.")],
        choice_list=["In series their total resistance is 9 ohm.",
                     "In series their total resistance is 18 ohm.",
                     "The resistor in [IMAGE1] has twice the resistance of the one in [IMAGE0].",
                     "The resistor in [IMAGE0] has the larger resistance."],
        answer=["C", "A"],
        solution="Series resistances add: 3 + 6 = 9 ohm (A true, B false). 6 = 2 x 3 (C true, D false).")
    _more_items(add, img)
    return items


def _more_items(add: Callable[..., None], img: Images) -> None:
    """The rest of the demo problems: a physics item, chemistry, biology and the last mathematics items."""
    add(subject="Physics", answer_type="open", img_category="labels",
        question="An object moves at the speed shown in [IMAGE0] for the time shown in [IMAGE1]. "
                 "How far does it travel, in metres?",
        image_list=[img.label("v = 4 m/s", "A label reading 'v = 4 m/s'."),
                    img.label("t = 5 s", "A label reading 't = 5 s'.")],
        answer=["20"], solution="Distance = speed x time = 4 x 5 = 20 m.")
    add(subject="Chemistry", answer_type="open", img_category="labels",
        question="How many hydrogen atoms are there in total in the molecules [IMAGE0], [IMAGE1] and [IMAGE2]?",
        image_list=[img.label("CH4", "The formula CH4."), img.label("H2O", "The formula H2O."),
                    img.label("NH3", "The formula NH3.")],
        answer=["9"], solution="CH4 has 4, H2O has 2 and NH3 has 3 hydrogen atoms: 4 + 2 + 3 = 9.")
    # Options printed inside the question of an open item; the gold is a letter.
    add(subject="Chemistry", answer_type="open", img_category="labels", has_inline_choices=True,
        question="Which molecule has more atoms? (A) the one in [IMAGE0] (B) the one in [IMAGE1]",
        image_list=[img.label("CO2", "The formula CO2."), img.label("C2H6", "The formula C2H6.")],
        answer=["B"], solution="CO2 has 3 atoms and C2H6 has 2 + 6 = 8, so (B).")
    add(subject="Biology", answer_type="open", img_category="dots",
        question="A cell culture is photographed on day 1 [IMAGE0], day 2 [IMAGE1], day 3 [IMAGE2] and "
                 "day 4 [IMAGE3]; each dot is one cell. By how many cells does the count grow from day 1 to day 4?",
        image_list=[img.dots(1), img.dots(2), img.dots(4), img.dots(8)], answer=["7"],
        solution="The counts are 1, 2, 4 and 8 cells; 8 - 1 = 7.")
    add(subject="Biology", answer_type="mcq", img_category="charts",
        question="[IMAGE0] and [IMAGE1] show the heights (cm) of plants A, B and C in week 1 and week 2. "
                 "Which plant grew the most?",
        image_list=[img.bars([2, 3, 1], "week 1"), img.bars([4, 4, 5], "week 2")],
        choice_list=["Plant A", "Plant B", "Plant C"], answer=["C"],
        solution="Growth: A 4 - 2 = 2, B 4 - 3 = 1, C 5 - 1 = 4 cm; plant C grew the most.")
    add(subject="Mathematics", answer_type="open", img_category="shapes",
        question="[IMAGE0], [IMAGE1], [IMAGE2], [IMAGE3], [IMAGE4] and [IMAGE5] each show one polygon. "
                 "How many sides do they have in total?",
        image_list=[img.shape(3), img.shape(4), img.shape(5), img.shape(6), img.shape(3), img.shape(4)],
        answer=["25"], solution="3 + 4 + 5 + 6 + 3 + 4 = 25.")
    add(subject="Mathematics", answer_type="mcq", img_category="dots",
        question="Is the number of dots in [IMAGE2] equal to the number in [IMAGE0] plus the number in [IMAGE1]?",
        image_list=[img.dots(2), img.dots(3), img.dots(5)], choice_list=["Yes", "No"], answer=["A"],
        solution="2 + 3 = 5, the number of dots in [IMAGE2]; so yes (A).")


def generate(out_dir: Path) -> Path:
    """Write the demo release into `out_dir` (test.jsonl + images/); return the folder to convert."""
    out_dir.mkdir(parents=True, exist_ok=True)
    img = Images(out_dir / "images")
    lines = []
    for i, item in enumerate(_items(img), start=1):
        record = {"id": f"omi-demo-{i:02d}", **item}
        record["captions"] = [img.captions[name] for name in item["image_list"]]
        lines.append(json.dumps(record, ensure_ascii=False))
    (out_dir / "test.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    log.info("omibench demo: %d items, %d images in %s", len(lines), len(img.captions), out_dir)
    return out_dir
