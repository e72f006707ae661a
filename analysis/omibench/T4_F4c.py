"""OMIBench Table 4 and Fig. 4(c): Qwen3-VL "Thinking" vs "Instruct" at every size configs/experiments/
omibench_T4.yaml runs (its `pairs`) — ACC (C.1's published rule, the careful rule beside it) and GPTScore per
subject and micro-averaged total, CoT prompt with \\boxed{}, with each pair's thinking − instruct difference and
an exact McNemar test of the pair on the items both ran."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from analysis.inputs import Run
from analysis.omibench.baseline import PAIRED_NOTE, delta_row, paired_tests, subject_deltas
from analysis.omibench.metrics import (METRICS, RULE_GAP, RULES_NOTE, beside_paper_rules, rule_gap, rule_gap_notes,
                                       with_both_rules)
from analysis.omibench.runs import SETTING, metric_verdicts
from analysis.omibench.subjects import per_subject, subject_wide
from analysis.plot import bars, draw, save_figure, subplots
from analysis.provenance import Provenance
from analysis.stats import ACC_NOTE, BESIDE
from analysis.table import Context, MissingInputs, Table
from analysis.table_experiments import how_to_run, pairs_of
from analysis.uncertainty import with_intervals

IDS = ["omibench.T4", "omibench.F4c"]
EXPERIMENT = "omibench_T4"
DELTA = "Δ thinking − instruct"
Pair = tuple[str, str]   # (thinking, instruct)


def label(pair: Pair) -> str:
    return f"{pair[0]} vs {pair[1]}"


def load(ctx: Context, table_id: str, pairs: list[Pair]
         ) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, list[Run], dict[str, dict]]:
    """Per-subject accuracy of the pairs' models, each pair's paired test, for every judge with runs, the
    two rules compared per model, and per pair the paired intervals of its thinking − instruct differences
    (baseline.subject_deltas); missing, the runs are named by `table_id`'s experiments."""
    models = {m for pair in pairs for m in pair}
    long, tests, frames, sources = [], [], {}, []
    for metric, df, runs in metric_verdicts(ctx, [SETTING]):
        df = frames[metric] = df[df["model"].isin(models)]
        if df.empty:
            continue
        long.append(per_subject(df, metric))
        for think, instruct in pairs:
            # A pair differs by model, not setting: test it as two "settings" of one row group.
            pair = df[df["model"].isin([think, instruct])]
            pair = pair.assign(setting=pair["model"], model=label((think, instruct)))
            tests.append(paired_tests(pair, instruct).assign(metric=metric))
        sources += [r for r in runs if r.model in models]
    if not long:
        raise MissingInputs(f"no judged omibench {SETTING} runs of the Qwen3-VL thinking/instruct pairs; "
                            f"{how_to_run(table_id)}")
    long_df = with_both_rules(pd.concat(long, ignore_index=True), ["model", "subject"])
    deltas = {label(pair): subject_deltas(frames, lambda d, m=pair[0]: d["model"].eq(m),
                                          lambda d, m=pair[1]: d["model"].eq(m)) for pair in pairs}
    return long_df, pd.concat(tests, ignore_index=True), rule_gap(frames, ["model"]), sources, deltas


def with_delta(wide: pd.DataFrame, pairs: list[Pair], deltas: dict[str, dict] | None = None) -> pd.DataFrame:
    """wide: one row per model → per pair, in the experiment's order, its instruct row, its thinking row and
    their difference (when both ran) with its paired intervals (`deltas`: pair label → column → interval),
    labelled by the pair."""
    rows, blocks = wide.set_index("model"), []
    for think, instruct in pairs:
        block = rows.loc[[m for m in (instruct, think) if m in rows.index]].copy()
        if len(block) == 2:
            intervals = (deltas or {}).get(label((think, instruct)), {})
            block.loc[DELTA] = delta_row(block.loc[think], block.loc[instruct], intervals)
        if len(block):
            blocks.append(block.reset_index(names="model").assign(pair=label((think, instruct))))
    out = pd.concat(blocks, ignore_index=True)
    return out[["pair", *[c for c in out.columns if c != "pair"]]]


