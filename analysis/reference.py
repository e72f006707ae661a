"""The papers' own numbers (data/reference/<id>.csv) beside ours, with model names mapped in one place.

A reference file is long-form: `model` (the paper's name), `setting`/column keys the table uses, and
`value`. Beside every number of ours that has a paper number, `beside_paper` writes the difference, its 95 %
interval counting the paper's own sampling error from its n (data/reference/paper_n.csv), and the verdict at 95 %
(analysis/uncertainty.py). Each paper maps its model names to our config names in
data/reference/aliases_<bench>.csv (and aliases_<bench>_*.csv); a table id's paper is its benchmark,
`<bench>.<table>`. The mapping is per paper because one name can mean different models in different papers
(MIRA's "GPT-4o" is snapshot gpt-4o-2024-11-20, the others' the unpinned alias).
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Iterable

import numpy as np
import pandas as pd

from analysis.uncertainty import KIND, MEAN, PROPORTION, UNITS, against_paper, ci_columns

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
    if "value" in df:  # how many decimals the paper printed: a number with no sampling error is compared at those
        text = pd.read_csv(path, dtype=str, keep_default_na=False)["value"].str.strip()
        df["paper_decimals"] = text.str.partition(".")[2].str.len().where(text.str.contains(r"\.", regex=True), 0)
    return df


def paper_order(table_id: str, models: Iterable[str]) -> list[str]:
    """`models` in the order the paper's table lists them (via the aliases), the others after it by name."""
    ref = load_reference(table_id)
    rank = {m: i for i, m in enumerate(dict.fromkeys(ref["model"]))} if ref is not None else {}
    return sorted(models, key=lambda m: (rank.get(m, len(rank)), m))


PROPORTIONS = ("acc", "acc_published", "share")  # values that are a proportion of items (Wilson on the paper's side)
COLUMNS = ["paper_model", "ours", "ours_ci_lo", "ours_ci_hi", "paper", "paper_n", "paper_n_from", "diff", "diff_ci_lo",
           "diff_ci_hi", "verdict"]


def beside_paper(ours: pd.DataFrame, table_id: str, keys: list[str], value: str = "acc",
                 ref_id: str | None = None, kind: str | None = None) -> pd.DataFrame:
    """Our values next to the paper's for every (model, keys…) present in both, with the difference, its 95 %
    interval and the verdict at 95 % (analysis.uncertainty.against_paper); `ref_id` reads another id's reference
    file (a figure drawn from a table's numbers).

    `kind` says what the numbers are, for the paper's own interval: a proportion of items (the default for acc and
    shares), a mean (the default otherwise), a Spearman ρ, or exact (no sampling error: a dataset statistic, a
    configured value); a `ci_kind` column of `ours` says it per row. Our interval is `value`'s interval columns
    (analysis.uncertainty.ci_columns); our n of items, used where the paper's is unknown, is `ours`' `ci_n`, else
    `<value>_n`, else `labelled` (a share), `judged` or `items`."""
    ref = load_reference(ref_id or table_id)
    if ref is None or ours.empty:
        return pd.DataFrame(columns=["model", *keys, *COLUMNS])
    lo, hi = ci_columns(value)
    units = next((c for c in (UNITS, f"{value}_n", "labelled", "judged", "items") if c in ours.columns), None)
    extra = {c: c for c in (lo, hi, KIND) if c in ours.columns}
    if units:
        extra[units] = UNITS
    mine = ours[["model", *keys, value, *extra]].rename(columns={value: "ours", lo: "ours_ci_lo", hi: "ours_ci_hi",
                                                               **({units: UNITS} if units else {})})
    merged = mine.merge(ref[["model", "paper_model", *keys, "value", "paper_decimals"]], on=["model", *keys])
    merged = merged.rename(columns={"value": "paper"})
    for column in ("ours_ci_lo", "ours_ci_hi", UNITS):
        if column not in merged:
            merged[column] = np.nan
    default = kind or (PROPORTION if value in PROPORTIONS else MEAN)
    merged = against_paper(merged.astype({"ours": float, "paper": float}), ref_id or table_id, default)
    return merged[["model", *keys, *COLUMNS]]
