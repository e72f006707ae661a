"""MIRA §4.3: the general Text-CoT template (T_gen, one prompt for all tasks) against the 20 task-specific
templates (T_spec, supplementary §7), per task, per domain and overall, with the gain T_spec − T_gen.

The paper reports this comparison in the main text (an average gain of about 1.4-1.5 points); its
numbers are not in our text (supplementary only), so there is no reference file."""
from __future__ import annotations

import pandas as pd

from analysis.mira.common import (DOMAIN_ORDER, METRICS, SHOWN, TASK_ORDER, UNIT_NOTE, by_metric, grouped,
                                  scoring_units, verdicts, with_metric_intervals)
from analysis.reference import paper_order
from analysis.table import Context, Table
from analysis.uncertainty import ci_columns, paired_difference, with_interval_columns

IDS = ["mira.Tspec"]
SETTINGS = {"cot_general": "T_gen", "cot_specific": "T_spec"}


def gain_intervals(units: pd.DataFrame) -> pd.DataFrame:
    """Per model, group (task, domain, Overall) and metric: the 95 % interval of Δ = T_spec − T_gen over the units
    both templates ran (Acc: those answered under both), the bootstrap over units of the per-unit difference
    (analysis.uncertainty.paired_difference)."""
    units = units.assign(template=units["setting"].map(SETTINGS), right=units["correct"].astype(float))
    rows = []
    for kind in ("task", "domain", None):
        for key, g in units.groupby(["model", kind] if kind else ["model"]):
            model, group = (key if kind else (key[0] if isinstance(key, tuple) else key, "Overall"))
            for metric, among in (("Acc", g["answered"]), ("Acc careful", pd.Series(True, index=g.index))):
                sides = [g[among & g["template"].eq(t)].groupby("unit")["right"].mean() for t in ("T_spec", "T_gen")]
                d = paired_difference(*sides)
                rows.append({"model": model, "group": group, "metric": metric,
                             **dict(zip(ci_columns("Δ"), (d["diff_ci_lo"], d["diff_ci_hi"])))})
    return pd.DataFrame(rows, columns=["model", "group", "metric", *ci_columns("Δ")])


def gain_table(long: pd.DataFrame, models: list[str], units: pd.DataFrame | None = None) -> pd.DataFrame:
    """Rows (model, group, metric: Acc as published, then Acc careful): T_gen, T_spec (each with its interval) and
    Δ = T_spec − T_gen (points, with its paired interval from the scoring `units`); models in `models` order, groups
    as in the paper (tasks, then domains, then Overall)."""
    wide = by_metric(long, ["model", "group"], ["template"]).reindex(columns=list(SETTINGS.values())).reset_index()
    wide = with_metric_intervals(wide.rename_axis(columns=None), long, ["model", "group"], ["template"], str)
    wide["Δ"] = wide["T_spec"] - wide["T_gen"]
    if units is not None:
        wide = wide.merge(gain_intervals(units), on=["model", "group", "metric"], how="left")
    groups, metrics = [*TASK_ORDER, *DOMAIN_ORDER, "Overall"], list(METRICS)
    rank = (wide["model"].map(models.index) * len(groups) + wide["group"].map(groups.index)) * len(metrics) \
        + wide["metric"].map(metrics.index)
    wide = wide.iloc[rank.argsort(kind="stable")].reset_index(drop=True).rename_axis(columns=None)
    return wide[[c for c in ["model", "group", "metric", *with_interval_columns([*SETTINGS.values(), "Δ"])]
                 if c in wide]]


def build(table_id: str, ctx: Context) -> Table:
    df, provenance = verdicts(ctx, list(SETTINGS), table_id)
    units = scoring_units(df, provenance.runs)
    long = grouped(units, ["model", "setting", "judge"])
    long["template"] = long["setting"].map(SETTINGS)
    table = gain_table(long, paper_order(table_id, set(long["model"])), units)
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
               "Gear Rotation is scored by pairs (both questions of a pair right) as in the authors' acc.py.",
               "Δ's 95 % interval: the bootstrap over the units both templates ran (for Acc, answered under both) "
               "of the per-unit difference (paired; where no unit differs, combined from the two Wilson intervals). "
               "The paper prints no test and none is added."],
        provenance=provenance,
    )
