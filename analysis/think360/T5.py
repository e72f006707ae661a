"""Think360° Table 5: ToT-Width and ToT-Depth (ToT-Eval, §4.1 and Appendix G) and Acc per model, and the
Spearman ρ of each ToT metric with Acc across models (the paper: 0.9218 for width, 0.8492 for depth).

Appendix G defines ToT-Width twice (judge/tot.py): Eq. S2's, the headline set beside the paper's number, and
the prose's, which counts the roots as a sibling group; both are shown, each with its ρ."""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from analysis.plot import corner_note, draw, empty_panel, save_figure, subplots
from analysis.provenance import Provenance
from analysis.reference import beside_paper, paper_order
from analysis.stats import ACC_NOTE, SCORE_BESIDE, score_table, spearman
from analysis.table import Context, MissingInputs, Table
from analysis.table_experiments import how_to_run, models_of
from analysis.think360 import common
from analysis.think360.tot_scores import WITH_ROOTS, with_roots_width
from analysis.uncertainty import (KIND, MEAN, PROPORTION, UNITS, ci_columns, renamed, rho_interval,
                                  with_interval_columns)

IDS = ["think360.T5"]
EXPERIMENT = "think360_T5"
SETTING = "direct+temp0.7"
TOT = "think360_tot"
METRICS = {"tot_width": "ToT-Width", WITH_ROOTS: "ToT-Width with roots", "tot_depth": "ToT-Depth"}
# The paper's ρ with Acc: one ToT-Width, whichever reading it computed
PAPER_RHO = {"ToT-Width": 0.9218, "ToT-Width with roots": 0.9218, "ToT-Depth": 0.8492}
PANEL = {"ToT-Width": "ToT-Width (Eq. S2)", "ToT-Width with roots": "ToT-Width with roots (prose)"}
INTERVALS_NOTE = ("Intervals (95 %): ToT-Width's and ToT-Depth's the bootstrap over items of the trees' scores (an "
                  "item's repeats resampled together; where every tree scored the same, a point: the bootstrap cannot "
                  "tell how far off that is), Acc's as Table 3's; ρ's Fisher's z with Bonett and Wright's variance over "
                  "the models.")
EQ_S2 = ("ToT-Width is Eq. S2's (the paper's equation, set beside the paper's number): the mean over G, \"the "
         "set of all parent nodes that have at least one child\", so the roots form no group, and a tree with no "
         "parent node (an answer-only response) has no width — it is left out of the ToT-Width mean (tot_width_n "
         "counts the trees each mean covers) and still scores ToT-Depth.")
PROSE = ("ToT-Width with roots is the prose's reading of the same appendix: \"averaging the accuracy across sibling "
         "groups at each depth level\", where the extraction prompt says \"Depth 1 nodes must have parent = None "
         "(root nodes), and nodes at the same depth are siblings\" — so the roots are one more sibling group and "
         "every tree has a width (an answer-only tree: whether its one root is right). On branchy trees the two can "
         "differ by ten points and more; which the paper computed cannot be told from its text, so both stand beside "
         "its number (vs_paper's ours_with_roots) and each has its ρ. Verdicts judged before scores carried this "
         "reading get it from the tree they store.")


