"""Multiple choice: whether a record is scored by its option letters, and the letters its gold names.

Apart from the rule judge (judge/rules.py) so that OMIBench's published rule (judge/omibench_c1.py), which
the rule judge's command also offers, reads them without importing it.
"""
from __future__ import annotations

import re
from typing import Any


def gold_letters(answer: list[str]) -> list[str]:
    """MCQ golds as sorted single letters: ["CD"] and ["C", "D"] are the same answer."""
    return sorted({ch for a in answer for ch in re.sub(r"[^A-Z]", "", a.upper())})


def is_mcq(rec: dict[str, Any]) -> bool:
    golds = rec["answer"]
    if rec["answer_type"] == "mcq":
        return True
    # Options printed inside the question: scored as MCQ when the golds are letters (OMIBench).
    return bool(rec.get("has_inline_choices")) and all(re.fullmatch(r"[A-Z]+", g.strip()) for g in golds)
