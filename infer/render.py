"""Turn (record, template, input mode) into OpenAI chat messages.

Images go exactly where their `[IMAGEn]` tag stands — in the question or in an option — and untagged
images where the template says `{{images}}`. A request is first built as a *spec* in which an image
is a reference (path + content hash); the spec is what the request key hashes, so resuming a large
run reads each image once and never base64-encodes it. `to_wire` encodes images only when sending.
"""
from __future__ import annotations

import base64
import hashlib
import io
import mimetypes
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from data.files import file_version
from data.records import IMAGE_TAG, image_tags, letters
from infer.attachments import AttachmentError, files_block
from infer.layout import RESULTS, derived_dir
from infer.templates import Template

class RenderError(ValueError):
    """A record that cannot be turned into a prompt (missing image, caption, unreadable file)."""


def file_sha(path: Path) -> str:
    """Content hash of an image that opens: a missing or undecodable one is a RenderError, so the
    item is recorded as unrenderable when the run is planned, before anything is sent."""
    return _file_sha(path, file_version(path))


@lru_cache(maxsize=65536)
def _file_sha(path: Path, version: tuple[int, int] | None) -> str:
    from PIL import Image

    try:
        data = path.read_bytes()
        with Image.open(io.BytesIO(data)) as im:
            im.verify()
    except OSError as e:
        raise RenderError(f"image not readable: {path} ({e.strerror or e})") from e
    except Exception as e:  # PIL raises many types for corrupt or unsupported files
        raise RenderError(f"image cannot be decoded: {path} ({type(e).__name__}: {e})") from e
    return hashlib.sha256(data).hexdigest()[:16]


def template_values(rec: dict[str, Any], base: Path) -> dict[str, str]:
    """The text of every placeholder for one record (image tags still in place)."""
    n = len(rec["images"])
    used = set(image_tags(rec["question"]))
    for c in rec["choices"]:
        used.update(image_tags(c))
    untagged = [i for i in range(n) if i not in used]
    choices = "\n".join(f"{letter}. {c}" for letter, c in zip(letters(len(rec["choices"])), rec["choices"]))
    try:
        files = files_block([base / f for f in rec.get("files") or []])
    except AttachmentError as e:
        raise RenderError(str(e)) from e
    return {
        "question": rec["question"],
        "choices": choices,
        "images": "".join(f"[IMAGE{i}]" for i in untagged),
        "cot_images": "".join(f"[IMAGE{n + j}]" for j in range(len(rec.get("cot_images") or []))),
        "hints": "\n".join(f"- {h}" for h in rec.get("hints") or []),
        "files": files,
        "caption": "\n".join(c for c in rec.get("captions") or [] if c),
    }


# Image positions travel through the template as NUL-delimited markers, which no literal text can
# forge: a model response quoted in a judge prompt may say "[IMAGE0]" and stays text.
MARK = re.compile("\x00(\\d+)\x00")


def _mark(text: str) -> str:
    return IMAGE_TAG.sub(lambda m: f"\x00{m.group(1)}\x00", text)


DERIVED = derived_dir(RESULTS)


def _untag(text: str) -> str:
    return IMAGE_TAG.sub("", text)


def derive_images(rec: dict[str, Any], base: Path, mode: str, derived: Path | None = None) -> dict[str, Any]:
    """The record as a mode presents it: `composite` and `io` replace the images by one derived image."""
    if mode not in ("composite", "io") or not rec["images"]:
        return rec
    derived = derived or DERIVED
    from infer.images import composite, save_derived  # Pillow work only when needed
    from infer.text_image import text_on_image

    paths = [(base / p).resolve() for p in rec["images"]]
    for p in paths:
        file_sha(p)  # a clear RenderError for a missing image
    try:
        if mode == "composite":
            path = save_derived(composite(paths), derived / "composite")
            return {**rec, "images": [str(path)], "question": _untag(rec["question"]),
                    "choices": [_untag(c) for c in rec["choices"]]}
        # io: the question (and its options) drawn onto the image; only the prompt's own words stay text
        lettered = [f"{letter}. {_untag(c)}" for letter, c in zip(letters(len(rec["choices"])), rec["choices"])]
        text = "\n".join([_untag(rec["question"]).strip(), *lettered])
        source = paths[0] if len(paths) == 1 else save_derived(composite(paths), derived / "composite")
        path = save_derived(text_on_image(source, text), derived / "io")
    except OSError as e:
        raise RenderError(f"cannot derive the {mode} image: {e}") from e
    return {**rec, "images": [str(path)], "question": "", "choices": []}


@dataclass(frozen=True)
class Extra:
    """Placeholder values whose `[IMAGEn]` tags are images too (in-context demonstrations), numbered after
    the record's images and visual-CoT images: those images and their captions."""

    values: dict[str, str]
    images: list[str] = field(default_factory=list)
    captions: list[str | None] = field(default_factory=list)


