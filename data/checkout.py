"""The checkout's own places, spelled once: its root, and where the demo sets are made.

Everything else under the checkout is found from these (results/ and figures/: infer/layout.py). The demo sets
are recognised by their place under data/demo/build/ of any checkout, so a results folder made in another
checkout still says its numbers come from the demo sets.
"""
from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEMO_PARTS = ("data", "demo", "build")
DEMO_BUILD = ROOT.joinpath(*DEMO_PARTS)  # where data.demo writes the demo sets of this checkout


def is_demo_data(path: str | Path) -> bool:
    """Whether a data file is one of the generated demo sets (under data/demo/build/ of some checkout)."""
    parts = Path(path).parts
    return any(parts[k:k + len(DEMO_PARTS)] == DEMO_PARTS for k in range(len(parts)))
