"""Derived images for the papers' image-input ablations.

- `infer.text_image.text_on_image` — Think360°'s Image-Only (IO) setting (000, Appendix H "Image vs.
  Text"): the question text drawn next to the figure, so that the model receives a single image and no
  text (its layout and fonts are a module of their own).
- `composite` — OMIBench's information-equivalent single-image control (001, §6 "Cross-image
  reasoning remains the main bottleneck" and Appendix L): all images of a problem concatenated, in
  their original order, into one image; question text and choices stay unchanged.
- OMIBench's partial-image ablation (first image only) needs no image work: the renderer drops the
  other images.
- `save_derived` writes a derived image under a content-addressed name, so a request spec can refer
  to it like any other image (`infer.render`: {"type": "image_ref", "path", "sha"}) and the request
  key changes exactly when the pixels change.
- `fit_within` is the one resize policy: derived images are never rescaled by the functions here;
  a caller that must respect a server's pixel limit applies `fit_within` explicitly.

Neither paper publishes code or exact layout parameters for these images; every rule the papers leave
open is stated in the docstring of the function that applies it.
"""
from __future__ import annotations

import hashlib
import math
import os
import tempfile
from pathlib import Path

from PIL import Image

WHITE = (255, 255, 255)
BLACK = (0, 0, 0)

# Separator between concatenated images (our choice: 001 gives none, see `composite`).
COMPOSITE_GAP = 16



def open_rgb(path: Path) -> Image.Image:
    """Load an image as RGB; transparent pixels are composited onto white.

    White, not black, because benchmark figures are drawn on white paper and a transparent PNG
    diagram turned black (Pillow's plain `convert("RGB")` of RGBA drops alpha) would hide black ink.
    Pixels are taken as stored: no EXIF rotation, which is also what a server decoding the original
    file in the multi-image setting sees.
    """
    with Image.open(path) as im:
        im.load()
        return to_rgb(im)


def to_rgb(im: Image.Image) -> Image.Image:
    """Convert any mode (RGBA, LA, P with or without transparency, L, 1, CMYK …) to RGB on white."""
    if im.mode == "RGB":
        return im.copy()
    if im.mode in ("RGBA", "LA", "PA") or (im.mode == "P" and "transparency" in im.info) \
            or (im.mode in ("L", "RGB") and "transparency" in im.info):
        rgba = im.convert("RGBA")
        bg = Image.new("RGBA", rgba.size, WHITE + (255,))
        return Image.alpha_composite(bg, rgba).convert("RGB")
    if im.mode.startswith("I;16") or im.mode in ("I", "F"):
        # 16-bit / float greyscale: Pillow's direct conversion clips at 255; scale the range instead.
        lo, hi = im.convert("F").getextrema()
        scale = 255.0 / (hi - lo) if hi > lo else 0.0
        return im.convert("F").point(lambda v: (v - lo) * scale).convert("L").convert("RGB")
    return im.convert("RGB")


# ---------------------------------------------------------------------------------------------
# OMIBench information-equivalent single image
# ---------------------------------------------------------------------------------------------

def composite(image_paths: list[Path], gap: int = COMPOSITE_GAP) -> Image.Image:
    """OMIBench's information-equivalent single image: all images of a problem in one.

    Paper (001, §6 "Cross-image reasoning remains the main bottleneck", seed line 218, and Appendix L,
    seed line 1578): "all images are concatenated in their original logical order into a single
    composite image, while the question text and answer choices remain unchanged", so that "the total
    visual and textual information" is preserved. It gives no direction, spacing or labels; ours:

    - One strip, images in list order (a repeated path appears again at each of its positions).
      Direction: horizontal (left → right) or vertical (top → bottom), whichever canvas is closer to
      square (smaller max(W/H, H/W)); a tie goes to horizontal (reading order). Wide figures thus
      stack vertically and tall ones side by side, instead of a very long thin strip.
    - No image is resized or cropped ("information-equivalent": every pixel survives at its original
      scale). Images are aligned to the strip's start (top edge in a row, left edge in a column);
      the remaining area is white.
    - `gap` white pixels (default 16) between neighbours so the model can tell where one image ends;
      no "Image 1" labels, since they would add text the multi-image input does not contain.
    - Every image is converted to RGB on white (RGBA, LA, P, L, 16-bit …), see `to_rgb`.
    """
    if not image_paths:
        raise ValueError("composite needs at least one image")
    if gap < 0:
        raise ValueError(f"gap must be >= 0, got {gap}")
    images = [open_rgb(Path(p)) for p in image_paths]
    sizes = [im.size for im in images]
    horizontal = composite_is_horizontal(sizes, gap)
    if horizontal:
        canvas = Image.new("RGB", (sum(w for w, _ in sizes) + gap * (len(sizes) - 1), max(h for _, h in sizes)), WHITE)
    else:
        canvas = Image.new("RGB", (max(w for w, _ in sizes), sum(h for _, h in sizes) + gap * (len(sizes) - 1)), WHITE)
    offset = 0
    for im in images:
        canvas.paste(im, (offset, 0) if horizontal else (0, offset))
        offset += (im.width if horizontal else im.height) + gap
    return canvas


