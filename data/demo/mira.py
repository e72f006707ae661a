"""MIRA demo set, in the task-folder layout read by data/converters/mira.py (layout A)::

    <task folder>/<task folder>.jsonl    {uid, image_path, question, answer, caption, cot_captions, ...}
    <task folder>/image/<uid>.png        the input image
    <task folder>/cot/<stem>_<k>.png     visual-CoT images, found by the input image's stem

Seven tasks cover the four domains: Cubes Count and Convex Hull (EG), Mirror Clock (PBR), Trailer Cubes
Count (ASLP), Rolling Dice: Top, Rolling Dice: Two and Gear Rotation (CT). Answers are computed (convex
hull by monotone chain, dice by rolling a die model, mirror time by the rule in the paper's Mirror Clock
prompt), and short, as the ``<answer></answer>`` prompts expect. Rolling Dice: Two has the release's
two-part gold, ``answer1`` (red / black / same) and ``answer2`` (an integer), instead of ``answer``. Every item has 1-3 visual-CoT images; every image
has an exact caption. Convex Hull lists its CoT images explicitly (``cot_images``); the others rely on
the ``cot/<stem>_<k>`` naming. Gear Rotation asks two questions per image with uids ``k.1``/``k.2``,
as the release does. Generation is deterministic.
"""
from __future__ import annotations

import json
import logging
import math
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw, ImageFont

log = logging.getLogger(__name__)

Point = tuple[int, int]


def _font(size: int = 16) -> ImageFont.ImageFont:
    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # Pillow < 10.1
        return ImageFont.load_default()


def _canvas(w: int, h: int) -> tuple[Image.Image, ImageDraw.ImageDraw]:
    im = Image.new("RGB", (w, h), "white")
    return im, ImageDraw.Draw(im)


# ---------------------------------------------------------------- Cubes Count (EG)

