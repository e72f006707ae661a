"""MIRA §4.3: the general Text-CoT template (T_gen, one prompt for all tasks) against the 20 task-specific
templates (T_spec, supplementary §7), per task, per domain and overall, with the gain T_spec − T_gen.

The paper reports this comparison in the main text (an average gain of about 1.4-1.5 points); its
numbers are not in our text (supplementary only), so there is no reference file."""
from __future__ import annotations

import pandas as pd

from analysis.mira.common import DOMAIN_ORDER, TASK_ORDER, UNIT_NOTE, grouped, scoring_units, verdicts
from analysis.reference import paper_order
from analysis.stats import BESIDE
from analysis.table import Context, Table

IDS = ["mira.Tspec"]
SETTINGS = {"cot_general": "T_gen", "cot_specific": "T_spec"}


def gain_table(long: pd.DataFrame, models: list[str]) -> pd.DataFrame:
    """Rows (model, group): T_gen, T_spec and Δ = T_spec − T_gen (points); models in `models` order,
    groups as in the paper (tasks, then domains, then Overall)."""
    wide = long.pivot_table(index=["model", "group"], columns="template", values="acc", aggfunc="first")
    wide = wide.reindex(columns=list(SETTINGS.values())).reset_index()
    wide["Δ"] = wide["T_spec"] - wide["T_gen"]
    groups = [*TASK_ORDER, *DOMAIN_ORDER, "Overall"]
    rank = wide["model"].map(models.index) * len(groups) + wide["group"].map(groups.index)
    return wide.iloc[rank.argsort(kind="stable")].reset_index(drop=True).rename_axis(columns=None)


def build(table_id: str, ctx: Context) -> Table:
    df, provenance = verdicts(ctx, list(SETTINGS), table_id)
    long = grouped(scoring_units(df, provenance.runs), ["model", "setting", "judge"])
    long["template"] = long["setting"].map(SETTINGS)
    table = gain_table(long, paper_order(table_id, set(long["model"])))
    return Table(
        "MIRA §4.3 — Text-CoT with the general template (T_gen) vs the task-specific templates (T_spec): "
        "accuracy (%) per task, per domain and overall (micro over scoring units), and Δ = T_spec − T_gen "
        "(points).",
        table,
        extra={"Scored units and failures": long[["model", "template", "group", "judge", "acc", *BESIDE]]},
        notes=[UNIT_NOTE,
               "The paper's numbers for this comparison are in the main text, not in our supplementary text: "
               "no reference numbers (the project page states an average gain of about 1.4-1.5 points).",
               "Gear Rotation is scored by pairs (both questions of a pair right) as in the authors' acc.py."],
        provenance=provenance,
    )