def composite_is_horizontal(sizes: list[tuple[int, int]], gap: int = COMPOSITE_GAP) -> bool:
    """The direction rule of `composite`: True → left to right, False → top to bottom."""
    n = len(sizes)
    row = (sum(w for w, _ in sizes) + gap * (n - 1), max(h for _, h in sizes))
    col = (max(w for w, _ in sizes), sum(h for _, h in sizes) + gap * (n - 1))

    def elongation(wh: tuple[int, int]) -> float:
        return max(wh[0] / wh[1], wh[1] / wh[0])

    return elongation(row) <= elongation(col)


# ---------------------------------------------------------------------------------------------
# Storage and resizing
# ---------------------------------------------------------------------------------------------

# Modes PNG stores natively; anything else is converted to RGB first so the file holds what is hashed.
_PNG_MODES = {"1", "L", "LA", "P", "RGB", "RGBA", "I;16", "I"}


def image_digest(img: Image.Image) -> str:
    """sha256 (first 16 hex digits, like `infer.render.file_sha`) of mode, size, palette and pixels.

    Hashing the decoded pixels rather than the PNG bytes makes the name independent of the encoder:
    the same picture gets the same name whatever zlib or Pillow version wrote it.
    """
    h = hashlib.sha256()
    h.update(f"{img.mode}\0{img.width}x{img.height}\0".encode())
    if img.mode == "P":
        h.update(bytes(img.getpalette() or []))
    if "transparency" in img.info:
        h.update(repr(img.info["transparency"]).encode())
    h.update(img.tobytes())
    return h.hexdigest()[:16]


def save_derived(img: Image.Image, cache_dir: Path) -> Path:
    """Write `img` as `<cache_dir>/<image_digest>.png` unless that file exists; return its path.

    Deterministic: the name comes from the pixels (`image_digest`), and the PNG is written with fixed
    settings and no metadata, so the same image gives the same name and the same bytes. The file is
    written to a temporary name in the same directory and moved into place with `os.replace`, so a
    killed run or a concurrent writer never leaves a half-written PNG under the final name.
    """
    if img.mode not in _PNG_MODES:
        img = to_rgb(img)
    # Keep only what PNG must store to show the same picture; dropping the rest (ICC profile, dpi,
    # text chunks copied from a source file) keeps the bytes a function of the hashed content.
    clean = img.copy()
    clean.info = {k: v for k, v in img.info.items() if k == "transparency"}
    cache_dir = Path(cache_dir)
    cache_dir.mkdir(parents=True, exist_ok=True)
    path = cache_dir / f"{image_digest(clean)}.png"
    if path.exists():
        return path
    fd, tmp = tempfile.mkstemp(dir=cache_dir, prefix=f".{path.stem}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            clean.save(f, format="PNG", optimize=False, compress_level=6)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    return path


def fit_within(img: Image.Image, max_pixels: int) -> Image.Image:
    """Downsize `img` so that width × height ≤ `max_pixels`; return it unchanged if it already fits.

    Policy: the papers feed images at their native size and leave resizing to each model's own
    preprocessor, so nothing in this module resizes on its own. A composite of many figures or a
    tall IO image can exceed an API's pixel limit, though; a caller that must respect such a limit
    calls this explicitly (and should record `max_pixels` in the run's settings, since it changes what
    the model sees). Aspect ratio is kept (both sides scaled by sqrt(max_pixels / (w·h)), rounded
    down, at least 1 px); LANCZOS resampling, the sharpest of Pillow's filters for downsizing text and
    line art. Palette and 1-bit images are converted to RGB first, since Pillow resamples those
    modes with NEAREST only.
    """
    if max_pixels < 1:
        raise ValueError(f"max_pixels must be >= 1, got {max_pixels}")
    w, h = img.size
    if w * h <= max_pixels:
        return img
    scale = math.sqrt(max_pixels / (w * h))
    nw, nh = max(1, math.floor(w * scale)), max(1, math.floor(h * scale))
    # Rounding down both sides keeps nw*nh <= max_pixels, except when a side is clamped to 1 px.
    while nw * nh > max_pixels and (nw > 1 or nh > 1):
        if nw >= nh:
            nw -= 1
        else:
            nh -= 1
    if img.mode in ("1", "P"):
        img = to_rgb(img)
    return img.resize((nw, nh), Image.Resampling.LANCZOS)
