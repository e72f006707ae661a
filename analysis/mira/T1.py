"""MIRA Table 1 (main paper): accuracy per domain (EG, PBR, ASLP, CT) and overall at levels D, T and V.

The supplementary material we reproduce from only cites Table 1; its numbers and averaging rule are not
in our text. We pool scoring units (micro average over items, a Gear Rotation pair counting once), which
is what the authors' acc.py prints per aspect and what public summaries of the paper call its metric
("micro-averaged accuracy across all 20 tasks"). Built from the same runs as Tables 4-10."""
from __future__ import annotations

import pandas as pd

from analysis.mira.common import (DOMAIN_ORDER, LEVELS, METRICS, SHOWN, UNIT_NOTE, by_metric, careful_judge_gap, grouped,
                                  scoring_units, verdicts, with_metric_intervals)
from analysis.table import Context, Table

IDS = ["mira.T1"]
GROUPS = [*DOMAIN_ORDER, "Overall"]


def domain_long(units: pd.DataFrame) -> pd.DataFrame:
    """Accuracy per model, level and domain plus overall (long form)."""
    long = grouped(units, ["model", "setting", "judge"])
    long = long[long["kind"] != "task"].drop(columns="kind")
    long["level"] = long["setting"].map(LEVELS)
    return long


def build(table_id: str, ctx: Context) -> Table:
    df, provenance = verdicts(ctx, list(LEVELS), table_id)
    long = domain_long(scoring_units(df, provenance.runs))
    cols = [(g, lv) for g in GROUPS for lv in LEVELS.values()]
    wide = by_metric(long, ["model"], ["group", "level"]).reindex(columns=pd.MultiIndex.from_tuples(cols))
    wide.columns = [f"{g} {lv}" for g, lv in cols]
    # models by their Acc on Overall V, best first, each model's two rows together
    rank = wide.xs("Acc", level="metric")["Overall V"].sort_values(ascending=False, na_position="last")
    wide = wide.reindex(pd.MultiIndex.from_product([rank.index, list(METRICS)], names=["model", "metric"]))
    wide = with_metric_intervals(wide.reset_index(), long, ["model"], ["group", "level"], lambda g, lv: f"{g} {lv}")
    careful, careful_notes = careful_judge_gap(ctx, provenance)
    return Table(
        "MIRA Table 1 — accuracy (%) per domain (EG: Euclidean Geometry, PBR: Physics-Based Reasoning, ASLP: "
        "Abstract Spatial & Logical Puzzles, CT: Causal Transformations) and overall, at level D (direct), "
        "T (Text-CoT) and V (simulated Visual-CoT); micro-averaged over scoring units: Acc as published (the "
        "authors' acc.py leaves unanswered items out) and Acc careful (every unit, a failure not correct).",
        wide,
        extra={"Scored units and failures": long[["model", "level", "group", "judge", *SHOWN]]
               .sort_values(["model", "group", "level"]), **careful},
        notes=[UNIT_NOTE,
               "The paper's Table 1 is in the main paper, which our text (supplementary only) does not include: "
               "no reference numbers.",
               "Averaging: over scoring units (items; a Gear Rotation pair counts once), not over tasks.",
               *careful_notes],
        provenance=provenance,
    )
