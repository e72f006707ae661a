"""The unified record: one benchmark item, whatever the benchmark (see data/README.md)."""
from __future__ import annotations

import re
from typing import Any

from data.benchmarks import BENCHMARKS, get as benchmark

# mcq: answer holds option letters. open: free form whose kind the release does not say.
ANSWER_TYPES = ("mcq", "numeric", "expression", "text", "multi-part", "structured", "open")

IMAGE_TAG = re.compile(r"\[IMAGE(\d+)\]")

REQUIRED: dict[str, type | tuple[type, ...]] = {
    "id": str,
    "benchmark": str,
    "question": str,
    "images": list,
    "choices": list,
    "answer": list,
    "answer_type": str,
}

# Benchmark-specific fields under stable names, shared by several benchmarks (a benchmark's own: its module's
# `fields`, data/benchmarks/); their types are checked when present.
OPTIONAL: dict[str, type | tuple[type, ...]] = {
    "subject": str,
    "category": str,
    "level": (int, str),
    "difficulty": str,
    "skills": list,
    "question_type": (list, str),
    "captions": list,          # one caption (or null) per entry of `images`
    "solution": str,           # reference solution: kept, never shown to the model
    "steps": (list, str),
    "num_steps": int,
    "hints": list,
    "cot_images": list,        # visual chain-of-thought images (MIRA level 3), after the question images
    "cot_captions": list,      # one caption per entry of `cot_images`
    "files": list,             # attached files (C2RBench), paths relative to the data file
    "task": str,
    "domain": str,
    "discipline": str,
    "split": str,
    "distractor_design": str,  # MorphoBench's generated circuits: same_count or fig7 (data/generate/circuit_items.py)
    "has_inline_choices": bool,
    "extra": dict,             # every official field without a stable name, kept verbatim
}


def letters(n: int) -> list[str]:
    """Option letters by position: A, B, ..., Z, then AA, AB, ... (never needed in practice)."""
    out = []
    for i in range(n):
        s, k = "", i
        while True:
            s = chr(ord("A") + k % 26) + s
            k = k // 26 - 1
            if k < 0:
                break
        out.append(s)
    return out


def image_tags(text: str) -> list[int]:
    return [int(m) for m in IMAGE_TAG.findall(text)]


def _type_name(t: type | tuple[type, ...]) -> str:
    return " or ".join(x.__name__ for x in t) if isinstance(t, tuple) else t.__name__


def check_record(rec: dict[str, Any]) -> list[tuple[str, str]]:
    """Schema problems of one record as (field, problem); empty when the record is valid.

    File existence is not checked here (data.validate does that, relative to the data file).
    """
    probs: list[tuple[str, str]] = []
    own = benchmark(rec["benchmark"]).fields if rec.get("benchmark") in BENCHMARKS else {}
    for field, typ in {**REQUIRED, **OPTIONAL, **own}.items():
        if field not in rec:
            if field in REQUIRED:
                probs.append((field, "missing"))
            continue
        value = rec[field]
        if isinstance(value, bool) and typ in (int, (int, str)):
            probs.append((field, f"expected {_type_name(typ)}, got bool"))
        elif not isinstance(value, typ):
            probs.append((field, f"expected {_type_name(typ)}, got {type(value).__name__}"))
    if probs:
        return probs

    if not rec["id"].strip():
        probs.append(("id", "empty"))
    if not rec["question"].strip():  # nothing to ask: a converter's field mapping is wrong, or the source's text lost
        probs.append(("question", "empty"))
    if rec["benchmark"] not in BENCHMARKS:
        probs.append(("benchmark", f"unknown benchmark {rec['benchmark']!r} (known: {', '.join(BENCHMARKS)})"))
    if rec["answer_type"] not in ANSWER_TYPES:
        probs.append(("answer_type", f"unknown answer type {rec['answer_type']!r} (known: {', '.join(ANSWER_TYPES)})"))
    for field in ("images", "choices", "answer", "cot_images", "files", "hints", "skills"):
        for i, v in enumerate(rec.get(field) or []):
            if not isinstance(v, str):
                probs.append((f"{field}[{i}]", f"expected str, got {type(v).__name__}"))
    if not rec["answer"] or all(not str(a).strip() for a in rec["answer"]):
        probs.append(("answer", "no gold answer"))
    if "captions" in rec and len(rec["captions"]) != len(rec["images"]):
        probs.append(("captions", f"{len(rec['captions'])} captions for {len(rec['images'])} images"))
    if "cot_captions" in rec and len(rec["cot_captions"]) != len(rec.get("cot_images") or []):
        probs.append(("cot_captions", f"{len(rec['cot_captions'])} captions for {len(rec.get('cot_images') or [])} images"))

    n = len(rec["images"])
    texts = [("question", rec["question"])] + [(f"choices[{i}]", c) for i, c in enumerate(rec["choices"]) if isinstance(c, str)]
    for field, text in texts:
        for k in image_tags(text):
            if k >= n:
                probs.append((field, f"[IMAGE{k}] but the record has {n} image(s)"))
    return probs