def _cube_columns(heights: list[int], numbered: bool) -> Image.Image:
    s = 30
    im, d = _canvas(len(heights) * s + 40, max(heights) * s + 40)
    k = 0
    for c, h in enumerate(heights):
        for level in range(h):
            x, y = 20 + c * s, im.height - 20 - (level + 1) * s
            d.rectangle([x, y, x + s, y + s], fill=(200, 200, 230), outline="black", width=2)
            k += 1
            if numbered:
                d.text((x + s // 2, y + s // 2), str(k), fill="black", font=_font(14), anchor="mm")
    return im


def _cubes_count(heights: list[int]) -> dict[str, Any]:
    total = sum(heights)
    hs = ", ".join(map(str, heights))
    return {
        "question": "The image shows columns of stacked cubes seen from the front. How many cubes are there?",
        "answer": total,
        "image": _cube_columns(heights, numbered=False),
        "caption": f"Front view of {len(heights)} columns of stacked unit cubes; from left to right the "
                   f"columns are {hs} cubes high.",
        "cot": [(_cube_columns(heights, numbered=True),
                 f"The same columns with the cubes numbered 1 to {total}, column by column from the left, "
                 f"bottom to top within a column.")],
    }


# ---------------------------------------------------------------- Convex Hull (EG)

def convex_hull(points: list[Point]) -> list[Point]:
    """Hull vertices counter-clockwise (Andrew's monotone chain); collinear boundary points excluded."""
    pts = sorted(set(points))

    def cross(o: Point, a: Point, b: Point) -> int:
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    def half(seq: list[Point]) -> list[Point]:
        out: list[Point] = []
        for p in seq:
            while len(out) >= 2 and cross(out[-2], out[-1], p) <= 0:
                out.pop()
            out.append(p)
        return out

    lower, upper = half(pts), half(pts[::-1])
    return lower[:-1] + upper[:-1]


def _points_image(points: list[Point], hull: list[Point] | None) -> Image.Image:
    s, pad = 40, 30
    im, d = _canvas(4 * s + 2 * pad, 4 * s + 2 * pad)

    def xy(p: Point) -> tuple[int, int]:
        return pad + p[0] * s, pad + (4 - p[1]) * s  # y grows upwards, as on paper

    for k in range(5):
        d.line([xy((k, 0)), xy((k, 4))], fill=(220, 220, 220))
        d.line([xy((0, k)), xy((4, k))], fill=(220, 220, 220))
        d.text((xy((k, 0))[0], xy((k, 0))[1] + 14), str(k), fill="gray", font=_font(12), anchor="mm")
        d.text((xy((0, k))[0] - 14, xy((0, k))[1]), str(k), fill="gray", font=_font(12), anchor="mm")
    if hull:
        d.polygon([xy(p) for p in hull], outline="red", width=3)
    for p in points:
        x, y = xy(p)
        d.ellipse([x - 6, y - 6, x + 6, y + 6], fill="black")
    return im


def _fmt_points(points: list[Point]) -> str:
    return ", ".join(f"({x},{y})" for x, y in points)


def _convex_hull(points: list[Point]) -> dict[str, Any]:
    hull = convex_hull(points)
    return {
        "question": "How many of the points are vertices of their convex hull?",
        "answer": len(hull),
        "image": _points_image(points, None),
        "caption": f"{len(points)} black points on a grid with x and y from 0 to 4, at {_fmt_points(points)}.",
        "cot": [(_points_image(points, hull),
                 f"The same points with their convex hull drawn in red through {_fmt_points(hull)}.")],
    }


# ---------------------------------------------------------------- Mirror Clock (PBR)

def mirror_time(h: int, m: int) -> tuple[int, int]:
    """Real time of a clock whose mirror image reads h:m (the rule of the paper's Mirror Clock prompt)."""
    carry = 1 if m else 0
    hour = (12 - h - carry) % 12
    return hour or 12, (60 - m) % 60


def _clock(h: int, m: int) -> Image.Image:
    im, d = _canvas(160, 160)
    c, r = 80, 65
    d.ellipse([c - r, c - r, c + r, c + r], outline="black", width=3)
    for k in range(12):
        a = 2 * math.pi * k / 12
        inner = r - (14 if k == 0 else 8)
        d.line([c + inner * math.sin(a), c - inner * math.cos(a), c + r * math.sin(a), c - r * math.cos(a)],
               fill="black", width=4 if k == 0 else 2)
    for length, angle, width in ((35, (h % 12 + m / 60) * 30, 6), (55, m * 6, 3)):
        a = math.radians(angle)
        d.line([c, c, c + length * math.sin(a), c - length * math.cos(a)], fill="black", width=width)
    return im


def _mirror_clock(h: int, m: int, options: list[str]) -> dict[str, Any]:
    rh, rm = mirror_time(h, m)
    real = f"{rh}:{rm:02d}"
    assert real in options, (real, options)
    return {
        "question": "This clock is seen in a mirror. What time does it really show?",
        "choices": options,
        "answer": "ABCD"[options.index(real)],
        "image": _clock(h, m),
        "caption": f"A clock face without numbers, seen in a mirror (12 o'clock is the thick tick at the top). "
                   f"In the mirror image the hands point as they would at {h}:{m:02d}.",
        "cot": [(_clock(rh, rm), f"The clock reflected back left to right: the hands show {real}.")],
    }


# ---------------------------------------------------------------- Trailer Cubes Count (ASLP)

def _views(heights: list[list[int]]) -> tuple[list[list[bool]], list[int], list[int]]:
    top = [[h > 0 for h in row] for row in heights]
    front = [max(col) for col in zip(*heights)]  # per column, seen from the front
    side = [max(row) for row in heights]         # per row (back to front), seen from the side
    return top, front, side


def max_cubes(heights: list[list[int]]) -> int:
    """Most cubes consistent with the three views: each occupied column as tall as both views allow."""
    top, front, side = _views(heights)
    return sum(min(front[c], side[r]) for r, row in enumerate(top) for c, occ in enumerate(row) if occ)


def _three_views(heights: list[list[int]], fill: list[list[int]] | None = None) -> Image.Image:
    top, front, side = _views(heights)
    rows, cols, s = len(top), len(top[0]), 26
    im, d = _canvas(3 * (max(rows, cols, max(front), max(side)) * s + 40), 160)
    f = _font(12)

    def panel(x0: int, title: str, cells: list[tuple[int, int]], texts: dict[tuple[int, int], str]) -> None:
        d.text((x0, 10), title, fill="black", font=f)
        for cx, cy in cells:
            box = [x0 + cx * s, 30 + cy * s, x0 + (cx + 1) * s, 30 + (cy + 1) * s]
            d.rectangle(box, fill=(200, 230, 200), outline="black", width=2)
            if (cx, cy) in texts:
                d.text((box[0] + s // 2, box[1] + s // 2), texts[(cx, cy)], fill="black", font=f, anchor="mm")

    step = im.width // 3
    occupied = [(c, r) for r in range(rows) for c in range(cols) if top[r][c]]
    texts = {(c, r): str(fill[r][c]) for c, r in occupied} if fill else {}
    panel(10, "top", occupied, texts)
    hmax = max(max(front), max(side))
    panel(10 + step, "front", [(c, hmax - 1 - k) for c in range(cols) for k in range(front[c])], {})
    panel(10 + 2 * step, "side", [(r, hmax - 1 - k) for r in range(rows) for k in range(side[r])], {})
    return im


def _trailer_cubes_count(heights: list[list[int]]) -> dict[str, Any]:
    top, front, side = _views(heights)
    best = [[min(front[c], side[r]) if top[r][c] else 0 for c in range(len(front))] for r in range(len(side))]
    rows = "; ".join(f"row {r + 1}: " + ", ".join("occupied" if o else "empty" for o in row)
                     for r, row in enumerate(top))
    per_row = "; ".join(f"row {r + 1}: " + ", ".join(str(v) if top[r][c] else "-" for c, v in enumerate(row))
                        for r, row in enumerate(best))
    return {
        "question": "Based on the three views, what is the maximum number of cubes that could be present?",
        "answer": max_cubes(heights),
        "image": _three_views(heights),
        "caption": f"Three views of a stack of unit cubes. Top view, {len(top)} rows (row 1 at the back) by "
                   f"{len(front)} columns: {rows}. Front view column heights, left to right: "
                   f"{', '.join(map(str, front))}. Side view row heights, back to front: {', '.join(map(str, side))}.",
        "cot": [(_three_views(heights, best),
                 f"The top view with the tallest column each occupied cell allows written in it: {per_row}.")],
    }


# ---------------------------------------------------------------- Rolling Dice: Top (CT)

MOVES = {"east": (1, 0), "west": (-1, 0), "south": (0, 1), "north": (0, -1)}


def roll(state: tuple[int, int, int], move: str) -> tuple[int, int, int]:
    """(top, south face, east face) of a standard die (opposite faces sum to 7) after one roll."""
    top, south, east = state
    return {"east": (7 - east, south, top), "west": (east, south, 7 - top),
            "south": (7 - south, top, east), "north": (south, 7 - top, east)}[move]


def _dice_path(moves: list[str], shown: int | None, value: int, color: str = "black") -> Image.Image:
    """The path of cells, outlined in `color`; the die (with its top number) stands on cell `shown` (0 = start)."""
    cells = [(0, 0)]
    for mv in moves:
        dx, dy = MOVES[mv]
        cells.append((cells[-1][0] + dx, cells[-1][1] + dy))
    xs, ys = [c[0] for c in cells], [c[1] for c in cells]
    s = 44
    im, d = _canvas((max(xs) - min(xs) + 1) * s + 40, (max(ys) - min(ys) + 1) * s + 40)
    for k, (x, y) in enumerate(cells):
        box = [20 + (x - min(xs)) * s, 20 + (y - min(ys)) * s]
        box += [box[0] + s, box[1] + s]
        d.rectangle(box, outline=color, width=2, fill=(255, 240, 200) if k == shown else "white")
        if k == shown:
            d.rounded_rectangle([box[0] + 6, box[1] + 6, box[2] - 6, box[3] - 6], radius=5, outline="black", width=2)
            d.text(((box[0] + box[2]) // 2, (box[1] + box[3]) // 2), str(value), fill="black", font=_font(16),
                   anchor="mm")
        elif k == len(cells) - 1:
            d.text(((box[0] + box[2]) // 2, (box[1] + box[3]) // 2), "end", fill="gray", font=_font(11), anchor="mm")
    return im


def _rolling_dice_top(moves: list[str]) -> dict[str, Any]:
    state = (1, 2, 3)
    cot = []
    for k, mv in enumerate(moves, start=1):
        state = roll(state, mv)
        cot.append((_dice_path(moves, k, state[0]), f"After roll {k} ({mv}) the die shows {state[0]} on top."))
    return {
        "question": "The die rolls along the path, one square per roll. What number is on top at the end?",
        "answer": state[0],
        "image": _dice_path(moves, 0, 1),
        "caption": f"A standard die (opposite faces add up to 7) on the first square of a path of "
                   f"{len(moves) + 1} squares. It shows 1 on top, 2 facing south (down in the picture) and 3 "
                   f"facing east (right). It rolls {', then '.join(moves)}.",
        "cot": cot,
    }


# ---------------------------------------------------------------- Rolling Dice: Two (CT)

def _side_by_side(left: Image.Image, right: Image.Image) -> Image.Image:
    im, _ = _canvas(left.width + right.width + 20, max(left.height, right.height))
    im.paste(left, (0, 0))
    im.paste(right, (left.width + 20, 0))
    return im


def _rolling_dice_two(red: list[str], black: list[str]) -> dict[str, Any]:
    """Two dice, each starting as in Rolling Dice: Top, roll along a red and a black path: which shows the
    larger number on top at the end (red / black / same), and the sum of the two top numbers."""
    tops = {}
    for name, moves in (("red", red), ("black", black)):
        state = (1, 2, 3)
        for mv in moves:
            state = roll(state, mv)
        tops[name] = state[0]
    larger = "same" if tops["red"] == tops["black"] else max(tops, key=tops.get)
    return {
        "question": "The red die rolls along the red path and the black die along the black path, one square "
                    "per roll. At the end, which die shows the larger number on top: red, black, or same? "
                    "What is the sum of the two numbers on top? Give the colour and the sum.",
        "answer1": larger, "answer2": tops["red"] + tops["black"],
        "image": _side_by_side(_dice_path(red, 0, 1, "red"), _dice_path(black, 0, 1)),
        "caption": f"Two paths of squares, a red one on the left ({len(red) + 1} squares) and a black one on the "
                   f"right ({len(black) + 1} squares), each with a standard die (opposite faces add up to 7) on its "
                   f"first square showing 1 on top, 2 facing south (down in the picture) and 3 facing east "
                   f"(right). The red die rolls {', then '.join(red)}; the black die rolls {', then '.join(black)}.",
        "cot": [(_side_by_side(_dice_path(red, len(red), tops["red"], "red"),
                               _dice_path(black, len(black), tops["black"])),
                 f"Both dice on their last squares: the red die shows {tops['red']} on top, the black die "
                 f"{tops['black']}.")],
    }


# ---------------------------------------------------------------- Gear Rotation (CT)

def _gears(n: int, all_arrows: bool) -> Image.Image:
    r = 28
    im, d = _canvas(n * 2 * r + 40, 2 * r + 60)
    for k in range(n):
        cx, cy = 20 + r + 2 * r * k, 30 + r
        for t in range(10):  # teeth
            a = 2 * math.pi * t / 10
            d.line([cx + (r - 4) * math.cos(a), cy + (r - 4) * math.sin(a),
                    cx + (r + 3) * math.cos(a), cy + (r + 3) * math.sin(a)], fill="black", width=4)
        d.ellipse([cx - r + 4, cy - r + 4, cx + r - 4, cy + r - 4], outline="black", width=2, fill=(230, 230, 230))
        d.text((cx, cy), str(k + 1), fill="black", font=_font(14), anchor="mm")
        if k == 0 or all_arrows:
            clockwise = k % 2 == 0
            d.text((cx, 12), "CW" if clockwise else "CCW", fill="red", font=_font(12), anchor="mm")
    return im


def _gear_rotation(n: int) -> list[dict[str, Any]]:
    same = n % 2 == 1  # meshed gears alternate direction
    common = {
        "image": _gears(n, all_arrows=False),
        "caption": f"A row of {n} meshed gears numbered 1 to {n} from left to right; gear 1 carries the arrow "
                   f"label CW (clockwise).",
        "cot": [(_gears(n, all_arrows=True),
                 "Each gear turns opposite to its neighbour: odd-numbered gears turn like gear 1 (CW), "
                 "even-numbered gears the other way (CCW).")],
    }
    tail = "Does the last gear turn clockwise or counterclockwise? Answer 1 for clockwise, 2 for counterclockwise."
    return [
        {**common, "question": f"Gear 1 turns the way its arrow shows. {tail}", "answer": 1 if same else 2},
        {**common, "question": f"Gear 1 turns against its arrow. {tail}", "answer": 2 if same else 1},
    ]


# ---------------------------------------------------------------- writing the release

def _tasks() -> dict[str, list[dict[str, Any]]]:
    """Task folder -> items (each with image, caption, cot [(image, caption)], question, answer)."""
    return {
        "cubes_count": [_cubes_count(h) for h in ([3, 1, 2], [2, 2, 1, 3], [1, 4, 2])],
        "convex_hull": [_convex_hull(p) for p in (
            [(0, 0), (4, 0), (4, 3), (0, 3), (2, 1), (1, 2)],
            [(0, 1), (2, 0), (4, 1), (3, 3), (1, 3), (2, 2), (2, 1)],
        )],
        "mirror_clock": [
            _mirror_clock(2, 20, ["9:40", "2:20", "10:40", "3:40"]),
            _mirror_clock(4, 0, ["4:00", "8:00", "2:00", "10:00"]),
            _mirror_clock(10, 15, ["10:45", "2:45", "1:45", "1:15"]),
        ],
        "trailer_cubes_count": [_trailer_cubes_count(h) for h in ([[2, 1], [1, 0]], [[3, 1, 0], [1, 2, 1]])],
        "rolling_dice_top": [_rolling_dice_top(m) for m in (["east", "east", "south"], ["south", "east"], ["north"])],
        "rolling_dice_two": [_rolling_dice_two(r, b) for r, b in (
            (["east", "east", "south"], ["south", "east"]), (["north"], ["east"]), (["east", "south"], ["south"]),
        )],
        "gear_rotation": [_gear_rotation(3), _gear_rotation(4)],
    }


def generate(out_dir: Path) -> Path:
    """Write the demo release (one folder per task) into `out_dir`; return `out_dir`."""
    total = 0
    for task, items in _tasks().items():
        folder = out_dir / task
        (folder / "image").mkdir(parents=True, exist_ok=True)
        (folder / "cot").mkdir(parents=True, exist_ok=True)
        lines = []
        for k, item in enumerate(items, start=1):
            # Gear Rotation: two questions share one image, with uids k.1 and k.2 (as in the release).
            pairs = item if isinstance(item, list) else [item]
            first = pairs[0]
            first["image"].save(folder / "image" / f"{k}.png", format="PNG")
            cot_names = []
            for j, (im, _) in enumerate(first["cot"], start=1):
                # Convex Hull lists its CoT images explicitly, under names the stem rule would not find.
                name = f"hull_{k}_{j}.png" if task == "convex_hull" else f"{k}_{j}.png"
                im.save(folder / "cot" / name, format="PNG")
                cot_names.append(f"cot/{name}")
            for q, entry in enumerate(pairs, start=1):
                uid: int | float = float(f"{k}.{q}") if len(pairs) > 1 else k
                record = {"uid": uid, "image_path": f"image/{k}.png", "question": entry["question"]}
                for key in ("answer", "answer1", "answer2"):  # Rolling Dice: Two's gold is answer1 + answer2
                    if key in entry:
                        record[key] = entry[key]
                if "choices" in entry:
                    record["choices"] = entry["choices"]
                if task == "convex_hull":
                    record["cot_images"] = cot_names
                record["caption"] = entry["caption"]
                record["cot_captions"] = [caption for _, caption in entry["cot"]]
                lines.append(json.dumps(record, ensure_ascii=False))
        (folder / f"{task}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
        total += len(lines)
    log.info("mira demo: %d items in %s", total, out_dir)
    return out_dir