def figure(long: pd.DataFrame, pairs: list[Pair], path: Path) -> None:
    """Fig. 4(c): total instruct vs thinking of every pair, one panel per metric."""
    metrics = [m for m in METRICS if long.loc[long["metric"] == m, "acc"].notna().any()] or ["ACC"]
    frame = long[long["subject"] == "Total"].set_index(["metric", "model"])
    total = frame["acc"]
    x = np.arange(len(pairs))
    fig, axes = subplots(1, len(metrics), figsize=(max(5.0, 1.2 * len(pairs)) * len(metrics), 4.5), squeeze=False)
    for ax, metric in zip(axes[0], metrics):
        for i, (side, name) in enumerate(((1, "Instruct"), (0, "Thinking"))):
            ends = tuple([frame[c].get((metric, pair[side]), np.nan) if c in frame else np.nan for pair in pairs]
                         for c in ("acc_ci_lo", "acc_ci_hi"))
            bars(ax, x + 0.4 * i, [total.get((metric, pair[side]), np.nan) for pair in pairs], 0.4, label=name,
                 missing=f"{name} not run", ci=ends)
        ax.set_xticks(x + 0.2, [instruct for _, instruct in pairs], rotation=30, ha="right", fontsize=7)
        ax.set_ylabel(f"{metric} total (%)")
        ax.set_title(metric)
        ax.set_ylim(0, 100)
        ax.legend(fontsize=8)
    fig.suptitle("OMIBench Fig. 4(c): Qwen3-VL Thinking vs Instruct")
    save_figure(fig, path)


def build(table_id: str, ctx: Context) -> Table:
    pairs = pairs_of(EXPERIMENT)
    long, tests, gap, sources, deltas = load(ctx, table_id, pairs)
    ran = [pair for pair in pairs if set(pair) & set(long["model"])]
    missing = [m for pair in pairs for m in pair if m not in set(long["model"])]
    notes = [ACC_NOTE, RULES_NOTE, *rule_gap_notes(gap, ["model"]),
             PAIRED_NOTE.replace("setting − baseline", "thinking − instruct"),
             f"Pairs [thinking, instruct]: the `pairs` of configs/experiments/{EXPERIMENT}.yaml ({len(pairs)} sizes)."]
    if missing:
        notes.append(f"No judged {SETTING} run of {', '.join(missing)}.")
    failures = long[long["subject"] == "Total"][["model", "metric", "acc", *BESIDE]]
    extra = {"Paired test thinking vs instruct (McNemar, exact)": tests, "Failures": failures, RULE_GAP: gap}
    if table_id == "omibench.T4":
        return Table("OMIBench Table 4 — \"Thinking\" and \"Instruct\" results (ACC by C.1's rule and by the "
                     "careful rule, GPTScore; %) per subject and micro-averaged total, Qwen3-VL at each size; CoT "
                     "prompt with \\boxed{}.",
                     with_delta(subject_wide(long, ["model"]), ran, deltas),
                     vs_paper=beside_paper_rules(long, table_id, ["metric", "subject"]),
                     extra=extra, provenance=Provenance(sources), notes=notes)
    total = long[long["subject"] == "Total"]
    wide = total.pivot_table(index="model", columns="metric", values="acc", aggfunc="first")
    wide = with_intervals(wide.reset_index().rename_axis(columns=None), total, ["model"], ["metric"], lambda m: m)
    per_metric = {pair: {c.removesuffix(" Total"): v for c, v in d.items() if c.endswith(" Total")}
                  for pair, d in deltas.items()}
    table = with_delta(wide, ran, per_metric)
    return Table("OMIBench Fig. 4(c) — Qwen3-VL Thinking vs Instruct: total ACC (C.1's rule, and the careful "
                 "rule) and GPTScore (%) of each size and the difference (the paper: thinking ahead by about 10%).",
                 table, vs_paper=beside_paper_rules(total, table_id, ["metric", "subject"], ref_id="omibench.T4"),
                 extra=extra, figure=draw(figure, long, ran, path=ctx.figure(table_id)),
                 provenance=Provenance(sources),
                 notes=notes + ["Numbers beside the paper's come from its Table 4 (the figure's source)."])
