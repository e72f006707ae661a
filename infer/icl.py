"""In-context demonstrations (OMIBench H.4): chosen once, shared by every ICL condition, never scored.

A seeded pool of items is set aside as demonstrations and left out of the run (and so of every
metric); each test item draws its k demonstrations from the pool with a seed of its own, so the
No-Image, Single-Image and Multi-Image conditions show the same demonstrations and differ only in
their images.
"""
from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from data.records import IMAGE_TAG, image_tags, letters
from infer.templates import Template

SEED = 0
POOL_SIZE = 20  # items set aside as demonstrations (and excluded from scoring)
DEFAULT_SHOTS = 3


def demo_pool(records: list[dict[str, Any]], size: int = POOL_SIZE, seed: int = SEED) -> list[dict[str, Any]]:
    """A seeded sample of the benchmark, at most half of it, kept in benchmark order."""
    size = min(size, len(records) // 2)
    chosen = set(random.Random(seed).sample(range(len(records)), size))
    return [r for i, r in enumerate(records) if i in chosen]


def pick_demos(item_id: str, pool: list[dict[str, Any]], k: int, seed: int = SEED) -> list[dict[str, Any]]:
    """The k demonstrations of one test item: the same for every condition and every rerun."""
    candidates = [r for r in pool if r["id"] != item_id]
    return random.Random(f"{seed}:{item_id}").sample(candidates, min(k, len(candidates)))


def demos_block(demos: list[dict[str, Any]], template: Template, first_index: int, images: str
                ) -> tuple[str, list[str], list[str | None]]:
    """The demonstrations as text with image tags numbered from `first_index`, their images and captions.

    `images`: "none" (tags removed, text kept as it is), "first" (each demonstration's first image
    only), "all" (every image, in the original order).
    """
    texts: list[str] = []
    paths: list[str] = []
    caps: list[str | None] = []
    for rec in demos:
        keep = {"none": set(), "first": {0}, "all": set(range(len(rec["images"])))}[images] & set(range(len(rec["images"])))
        renumber: dict[int, int] = {}
        captions = rec.get("captions") or [None] * len(rec["images"])
        for i in sorted(keep):
            renumber[i] = first_index + len(paths)
            paths.append(rec["images"][i])
            caps.append(captions[i])

        def retag(text: str) -> str:
            return IMAGE_TAG.sub(lambda m: f"[IMAGE{renumber[int(m.group(1))]}]" if int(m.group(1)) in renumber else "", text)

        tagged = set(image_tags(rec["question"])).union(*(image_tags(c) for c in rec["choices"]))
        untagged = "".join(f"[IMAGE{renumber[i]}]" for i in sorted(keep - tagged))
        choices = "\n".join(f"{letter}. {retag(c)}" for letter, c in zip(letters(len(rec["choices"])), rec["choices"]))
        texts.append(template.render({
            "number": str(len(texts) + 1),
            "question": untagged + retag(rec["question"]),
            "choices": choices,
            "solution": retag(rec.get("solution") or ""),  # a solution may point at the demo's images too
            "answer": ", ".join(rec["answer"]),
        }))
    return "\n".join(texts), paths, caps


def demo_template_path(template: Template) -> Path:
    return template.path.with_name(f"{template.name}_demo.txt")
