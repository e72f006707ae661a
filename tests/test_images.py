"""Derived images: OMIBench composite, Think360 IO text-on-image, content-addressed saving, resizing."""
from pathlib import Path

import pytest
from PIL import Image, ImageChops

from infer.images import COMPOSITE_GAP, composite, composite_is_horizontal, fit_within, save_derived, to_rgb
from infer.text_image import MIN_PANEL, text_on_image

RED, GREEN, BLUE, WHITE = (255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 255)
QUESTION = ("In the figure, triangle ABC has AB = BC = 2. A circle with diameter BC meets AB at X "
            "and AC at Y. Find the length of XY.\nA. 1\nB. 2\nC. 3\nD. 4")


def solid(tmp_path: Path, name: str, size: tuple[int, int], color, mode: str = "RGB") -> Path:
    path = tmp_path / name
    Image.new(mode, size, color).save(path)
    return path


def pattern(tmp_path: Path, name: str, size: tuple[int, int]) -> Path:
    """An image with distinct pixels everywhere, so a shifted or rescaled paste cannot match."""
    w, h = size
    im = Image.new("RGB", size)
    im.putdata([((x * 7) % 256, (y * 11) % 256, (x + y) % 256) for y in range(h) for x in range(w)])
    path = tmp_path / name
    im.save(path)
    return path


def same_pixels(a: Image.Image, b: Image.Image) -> bool:
    return a.size == b.size and ImageChops.difference(a.convert("RGB"), b.convert("RGB")).getbbox() is None


def not_all_white(im: Image.Image) -> bool:
    return ImageChops.difference(im, Image.new("RGB", im.size, WHITE)).getbbox() is not None


# --- composite (OMIBench Appendix L) -------------------------------------------------------------

def test_composite_tall_images_go_side_by_side_in_order_with_repeats(tmp_path):
    r = solid(tmp_path, "r.png", (40, 100), RED)
    g = solid(tmp_path, "g.png", (30, 80), GREEN)
    b = solid(tmp_path, "b.png", (50, 90), BLUE)
    out = composite([r, g, r, b])  # r repeated: it must appear twice, at positions 0 and 2
    gap = COMPOSITE_GAP
    assert out.mode == "RGB"
    assert out.size == (40 + 30 + 40 + 50 + 3 * gap, 100)
    x = 0
    for width, height, color in [(40, 100, RED), (30, 80, GREEN), (40, 100, RED), (50, 90, BLUE)]:
        assert out.getpixel((x, 0)) == color and out.getpixel((x + width - 1, height - 1)) == color
        if height < 100:  # top-aligned: below a shorter image the strip is white
            assert out.getpixel((x, height)) == WHITE
        if x + width < out.width:  # the separator
            assert out.getpixel((x + width, 0)) == WHITE
            assert out.getpixel((x + width + gap - 1, 0)) == WHITE
        x += width + gap


def test_composite_wide_images_stack_vertically(tmp_path):
    r = solid(tmp_path, "r.png", (200, 50), RED)
    g = solid(tmp_path, "g.png", (150, 60), GREEN)
    out = composite([r, g])
    assert out.size == (200, 50 + COMPOSITE_GAP + 60)
    assert out.getpixel((0, 0)) == RED and out.getpixel((199, 49)) == RED
    assert out.getpixel((0, 50)) == WHITE  # separator
    assert out.getpixel((0, 50 + COMPOSITE_GAP)) == GREEN
    assert out.getpixel((149, 50 + COMPOSITE_GAP + 59)) == GREEN
    assert out.getpixel((150, 50 + COMPOSITE_GAP)) == WHITE  # left-aligned, the rest is white


def test_composite_keeps_pixels_unscaled(tmp_path):
    a = pattern(tmp_path, "a.png", (37, 61))
    b = pattern(tmp_path, "b.png", (23, 45))
    out = composite([a, b], gap=5)
    assert same_pixels(out.crop((0, 0, 37, 61)), Image.open(a))
    assert same_pixels(out.crop((42, 0, 42 + 23, 45)), Image.open(b))


