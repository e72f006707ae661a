"""OMIBench Figure 6(a): multimodal in-context learning — No-Image, Single-Image and Multi-Image
demonstrations against zero-shot CoT, on the same items, demonstration items not scored (Appendix H.4)."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd

from analysis.omibench.metrics import METRICS, RULE_GAP, RULES_NOTE, rule_gap, rule_gap_notes, with_both_rules
from analysis.omibench.runs import BENCH, SETTING, runs_named
from analysis.plot import bars, ci_of, draw, save_figure, subplots
from analysis.provenance import Provenance
from analysis.stats import ACC_NOTE, BESIDE, accuracy_table
from analysis.table import Context, MissingInputs, Table
from analysis.table_experiments import how_to_run
from analysis.uncertainty import with_interval_columns, with_intervals

IDS = ["omibench.F6a"]
ICL = re.compile(r"icl\+shots(\d+)\+demos-(none|first|all)")
ZERO = SETTING   # zero-shot CoT, the baseline
CONDITIONS = {ZERO: "Zero-shot", "none": "No-Image ICL", "first": "Single-Image ICL", "all": "Multi-Image ICL"}


def same_items(icl: pd.DataFrame, zero: pd.DataFrame, excluded: set[str]) -> set[str]:
    """Items every condition ran, minus the demonstration items (H.4: "excluded when computing the
    evaluation metrics" — from the zero-shot run too, so every bar scores the same items)."""
    sets = [set(g["id"]) for _, g in icl.groupby("setting")]
    if not zero.empty:
        sets.append(set(zero["id"]))
    return set.intersection(*sets) - excluded if sets else set()


def compare(icl: pd.DataFrame, zero: pd.DataFrame, runs: dict, metric: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Accuracy per model, shot count and condition on the common items (failures not correct, counted), and
    the verdicts it is over."""
    icl = icl.assign(shots=icl["setting"].map(lambda s: int(ICL.fullmatch(s).group(1))))
    out, used = [], []
    for (model, shots), g in icl.groupby(["model", "shots"]):
        excluded = {str(i) for s in set(g["setting"]) for i in runs[(model, s)].raw_manifest.get("excluded_ids", [])}
        z = zero[zero["model"] == model] if not zero.empty else zero
        items = same_items(g, z, excluded)
        sel = pd.concat([g, z.assign(shots=shots)], ignore_index=True)
        sel = sel[sel["id"].isin(items)]
        used.append(sel)
        acc = accuracy_table(sel, ["model", "shots", "setting"])
        acc["condition"] = acc["setting"].map(lambda s: CONDITIONS[s if s == ZERO else ICL.fullmatch(s).group(2)])
        out.append(acc.assign(metric=metric, items=len(items), demo_items_excluded=len(excluded)))
    if not out:
        return pd.DataFrame(), pd.DataFrame()
    return pd.concat(out, ignore_index=True), pd.concat(used, ignore_index=True)


def figure(groups: list[str], conds: pd.DataFrame, path: Path) -> None:
    """Fig. 6(a): one bar per condition (the columns of `conds`) for each model / shots / metric group."""
    order = list(CONDITIONS.values())
    fig, ax = subplots(figsize=(7, 4))
    width = 0.8 / len(order)
    for i, c in enumerate(order):
        bars(ax, np.arange(len(groups)) + i * width, conds[c], width, label=c, missing=f"{c} not run",
             ci=ci_of(conds, c))
    ax.set_xticks(np.arange(len(groups)) + width * (len(order) - 1) / 2, groups, fontsize=7)
    ax.set_xlabel("model / shots / metric")
    ax.set_ylabel("score (%)")
    ax.set_title("OMIBench Fig. 6(a): in-context learning")
    ax.set_ylim(0, 100)  # percentages: a fixed scale keeps bars comparable across runs
    ax.legend(fontsize=7)
    save_figure(fig, path)


def build(table_id: str, ctx: Context) -> Table:
    long, frames, sources = [], {}, []
    for metric, judge in METRICS.items():
        runs = runs_named(ctx, judge, ICL)
        if not runs:
            continue
        icl = ctx.verdicts(BENCH, sorted({s for _, s in runs}), judge)
        try:
            zero = ctx.verdicts(BENCH, [ZERO], judge)
        except MissingInputs:
            zero = pd.DataFrame(columns=icl.columns)
        acc, frames[metric] = compare(icl, zero, runs, metric)
        long.append(acc)
        sources += list(runs.values()) + ctx.runs(BENCH, [ZERO], judge)
    if not long:
        raise MissingInputs("no judged omibench icl+shots<K>+demos-{none,first,all} runs (the demo runs shots1); "
                            f"{how_to_run(table_id)}")
    df = with_both_rules(pd.concat(long, ignore_index=True),
                         ["model", "shots", "setting", "condition", "items", "demo_items_excluded"])
    gap = rule_gap(frames, ["model", "shots", "setting"])
    order = list(CONDITIONS.values())
    table = df.pivot_table(index=["model", "shots", "metric", "items", "demo_items_excluded"], columns="condition",
                           values="acc", aggfunc="first", dropna=False)
    table = table[[c for c in order if c in table.columns]].reset_index()
    table.columns.name = None
    table = with_intervals(table, df, ["model", "shots", "metric", "items", "demo_items_excluded"], ["condition"], str)

    groups = table[["model", "shots", "metric"]].astype(str).agg(" / ".join, axis=1).tolist()
    conds = table.reindex(columns=with_interval_columns(order))  # every condition of the figure: one not run too
    path = draw(figure, groups, conds, path=ctx.figure(table_id))
    fails = df[["model", "shots", "metric", "condition", "setting", "acc", *BESIDE]]
    gaps = [f"{c} for {g}" for g, (_, row) in zip(groups, conds.iterrows()) for c in order if pd.isna(row[c])]
    return Table(
        "OMIBench Figure 6(a) — score (%) with k demonstrations without images (No-Image), with their first image "
        "(Single-Image) or all images (Multi-Image), and zero-shot CoT, on the same items; demonstration items not scored.",
        table, extra={"Failures and accuracy over scored items": fails, RULE_GAP: gap}, figure=path,
        provenance=Provenance(sources),
        notes=[ACC_NOTE, RULES_NOTE, *rule_gap_notes(gap, ["model", "shots", "setting"]),
               "`items`: items every condition ran, minus the demonstration items (`excluded_ids` of the ICL runs' "
               "raw manifests), which are dropped from the zero-shot baseline too.",
               "Paper: 3 demonstrations (icl+shots3+…); the demo runs 1. The paper prints no numbers for "
               "Figure 6(a): no reference file."] + ([f"Not run: {'; '.join(gaps)}."] if gaps else []))