def build(table_id: str, ctx: Context) -> Table:
    how = how_to_run(table_id)
    try:
        tot = ctx.verdicts(common.BENCH, [SETTING], TOT)
    except MissingInputs as e:
        raise MissingInputs(f"{e}; ToT-Eval: {how}") from e
    mine = models_of(EXPERIMENT)  # Table 3 and Table 4 run other models with the same setting
    tot = tot[tot["model"].isin(mine)]
    if tot.empty:
        raise MissingInputs(f"no ToT-Eval verdicts of Table 5's models; {how}")
    runs = [r for r in ctx.runs(common.BENCH, [SETTING], TOT) if r.model in mine]
    tot = with_roots_width(tot, runs)
    scores = score_table(tot, ["model"], list(METRICS))
    # a response whose model kept its reasoning hidden (judge/judges.py Item.trajectory_hidden) has no tree
    hidden = tot["status"].eq("ok") & ~tot["score"].map(lambda s: isinstance(s, dict))
    scores = scores.merge(hidden.groupby(tot["model"]).sum().rename("no_trajectory").reset_index(), on="model")
    scores.insert(1, "trajectory", [_trajectory(n, judged) for n, judged in zip(scores["no_trajectory"], scores["judged"])])
    try:
        acc_df, provenance = common.verdicts(ctx, [SETTING], table_id)
        acc_df = acc_df[acc_df["model"].isin(mine)]
    except MissingInputs:
        acc_df, provenance = None, None
    acc = (common.summarize(acc_df, ["model"])[["model", *with_interval_columns(["acc"])]]
           if acc_df is not None and len(acc_df) else pd.DataFrame(columns=["model", *with_interval_columns(["acc"])]))
    table = scores.merge(acc, on="model", how="outer").rename(columns=renamed({**METRICS, "acc": "Acc"}))
    order = {m: i for i, m in enumerate(paper_order(table_id, list(table["model"])))}
    table = table.sort_values("model", key=lambda s: s.map(order), ignore_index=True)
    rho = pd.DataFrame([{"metric": name, **spearman(*_pairs(table, name)), "paper": PAPER_RHO[name]}
                        for name in METRICS.values()])
    rho.insert(2, "rho_ci_lo", rho_interval(rho["rho"], rho["n"])[0])
    rho.insert(3, "rho_ci_hi", rho_interval(rho["rho"], rho["n"])[1])
    if provenance is None:
        provenance = Provenance(runs=[])
    provenance.runs += runs
    return Table(
        "Think360° Table 5 — ToT-Width (Eq. S2; beside it ToT-Width with roots, the appendix prose's reading) / "
        "ToT-Depth (%, the mean over the answers whose reasoning tree was extracted and judged) and Acc (%, the "
        "accuracy of the same runs as Table 3 defines it), with the Spearman ρ of each ToT metric with Acc across "
        "models.",
        table[["model", "trajectory", *with_interval_columns([*METRICS.values(), "Acc"]), *(f"{f}_n" for f in METRICS),
               "no_trajectory", *SCORE_BESIDE]],
        vs_paper=_beside_paper(table, table_id),
        extra={"Spearman ρ with Acc (paper: ToT-Width 0.9218, ToT-Depth 0.8492)": rho},
        figure=draw(_scatter, table, path=ctx.figure(table_id)),
        notes=[
            "ToT-Eval (judge think360_tot): the model's complete reasoning trajectory — the reasoning it returned "
            "apart, then its final response — is extracted as a tree of verbatim steps (the paper's ToT Extraction "
            "prompt), every node is judged with its ancestors, the question, the reference answer and the image (ToT "
            "Judgement prompt), and the tree scores ToT-Depth (Eq. S1) and ToT-Width (Eq. S2).",
            EQ_S2,
            PROSE,
            "A tree that could not be extracted or repaired, or a node judgement that could not be read, is a "
            "judge error: it has no score, is left out of the means and counted (judge_error); `scored` is how "
            "many trees were scored. judge_calls and judge_tokens are what ToT-Eval asked of the judge model.",
            INTERVALS_NOTE,
            *_no_trajectory_notes(table),
            ACC_NOTE,
        ],
        provenance=provenance,
    )


def _beside_paper(table: pd.DataFrame, table_id: str) -> pd.DataFrame:
    """Ours beside the paper's per model and metric, the headline ToT-Width (Eq. S2) in `ours`, and the prose
    reading's in `ours_with_roots` of the ToT-Width rows (the paper prints one ToT-Width)."""
    value_vars = [name for name in METRICS.values() if name != METRICS[WITH_ROOTS]] + ["Acc"]
    long = table.melt(id_vars="model", value_vars=value_vars, var_name="metric", value_name="score")
    by_model = table.set_index("model")
    for end, name in enumerate(("score_ci_lo", "score_ci_hi")):
        long[name] = [by_model[ci_columns(m)[end]].get(x) for x, m in zip(long["model"], long["metric"])]
    counts = {"ToT-Width": "tot_width_n", "ToT-Depth": "tot_depth_n", "Acc": "judged"}
    long[UNITS] = [by_model[counts[m]].get(x) for x, m in zip(long["model"], long["metric"])]
    long[KIND] = long["metric"].map({"Acc": PROPORTION}).fillna(MEAN)
    out = beside_paper(long, table_id, ["metric"], value="score")
    prose = table.set_index("model")[METRICS[WITH_ROOTS]]
    out["ours_with_roots"] = out["model"].map(prose).where(out["metric"] == METRICS["tot_width"]).astype(float)
    return out