def test_composite_direction_rule_and_tie():
    assert composite_is_horizontal([(10, 100), (10, 100)], gap=0)      # tall → row
    assert not composite_is_horizontal([(100, 10), (100, 10)], gap=0)  # wide → column
    assert composite_is_horizontal([(10, 10)] * 2, gap=0) is True      # 20×10 vs 10×20: tie → row


def test_composite_mixed_modes_on_white(tmp_path):
    rgba = tmp_path / "t.png"
    im = Image.new("RGBA", (20, 20), (0, 0, 0, 0))  # fully transparent black must become white
    im.paste((0, 0, 255, 255), (0, 0, 10, 20))
    im.save(rgba)
    gray = solid(tmp_path, "l.png", (20, 20), 0, mode="L")
    pal = tmp_path / "p.png"
    Image.new("RGB", (20, 20), GREEN).convert("P").save(pal)
    out = composite([rgba, gray, pal], gap=0)
    assert out.mode == "RGB" and out.size == (60, 20)
    assert out.getpixel((0, 0)) == BLUE and out.getpixel((15, 5)) == WHITE
    assert out.getpixel((25, 5)) == (0, 0, 0)
    assert out.getpixel((45, 5)) == GREEN


def test_composite_rejects_empty_and_reports_missing(tmp_path):
    with pytest.raises(ValueError):
        composite([])
    with pytest.raises(FileNotFoundError):
        composite([tmp_path / "missing.png"])


def test_to_rgb_palette_transparency_and_16bit():
    p = Image.new("P", (2, 1), 0)
    p.putpalette([0, 0, 0, 255, 0, 0] + [0] * 762)
    p.putpixel((1, 0), 1)
    p.info["transparency"] = 0
    rgb = to_rgb(p)
    assert (rgb.getpixel((0, 0)), rgb.getpixel((1, 0))) == (WHITE, RED)
    deep = Image.new("I;16", (2, 1))
    deep.putpixel((0, 0), 0)
    deep.putpixel((1, 0), 4000)
    rgb = to_rgb(deep)
    assert (rgb.getpixel((0, 0)), rgb.getpixel((1, 0))) == ((0, 0, 0), WHITE)  # range kept, not clipped


# --- IO: text on image (Think360 Appendix H) ----------------------------------------------------

def test_io_wide_image_text_below(tmp_path):
    src = pattern(tmp_path, "wide.png", (800, 300))
    out = text_on_image(src, QUESTION)
    assert out.mode == "RGB"
    assert out.width == 800 and out.height > 300  # panel below, as wide as the figure
    assert same_pixels(out.crop((0, 0, 800, 300)), Image.open(src))  # figure untouched at (0, 0)
    assert not_all_white(out.crop((0, 300, 800, out.height)))  # text drawn in the panel


def test_io_tall_image_text_beside(tmp_path):
    src = pattern(tmp_path, "tall.png", (200, 900))
    out = text_on_image(src, QUESTION)
    panel = max(900 - 200, 200, MIN_PANEL)
    assert out.size[0] == 200 + panel and out.height >= 900  # panel to the right, canvas ≈ square
    assert same_pixels(out.crop((0, 0, 200, 900)), Image.open(src))
    assert not_all_white(out.crop((200, 0, out.width, out.height)))
    if out.height > 900:  # below the figure nothing but white
        assert not not_all_white(out.crop((0, 900, 200, out.height)))


def test_io_small_image_gets_a_readable_panel_and_long_text_is_never_cut(tmp_path):
    src = solid(tmp_path, "small.png", (60, 40), RED)
    out = text_on_image(src, QUESTION * 5)
    assert out.width == MIN_PANEL and out.height > 40  # text below, panel widened to MIN_PANEL
    assert same_pixels(out.crop((0, 0, 60, 40)), Image.open(src))
    assert out.getpixel((60, 0)) == WHITE  # beside the small figure: white, not stretched
    # The last rows hold text only if the wrapped text ran that far; the bottom margin stays white.
    assert not not_all_white(out.crop((0, out.height - 5, out.width, out.height)))


