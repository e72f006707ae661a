"""OMIBench Table 4 and Fig. 4(c): Qwen3-VL "Thinking" vs "Instruct" (8B, the pair configs/experiments/
omibench_T4.yaml runs) — ACC and GPTScore per subject and micro-averaged total, CoT prompt with \\boxed{},
with the thinking − instruct difference and an exact McNemar test of the pair on the items both ran."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from analysis.omibench_F4 import paired_tests
from analysis.omibench_T2 import METRICS, SETTING, per_subject, subject_wide
from analysis.reference import beside_paper
from analysis.stats import ACC_NOTE, BESIDE
from analysis.table import Context, MissingInputs, Table, save_figure

IDS = ["omibench.T4", "omibench.F4c"]
INSTRUCT, THINKING = "qwen3-vl-8b-instruct", "qwen3-vl-8b-thinking"


def load(ctx: Context) -> tuple[pd.DataFrame, pd.DataFrame, list]:
    long, tests, sources = [], [], []
    for metric, judge in METRICS.items():
        try:
            df = ctx.verdicts("omibench", [SETTING], judge)
        except MissingInputs:
            continue
        df = df[df["model"].isin([INSTRUCT, THINKING])]
        if df.empty:
            continue
        long.append(per_subject(df, metric))
        # The pair differs by model, not setting: test it as two "settings" of one row group.
        pair = df.assign(setting=df["model"], model=f"{THINKING} vs {INSTRUCT}")
        tests.append(paired_tests(pair, INSTRUCT).assign(metric=metric))
        sources += [r for r in ctx.runs("omibench", [SETTING], judge) if r.model in (INSTRUCT, THINKING)]
    if not long:
        raise MissingInputs(f"no judged omibench {SETTING} runs of {INSTRUCT} or {THINKING}: run "
                            f"python -m infer.experiments --profile paper --only omibench.T4")
    return pd.concat(long, ignore_index=True), pd.concat(tests, ignore_index=True), sources


def with_delta(wide: pd.DataFrame) -> pd.DataFrame:
    rows = wide.set_index("model").reindex([m for m in (INSTRUCT, THINKING) if m in set(wide["model"])])
    if len(rows) == 2:
        rows.loc["Δ thinking − instruct"] = rows.loc[THINKING] - rows.loc[INSTRUCT]
    return rows.reset_index()


def figure(long: pd.DataFrame, path: Path) -> Path:
    """Fig. 4(c): instruct vs thinking per subject and total, one panel per metric."""
    metrics = [m for m in METRICS if long.loc[long["metric"] == m, "acc"].notna().any()] or ["ACC"]
    subjects = [s for s in ["Biology", "Chemistry", "Mathematics", "Physics", "Total"] if s in set(long["subject"])]
    fig = Figure(figsize=(5 * len(metrics), 4))
    axes = fig.subplots(1, len(metrics), squeeze=False)[0]
    for ax, metric in zip(axes, metrics):
        sub = long[long["metric"] == metric].set_index(["model", "subject"])["acc"]
        for i, model in enumerate((INSTRUCT, THINKING)):
            ax.bar(np.arange(len(subjects)) + 0.4 * i, [sub.get((model, s), np.nan) for s in subjects], 0.4,
                   label=model)
        ax.set_xticks(np.arange(len(subjects)) + 0.2, subjects)
        ax.set_xlabel("subject")
        ax.set_ylabel(f"{metric} (%)")
        ax.set_title(metric)
        ax.set_ylim(0, 100)
        ax.legend(fontsize=8)
    fig.suptitle("OMIBench Fig. 4(c): Qwen3-VL-8B Thinking vs Instruct")
    path = save_figure(fig, path)
    return path


def build(table_id: str, ctx: Context) -> Table:
    long, tests, sources = load(ctx)
    notes = [ACC_NOTE, *(f"{m}: no judged {SETTING} run" for m in (INSTRUCT, THINKING) if m not in set(long["model"]))]
    failures = long[long["subject"] == "Total"][["model", "metric", "acc", *BESIDE]]
    extra = {"Paired test thinking vs instruct (McNemar, exact)": tests, "Failures": failures}
    if table_id == "omibench.T4":
        return Table(table_id, "OMIBench Table 4 — \"Thinking\" and \"Instruct\" results (ACC and GPTScore, %) per "
                     "subject and micro-averaged total; Qwen3-VL-8B, CoT prompt with \\boxed{}.",
                     with_delta(subject_wide(long, ["model"])),
                     vs_paper=beside_paper(long, table_id, ["metric", "subject"]),
                     extra=extra, sources=sources,
                     notes=notes + ["The paper's Table 4 also has the 2B/4B/30B/32B/235B pairs (in the reference "
                                    "file); only the 8B pair is run here."])
    total = long[long["subject"] == "Total"]
    table = with_delta(total.pivot_table(index="model", columns="metric", values="acc", aggfunc="first")
                       .reset_index().rename_axis(columns=None))
    return Table(table_id, "OMIBench Fig. 4(c) — Qwen3-VL-8B Thinking vs Instruct: total ACC and GPTScore (%) and "
                 "the difference (the paper: thinking ahead by about 10%).", table,
                 vs_paper=beside_paper(total, table_id, ["metric", "subject"], ref_id="omibench.T4"),
                 extra=extra, figure=figure(long, ctx.figures / f"{table_id}.png"), sources=sources,
                 notes=notes + ["Numbers beside the paper's come from its Table 4 (the figure's source)."])
