"""OMIBench Table 9: supervised fine-tuning on multi-image instruction data — each base model against its
checkpoints fine-tuned on CMMCoT and MMDU (ACC — C.1's published rule, the careful rule beside it — and Score per
subject and total, CoT prompt with \\boxed{})."""
from __future__ import annotations

import re

import numpy as np
import pandas as pd

from analysis.omibench.baseline import subject_deltas
from analysis.omibench.metrics import (RULE_GAP, RULES_NOTE, beside_paper_rules, rule_gap, rule_gap_notes,
                                       with_both_rules)
from analysis.omibench.runs import SETTING, metric_verdicts
from analysis.omibench.subjects import pooled_per_subject, subject_wide_present
from analysis.provenance import Provenance
from analysis.stats import ACC_NOTE, BESIDE
from analysis.table import Context, MissingInputs, Table
from analysis.table_experiments import experiment, how_to_run

IDS = ["omibench.T9"]
PAPER_NOTE = ("Δ vs base: a checkpoint minus its base model on the same items, with its 95 % interval (the bootstrap "
              "over items of the per-item difference; where no item differs, combined from the two Wilson intervals). "
              "The paper prints no test: none is added.")
SFT = re.compile(r"(.+)-sft-(.+)")   # model config <base>-sft-<data>, e.g. qwen3-vl-8b-instruct-sft-cmmcot


def backbone(model: str) -> tuple[str, str]:
    m = SFT.fullmatch(model)
    return (m.group(1), f"+ {m.group(2)}") if m else (model, "base")


def deltas(long: pd.DataFrame, frames: dict[str, pd.DataFrame] | None = None) -> pd.DataFrame:
    """Each fine-tuned checkpoint minus its base, per metric and subject (the paper's "26.59 → 28.11"), with the
    95 % interval of the difference on the items both ran, given their verdicts `frames` (the bootstrap over items:
    baseline.subject_deltas; without verdicts, the paper's own numbers, no interval)."""
    base = long[long["variant"] == "base"].set_index(["backbone", "metric", "subject"])["acc"]
    d = long[long["variant"] != "base"].copy()
    d["base_acc"] = [base.get((b, m, s)) for b, m, s in zip(d["backbone"], d["metric"], d["subject"])]
    d["delta"] = d["acc"] - d["base_acc"].astype(float)
    intervals = {m: subject_deltas(frames, lambda f, m=m: f["model"].eq(m), lambda f, b=backbone(m)[0]: f["model"].eq(b))
                 if frames else {} for m in set(d["model"])}
    for column in ("acc_ci_lo", "acc_ci_hi"):
        d[column] = d[column] if column in d else np.nan
    for end, column in enumerate(("delta_ci_lo", "delta_ci_hi")):
        d[column] = [intervals[m].get(f"{k} {s}", (np.nan, np.nan))[end]
                     for m, k, s in zip(d["model"], d["metric"], d["subject"])]
    return d[["backbone", "variant", "metric", "subject", "base_acc", "acc", "acc_ci_lo", "acc_ci_hi", "delta",
              "delta_ci_lo", "delta_ci_hi"]]


def build(table_id: str, ctx: Context) -> Table:
    long, frames, sources = [], {}, []
    for metric, df, runs in metric_verdicts(ctx, [SETTING]):
        sft = {m for m in df["model"].unique() if SFT.fullmatch(m)}
        keep = sft | {backbone(m)[0] for m in sft}
        if sft:
            frames[metric] = df[df["model"].isin(keep)]
            long.append(pooled_per_subject(frames[metric], ["model"]).assign(metric=metric))
            sources += [r for r in runs if r.model in keep]
    if not long:
        raise MissingInputs(f"no judged omibench {SETTING} run of a fine-tuned checkpoint (<base>-sft-<data>, e.g. "
                            f"qwen3-vl-8b-instruct-sft-cmmcot); {how_to_run(table_id)}")
    long = with_both_rules(pd.concat(long, ignore_index=True), ["model", "subject"])
    gap = rule_gap(frames, ["model"])
    long[["backbone", "variant"]] = [backbone(m) for m in long["model"]]
    table = subject_wide_present(long, ["backbone", "variant", "model"])
    table["order"] = table["variant"] != "base"
    table = table.sort_values(["backbone", "order", "variant"]).drop(columns="order").reset_index(drop=True)
    missing = sorted({b for b, _ in map(backbone, long["model"])} - set(long.loc[long["variant"] == "base", "model"]))
    fails = long[long["subject"] == "Total"][["model", "metric", "acc", *BESIDE]]
    notes = [ACC_NOTE, RULES_NOTE, *rule_gap_notes(gap, ["model"]),
             "Score = GPTScore (LLM judge); Total is over all items (micro-average).",
             PAPER_NOTE,
             "Paper: InternVL3.5-8B and Qwen3-VL-8B-Instruct, each + CMMCoT and + MMDU, all six run by "
             "configs/experiments/omibench_T9.yaml; a fine-tuned checkpoint is served under its config's name "
             "(configs/models/paper/<base>-sft-<data>.yaml)."]
    not_run = [m for m in experiment("omibench_T9").models if m not in set(long["model"])]
    if not_run:
        notes.append(f"No judged {SETTING} run of {', '.join(not_run)}.")
    if missing:
        notes.append(f"No {SETTING} run of base model(s) {', '.join(missing)}: their Δ is missing.")
    return Table("OMIBench Table 9 — SFT results with different multi-image instruction-tuning datasets: "
                 "ACC (C.1's rule and the careful rule) and Score (%) per subject; Δ vs the base model below.", table,
                 vs_paper=beside_paper_rules(long, table_id, ["metric", "subject"]),
                 extra={"Δ vs base": deltas(long, frames), "Failures": fails, RULE_GAP: gap},
                 notes=notes, provenance=Provenance(sources))
