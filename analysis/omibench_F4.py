"""OMIBench Fig. 4(a) prompting strategies (default CoT, Least-to-Most, Plan-and-Solve, VoT) and Fig. 4(b)
thinking vs no-thinking prompting: accuracy per model and prompt, each prompt against the default CoT
prompt with an exact McNemar test on the items both runs ran (§6.1: "no statistically significant
differences across prompts"). Also the comparison helpers of Fig. 3(c) and Table 6."""
from __future__ import annotations

from pathlib import Path
from typing import Callable

import numpy as np
import pandas as pd

from analysis.omibench_T2 import METRICS
from analysis.plot import save_figure, subplots
from analysis.stats import ACC_NOTE, BESIDE, accuracy_table, counted_correct, mcnemar
from analysis.table import Context, MissingInputs, Table

IDS = ["omibench.F4a", "omibench.F4b"]
BASELINE = "cot_boxed"
SETTINGS = {"omibench.F4a": [BASELINE, "least_to_most", "plan_and_solve", "vot"],
            "omibench.F4b": [BASELINE, "no_think"]}
LABELS = {"cot_boxed": "Default CoT", "least_to_most": "Least-to-Most", "plan_and_solve": "Plan-and-Solve",
          "vot": "VoT", "no_think": "No-Think", "cot_boxed+first": "First image only",
          "cot_boxed+text": "No image", "cot_boxed+composite": "Composite single image"}
TITLES = {"omibench.F4a": "OMIBench Fig. 4(a): prompting strategies",
          "omibench.F4b": "OMIBench Fig. 4(b): thinking vs no-thinking prompting"}
CAPTIONS = {
    "omibench.F4a": "OMIBench Fig. 4(a) — prompting strategies: default CoT, Least-to-Most, Plan-and-Solve and "
                    "Visualization-of-Thought; accuracy (%) per model, Δ and exact McNemar p against the default CoT.",
    "omibench.F4b": "OMIBench Fig. 4(b) — thinking (default CoT prompt) vs no-thinking prompting (answer only); "
                    "accuracy (%) per model, Δ and exact McNemar p against the CoT prompt.",
}


def paired_tests(df: pd.DataFrame, baseline: str) -> pd.DataFrame:
    """Exact McNemar of every setting against the baseline, per model, on the (item, sample) pairs both
    ran; a failure is not correct, so the test is of the difference in the accuracies the tables show."""
    cols = ["model", "setting", "paired", "only_setting", "only_baseline", "p"]
    ran = df[["model", "setting", "id", "sample_idx"]].assign(correct=counted_correct(df))
    rows = []
    for (model, setting), g in ran.groupby(["model", "setting"]):
        base = ran[(ran["model"] == model) & (ran["setting"] == baseline)]
        if setting == baseline or base.empty:
            continue
        m = g.merge(base, on=["id", "sample_idx"], suffixes=("", "_base"))
        t = mcnemar(m["correct"].astype(bool).to_numpy(), m["correct_base"].astype(bool).to_numpy())
        rows.append([model, setting, len(m), t["only_a"], t["only_b"], t["p"]])
    return pd.DataFrame(rows, columns=cols)


def common_items(df: pd.DataFrame) -> pd.DataFrame:
    """Per model, only the items every one of its settings ran (the demo runs some settings on a prefix),
    so that the settings' accuracies compare the same questions."""
    keep = []
    for _, g in df.groupby("model"):
        ids = set.intersection(*(set(x["id"]) for _, x in g.groupby("setting")))
        keep.append(g[g["id"].isin(ids)])
    return pd.concat(keep, ignore_index=True) if keep else df


