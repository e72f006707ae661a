"""Think360° Table 5: ToT-Width and ToT-Depth (ToT-Eval, §4.1 and Appendix G) and Acc per model, and the
Spearman ρ of each ToT metric with Acc across models (the paper: 0.9218 for width, 0.8492 for depth)."""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from analysis import think360_common as common
from analysis.plot import corner_note, draw, empty_panel, save_figure, subplots
from analysis.reference import beside_paper
from analysis.stats import ACC_NOTE, SCORE_BESIDE, score_table, spearman
from analysis.table import Context, MissingInputs, Table

IDS = ["think360.T5"]
SETTING = "direct+temp0.7"
TOT = "think360_tot"
METRICS = {"tot_width": "ToT-Width", "tot_depth": "ToT-Depth"}


def build(table_id: str, ctx: Context) -> Table:
    try:
        tot = ctx.verdicts(common.BENCH, [SETTING], TOT)
    except MissingInputs as e:
        raise MissingInputs(f"{e}; ToT-Eval: python -m pipeline.experiments --only think360.T5") from e
    scores = score_table(tot, ["model"], list(METRICS))
    acc_df, provenance = common.verdicts(ctx, [SETTING], "think360.T3")
    acc = common.summarize(acc_df, ["model"])[["model", "acc"]]
    table = scores.merge(acc, on="model", how="left").rename(columns={**METRICS, "acc": "Acc"})
    order = {m: i for i, m in enumerate(common.paper_order(list(table["model"]), table_id))}
    table = table.sort_values("model", key=lambda s: s.map(order), ignore_index=True)
    rho = pd.DataFrame([{"metric": name, **spearman(*_pairs(table, name))} for name in METRICS.values()])
    long = table.melt(id_vars="model", value_vars=[*METRICS.values(), "Acc"], var_name="metric", value_name="score")
    provenance.runs += ctx.runs(common.BENCH, [SETTING], TOT)
    return Table(
        "Think360° Table 5 — ToT-Width / ToT-Depth (%, the mean over the answers whose reasoning tree was "
        "extracted and judged) and Acc (%, Table 3's), with the Spearman ρ of each ToT metric with Acc across models.",
        table[["model", *METRICS.values(), "Acc", *(f"{f}_n" for f in METRICS), *SCORE_BESIDE]],
        vs_paper=beside_paper(long, table_id, ["metric"], value="score"),
        extra={"Spearman ρ with Acc (paper: ToT-Width 0.9218, ToT-Depth 0.8492)": rho},
        figure=draw(_scatter, table, path=ctx.figures / f"{table_id}.png"),
        notes=[
            "ToT-Eval (judge think360_tot): the model's response is extracted as a tree of verbatim steps (the "
            "paper's ToT Extraction prompt), every node is judged with its ancestors, the question, the reference "
            "answer and the image (ToT Judgement prompt), and the tree scores ToT-Depth (Eq. S1) and ToT-Width "
            "(Eq. S2); the depth-1 roots form one sibling group, so an answer-only response scores its one node.",
            "A tree that could not be extracted or repaired, or a node judgement that could not be read, is a "
            "judge error: it has no score, is left out of the means and counted (judge_error); `scored` is how "
            "many trees each mean covers. judge_calls and judge_tokens are what ToT-Eval asked of the judge model.",
            ACC_NOTE,
        ],
        provenance=provenance,
    )


def _pairs(table: pd.DataFrame, metric: str) -> tuple[list[float], list[float]]:
    both = table.dropna(subset=[metric, "Acc"])
    return list(both[metric]), list(both["Acc"])


def _scatter(table: pd.DataFrame, path: Path) -> None:
    """Each ToT metric against Acc, one point per model; the models not drawn listed in the corner."""
    fig, axes = subplots(1, 2, figsize=(9, 4))
    for ax, metric in zip(axes, METRICS.values()):
        both = table.dropna(subset=[metric, "Acc"])
        ax.scatter(both[metric], both["Acc"])
        for model, x, y in zip(both["model"], both[metric], both["Acc"]):
            ax.annotate(model, (x, y), fontsize=7)
        ax.set(xlabel=f"{metric} (%)", ylabel="Acc (%)", title=f"{metric} vs accuracy")
        if both.empty:  # never an empty frame: say why nothing is drawn
            empty_panel(ax, f"no model has both a {metric} score and an Acc")
        left = table[~table.index.isin(both.index)]
        corner_note(ax, [f"{m}: {'no tree scored' if pd.isna(v) else 'no Acc (direct run)'}"
                         for m, v in zip(left["model"], left[metric])])
    fig.suptitle("Think360° Table 5: reasoning width and depth against accuracy")
    save_figure(fig, path)
