"""Input tokens counted before anything is sent: text by a tokenizer, images by the model's `image_tokens` rule.

No tokenizer can be downloaded here, so text is counted with the one the project ships: the embedded model's
(SmolLM2's byte-level BPE, read from its GGUF file with llama.cpp, vocabulary only). The papers' models have
tokenizers of their own, so a count is an estimate of the same order. Without the file, text is counted as
infer/launch.py sizes a server's context: about 3 ASCII characters, or 1 other character, a token.
"""
from __future__ import annotations

import contextlib
import logging
import os
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterator

from PIL import Image

from infer.config import ConfigError, ModelConfig, load_model_config
from infer.cost_keys import ImageTokens
from infer.experiment_spec import DEMO_MODEL
from infer.launch import estimate_tokens, fill

log = logging.getLogger(__name__)
# What an image counts as where its model's config gives no `image_tokens`: a mid value among the papers'
# models (GPT-4o's 765 for a 1024² image, Gemini's 258 a tile, Qwen2.5-VL's ~1,300 for a 1000² image).
DEFAULT_IMAGE_TOKENS = ImageTokens(fixed=768)
PER_MESSAGE = 8  # chat-template tokens around each message (role, separators), as infer/launch.py counts


@contextlib.contextmanager
def _quiet_stderr() -> Iterator[None]:
    """llama.cpp writes warnings to file descriptor 2 even when asked not to: silenced while the vocabulary
    loads."""
    saved = os.dup(2)
    try:
        with open(os.devnull, "wb") as null:
            os.dup2(null.fileno(), 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


@lru_cache(maxsize=1)
def _vocab() -> Any:
    """The embedded model's tokenizer (its GGUF file, as its server command names it), or None."""
    try:
        cfg = load_model_config(DEMO_MODEL)
        command = cfg.server.command if cfg.server else []
        path = Path(fill(command[command.index("--model") + 1], {}))
        from llama_cpp import Llama
        with _quiet_stderr():
            return Llama(model_path=str(path), vocab_only=True, verbose=False)
    except (ConfigError, ValueError, OSError, ImportError, IndexError) as e:
        log.info("no tokenizer (%s): text counted by characters", e)
        return None


def tokenizer_name() -> str:
    """How text is counted, for the estimate's notes."""
    if _vocab() is not None:
        return "SmolLM2's tokenizer (the embedded model's GGUF, read with llama.cpp)"
    return "about 3 ASCII characters or 1 other character a token (no tokenizer file here)"


def text_tokens(text: str) -> int:
    vocab = _vocab()
    if vocab is None:
        return estimate_tokens(text)
    return len(vocab.tokenize(text.encode("utf-8"), add_bos=False, special=False)) if text else 0


@lru_cache(maxsize=65536)
def image_size(path: str, max_pixels: int | None) -> tuple[int, int]:
    """The image's size as sent: scaled down, aspect kept, when it has more than `max_pixels` (infer/render.py)."""
    with Image.open(path) as im:  # reads the header only
        w, h = im.size
    if max_pixels and w * h > max_pixels:
        scale = (max_pixels / (w * h)) ** 0.5
        w, h = max(1, int(w * scale)), max(1, int(h * scale))
    return w, h


def image_tokens(cfg: ModelConfig, sizes: list[tuple[int, int]]) -> int:
    rule = cfg.image_tokens or DEFAULT_IMAGE_TOKENS
    return sum(rule.count(w, h) for w, h in sizes)


def measure(messages: list[dict[str, Any]], max_pixels: int | None) -> tuple[int, list[tuple[int, int]]]:
    """The text tokens of rendered messages (images as image_ref parts) and the sizes of their images."""
    tokens, sizes = 0, []
    for m in messages:
        tokens += PER_MESSAGE
        parts = m["content"] if isinstance(m["content"], list) else [{"type": "text", "text": m["content"]}]
        for p in parts:
            if p["type"] == "text":
                tokens += text_tokens(p["text"])
            elif p["type"] == "image_ref":
                sizes.append(image_size(p["path"], max_pixels))
    return tokens, sizes
