"""OMIBench Figure 5(a): sequential test-time scaling — score against the maximum new-token budget L_max
(cot_boxed+max<N> runs; paper: N ∈ {512, …, 16384}, Appendix H.1)."""
from __future__ import annotations

import re

import numpy as np
import pandas as pd

from analysis.omibench.metrics import METRICS, RULE_GAP, RULES_NOTE, rule_gap, rule_gap_notes, with_both_rules
from analysis.omibench.runs import BENCH, runs_named
from analysis.omibench.scaling import PAPER_BUDGETS, sequential_scaling
from analysis.plot import draw, line_figure, not_run_at
from analysis.provenance import Provenance
from analysis.stats import ACC_NOTE, BESIDE, accuracy_table, counted_correct
from analysis.table import Context, MissingInputs, Table
from analysis.table_experiments import how_to_run
from analysis.uncertainty import paired_difference

IDS = ["omibench.F5a"]
BUDGET = re.compile(r"cot_boxed\+max(\d+)")


def curve(df: pd.DataFrame) -> pd.DataFrame:
    """Per model: accuracy at each budget (failures not correct, counted), gain over the previous budget, and
    how many responses hit the budget (finish_reason "length": the answer was cut off)."""
    df = df.assign(budget=df["setting"].map(lambda s: int(BUDGET.fullmatch(s).group(1))))
    acc = accuracy_table(df, ["model", "budget"])
    cut = df.groupby(["model", "budget"])["finish_reason"].apply(lambda s: int((s == "length").sum()))
    acc = acc.merge(cut.rename("cut_at_budget").reset_index(), on=["model", "budget"])
    out = []
    per_item = counted_correct(df).groupby([df["model"], df["budget"], df["id"]]).mean()
    for model, g in acc.groupby("model"):
        g = g.sort_values("budget").reset_index(drop=True)
        seq = sequential_scaling(dict(zip(g["budget"], g["acc"])))  # sorted by budget, as g
        steps = [{"diff_ci_lo": np.nan, "diff_ci_hi": np.nan}] + [
            paired_difference(per_item.loc[(model, b)], per_item.loc[(model, a)])
            for a, b in zip(g["budget"], g["budget"][1:])]
        out.append(g.assign(gain=seq["gain"], gain_ci_lo=[d["diff_ci_lo"] for d in steps],
                            gain_ci_hi=[d["diff_ci_hi"] for d in steps], monotonic=seq["monotonic"],
                            missing_budgets=", ".join(map(str, seq.attrs["missing_budgets"])) or "none"))
    return pd.concat(out, ignore_index=True)


def build(table_id: str, ctx: Context) -> Table:
    long, frames, sources = [], {}, []
    for metric, judge in METRICS.items():
        runs = runs_named(ctx, judge, BUDGET)
        if not runs:
            continue
        settings = sorted({s for _, s in runs}, key=lambda s: int(BUDGET.fullmatch(s).group(1)))
        frames[metric] = ctx.verdicts(BENCH, settings, judge)
        long.append(curve(frames[metric]).assign(metric=metric))
        sources += list(runs.values())
    if not long:
        raise MissingInputs(f"no judged omibench cot_boxed+max<N> runs; {how_to_run(table_id)}")
    df = with_both_rules(pd.concat(long, ignore_index=True), ["model", "budget"])
    gap = rule_gap(frames, ["model", "setting"])
    cols = ["model", "metric", "budget", "acc", "gain", "gain_ci_lo", "gain_ci_hi", "monotonic", *BESIDE,
            "cut_at_budget", "missing_budgets"]
    df = df[cols].sort_values(["model", "metric", "budget"]).reset_index(drop=True)

    groups = df.dropna(subset=["acc"]).groupby(["model", "metric"])
    curves = [(g["budget"], g["acc"], {"marker": "o", "label": f"{model} ({metric})"}) for (model, metric), g in groups]
    # the paper's budgets and any budget another curve has: written "not run" where a curve has no point
    gaps = not_run_at({f"{model} ({metric})": dict(zip(g["budget"], g["acc"])) for (model, metric), g in groups},
                      PAPER_BUDGETS)
    path = draw(line_figure, curves, path=ctx.figure(table_id), log2_x=True, ylabel="score (%)",
                missing=gaps, xlabel="maximum new tokens L_max (log2 scale)",
                title="OMIBench Fig. 5(a): sequential scaling")
    return Table(
        "OMIBench Figure 5(a) — sequential scaling: score (%) per maximum new-token budget L_max, all else fixed; "
        "gain = change from the previous budget. Paper: GPTScore; ACC (C.1's rule, and the careful rule) is shown "
        "as well.",
        df, figure=path, provenance=Provenance(sources), extra={RULE_GAP: gap},
        notes=[ACC_NOTE, RULES_NOTE, *rule_gap_notes(gap, ["model", "setting"]),
               "Budgets are the cot_boxed+max<N> runs present (paper: 512 … 16384; the demo runs 32/64/128). "
               "`missing_budgets` lists the paper's budgets not run.",
               "gain's 95 % interval: the bootstrap over the items both budgets ran of the per-item difference "
               "(paired; where no item differs, combined from the two Wilson intervals); no test is made.",
               "`cut_at_budget`: responses stopped by the budget (finish_reason = length), scored as they are; "
               "`truncated`: those of them with no final answer stated.",
               "The paper prints no numbers for Figure 5(a): no reference file."])
