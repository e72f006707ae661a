"""The papers' own numbers (data/reference/<id>.csv) beside ours, with model names mapped in one place.

A reference file is long-form: `model` (the paper's name), `setting`/column keys the table uses, and
`value`. Each paper maps its model names to our config names in data/reference/aliases_<bench>.csv (and
aliases_<bench>_*.csv); a table id's paper is its benchmark, `<bench>.<table>`. The mapping is per paper
because one name can mean different models in different papers (MIRA's "GPT-4o" is snapshot
gpt-4o-2024-11-20, the others' the unpinned alias).
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Iterable

import pandas as pd

REFERENCE = Path(__file__).resolve().parent.parent / "data" / "reference"


def paper_of(table_id: str) -> str:
    """The benchmark (paper) of a table id: "mira.T4" → "mira"."""
    return table_id.split(".")[0]


@lru_cache(maxsize=None)
def aliases(bench: str) -> dict[str, str]:
    """One paper's model names → our config names: aliases_<bench>.csv, then aliases_<bench>_*.csv."""
    found: dict[str, str] = {}
    for path in [REFERENCE / f"aliases_{bench}.csv", *sorted(REFERENCE.glob(f"aliases_{bench}_*.csv"))]:
        if path.exists():
            df = pd.read_csv(path, dtype=str)
            found.update(zip(df["paper_name"], df["model"]))
    return found


def load_reference(table_id: str) -> pd.DataFrame | None:
    """The paper's numbers of a table, `model` holding our config name (the paper's name if it has none)."""
    path = REFERENCE / f"{table_id}.csv"
    if not path.exists():
        return None
    df = pd.read_csv(path)
    names = aliases(paper_of(table_id))
    df["model"] = df["paper_model"].map(lambda m: names.get(m, m))
    return df


def paper_order(table_id: str, models: Iterable[str]) -> list[str]:
    """`models` in the order the paper's table lists them (via the aliases), the others after it by name."""
    ref = load_reference(table_id)
    rank = {m: i for i, m in enumerate(dict.fromkeys(ref["model"]))} if ref is not None else {}
    return sorted(models, key=lambda m: (rank.get(m, len(rank)), m))


def beside_paper(ours: pd.DataFrame, table_id: str, keys: list[str], value: str = "acc",
                 ref_id: str | None = None) -> pd.DataFrame:
    """Our values next to the paper's for every (model, keys…) present in both, with the difference;
    `ref_id` reads another id's reference file (a figure drawn from a table's numbers)."""
    ref = load_reference(ref_id or table_id)
    if ref is None or ours.empty:
        return pd.DataFrame(columns=["model", *keys, "paper_model", "ours", "paper", "diff"])
    merged = ours[["model", *keys, value]].merge(ref[["model", "paper_model", *keys, "value"]], on=["model", *keys])
    merged = merged.rename(columns={value: "ours", "value": "paper"})
    merged["diff"] = merged["ours"] - merged["paper"]
    return merged[["model", *keys, "paper_model", "ours", "paper", "diff"]]
