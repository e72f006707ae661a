"""The papers' own numbers (data/reference/<id>.csv) beside ours, with model names mapped in one place.

A reference file is long-form: `model` (the paper's name), `setting`/column keys the table uses, and
`value`. data/reference/aliases*.csv (one per paper) map the paper's model names to our config names.
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import pandas as pd

REFERENCE = Path(__file__).resolve().parent.parent / "data" / "reference"


@lru_cache(maxsize=1)
def aliases() -> dict[str, str]:
    """Paper model name → our model (config) name, from every data/reference/aliases*.csv."""
    found: dict[str, str] = {}
    for path in sorted(REFERENCE.glob("aliases*.csv")):
        df = pd.read_csv(path, dtype=str)
        found.update(zip(df["paper_name"], df["model"]))
    return found


def load_reference(table_id: str) -> pd.DataFrame | None:
    path = REFERENCE / f"{table_id}.csv"
    if not path.exists():
        return None
    df = pd.read_csv(path)
    df["model"] = df["paper_model"].map(lambda m: aliases().get(m, m))
    return df


def beside_paper(ours: pd.DataFrame, table_id: str, keys: list[str], value: str = "acc") -> pd.DataFrame:
    """Our values next to the paper's for every (model, keys…) present in both, with the difference."""
    ref = load_reference(table_id)
    if ref is None or ours.empty:
        return pd.DataFrame(columns=["model", *keys, "paper_model", "ours", "paper", "diff"])
    merged = ours[["model", *keys, value]].merge(ref[["model", "paper_model", *keys, "value"]], on=["model", *keys])
    merged = merged.rename(columns={value: "ours", "value": "paper"})
    merged["diff"] = merged["ours"] - merged["paper"]
    return merged[["model", *keys, "paper_model", "ours", "paper", "diff"]]
