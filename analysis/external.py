"""Inputs from outside the model runs (human answers and ratings, other benchmarks' scores, external
systems' outputs) under data/external/. Where the real file is absent, its `.EXAMPLE` sibling that
ships with the project is used, so the table still runs — and says loudly that its numbers are invented."""
from __future__ import annotations

from pathlib import Path

from analysis.inputs import shown
from analysis.table import MissingInputs

EXAMPLE_NOTE = "EXAMPLE DATA: built from {path}, invented numbers shipped to show the format; put the real file at {real}."


def external_file(path: Path) -> tuple[Path, str | None]:
    """The real file, or its EXAMPLE sibling with the note a table must carry; MissingInputs if neither."""
    if path.exists():
        return path, None
    example = path.with_name(f"{path.stem}.EXAMPLE{path.suffix}")
    if example.exists():
        return example, EXAMPLE_NOTE.format(path=shown(example), real=shown(path))
    raise MissingInputs(f"{shown(path)} is missing: write it as {shown(path.parent / 'README.md')} describes")
