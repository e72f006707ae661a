"""ToyBench's release (release/items.json: a list of {qid, q, a, topic}) as unified records."""
from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

RELEASE = Path(__file__).resolve().parent / "release"


def convert(src: Path, media: Any) -> list[dict[str, Any]]:
    items = json.loads((src / "items.json").read_text(encoding="utf-8"))
    return [{"id": f"toy-{x['qid']}", "benchmark": "toybench", "question": x["q"], "images": [], "choices": [],
             "answer": [str(x["a"])], "answer_type": "numeric", "topic": x["topic"]} for x in items]


def generate(folder: Path) -> Path:
    """The demo set: the release itself, copied into `folder`."""
    shutil.copytree(RELEASE, folder / "toybench", dirs_exist_ok=True)
    return folder / "toybench"