def _trajectory(hidden: int, judged: int) -> str:
    """A row's trajectory as ToT-Eval saw it: "trajectory hidden" where the model's endpoint returned only final
    summaries for every answer (the model config's `reasoning: hidden`), so its ToT cells stay empty."""
    if hidden and hidden == judged:
        return "trajectory hidden"
    return f"hidden in {hidden} of {judged}" if hidden else "shown"


def _no_trajectory_notes(table: pd.DataFrame) -> list[str]:
    """§4.2 leaves out models that return only final summaries: say which answers and models that is."""
    rows = table[table["no_trajectory"].fillna(0).gt(0)]
    if rows.empty:
        return []
    said = [f"{r.model}: {int(r.no_trajectory)} of {int(r.judged)} answers"
            + (" — every answer, so no ToT score (not included, as in §4.2)" if r.no_trajectory == r.judged else "")
            for r in rows.itertuples()]
    return ["No trajectory (no_trajectory; `trajectory hidden` in the row): the model's endpoint returns only its "
            "final text, a summary, as its config declares (`reasoning: hidden`), so the answer is not scored on it "
            "(§4.2 leaves out such models, e.g. o3 and Gemini-2.5-Pro; Claude-3.7-Sonnet-Thinking is scored on its "
            "thinking only through an endpoint that returns it, configs/models/paper/claude-3.7-sonnet-thinking.yaml): "
            + "; ".join(said) + "."]


def _pairs(table: pd.DataFrame, metric: str) -> tuple[list[float], list[float]]:
    both = table.dropna(subset=[metric, "Acc"])
    return list(both[metric]), list(both["Acc"])


def _why_not_drawn(row: pd.Series, metric: str) -> str:
    if pd.notna(row[metric]):
        return "no Acc (run the accuracy judges)"
    if row.get("no_trajectory", 0) and row["no_trajectory"] == row["judged"]:
        return "no trajectory (final summaries only)"
    if metric == METRICS["tot_width"] and row.get("scored", 0):
        return "no tree with a parent node: no width"
    if metric == METRICS[WITH_ROOTS] and row.get("scored", 0):
        return "no verdict stores its tree"
    return "no tree scored"


def _scatter(table: pd.DataFrame, path: Path) -> None:
    """Each ToT metric against Acc (ToT-Width under both readings, Eq. S2's first), one point per model, with
    its ρ in the title; the models not drawn listed in the corner."""
    fig, axes = subplots(1, len(METRICS), figsize=(4.5 * len(METRICS), 4), sharey=True)
    for ax, metric in zip(axes, METRICS.values()):
        both = table.dropna(subset=[metric, "Acc"])
        ax.scatter(both[metric], both["Acc"])
        for model, x, y in zip(both["model"], both[metric], both["Acc"]):
            ax.annotate(model, (x, y), fontsize=7)
        rho = spearman(*_pairs(table, metric))["rho"]
        ax.set(xlabel=f"{metric} (%)", ylabel="Acc (%)",
               title=f"{PANEL.get(metric, metric)}: ρ {'n/a' if pd.isna(rho) else f'{rho:.3f}'} (paper {PAPER_RHO[metric]})")
        if both.empty:  # never an empty frame: say why nothing is drawn
            empty_panel(ax, f"no model has both a {metric} score and an Acc")
        left = table[~table.index.isin(both.index)]
        corner_note(ax, [f"{m}: {_why_not_drawn(row, metric)}" for m, (_, row) in zip(left["model"], left.iterrows())])
    fig.suptitle("Think360° Table 5: reasoning width and depth against accuracy")
    save_figure(fig, path)