def test_io_is_deterministic_and_depends_on_text(tmp_path):
    src = pattern(tmp_path, "sq.png", (300, 300))  # square counts as wide: text below
    a, b = text_on_image(src, QUESTION), text_on_image(src, QUESTION)
    assert a.width == 300 or a.width == MIN_PANEL
    assert same_pixels(a, b)
    assert not same_pixels(a, text_on_image(src, QUESTION + " Explain."))


def test_io_cjk_text_does_not_fail(tmp_path):
    src = solid(tmp_path, "w.png", (400, 200), BLUE)
    out = text_on_image(src, "如图，三角形ABC中 AB = BC = 2，求 XY 的长度。")
    assert not_all_white(out.crop((0, 200, out.width, out.height)))


# --- save_derived --------------------------------------------------------------------------------

def test_save_derived_deterministic_and_content_addressed(tmp_path):
    img = Image.new("RGB", (30, 20), RED)
    img.putpixel((3, 4), BLUE)
    p1 = save_derived(img, tmp_path / "cache")
    bytes1 = p1.read_bytes()
    p1.unlink()  # rewrite from scratch: the same bytes again
    p2 = save_derived(img.copy(), tmp_path / "cache")
    assert p1 == p2 and p2.read_bytes() == bytes1
    assert p2.suffix == ".png" and same_pixels(Image.open(p2), img)
    mtime = p2.stat().st_mtime_ns
    assert save_derived(img, tmp_path / "cache") == p2 and p2.stat().st_mtime_ns == mtime  # not rewritten
    other = img.copy()
    other.putpixel((0, 0), GREEN)
    assert save_derived(other, tmp_path / "cache") != p2
    # Same bytes, different size or mode → different names.
    assert save_derived(Image.new("RGB", (20, 30), RED), tmp_path / "cache") != \
        save_derived(Image.new("RGB", (30, 20), RED), tmp_path / "cache")
    assert save_derived(Image.new("L", (4, 4), 0), tmp_path / "cache") != \
        save_derived(Image.new("1", (4, 4), 0), tmp_path / "cache")
    assert not list((tmp_path / "cache").glob("*.tmp"))  # no temp file left behind


def test_save_derived_ignores_source_metadata(tmp_path):
    img = Image.new("RGB", (8, 8), GREEN)
    tagged = img.copy()
    tagged.info["dpi"] = (300, 300)
    a, b = save_derived(img, tmp_path / "a"), save_derived(tagged, tmp_path / "b")
    assert a.name == b.name and a.read_bytes() == b.read_bytes()


def test_save_derived_cmyk_is_stored_as_rgb(tmp_path):
    path = save_derived(Image.new("CMYK", (5, 5), (0, 255, 255, 0)), tmp_path)
    assert Image.open(path).mode == "RGB"


# --- fit_within ----------------------------------------------------------------------------------

def test_fit_within_downsizes_big_images_keeping_aspect():
    big = Image.new("RGB", (4000, 1000), RED)
    out = fit_within(big, 1_000_000)
    assert out.width * out.height <= 1_000_000
    assert out.size == (2000, 500)
    assert abs(out.width / out.height - 4.0) < 0.01
    odd = fit_within(Image.new("RGB", (1001, 777), RED), 100_000)
    assert odd.width * odd.height <= 100_000 and odd.width * odd.height > 99_000


def test_fit_within_leaves_small_images_alone():
    small = Image.new("RGB", (100, 100), RED)
    assert fit_within(small, 10_000) is small  # exactly at the limit: unchanged
    assert fit_within(small, 1_000_000) is small


def test_fit_within_palette_and_limits():
    p = Image.new("RGB", (400, 400), GREEN).convert("P")
    out = fit_within(p, 10_000)
    assert out.mode == "RGB" and out.size == (100, 100)
    assert fit_within(Image.new("RGB", (1000, 1), RED), 10).size == (10, 1)
    with pytest.raises(ValueError):
        fit_within(p, 0)
