"""MIRA Tables 4-10 (supplementary §8): per-task accuracy at level D (direct prompt), T (general Text-CoT
template T_gen) and V (simulated Visual-CoT: the input image plus the annotated intermediate images).

Each table groups two or three of the 20 tasks, in the paper's order. Gear Rotation is scored by pairs
(see analysis/mira/common.py)."""
from __future__ import annotations

import pandas as pd

from analysis.mira.common import (LEVELS, METRICS, SHOWN, UNIT_NOTE, beside_paper_both, by_metric, careful_judge_gap,
                                  grouped, scoring_units, verdicts, with_metric_intervals)
from analysis.reference import paper_order
from analysis.table import Context, Table

GROUPS: dict[str, list[str]] = {
    "mira.T4": ["Convex Hull", "Mirror Pattern", "Mirror Clock"],
    "mira.T5": ["Overlap", "Unfolded Cube", "Billiards"],
    "mira.T6": ["Localizer", "Paper Airplane", "Defuse A Bomb"],
    "mira.T7": ["Multi-piece Puzzle", "Electric Charge", "Rolling Dice: Top"],
    "mira.T8": ["Rolling Dice: Sum", "Rolling Dice: Two", "Gear Rotation"],
    "mira.T9": ["Cubes Count", "Cubes Missing", "Puzzle"],
    "mira.T10": ["Trailer Cubes Count", "Trailer Cubes Missing"],
}
IDS = list(GROUPS)


def task_long(units: pd.DataFrame, tasks: list[str]) -> pd.DataFrame:
    """Accuracy per model, level and task for `tasks` (long form: model, level, task, acc, counts)."""
    long = grouped(units[units["task"].isin(tasks)], ["model", "setting", "judge"])
    long = long[long["kind"] == "task"].rename(columns={"group": "task"}).drop(columns="kind")
    long["level"] = long["setting"].map(LEVELS)
    return long


def wide(long: pd.DataFrame, tasks: list[str], models: list[str]) -> pd.DataFrame:
    """Rows: each model's Acc (as published) and Acc careful; columns "<task> D/T/V" in the paper's order
    (empty where a level was not run)."""
    cols = [(t, lv) for t in tasks for lv in LEVELS.values()]
    table = by_metric(long, ["model"], ["task", "level"])
    rows = pd.MultiIndex.from_product([models, list(METRICS)], names=["model", "metric"])
    table = table.reindex(index=rows, columns=pd.MultiIndex.from_tuples(cols))
    table.columns = [f"{t} {lv}" for t, lv in cols]
    return with_metric_intervals(table.reset_index(), long, ["model"], ["task", "level"], lambda t, lv: f"{t} {lv}")


def build(table_id: str, ctx: Context) -> Table:
    tasks = GROUPS[table_id]
    df, provenance = verdicts(ctx, list(LEVELS), table_id)
    long = task_long(scoring_units(df, provenance.runs), tasks)
    models = paper_order(table_id, set(df["model"].unique()))
    notes = [UNIT_NOTE,
             "Levels: D = direct, T = cot_general (T_gen), V = visual_cot; a text-only model runs each as its "
             "+caption variant."]
    if "Gear Rotation" in tasks:
        notes.append("Gear Rotation is scored by pairs as in the authors' acc.py: questions n.1 and n.2 (the "
                     "two rotation directions of one gear train) count once, correct only if both are; a pair "
                     "with a failed or missing member is not correct and counted under no_response, judge_error "
                     "or unjudged.")
    failures = long[["model", "level", "task", "judge", *SHOWN]]
    careful, careful_notes = careful_judge_gap(ctx, provenance, tasks)
    caption = (f"MIRA Table {table_id.split('.T')[1]} — accuracy (%) on {', '.join(tasks)} at level D (direct), "
               "T (Text-CoT, general template) and V (simulated Visual-CoT): Acc as published (the authors' acc.py "
               "leaves unanswered items out) and Acc careful (every unit, a failure not correct). The failures and "
               "each accuracy's n are below.")
    return Table(caption, wide(long, tasks, models),
                 vs_paper=beside_paper_both(long, table_id, ["task", "level"]),
                 extra={"Scored units and failures": failures.sort_values(["model", "task", "level"]), **careful},
                 notes=notes + careful_notes, provenance=provenance)
