"""OMIBench Figure 5(b): parameter scaling — score of each model family against total and activated
parameters (log scale), with the saturation size of Appendix H.2 (< 0.5 absolute gain beyond it)."""
from __future__ import annotations

import math
import re
from pathlib import Path

import pandas as pd

from analysis.omibench.metrics import (METRICS, RULE_GAP, RULES_NOTE, beside_paper_rules, rule_gap, rule_gap_notes,
                                       with_both_rules)
from analysis.omibench.runs import BENCH, SETTING, model_params
from analysis.omibench.scaling import saturation_point
from analysis.plot import draw, save_figure, subplots
from analysis.provenance import Provenance
from analysis.stats import ACC_NOTE, BESIDE, accuracy_table
from analysis.table import Context, MissingInputs, Table
from analysis.table_experiments import how_to_run

IDS = ["omibench.F5b"]   # Table 2's runs (SETTING): the figure plots their totals by size
AXES = {"total": "params_total_b", "activated": "params_active_b"}
# name = <family>-<size>[-a<active>b][-<variant>]; "instruct" is the family's default variant
SIZE = re.compile(r"(.+?)-(\d+(?:\.\d+)?)[bm](?:-a\d+(?:\.\d+)?b)?(?:-(.+))?")


def family_of(model: str) -> str:
    """The family a model scales within: its name without the size (and MoE active-size) token.

    qwen3-vl-32b, qwen3-vl-8b-instruct, qwen3-vl-235b-a22b → qwen3-vl; qwen3-vl-8b-thinking →
    qwen3-vl-thinking (another variant, another curve); a name without a size is its own family.
    Generations stay apart (qwen2.5-vl vs qwen3-vl): mixing them would put two models at one size.
    """
    m = SIZE.fullmatch(model)
    if not m:
        return model
    variant = m.group(3)
    return m.group(1) if variant in (None, "instruct") else f"{m.group(1)}-{variant}"


def saturation(points: pd.DataFrame) -> pd.DataFrame:
    """Per family, metric and parameter axis: the H.2 saturation size (scaling.saturation_point, rule
    "previous": every later step gains < 0.5 points; "point": nothing later beats it by 0.5).

    `points`: model, family, metric, acc (points, 0–100), params_total_b, params_active_b. Two models of
    one family at the same size (one checkpoint under two config names) count once: the first by name.
    """
    rows = []
    for (family, metric), g in points.groupby(["family", "metric"]):
        for axis, col in AXES.items():
            usable = g.dropna(subset=[col, "acc"])  # a model with no judged item has no point
            g2 = usable.sort_values([col, "model"]).drop_duplicates(col)
            pts = list(zip(g2[col], g2["acc"]))
            sat = saturation_point(pts) if len(pts) > 1 else None
            strict = saturation_point(pts, relative_to="point") if len(pts) > 1 else None
            at = g2.loc[g2[col] == sat, "acc"]
            rows.append({"family": family, "metric": metric, "axis": axis, "models": len(g2),
                         "sizes_b": ", ".join(f"{s:g}" for s in g2[col]),
                         "saturation_b": sat if sat is not None else math.nan,
                         "score_at_saturation": float(at.iloc[0]) if len(at) else math.nan,
                         "saturation_b_point_rule": strict if strict is not None else math.nan,
                         "dropped_same_size": ", ".join(sorted(set(usable["model"]) - set(g2["model"])))})
    return pd.DataFrame(rows)


def figure(df: pd.DataFrame, sat: pd.DataFrame, path: Path) -> None:
    """Each family's score against total and activated parameters (`df` of build), ★ at its saturation
    size (`saturation`)."""
    fig, axes = subplots(1, 2, figsize=(10, 4), sharey=True)
    for ax, (axis, col) in zip(axes, AXES.items()):
        for (family, metric), g in df.groupby(["family", "metric"]):
            g = g.sort_values(col)
            line, = ax.plot(g[col], g["acc"], marker="o", ls={"GPTScore": "-", "ACC": "--"}.get(metric, ":"),
                            label=f"{family} ({metric})")
            s = sat[(sat["family"] == family) & (sat["metric"] == metric) & (sat["axis"] == axis)]
            if len(s) and not math.isnan(s["saturation_b"].iloc[0]):
                ax.plot(s["saturation_b"], s["score_at_saturation"], marker="*", ms=14, color=line.get_color())
        ax.set_xscale("log")
        ax.set_xlabel(f"{axis} parameters (billions, log scale)")
        ax.set_title(f"score vs {axis} parameters")
    axes[0].set_ylabel("score (%)")
    axes[1].legend(fontsize=7)
    fig.suptitle("OMIBench Fig. 5(b): parameter scaling (★ saturation, H.2)")
    save_figure(fig, path)


def build(table_id: str, ctx: Context) -> Table:
    frames, verdicts, sources, closed = [], {}, [], set()
    for metric, judge in METRICS.items():
        runs = {r.model: r for r in ctx.runs(BENCH, [SETTING], judge)}
        if not runs:
            continue
        verdicts[metric] = ctx.verdicts(BENCH, [SETTING], judge)
        acc = accuracy_table(verdicts[metric], ["model"]).assign(metric=metric)
        params = {m: model_params(m, runs.get(m)) for m in acc["model"]}
        acc["params_total_b"] = [params[m][0] for m in acc["model"]]
        acc["params_active_b"] = [params[m][1] for m in acc["model"]]
        closed |= set(acc.loc[acc["params_total_b"].isna(), "model"])
        frames.append(acc.dropna(subset=["params_total_b"]))
        sources += list(runs.values())
    if not frames:
        raise MissingInputs(f"no judged omibench {SETTING} runs (Table 2's models); {how_to_run(table_id)}")
    df = pd.concat(frames, ignore_index=True)
    if df.empty:
        raise MissingInputs(f"no omibench {SETTING} run of a model with a known parameter count (params_total_b)")
    df["family"] = df["model"].map(family_of)
    df = with_both_rules(df, ["family", "model", "params_total_b", "params_active_b"])
    gap = rule_gap({m: v[v["model"].isin(df["model"].unique())] for m, v in verdicts.items()}, ["model"])
    df = df[["family", "model", "params_total_b", "params_active_b", "metric", "acc", *BESIDE]] \
        .sort_values(["family", "metric", "params_total_b"]).reset_index(drop=True)
    sat = saturation(df)

    path = draw(figure, df, sat, path=ctx.figure(table_id))
    notes = [ACC_NOTE, RULES_NOTE, *rule_gap_notes(gap, ["model"]),
             "Families are model names without the size token (family_of); the paper's curves are InternVL and "
             "QwenVL from Table 2 (1B–241B), typed in data/reference/omibench.F5b.csv.",
             "Saturation (H.2): the smallest size beyond which every larger model gains < 0.5 absolute points "
             "(per step; `saturation_b_point_rule`: over that size itself). NaN: no saturation within the range.",
             "Paper: GPTScore (its ACC is typed in too). Parameters from configs/models/paper/<model>.yaml "
             "(params_total_b / params_active_b), else the config recorded in the run's manifest."]
    if closed:
        notes.append(f"Left out (no parameter count): {', '.join(sorted(closed))}.")
    return Table("OMIBench Figure 5(b) — score (%) of each model family against total and activated "
                 "parameters (CoT prompt with \\boxed{}), and where it saturates.", df,
                 vs_paper=beside_paper_rules(df, table_id, ["metric"]), extra={"Saturation": sat, RULE_GAP: gap},
                 figure=path,
                 notes=notes, provenance=Provenance(sources))
