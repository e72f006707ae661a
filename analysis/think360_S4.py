"""Think360° Figure S4: thinking vs non-thinking mode of the same model — accuracy ratio, token ratio and
time ratio (thinking / non-thinking), drawn as a bubble chart."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

from analysis import think360_common as common  # noqa: E402
from analysis.reference import beside_paper  # noqa: E402
from analysis.table import Context, MissingInputs, Table, save_figure  # noqa: E402

IDS = ["think360.S4"]
THINK, NOTHINK = "direct+think", "direct+nothink"
# Kimi-VL's thinking counterpart is another checkpoint, not a switch: paired on Table 3's direct runs when
# both exist (the paper's Fig. S4 includes it; configs/experiments/think360_S4.yaml does not run it).
MODEL_PAIRS = [("kimi-vl-a3b-thinking", "kimi-vl-a3b-instruct", "direct+temp0.7")]


def ratios(pairs: pd.DataFrame) -> pd.DataFrame:
    """pairs: model, acc/time/token of the thinking (`*_think`) and non-thinking (`*_nothink`) run →
    acc_ratio, token_ratio, time_ratio = thinking / non-thinking."""
    out = pairs[["model"]].copy()
    for metric in ("acc", "token", "time"):
        out[f"{metric}_ratio"] = pairs[f"{metric}_think"] / pairs[f"{metric}_nothink"]
    return out


def paired(think: pd.DataFrame, nothink: pd.DataFrame) -> pd.DataFrame:
    cols = ["model", "judge", "acc", "time", "token", "scored", "no_response", "judge_error"]
    return think[cols].merge(nothink[cols].drop(columns="judge"), on="model", suffixes=("_think", "_nothink"))


def draw(table: pd.DataFrame, path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fig, ax = plt.subplots(figsize=(8, 6))
    base = 60  # marker area (pt²) of the non-thinking circle, radius 1; thinking radius × time ratio (Kimi: ×26.7)
    ax.scatter([1], [1], s=base, facecolors="none", edgecolors="grey", label="non-thinking (radius 1)")
    for i, row in enumerate(table.itertuples(index=False)):
        ax.scatter(row.acc_ratio, row.token_ratio, s=base * row.time_ratio ** 2, alpha=0.4, color=f"C{i}",
                   label=f"{row.model}: ×{row.time_ratio:.1f} time")
        ax.annotate(row.model, (row.acc_ratio, row.token_ratio), ha="center", fontsize=8)
    ax.set_yscale("log")
    ax.margins(0.25)
    ax.set_xlabel("accuracy ratio, thinking / non-thinking (×)")
    ax.set_ylabel("token ratio, thinking / non-thinking (×, log scale)")
    ax.set_title("Think360° Fig. S4 — thinking mode ablation (bubble radius ∝ time ratio)")
    ax.legend(fontsize=8, markerscale=0.3, loc="best")
    path = save_figure(fig, path, dpi=150)


def build(table_id: str, ctx: Context) -> Table:
    frames, sources, notes = [], [], []
    try:
        df, sources, notes = common.preferred_verdicts(ctx, [THINK, NOTHINK], table_id)
        s = common.summarize(df, ["model", "setting", "judge"])
        frames.append(paired(s[s["setting"] == THINK], s[s["setting"] == NOTHINK]))
    except MissingInputs:
        pass
    for thinker, instruct, setting in MODEL_PAIRS:
        try:
            df, more, _ = common.preferred_verdicts(ctx, [setting], table_id)
        except MissingInputs:
            break
        s = common.summarize(df[df["model"].isin([thinker, instruct])], ["model", "setting", "judge"])
        if set(s["model"]) == {thinker, instruct} and s["judge"].nunique() == 1:
            frames.append(paired(s[s["model"] == thinker], s[s["model"] == instruct].assign(model=thinker)))
            sources += [r for r in more if r.model in (thinker, instruct)]
            notes.append(f"{thinker} is paired with {instruct} (separate checkpoints, {setting} runs).")
    pairs = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    if pairs.empty:
        raise MissingInputs(f"no model has both {THINK} and {NOTHINK} judged runs (the demo skips them: its model "
                            f"has no thinking switch): python -m infer.experiments --profile paper --only {table_id}")
    table = ratios(pairs).merge(pairs, on="model")
    figure = ctx.figures / f"{table_id}.png"
    draw(table, figure)
    long = table.melt(id_vars="model", value_vars=["acc_ratio", "token_ratio", "time_ratio"], var_name="metric",
                      value_name="score")
    notes += ["Ratios are thinking / non-thinking of Acc (scored verdicts), mean completion tokens and mean "
              "latency_s; each model's own sampling (Claude's thinking allows only temperature 1)."]
    return Table(
        table_id,
        "Think360° Figure S4 — thinking mode ablation: accuracy ratio (x), token ratio (y) and time ratio (bubble "
        "radius; the non-thinking circle has radius 1).",
        table,
        vs_paper=beside_paper(long, table_id, ["metric"], value="score"),
        figure=figure,
        notes=notes,
        sources=sources,
    )
