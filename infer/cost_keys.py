"""The model-config keys that say what a model's requests cost: `price` (an API's list price), `image_tokens`
(what one image counts as input) and `throughput` (a self-hosted server's speed, for GPU-hours).

    price: {input: 2.5, output: 10.0, as_of: 2025-08-01, source: https://openai.com/api/pricing/}  # USD / 1M tokens
    image_tokens: 258                                   # a fixed count per image
    image_tokens: {tile: 512, base: 85, per_tile: 170, fit: 2048, short_side: 768}   # tiles (OpenAI high detail)
    image_tokens: {pixels_per_token: 784, max: 16384}   # by area (28×28 patches), capped
    throughput: {output_tokens_per_s: 1500, input_tokens_per_s: 15000}   # one server, batched

pipeline/cost.py turns them into an estimate; each is read here so a typo is an error like any other key.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

COST_KEYS = ("price", "image_tokens", "throughput")


@dataclass(frozen=True)
class Price:
    """USD per million tokens, with the date of the price list and where it is published."""

    input: float
    output: float
    as_of: str
    source: str

    def usd(self, input_tokens: float, output_tokens: float) -> float:
        return (input_tokens * self.input + output_tokens * self.output) / 1e6


@dataclass(frozen=True)
class ImageTokens:
    """What one image of width × height pixels counts as input. One of three rules:
    - `fixed`: the same count for every image;
    - tiles (`tile` set): scaled to fit a `fit` square, then its short side to `short_side` (either skipped
      when not given; never scaled up), then `base` + `per_tile` × the number of `tile`-pixel squares it spans;
    - area (`pixels_per_token` set): ⌈width × height / pixels_per_token⌉, between `min` and `max`."""

    fixed: int | None = None
    tile: int | None = None
    base: int = 0
    per_tile: int = 0
    fit: int | None = None
    short_side: int | None = None
    pixels_per_token: int | None = None
    min: int = 1
    max: int | None = None

    def count(self, width: int, height: int) -> int:
        if self.fixed is not None:
            return self.fixed
        if self.tile is not None:
            w, h = float(width), float(height)
            if self.fit and max(w, h) > self.fit:
                w, h = w * self.fit / max(w, h), h * self.fit / max(w, h)
            if self.short_side and min(w, h) > self.short_side:
                w, h = w * self.short_side / min(w, h), h * self.short_side / min(w, h)
            return self.base + self.per_tile * math.ceil(w / self.tile) * math.ceil(h / self.tile)
        tokens = max(self.min, math.ceil(width * height / self.pixels_per_token))
        return min(tokens, self.max) if self.max else tokens


@dataclass(frozen=True)
class Throughput:
    """Tokens per second one server of the model processes with requests batched: prompt and generated."""

    output_tokens_per_s: float
    input_tokens_per_s: float

    def hours(self, input_tokens: float, output_tokens: float) -> float:
        return (input_tokens / self.input_tokens_per_s + output_tokens / self.output_tokens_per_s) / 3600


def _number(value: Any, where: str, positive: bool = True) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0 or (positive and value == 0):
        raise ValueError(f"{where}: expected a {'positive' if positive else 'non-negative'} number, got {value!r}")
    return value


def _mapping(value: Any, where: str, required: set[str], allowed: set[str]) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ValueError(f"{where}: expected a mapping with {', '.join(sorted(required))}")
    if missing := required - set(value):
        raise ValueError(f"{where}: missing {', '.join(sorted(missing))}")
    if unknown := set(value) - allowed:
        raise ValueError(f"{where}: unknown key(s) {', '.join(sorted(unknown))} (known: {', '.join(sorted(allowed))})")
    return value


def parse_price(value: Any, where: str = "price") -> Price:
    v = _mapping(value, where, {"input", "output", "as_of", "source"}, {"input", "output", "as_of", "source"})
    for key in ("as_of", "source"):  # YAML reads 2025-08-01 as a date: kept as its text
        if not str(v[key]).strip():
            raise ValueError(f"{where}.{key}: expected the {'date of the price list' if key == 'as_of' else 'URL'}")
    return Price(_number(v["input"], f"{where}.input", False), _number(v["output"], f"{where}.output", False),
                 str(v["as_of"]), str(v["source"]))


def parse_image_tokens(value: Any, where: str = "image_tokens") -> ImageTokens:
    if isinstance(value, int) and not isinstance(value, bool):
        return ImageTokens(fixed=int(_number(value, where)))
    tiles, area = {"tile", "base", "per_tile", "fit", "short_side"}, {"pixels_per_token", "min", "max"}
    if isinstance(value, dict) and "tile" in value:
        v = _mapping(value, where, {"tile", "per_tile"}, tiles)
    elif isinstance(value, dict) and "pixels_per_token" in value:
        v = _mapping(value, where, {"pixels_per_token"}, area)
    else:
        raise ValueError(f"{where}: expected a count per image, {{tile, per_tile, base, fit, short_side}} or "
                         f"{{pixels_per_token, min, max}}, got {value!r}")
    for key, x in v.items():
        if isinstance(x, bool) or not isinstance(x, int) or x < (0 if key == "base" else 1):
            raise ValueError(f"{where}.{key}: expected a {'non-negative' if key == 'base' else 'positive'} integer, "
                             f"got {x!r}")
    return ImageTokens(**v)


def parse_throughput(value: Any, where: str = "throughput") -> Throughput:
    keys = {"output_tokens_per_s", "input_tokens_per_s"}
    v = _mapping(value, where, keys, keys)
    return Throughput(*(_number(v[k], f"{where}.{k}") for k in ("output_tokens_per_s", "input_tokens_per_s")))
