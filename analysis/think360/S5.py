"""Think360° Figure S5: input-modality ablation — accuracy with Image+Question (IQ), Image-Only (IO),
Caption+Question (CQ) and Image+Question+Caption (ICQ) per model."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from analysis.plot import bars, ci_of, draw, save_figure, subplots
from analysis.reference import beside_paper, paper_order
from analysis.stats import ACC_NOTE, BESIDE, counted_correct
from analysis.table import Context, Table
from analysis.think360 import common
from analysis.uncertainty import UNITS, ci_columns, paired_difference, with_intervals
from judge.judges import default_judges

IDS = ["think360.S5"]
INPUTS = {"IQ": "direct+temp0.7", "IO": "direct+temp0.7+io", "CQ": "direct+temp0.7+caption",
          "ICQ": "direct+temp0.7+icq"}
# The differences Appendix H discusses: CQ over IQ (Llama-3.2-Vision +2.9, MiMo-VL-RL +1.7), IO vs IQ,
# ICQ vs CQ.
DIFFS = {"CQ-IQ": ("CQ", "IQ"), "IO-IQ": ("IO", "IQ"), "ICQ-CQ": ("ICQ", "CQ")}


def modality_table(summary: pd.DataFrame, df: pd.DataFrame | None = None) -> pd.DataFrame:
    """summary: model, input, acc (and its interval) → one row per model with IQ/IO/CQ/ICQ accuracy and the
    differences; with the verdicts `df`, each difference's 95 % interval over the items both inputs ran
    (`paired_intervals`)."""
    wide = summary.pivot_table(index="model", columns="input", values="acc", aggfunc="first", dropna=False)
    wide = wide.reindex(columns=list(INPUTS)).reset_index().rename_axis(columns=None)
    wide = with_intervals(wide, summary, ["model"], ["input"], str)
    pairs = paired_intervals(df) if df is not None else {}
    for name, (a, b) in DIFFS.items():
        wide[name] = wide[a] - wide[b]
        for end, column in enumerate(ci_columns(name)):
            wide[column] = [pairs.get((m, name), (np.nan, np.nan))[end] for m in wide["model"]]
    wide.attrs["items"] = {key: v[2] for key, v in pairs.items()}  # each difference's n, for the paper's interval
    return wide


def paired_intervals(df: pd.DataFrame) -> dict[tuple[str, str], tuple[float, float, int]]:
    """(model, difference) → the 95 % interval (and the items it is over) of the difference of two inputs' accuracies on the items both ran:
    the bootstrap over items of the per-item difference, each item's repeats averaged (paired_difference)."""
    per_item = counted_correct(df).astype(float).groupby([df["model"], df["input"], df["id"]]).mean()
    out = {}
    for model in per_item.index.get_level_values(0).unique():
        mine = per_item.xs(model)
        for name, (a, b) in DIFFS.items():
            if a in mine.index.get_level_values(0) and b in mine.index.get_level_values(0):
                d = paired_difference(mine.xs(a), mine.xs(b))
                out[(model, name)] = (d["diff_ci_lo"], d["diff_ci_hi"], d["items"])
    return out


def figure(table: pd.DataFrame, path: Path) -> None:
    """Fig. S5: accuracy per input setting (IQ, IO, CQ, ICQ) of every model."""
    fig, ax = subplots(figsize=(max(6, 1.8 * len(table)), 4.5))
    width = 0.8 / len(INPUTS)
    for i, name in enumerate(INPUTS):
        xs = [k + (i - (len(INPUTS) - 1) / 2) * width for k in range(len(table))]
        bars(ax, xs, table[name], width, label=name, missing=f"{name} not run", ci=ci_of(table, name))
    ax.set_xticks(range(len(table)), table["model"], rotation=20, ha="right")
    ax.set_ylabel("accuracy (%)")
    ax.set_xlabel("model")
    shown = [c for name in INPUTS for c in (name, ci_columns(name)[1]) if c in table]  # bars and their error bars
    top = table[shown].astype(float).max().max()
    ax.set_ylim(0, max(5.0, min(100.0, 1.1 * top)) if pd.notna(top) else 5.0)
    ax.set_title("Think360° Fig. S5 — input settings: IQ, IO, CQ, ICQ")
    ax.legend(title="input")
    save_figure(fig, path, dpi=150)


