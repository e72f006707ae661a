"""One model across the five benchmarks: its rows of every table built that read its runs, and the paper's
numbers for it beside ours where the table has them (the table's "Beside the paper" rows of that model).

A table names its models in a `model` column (one row or more per model), or holds one column per model
(beside its label columns); either way the model's part is taken as the table has it, nothing recomputed."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import pandas as pd

from analysis.table import Table


@dataclass
class ModelPart:
    """A model's part of one table: its rows, and the paper's numbers beside ours (None: the table has none)."""

    table_id: str
    rows: pd.DataFrame
    vs_paper: pd.DataFrame | None


def models_read(tables: Mapping[str, Table]) -> list[str]:
    """Every model some built table read a run of."""
    return sorted({r.model for t in tables.values() for r in t.provenance.runs})


def rows_of(df: pd.DataFrame, model: str, models: set[str]) -> pd.DataFrame | None:
    """The model's part of a table: its rows, or its column beside the table's other columns than the other
    models' (`models`: those the table read); None when it has none."""
    if "model" in df.columns:
        rows = df[df["model"].astype(str) == model]
        return rows.reset_index(drop=True) if not rows.empty else None
    if model in df.columns:
        return df[[c for c in df.columns if c == model or c not in models]].reset_index(drop=True)
    return None


def parts_of(model: str, tables: Mapping[str, Table]) -> list[ModelPart]:
    """The model's part of each table that read its runs, in the order given."""
    out = []
    for table_id, t in tables.items():
        models = {r.model for r in t.provenance.runs}
        if model not in models or (rows := rows_of(t.table, model, models)) is None:
            continue
        paper = None
        if t.vs_paper is not None and not t.vs_paper.empty and "model" in t.vs_paper.columns:
            mine = t.vs_paper[t.vs_paper["model"].astype(str) == model]
            paper = mine.reset_index(drop=True) if not mine.empty else None
        out.append(ModelPart(table_id, rows, paper))
    return out
