"""Characters for "spot the different one", rendered in one font and ranked by visual similarity.

Similarity is measured on the glyphs exactly as the grid draws them: each character rendered alone
in a CELL × CELL cell at FONT_PX, on a common baseline and centred horizontally. The distance of two
characters is the ink that differs over the ink of both,

    d(a, b) = Σ |a − b| / (Σ a + Σ b)    (a, b: ink 0…1 per pixel)

0 for the same bitmap, 1 for glyphs with no ink in common. Pairs closer than D_MIN (hardly a pixel
apart, e.g. look-alikes drawn the same) are left out; the rest are ranked from the most similar
(rank 1) and fall into three tiers by distance: high similarity (d < 0.25: less than a quarter of the
ink differs, e.g. O/Q, h/n, b/p), medium (0.25 ≤ d < 0.5) and low (d ≥ 0.5). Fixed bounds rather
than quantiles, so a tier means the same for Latin letters and for Chinese characters.

Latin letters use DejaVu Sans from matplotlib's own data (always installed, so rankings and images
are the same everywhere). Chinese characters need a font with CJK glyphs, which neither matplotlib
nor the base system ships: one is looked up with fontconfig, or named with ``--font``.
"""
from __future__ import annotations

import functools
import itertools
import shutil
import string
import subprocess
from dataclasses import dataclass
from pathlib import Path

import matplotlib
import numpy as np
from matplotlib.ft2font import FT2Font
from PIL import Image, ImageDraw, ImageFont

CELL = 44
FONT_PX = 32
BASELINE = 34  # y of the baseline inside a cell: room for descenders (g, p, y) and CJK bottoms
D_MIN = 0.02
TIERS = {"high": (D_MIN, 0.25), "medium": (0.25, 0.5), "low": (0.5, 1.01)}  # [lower, upper) distance

LATIN = string.ascii_uppercase + string.ascii_lowercase
# Chinese characters often confused for one another (the pairs within a group are the usual
# suspects; every pair of the set is ranked the same way as the Latin ones).
CJK = ("己已巳 未末 土士 日曰 人入八 大太犬天夭 王玉主 千干于 田由甲申 刀力 贝见 免兔 戊戌戍 "
       "拔拨 候侯 崇祟 盲肓 汩汨 鸟乌 木本术 白自 问间 今令 亨享 办为 即既 辨辩辫 喝渴 "
       "析折 狠狼 侍待 晴睛 姆拇 苹萍 历厉 毫毛 傅博 茶荼 兵乒乓 车东 准淮")
CJK_CHARS = "".join(dict.fromkeys(CJK.replace(" ", "")))  # in order, each once
SCRIPTS = ("latin", "cjk")


class FontError(RuntimeError):
    pass


@dataclass(frozen=True)
class Pair:
    rank: int        # 1 = the most similar pair
    tier: str
    same: str
    odd: str
    distance: float


def latin_font() -> Path:
    return Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSans.ttf"


def covers(font: Path, chars: str) -> bool:
    """Whether the font (the first face of a collection) has a glyph for every character."""
    try:
        charmap = FT2Font(str(font)).get_charmap()
    except (OSError, RuntimeError, ValueError):
        return False
    return all(ord(ch) in charmap for ch in chars)


def cjk_font() -> Path:
    """A system font covering every character of CJK_CHARS, found through fontconfig."""
    if shutil.which("fc-list"):
        out = subprocess.run(["fc-list", ":lang=zh", "file"], capture_output=True, text=True).stdout
        for line in sorted(out.splitlines()):
            path = Path(line.split(":")[0].strip())
            if path.is_file() and covers(path, CJK_CHARS):
                return path
    raise FontError("no font with the Chinese characters is installed: install one (Debian: "
                    "apt-get install fonts-wqy-microhei, or fonts-noto-cjk) or pass --font PATH")


def font_for(script: str, font: Path | None = None) -> Path:
    chars = LATIN if script == "latin" else CJK_CHARS
    path = font or (latin_font() if script == "latin" else cjk_font())
    if not covers(path, chars):
        raise FontError(f"{path}: lacks glyphs for some {script} characters")
    return path


@functools.lru_cache(maxsize=None)
def glyph(font: Path, ch: str) -> np.ndarray:
    """The character's ink (0…1) in one cell, as the grid draws it."""
    img = Image.new("L", (CELL, CELL), 0)
    ImageDraw.Draw(img).text((CELL // 2, BASELINE), ch, fill=255, anchor="ms",
                             font=ImageFont.truetype(str(font), FONT_PX))
    return np.asarray(img, dtype=np.float64) / 255.0


def distance(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.abs(a - b).sum() / (a.sum() + b.sum()))


@functools.lru_cache(maxsize=None)
def ranked_pairs(script: str, font: Path) -> tuple[Pair, ...]:
    """Every pair of the script's characters, most similar first, with its tier."""
    chars = LATIN if script == "latin" else CJK_CHARS
    scored = sorted((distance(glyph(font, x), glyph(font, y)), x, y) for x, y in itertools.combinations(chars, 2))
    kept = [s for s in scored if s[0] >= D_MIN]
    return tuple(Pair(k + 1, tier_of(d), x, y, round(d, 6)) for k, (d, x, y) in enumerate(kept))


def tier_of(d: float) -> str:
    return next(name for name, (lo, hi) in TIERS.items() if lo <= d < hi)
