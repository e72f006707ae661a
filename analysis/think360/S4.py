"""Think360° Figure S4: thinking vs non-thinking variants of the same model — accuracy ratio, token ratio and
time ratio (thinking / non-thinking), drawn as a bubble chart.

The paper's ratios come from Table 3's own rows (e.g. Claude-4-Opus: Acc 30.2 / 25.8 = 1.2×, tokens 7.5×,
time 4.5×), so the pairs are Table 3's runs: two model configs each, listed as `pairs` in
configs/experiments/think360_S4.yaml, both at Table 3's setting and repeats.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from analysis import table_experiments
from analysis.plot import corner_note, draw, empty_panel, save_figure, subplots
from analysis.reference import beside_paper
from analysis.stats import counted_correct
from analysis.table import ROOT, Context, MissingInputs, Table
from analysis.think360 import common
from analysis.uncertainty import CI_HI, CI_LO, UNITS, bootstrap, ci_columns, with_interval_columns

IDS = ["think360.S4"]
CONFIG = ROOT / "configs" / "experiments" / "think360_S4.yaml"
METRICS = ("acc", "token", "time")


def experiment() -> tuple[list[tuple[str, str]], str]:
    """The [thinking, non-thinking] model pairs and the one setting both sides ran (Table 3's)."""
    return table_experiments.pairs_of(CONFIG.stem), table_experiments.experiment(CONFIG.stem).settings[0]


def paired(summary: pd.DataFrame, pairs: list[tuple[str, str]]) -> pd.DataFrame:
    """summary: one row per model (common.summarize's acc, time, token, ...) → one row per pair whose two
    models are both there, named after the thinking model, with `*_think` and `*_nothink` columns."""
    cols = [c for c in summary.columns if c != "setting"]
    think = summary[cols].merge(pd.DataFrame(pairs, columns=["model", "partner"]), on="model")
    nothink = summary[cols].rename(columns={"model": "partner"})
    return think.merge(nothink, on="partner", suffixes=("_think", "_nothink"))


def ratios(pairs: pd.DataFrame) -> pd.DataFrame:
    """pairs: model, acc/time/token of the thinking (`*_think`) and non-thinking (`*_nothink`) run →
    acc_ratio, token_ratio, time_ratio = thinking / non-thinking."""
    out = pairs[["model"]].copy()
    for metric in METRICS:
        out[f"{metric}_ratio"] = pairs[f"{metric}_think"] / pairs[f"{metric}_nothink"]
    return out


def ratio_intervals(df: pd.DataFrame, pairs: pd.DataFrame) -> pd.DataFrame:
    """Per pair (`model`: the thinking model, `partner`: the other): each ratio's 95 % interval, the bootstrap over
    the items both ran of the ratio of the two means, an item's values (its repeats averaged: correctness for acc,
    the answers' tokens and latency) resampled together for both models."""
    answered = df["status"] != "no_response"
    values = df.assign(acc=counted_correct(df).astype(float), token=df["completion_tokens"].where(answered),
                       time=df["latency_s"].where(answered))
    per_item = values.groupby(["model", "id"])[list(METRICS)].mean()
    rows = []
    for think, other in zip(pairs["model"], pairs["partner"]):
        both = per_item.loc[think].merge(per_item.loc[other], left_index=True, right_index=True,
                                         suffixes=("_a", "_b"))  # the items both models ran
        row = {"model": think}
        for metric in METRICS:
            ci = bootstrap(both, [], both.index.to_numpy(), both[f"{metric}_a"], both[f"{metric}_b"], ratio=True)
            lo, hi = ci_columns(f"{metric}_ratio")
            row[lo], row[hi] = (ci[CI_LO].iloc[0], ci[CI_HI].iloc[0]) if len(ci) else (np.nan, np.nan)
        rows.append(row)
    return pd.DataFrame(rows, columns=["model", *(c for m in METRICS for c in ci_columns(f"{m}_ratio"))])


def drawable(row) -> bool:
    """A bubble needs a finite accuracy ratio and time ratio and a positive token ratio (log scale)."""
    ratios = (row.acc_ratio, row.token_ratio, row.time_ratio)
    return all(pd.notna(r) and np.isfinite(r) for r in ratios) and row.token_ratio > 0


def figure(table: pd.DataFrame, left_out: list[str], path: Path) -> None:
    """The bubbles; a pair whose ratios are undefined (a non-thinking value of 0) is listed in the panel's
    corner with `left_out` (pairs not run, or judged apart), instead of silently missing."""
    fig, ax = subplots(figsize=(8, 6))
    base = 60  # marker area (pt²) of the non-thinking circle, radius 1; thinking radius × time ratio (Kimi: ×26.7)
    ax.scatter([1], [1], s=base, facecolors="none", edgecolors="grey", label="non-thinking (radius 1)")
    shown = [drawable(row) for row in table.itertuples(index=False)]
    unshown = [f"{row.model}: ratio undefined (acc ×{row.acc_ratio:.2g}, tokens ×{row.token_ratio:.2g}, "
               f"time ×{row.time_ratio:.2g})" for row, ok in zip(table.itertuples(index=False), shown) if not ok]
    unshown += list(left_out)
    for i, row in enumerate(table.itertuples(index=False)):
        if not shown[i]:
            continue
        ax.scatter(row.acc_ratio, row.token_ratio, s=base * row.time_ratio ** 2, alpha=0.4, color=f"C{i}",
                   label=f"{row.model}: ×{row.time_ratio:.1f} time")
        ax.annotate(row.model, (row.acc_ratio, row.token_ratio), ha="center", fontsize=8)
    ax.set_yscale("log")
    ax.margins(0.25)
    ax.set_xlabel("accuracy ratio, thinking / non-thinking (×)")
    ax.set_ylabel("token ratio, thinking / non-thinking (×, log scale)")
    ax.set_title("Think360° Fig. S4 — thinking mode ablation (bubble radius ∝ time ratio)")
    ax.legend(fontsize=8, markerscale=0.3, loc="best")
    if not any(shown):
        empty_panel(ax, "no pair with defined ratios\n" + "\n".join(unshown))
    else:
        corner_note(ax, unshown)
    save_figure(fig, path, dpi=150)


def build(table_id: str, ctx: Context) -> Table:
    pairs, setting = experiment()
    members = {m for pair in pairs for m in pair}
    df, provenance = common.verdicts(ctx, [setting], table_id)
    summary = common.summarize(df[df["model"].isin(members)], ["model", "judge"])
    both = paired(summary, pairs)
    missing = [f"{t} / {n}" for t, n in pairs if t not in set(both["model"])]
    # A ratio across two judges would mix the judges' leniency into it: such pairs are left out, and said so.
    mixed = both[both["judge_think"] != both["judge_nothink"]]
    notes = [f"{r.model} vs {r.partner}: judged by {r.judge_think} and {r.judge_nothink}; left out"
             for r in mixed.itertuples(index=False)]
    both = both[both["judge_think"] == both["judge_nothink"]]
    if both.empty:
        raise MissingInputs(f"no pair of configs/experiments/think360_S4.yaml has both judged {setting} runs; "
                            f"{table_experiments.how_to_run(table_id)}")
    table = ratios(both).merge(ratio_intervals(df, both), on="model", how="left")
    table = table[["model", *with_interval_columns([f"{m}_ratio" for m in METRICS])]].merge(both, on="model")
    left_out = ([f"{pair}: not run" for pair in missing]
                + [f"{r.model} / {r.partner}: judged apart" for r in mixed.itertuples(index=False)])
    path = draw(figure, table, left_out, path=ctx.figure(table_id))
    long = table.melt(id_vars="model", value_vars=[f"{m}_ratio" for m in METRICS], var_name="metric",
                      value_name="score")
    for end, name in enumerate(("score_ci_lo", "score_ci_hi")):
        long[name] = [table.set_index("model")[ci_columns(m)[end]].get(x) for x, m in zip(long["model"], long["metric"])]
    long[UNITS] = long["model"].map(table.set_index("model")["items_think"]) if "items_think" in table else np.nan
    notes += [f"Pairs [thinking, non-thinking] from {CONFIG.relative_to(ROOT)}, both sides Table 3's {setting} "
              "runs; ratios are thinking / non-thinking of Acc, mean completion tokens and mean latency_s "
              "(analysis.think360.common.summarize).",
              "Intervals (95 %): the bootstrap over the items both models ran of the ratio of the two means, an "
              "item's values (its repeats averaged) resampled for both together (paired). Beside the paper, its "
              "ratios are taken as means whose spread is ours, scaled to its n."]
    if missing:
        notes.append(f"Pairs without both runs: {', '.join(missing)}.")
    undefined = [f"{m}_ratio of {model}" for model, row in table.set_index("model").iterrows() for m in METRICS
                 if not np.isfinite(row[f"{m}_ratio"])]
    if undefined:
        notes.append(f"Undefined (the non-thinking value is 0; not drawn): {', '.join(undefined)}.")
    provenance.runs = [r for r in provenance.runs if r.model in set(both["model"]) | set(both["partner"])]
    return Table(
        "Think360° Figure S4 — thinking mode ablation: accuracy ratio (x), token ratio (y) and time ratio (bubble "
        "radius; the non-thinking circle has radius 1).",
        table,
        vs_paper=beside_paper(long, table_id, ["metric"], value="score"),
        figure=path,
        notes=notes,
        provenance=provenance,
    )
