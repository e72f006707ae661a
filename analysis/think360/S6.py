"""Think360° Figure S6: accuracy per question type (Algebra, Number Theory, Combinatorics, Geometry,
Probability & Statistics, Logic), models grouped as system-1 / system-2 by time and token thresholds."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from data.benchmarks import think360
from analysis.plot import bars, draw, empty_panel, save_figure, subplots
from analysis.stats import ACC_NOTE, BESIDE
from analysis.table import Context, Table
from analysis.think360 import common
from analysis.uncertainty import ci_columns, with_intervals

IDS = ["think360.S6"]
SETTING = "direct+temp0.7"
# The paper uses "predefined time/token thresholds" without giving them. Ours: system-2 (slow, long CoT)
# when a model's mean response has at least 2000 tokens AND takes at least 30 s. On the paper's own
# Table 3 this separates every non-thinking model (≤ 1260 tokens; Qwen2.5-VL-32B takes 61 s but writes 917
# tokens, hence the AND) from every thinking one (≥ 5100 tokens, ≥ 50 s); Doubao's "-nothinking" variant
# (3629 tokens, 73 s) lands in system-2, Gemini-2.0-flash-thinking-exp (1048 tokens, 15 s) in system-1.
SYSTEM2_MIN_TOKENS = 2000
SYSTEM2_MIN_TIME_S = 30.0


def system(time_s: float, tokens: float) -> str:
    return "system-2" if tokens >= SYSTEM2_MIN_TOKENS and time_s >= SYSTEM2_MIN_TIME_S else "system-1"


def figure(table: pd.DataFrame, types: list[str], path: Path) -> None:
    """Fig. S6: accuracy per question type, a panel per system-1 / system-2 group."""
    groups = ["system-1", "system-2"]
    fig, axes = subplots(1, 2, figsize=(14, 5), sharey=True)
    for ax, group in zip(axes, groups):
        rows = table[table["system"] == group]
        width = 0.8 / max(len(rows), 1)
        for i, (_, row) in enumerate(rows.iterrows()):
            # NaN: the model judged no item of that type (not a 0% accuracy)
            ends = tuple([row.get(ci_columns(t)[end], np.nan) for t in types] for end in (0, 1))
            bars(ax, [k + (i - (len(rows) - 1) / 2) * width for k in range(len(types))], row[types], width,
                 label=row["model"], missing="no items", ci=ends)
        ax.set_xticks(range(len(types)), types, rotation=25, ha="right")
        ax.set_xlabel("question type")
        ax.set_title(f"{group} models ({len(rows)})")
        if len(rows):
            ax.legend(fontsize=8)
        else:
            empty_panel(ax, f"no {group} model among the runs read")
    axes[0].set_ylabel("accuracy (%)")
    shown = [c for t in types for c in (t, ci_columns(t)[1]) if c in table]  # the bars and their error bars
    top = table[shown].astype(float).max().max() if types and len(table) else float("nan")
    axes[0].set_ylim(0, max(5.0, min(100.0, 1.1 * top)) if pd.notna(top) else 5.0)  # all-zero bars: a visible axis
    fig.suptitle(f"Think360° Fig. S6 — accuracy per question type (system-2: ≥ {SYSTEM2_MIN_TOKENS} tokens and "
                 f"≥ {SYSTEM2_MIN_TIME_S:.0f} s per response)")
    save_figure(fig, path, dpi=150)


def build(table_id: str, ctx: Context) -> Table:
    df, provenance = common.verdicts(ctx, [SETTING], table_id)
    summary = common.by_group(df, "question_type", "question_type", think360.QUESTION_TYPES)
    overall = summary[summary["question_type"] == "ALL"].set_index("model")
    table = summary.pivot_table(index="model", columns="question_type", values="acc", aggfunc="first", dropna=False)
    types = [t for t in think360.QUESTION_TYPES if t in table] + sorted(set(table) - {"ALL", *think360.QUESTION_TYPES})
    table = table[["ALL", *types]].reset_index().rename_axis(columns=None)
    table = with_intervals(table, summary, ["model"], ["question_type"], str)
    table.insert(1, "judge", table["model"].map(overall["judge"]))
    table.insert(2, "time_s", table["model"].map(overall["time"]))
    table.insert(3, "token", table["model"].map(overall["token"]))
    table.insert(1, "system", [system(t, k) for t, k in zip(table["time_s"], table["token"])])
    table = table.sort_values(["system", "ALL"], ascending=[True, False], ignore_index=True)
    path = draw(figure, table, types, path=ctx.figure(table_id))
    gaps = table.set_index("model")[types].isna()
    no_items = [f"{m} ({', '.join(row[row].index)})" for m, row in gaps.iterrows() if row.any()]
    counts = summary[summary["question_type"] != "ALL"][["model", "question_type", "acc", *BESIDE]]
    notes = [common.runs_note(df),
             f"System-2 = mean tokens ≥ {SYSTEM2_MIN_TOKENS} and mean time ≥ {SYSTEM2_MIN_TIME_S:.0f} s "
             "(over ALL); the paper's thresholds are not given — ours, chosen on the paper's Table 3 (see the "
             "module).",
             "Question types are non-exclusive: an item counts in each of its types. Acc over every item × repeat "
             "(direct prompt, T = 0.7).", ACC_NOTE,
             "Intervals (95 %): the bootstrap over items of each item's repeats averaged (Wilson's over the items "
             "where every item scored the same); the figure's error bars are the same."]
    if no_items:
        notes.append(f"No judged item of a type (empty cells, 'no items' in the figure): {'; '.join(no_items)}.")
    return Table(
        "Think360° Figure S6 — reasoning performance across question types; models grouped as system-1 / system-2 "
        "by time/token thresholds. Accuracy (%).",
        table,
        extra={"Scored and failed verdicts per question type": counts.reset_index(drop=True)},
        figure=path,
        notes=notes,
        provenance=provenance,
    )
