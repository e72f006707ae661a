"""MIRA §4.3: the general Text-CoT template (T_gen, one prompt for all tasks) against the 20 task-specific
templates (T_spec, supplementary §7), per task, per domain and overall, with the gain T_spec − T_gen.

The paper reports this comparison in the main text (an average gain of about 1.4-1.5 points); its
numbers are not in our text (supplementary only), so there is no reference file."""
from __future__ import annotations

import pandas as pd

from analysis.mira.common import (DOMAIN_ORDER, METRICS, SHOWN, TASK_ORDER, UNIT_NOTE, by_metric, grouped,
                                  scoring_units, verdicts)
from analysis.reference import paper_order
from analysis.table import Context, Table

IDS = ["mira.Tspec"]
SETTINGS = {"cot_general": "T_gen", "cot_specific": "T_spec"}


def gain_table(long: pd.DataFrame, models: list[str]) -> pd.DataFrame:
    """Rows (model, group, metric: Acc as published, then Acc careful): T_gen, T_spec and Δ = T_spec − T_gen
    (points); models in `models` order, groups as in the paper (tasks, then domains, then Overall)."""
    wide = by_metric(long, ["model", "group"], ["template"]).reindex(columns=list(SETTINGS.values())).reset_index()
    wide["Δ"] = wide["T_spec"] - wide["T_gen"]
    groups, metrics = [*TASK_ORDER, *DOMAIN_ORDER, "Overall"], list(METRICS)
    rank = (wide["model"].map(models.index) * len(groups) + wide["group"].map(groups.index)) * len(metrics) \
        + wide["metric"].map(metrics.index)
    wide = wide.iloc[rank.argsort(kind="stable")].reset_index(drop=True).rename_axis(columns=None)
    return wide[["model", "group", "metric", *SETTINGS.values(), "Δ"]]


def build(table_id: str, ctx: Context) -> Table:
    df, provenance = verdicts(ctx, list(SETTINGS), table_id)
    long = grouped(scoring_units(df, provenance.runs), ["model", "setting", "judge"])
    long["template"] = long["setting"].map(SETTINGS)
    table = gain_table(long, paper_order(table_id, set(long["model"])))
    return Table(
        "MIRA §4.3 — Text-CoT with the general template (T_gen) vs the task-specific templates (T_spec): "
        "accuracy (%) per task, per domain and overall (micro over scoring units), and Δ = T_spec − T_gen "
        "(points); Acc as published (the authors' acc.py leaves unanswered items out) and Acc careful (every "
        "unit, a failure not correct).",
        table,
        extra={"Scored units and failures": long[["model", "template", "group", "judge", *SHOWN]]},
        notes=[UNIT_NOTE,
               "The paper's numbers for this comparison are in the main text, not in our supplementary text: "
               "no reference numbers (the project page states an average gain of about 1.4-1.5 points).",
               "Gear Rotation is scored by pairs (both questions of a pair right) as in the authors' acc.py."],
        provenance=provenance,
    )
