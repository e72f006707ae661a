"""Unified records as MorphoBench's official rows, and how the adaptation shows a record to the model.

The rows are what data/converters/morphobench.py documents (`index`, `question`, `hint` with one `- `
bullet per hint, `answer`, `image_base64`, `caption`, `split`, the grouping fields and every other
official field kept in `extra`), so `python -m data.convert morphobench` reads a written adaptation like
the release, and gives a source item back the id, answer and answer type it had.
"""
from __future__ import annotations

import base64
import mimetypes
from pathlib import Path
from typing import Any

STABLE = ("discipline", "subject", "category", "difficulty", "task", "domain", "level")


def view(rec: dict[str, Any]) -> str:
    """How a text stage shows the record's images: by their captions when every image has one (the
    problem the trace solves), else not at all."""
    caps = rec.get("captions") or []
    return "caption" if rec["images"] and len(caps) == len(rec["images"]) and all(caps) else "text"


def official_answer(rec: dict[str, Any]) -> str:
    """The official `answer` string: option letters as "A, C" (the converter reads them back as letters)."""
    return ", ".join(rec["answer"])


def official_index(rec: dict[str, Any]) -> Any:
    """The release's `index` (kept in `extra` by the converter), else the id without its split prefix."""
    index = (rec.get("extra") or {}).get("index")
    if index is not None:
        return index
    split = rec.get("split")
    return rec["id"][len(split) + 1:] if split and rec["id"].startswith(f"{split}-") else rec["id"]


def _data_url(path: Path) -> str:
    mime = mimetypes.guess_type(path.name)[0] or "image/png"
    return f"data:{mime};base64," + base64.b64encode(path.read_bytes()).decode("ascii")


def official_row(rec: dict[str, Any], base: Path, split: str, index: Any, question: str | None = None,
                 hints: list[str] | None = None, **provenance: Any) -> dict[str, Any]:
    """One official row for `rec` in `split` (images embedded as base64, as the release stores them);
    `question` and `hints` replace the record's, `provenance` adds fields the converter keeps in `extra`."""
    row: dict[str, Any] = {**{k: v for k, v in (rec.get("extra") or {}).items() if k != "index"}}
    row.update({"index": index, "question": rec["question"] if question is None else question,
                "hint": "\n".join(f"- {h}" for h in (rec.get("hints") or [] if hints is None else hints)),
                "answer": official_answer(rec), "split": split})
    urls = [_data_url(base / p) for p in rec["images"]]
    row["image_base64"] = urls[0] if len(urls) == 1 else urls
    caps = rec.get("captions")
    if caps and len(caps) == 1 and caps[0]:
        row["caption"] = caps[0]
    elif caps and any(caps):
        row["captions"] = caps
    if rec["choices"]:
        row["choices"] = rec["choices"]
    row.update({k: rec[k] for k in STABLE if rec.get(k) is not None})
    row.update(provenance)
    return row
