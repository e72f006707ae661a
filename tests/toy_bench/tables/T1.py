"""ToyBench Table 1: accuracy per model, each answering directly."""
from __future__ import annotations

from analysis.stats import accuracy_table
from analysis.table import Context, Table

IDS = ["toybench.T1"]


def build(table_id: str, ctx: Context) -> Table:
    return Table("ToyBench Table 1 — accuracy (%), direct answers, rule judge.",
                 accuracy_table(ctx.verdicts("toybench", ["direct"]), ["model"]))