def compare(ctx: Context, settings: list[str], baseline: str = BASELINE,
            where: Callable[[pd.DataFrame], pd.DataFrame] | None = None) -> tuple[pd.DataFrame, pd.DataFrame, list]:
    """Accuracy per (metric, model, setting) on the model's common items, and the paired tests, for every
    judge that has runs; `where` selects rows first (e.g. multi-image items only)."""
    long, tests, sources = [], [], []
    for metric, judge in METRICS.items():
        try:
            df = ctx.verdicts("omibench", settings, judge)
        except MissingInputs:
            continue
        df = common_items(where(df) if where is not None else df)
        long.append(accuracy_table(df, ["model", "setting"]).assign(metric=metric))
        tests.append(paired_tests(df, baseline).assign(metric=metric))
        sources += ctx.runs("omibench", settings, judge)
    if not long:
        raise MissingInputs(f"no judged omibench runs of {settings} (rules or omibench_gptscore); "
                            f"run their experiment config (configs/experiments/omibench_*.yaml)")
    return pd.concat(long, ignore_index=True), pd.concat(tests, ignore_index=True), sources


def wide(long: pd.DataFrame, tests: pd.DataFrame, settings: list[str], baseline: str = BASELINE) -> pd.DataFrame:
    """One row per (model, metric): accuracy per setting, then Δ and McNemar p of each against the baseline."""
    acc = long.pivot_table(index=["model", "metric"], columns="setting", values="acc", aggfunc="first", dropna=False)
    out = pd.DataFrame(index=acc.index)
    for s in settings:
        out[LABELS.get(s, s)] = acc[s] if s in acc else np.nan
    p = tests.set_index(["model", "metric", "setting"])["p"]
    for s in settings:
        if s != baseline:
            out[f"Δ {LABELS.get(s, s)}"] = out[LABELS.get(s, s)] - out[LABELS.get(baseline, baseline)]
            out[f"p {LABELS.get(s, s)}"] = [p.get((m, k, s), np.nan) for m, k in out.index]
    return out.reset_index()


def missing_runs(long: pd.DataFrame, settings: list[str]) -> list[str]:
    have = set(zip(long["model"], long["setting"]))
    return [f"{m}: no {s} run" for m in sorted(set(long["model"])) for s in settings if (m, s) not in have]


def bar_figure(long: pd.DataFrame, settings: list[str], path: Path, title: str) -> Path:
    """Grouped bars: models on x, one bar per setting, one panel per metric."""
    # A metric without any score (e.g. GPTScore with an unconfigured judge model) gets no empty panel.
    metrics = [m for m in METRICS if long.loc[long["metric"] == m, "acc"].notna().any()] or [long["metric"].iloc[0]]
    models = sorted(set(long["model"]))
    fig, axes = subplots(1, len(metrics), figsize=(max(5, 1.6 * len(models) * len(metrics) + 2), 4), squeeze=False)
    width = 0.8 / len(settings)
    for ax, metric in zip(axes[0], metrics):
        sub = long[long["metric"] == metric].set_index(["model", "setting"])["acc"]
        for i, s in enumerate(settings):
            ax.bar(np.arange(len(models)) + i * width, [sub.get((m, s), np.nan) for m in models], width,
                   label=LABELS.get(s, s))
        ax.set_xticks(np.arange(len(models)) + width * (len(settings) - 1) / 2, models, rotation=20, ha="right")
        ax.set_ylabel(f"{metric} (%)")
        ax.set_xlabel("model")
        ax.set_ylim(bottom=0)
        ax.set_title(metric)
    axes[0][0].legend(fontsize=8)
    fig.suptitle(title)
    return save_figure(fig, path)


def build(table_id: str, ctx: Context) -> Table:
    settings = SETTINGS[table_id]
    long, tests, sources = compare(ctx, settings)
    fig = bar_figure(long, settings, ctx.figures / f"{table_id}.png", TITLES[table_id])
    failures = long[["model", "metric", "setting", "acc", *BESIDE]]
    return Table(table_id, CAPTIONS[table_id], wide(long, tests, settings),
                 extra={"Paired tests against the default CoT (McNemar, exact)": tests, "Failures": failures},
                 figure=fig, sources=sources,
                 notes=[ACC_NOTE, "ACC: rule judge; GPTScore: LLM judge. The paper prints no numbers for this "
                        "figure, so there is nothing to set beside ours.",
                        "Each model's settings are compared on the items all of them ran (`judged` below).",
                        "McNemar pairs each (item, sample) both runs ran, a failure counting as not correct; the "
                        "paper finds no significant difference across prompts (4a) and little change without "
                        "thinking (4b)."] + missing_runs(long, settings))
