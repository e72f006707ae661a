"""``python -m data.generate circuit_heuristics``: how often each text-only guess (`heuristics`)
answers generated circuit items, per distractor design and level, written as a CSV.

The items are exactly those ``python -m data.generate circuits --n N --level L --seed S
--distractors D`` writes (item i drawn from `circuits.item_random`), made without their files.
morphobench.T5 computes the guesses on the items it reads, and reads this file for the designs those
items were not made with, so the committed file must come from this command: each row names the seed,
the number of items per level and the commit of the code that made it (``dirty``: the generator's
files had uncommitted changes, and the numbers are not that commit's).
"""
from __future__ import annotations

import csv
import logging
import subprocess
import time
from pathlib import Path

from data.checkout import ROOT
from data.generate.circuit_items import LEVELS, make_item
from data.generate.distractors import DESIGNS
from data.generate.circuits import item_random
from data.generate.heuristics import GUESSES, RANDOM_EXPECTED_PCT, percent_right

log = logging.getLogger(__name__)
COLUMNS = ["design", "level", "items", *(f"{name}_pct" for name in GUESSES), "random_pct", "random_expected_pct",
           "seed", "commit", "dirty"]
# What decides the items: a change here, uncommitted, makes the recorded commit not the code that ran.
CODE = ["data/generate", "prompts/morphobench"]


def git_state() -> tuple[str, bool]:
    """(HEAD's commit, whether CODE has uncommitted changes); ("unknown", True) outside a git checkout."""
    def git(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=30)
    try:
        head, status = git("rev-parse", "HEAD"), git("status", "--porcelain", "--untracked-files=no", "--", *CODE)
    except (OSError, subprocess.SubprocessError):
        return "unknown", True
    if head.returncode != 0:
        return "unknown", True
    return head.stdout.strip(), bool(status.stdout.strip())


def measure_level(design: str, level: int, n: int, seed: int) -> dict[str, float]:
    """The guesses' % right on items 0…n−1 of (design, level, seed)."""
    start = time.perf_counter()
    items = [make_item(item_random(seed, level, i), level, design) for i in range(n)]
    log.info("%s level %d: %d items, %.2f s per item", design, level, n, (time.perf_counter() - start) / n)
    return percent_right([(it.level, it.netlists(), it.answer) for it in items], f"{seed}/{design}/L{level}")


def measure(n: int, seed: int, designs: tuple[str, ...] = DESIGNS, levels: range = LEVELS) -> list[dict]:
    """One row per (design, level), the columns of COLUMNS."""
    commit, dirty = git_state()
    if dirty:
        log.warning("%s has uncommitted changes: the rows name commit %s but are not its numbers", " ".join(CODE), commit)
    rows = []
    for design in designs:
        for level in levels:
            pct = measure_level(design, level, n, seed)
            rows.append({"design": design, "level": level, "items": n,
                         **{f"{name}_pct": round(value, 2) for name, value in pct.items()},
                         "random_expected_pct": round(RANDOM_EXPECTED_PCT, 2), "seed": seed, "commit": commit,
                         "dirty": int(dirty)})
    return rows


def write(rows: list[dict], out: Path) -> Path:
    """The rows as CSV, written whole or not at all."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.partial")
    with open(tmp, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    tmp.replace(out)
    return out