def not_run_notes(table: pd.DataFrame) -> list[str]:
    """What the NaN cells mean: an input setting not run, and the differences that leaves undefined."""
    notes = []
    for what, cols in (("Not run", list(INPUTS)), ("Undefined (a side not run)", list(DIFFS))):
        gaps: dict[str, list[str]] = {}
        for model, row in table.set_index("model")[cols].isna().iterrows():
            if row.any():
                gaps.setdefault(", ".join(row[row].index), []).append(model)
        notes += [f"{what}: {names} for {', '.join(models)}." for names, models in gaps.items()]
    return notes


def build(table_id: str, ctx: Context) -> Table:
    df, provenance = common.verdicts(ctx, list(INPUTS.values()), table_id)
    df["input"] = df["setting"].map({s: k for k, s in INPUTS.items()})
    summary = common.summarize(df, ["model", "input", "judge"])
    table = modality_table(summary, df)
    table.insert(1, "judge", table["model"].map(summary.drop_duplicates("model").set_index("model")["judge"]))
    order = {m: i for i, m in enumerate(paper_order(table_id, list(table["model"])))}
    table = table.sort_values("model", key=lambda s: s.map(order), ignore_index=True)
    path = draw(figure, table, path=ctx.figure(table_id))
    notes = []
    as_caption = df[(df["input"] == "IQ") & (df["run_setting"] != df["setting"])]["model"].unique()
    if len(as_caption):
        notes.append(f"IQ of {', '.join(as_caption)} was run as {INPUTS['IQ']}+caption (a text-only model: the demo "
                     "replaces images by captions), so its IQ is the CQ condition, not Image+Question.")
    if any(ctx.runs(common.BENCH, [INPUTS["IQ"] + "+text"], j) for j in default_judges(common.BENCH)):
        notes.append("The demo also runs direct+temp0.7+text (question only); Fig. S5 has no such condition, "
                     "so it is not read.")
    both = table.dropna(subset=["IO", "IQ"])
    notes += not_run_notes(table)
    notes += [common.runs_note(df),
              f"IO below IQ for {int((both['IO'] < both['IQ']).sum())} of {len(both)} models with both "
              "(paper: 60% of cases).",
              "Intervals (95 %): each input's accuracy the bootstrap over items of each item's repeats averaged; "
              "a difference's (CQ-IQ, IO-IQ, ICQ-CQ) the bootstrap over the items both inputs ran of the per-item "
              "difference (paired; where no item differs, combined from the two Wilson intervals). The paper prints "
              "no test and none is added.",
              ACC_NOTE]
    long = table.melt(id_vars="model", value_vars=list(DIFFS), var_name="input", value_name="score")
    for end, name in enumerate(("score_ci_lo", "score_ci_hi")):
        long[name] = [table.set_index("model")[ci_columns(d)[end]].get(m) for m, d in zip(long["model"], long["input"])]
    long[UNITS] = [table.attrs.get("items", {}).get(key, np.nan) for key in zip(long["model"], long["input"])]
    return Table(
        "Think360° Figure S5 — ablation of input settings: Image+Question (IQ), Image-Only (IO, the question drawn "
        "onto the image), Caption+Question (CQ) and Image+Question+Caption (ICQ); accuracy (%) and differences.",
        table,
        vs_paper=beside_paper(long, table_id, ["input"], value="score"),
        extra={"Failures": summary[["model", "input", "judge", "acc", *BESIDE]]},
        figure=path,
        notes=notes,
        provenance=provenance,
    )
