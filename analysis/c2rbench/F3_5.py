"""C²RBench Figures 3–5: proportion of each subset, difficulty levels per subset, and the distribution of
annotated reasoning steps (data only)."""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from analysis.c2rbench import common as c2r
from analysis.plot import bars, draw, empty_panel, save_figure, stacked_bars, subplots
from analysis.provenance import Provenance
from analysis.reference import beside_paper
from analysis.table import Context, Table
from analysis.uncertainty import EXACT, EXACT_NOTE

IDS = ["c2rbench.F3-5"]
# §3.5: Level 1 = 3–6 steps, Level 2 = 7–11, Level 3 = ≥ 12.
STEP_RANGE = {1: (3, 6), 2: (7, 11), 3: (12, None)}
DATASET = "C²RBench"


def subset_table(rec: pd.DataFrame) -> pd.DataFrame:
    """Per subset: tasks, share of all tasks (%), tasks and share (%) per level, mean steps; then Total."""
    rows = []
    for name, g in [*((s, rec[rec["category"] == s]) for s in c2r.subset_order(rec["category"])), ("Total", rec)]:
        row = {"subset": name, "tasks": len(g), "share_%": 100 * len(g) / len(rec)}
        for lv in c2r.LEVELS:
            row[f"Level {lv}"] = int((g["level"] == lv).sum())
        for lv in c2r.LEVELS:
            row[f"Level {lv} %"] = 100 * row[f"Level {lv}"] / len(g) if len(g) else float("nan")
        row["mean_steps"] = g["num_steps"].mean()
        rows.append(row)
    return pd.DataFrame(rows)


def level_steps(rec: pd.DataFrame) -> pd.DataFrame:
    """Steps per level, and how many tasks lie outside the step range §3.5 gives their level."""
    rows = []
    for lv in [*c2r.LEVELS, "Overall"]:
        g = rec if lv == "Overall" else rec[rec["level"] == lv]
        lo, hi = STEP_RANGE.get(lv, (None, None))
        s = g["num_steps"].dropna()
        outside = int(((s < lo) | ((s > hi) if hi else False)).sum()) if lo else 0
        rows.append({"level": c2r.level_name(lv), "tasks": len(g), "with_steps": len(s), "mean_steps": s.mean(),
                     "min": s.min(), "max": s.max(), "outside_level_range": outside})
    return pd.DataFrame(rows)


def figure(table: pd.DataFrame, hist: pd.DataFrame, path: Path) -> None:
    subsets = table[table["subset"] != "Total"]
    fig, ax = subplots(1, 3, figsize=(17, 5))
    ax[0].pie(subsets["tasks"], labels=subsets["subset"], autopct="%1.1f%%", startangle=90)
    ax[0].set_title("Fig. 3: proportion of each subset")
    y = range(len(subsets))
    stacked_bars(ax[1], y, {f"Level {lv}": subsets[f"Level {lv} %"] for lv in c2r.LEVELS}, horizontal=True,
                 missing="no tasks")
    ax[1].set_yticks(y, subsets["subset"])
    ax[1].set_xlabel("share of the subset's tasks (%)")
    ax[1].set_title("Fig. 4: difficulty levels in each subset")
    ax[1].legend(loc="lower right")
    bars(ax[2], hist["num_steps"], hist["tasks"], color="tab:gray")
    ax[2].set_xlabel("annotated reasoning steps")
    ax[2].set_ylabel("tasks")
    ax[2].set_title("Fig. 5: distribution of reasoning steps")
    if hist.empty:
        empty_panel(ax[2], "no task has annotated reasoning steps")
    save_figure(fig, path)


def build(table_id: str, ctx: Context) -> Table:
    rec, data = c2r.records(ctx)
    table = subset_table(rec)
    levels = level_steps(rec)
    steps = rec["num_steps"].dropna().astype(int)
    hist = steps.value_counts().sort_index().rename_axis("num_steps").reset_index(name="tasks")
    hist["share_%"] = 100 * hist["tasks"] / hist["tasks"].sum()
    long = pd.DataFrame([{"stat": "tasks", "acc": float(len(rec))},
                         *({"stat": f"mean_steps {r.level}", "acc": r.mean_steps} for r in levels.itertuples())])
    long["model"] = DATASET
    fig = draw(figure, table, hist, path=ctx.figure(table_id))
    return Table(
        "C²RBench Figs. 3–5 — proportion of the subsets (Fig. 3), difficulty levels in each subset (Fig. 4) and "
        "the distribution of annotated reasoning steps (Fig. 5).",
        table,
        vs_paper=beside_paper(long, table_id, ["stat"], kind=EXACT),
        extra={"Reasoning steps per level": levels, "Steps distribution (Fig. 5)": hist},
        figure=fig,
        notes=[EXACT_NOTE,
               "Levels follow §3.5 (Level 1: 3–6 steps, 2: 7–11, 3: ≥ 12); `outside_level_range` counts tasks "
               "whose annotated step count disagrees with their level.",
               "The paper reports 1,115 tasks and 8.44 / 4.63 / 8.56 / 13.03 mean steps (overall / levels 1–3); "
               "Appendix A.2.1 says 140 tasks per subset (1,120) and A.2.2 '12.03 for Level 3' — the figures "
               "themselves are not in the text, so only these totals are compared."],
        provenance=Provenance(data=data),
    )