def render_spec(rec: dict[str, Any], template: Template, base: Path, mode: str = "image",
                literal: dict[str, str] | None = None, extra: Extra | None = None,
                derived: Path | None = None) -> list[dict[str, Any]]:
    """Chat messages with images as {"type": "image_ref", "path", "sha"} parts (see module doc).

    `literal` adds placeholder values inserted verbatim (a judge's gold and response): image tags in
    them are plain text. `extra` adds values with images of their own. Derived images (IO, composite)
    are written under `derived` (the run's results/derived).
    """
    extra = extra or Extra({})
    extra_images, extra_captions = extra.images, extra.captions
    rec = derive_images(rec, base, mode, derived)
    n_own = len(rec["images"])
    values = {k: _mark(v) for k, v in {**template_values(rec, base), **extra.values}.items()}
    if "images" not in template.fields and values["images"]:
        values = {**values, "question": values["images"] + values["question"], "images": ""}
    values.update({k: v.replace("\x00", "") for k, v in (literal or {}).items()})
    text = template.render(values)
    all_images = list(rec["images"]) + list(rec.get("cot_images") or []) + list(extra_images)
    n_cot = len(rec.get("cot_images") or [])
    captions = (list(rec.get("captions") or [None] * n_own) + list(rec.get("cot_captions") or [None] * n_cot)
                + list(extra_captions or [None] * len(extra_images)))
    parts: list[dict[str, Any]] = []
    pos = 0
    for m in MARK.finditer(text):
        parts.append({"type": "text", "text": text[pos:m.start()]})
        pos = m.end()
        k = int(m.group(1))
        if k >= len(all_images):
            raise RenderError(f"[IMAGE{k}] but the record has {len(all_images)} image(s)")
        if mode == "text" or (mode == "first" and 0 < k < n_own):
            continue
        if mode != "caption":
            path = (base / all_images[k]).resolve()
            parts.append({"type": "image_ref", "path": str(path), "sha": file_sha(path)})
        if mode in ("caption", "icq"):
            caption = captions[k] if k < len(captions) else None
            if not caption:
                raise RenderError(f"image {k} has no caption (setting {mode!r} needs captions)")
            # A caption standing where an image block was (e.g. before "Question:") gets its own line.
            follows = text[m.end():m.end() + 1]
            sep = "\n" if follows and not follows.isspace() and follows not in ".,;:!?，。；：！？[" else ""
            parts.append({"type": "text", "text": f"[Image {k + 1}: {caption}]{sep}"})
    parts.append({"type": "text", "text": text[pos:]})
    return [{"role": "user", "content": _merge_text(parts)}]


def _merge_text(parts: list[dict[str, Any]]) -> str | list[dict[str, Any]]:
    merged: list[dict[str, Any]] = []
    for p in parts:
        if p["type"] == "text" and merged and merged[-1]["type"] == "text":
            merged[-1] = {"type": "text", "text": merged[-1]["text"] + p["text"]}
        elif p["type"] != "text" or p["text"]:
            merged.append(p)
    if all(p["type"] == "text" for p in merged):  # plain string: text-only servers expect it
        return "".join(p["text"] for p in merged).strip()
    # a message neither starts nor ends with blank space, also after a leading image (e.g. when the
    # question was drawn onto that image)
    lead = 1 if merged[0]["type"] != "text" and len(merged) > 1 else 0
    if merged[lead]["type"] == "text":
        merged[lead] = {"type": "text", "text": merged[lead]["text"].lstrip()}
    if merged[-1]["type"] == "text":
        merged[-1] = {"type": "text", "text": merged[-1]["text"].rstrip()}
    return [p for p in merged if p["type"] != "text" or p["text"]]


def has_images(messages: list[dict[str, Any]]) -> bool:
    return any(isinstance(m["content"], list) and any(p["type"] == "image_ref" for p in m["content"]) for m in messages)


# Resize policy: an image larger than `max_pixels` (width × height) is scaled down, keeping its
# aspect ratio, and sent as PNG; smaller images are sent byte for byte. The default, 4096 × 4096,
# touches only images no served model takes whole; model configs set their own (`max_image_pixels`).
DEFAULT_MAX_PIXELS = 4096 * 4096


def _data_url(path: str, max_pixels: int | None = DEFAULT_MAX_PIXELS) -> str:
    return _encoded(path, max_pixels, file_version(path))


def _image_url(path: str, max_pixels: int | None, as_files: bool) -> str:
    """A file:// URL where the server reads the file itself and no resize is needed, else a data URL."""
    if as_files and not _too_big(path, max_pixels, file_version(path)):
        return Path(path).resolve().as_uri()
    return _data_url(path, max_pixels)


@lru_cache(maxsize=4096)
def _too_big(path: str, max_pixels: int | None, version: tuple[int, int] | None) -> bool:
    from PIL import Image

    with Image.open(path) as im:  # reads the header only
        return max_pixels is not None and im.width * im.height > max_pixels


@lru_cache(maxsize=256)
def _encoded(path: str, max_pixels: int | None, version: tuple[int, int] | None) -> str:
    from PIL import Image

    with Image.open(path) as im:
        too_big = max_pixels is not None and im.width * im.height > max_pixels
        if too_big:
            from infer.images import fit_within

            buf = io.BytesIO()
            fit_within(im, max_pixels).save(buf, format="PNG")
            return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")
    mime = mimetypes.guess_type(path)[0] or "image/png"
    return f"data:{mime};base64," + base64.b64encode(Path(path).read_bytes()).decode("ascii")


def to_wire(messages: list[dict[str, Any]], max_pixels: int | None = DEFAULT_MAX_PIXELS,
            as_files: bool = False) -> list[dict[str, Any]]:
    """Replace image references by base64 data URLs, as the OpenAI chat API expects (`as_files`: by
    file:// URLs, for a server on this machine that may read the data folder)."""
    out = []
    for m in messages:
        if isinstance(m["content"], list):
            content = [
                {"type": "image_url", "image_url": {"url": _image_url(p["path"], max_pixels, as_files)}}
                if p["type"] == "image_ref" else p
                for p in m["content"]
            ]
            m = {**m, "content": content}
        out.append(m)
    return out
