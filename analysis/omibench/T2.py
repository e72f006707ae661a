"""OMIBench Table 2: ACC (the published rule of Appendix C.1, with the careful rule judge beside it) and GPTScore
(LLM judge) per subject, and the micro-averaged total, CoT prompt with \\boxed{}. Rows are ordered by total
GPTScore, as in the paper."""
from __future__ import annotations

import pandas as pd

from analysis import judge_gap
from analysis.omibench.metrics import (METRICS, RULE_GAP, RULES_NOTE, beside_paper_rules, rule_gap, rule_gap_notes,
                                       with_both_rules)
from analysis.omibench.runs import SETTING, metric_verdicts
from analysis.omibench.subjects import per_subject, subject_wide
from analysis.provenance import Provenance
from analysis.stats import ACC_NOTE, BESIDE
from analysis.table import Context, MissingInputs, Table
from analysis.table_experiments import how_to_run

IDS = ["omibench.T2"]


def build(table_id: str, ctx: Context) -> Table:
    judged = metric_verdicts(ctx, [SETTING])
    if not judged:
        raise MissingInputs(f"no judged omibench {SETTING} runs ({', '.join(METRICS.values())}); "
                            f"{how_to_run(table_id)}")
    long_df = with_both_rules(pd.concat([per_subject(df, metric) for metric, df, _ in judged], ignore_index=True),
                              ["model", "subject"])
    gap = rule_gap({metric: df for metric, df, _ in judged}, ["model"])
    careful = judge_gap.judge_gap(ctx.results, "omibench", [SETTING], "omibench_gptscore", ["model"])
    shown = {} if careful is None else {judge_gap.title("GPTScore", "omibench_gptscore"): careful}
    wide = subject_wide(long_df, ["model"])
    order = "GPTScore Total" if "GPTScore Total" in wide else "ACC Total"
    wide = wide.sort_values(order, ascending=False).reset_index(drop=True)
    failures = long_df[long_df["subject"] == "Total"][["model", "metric", "acc", *BESIDE]]
    return Table(
        "OMIBench Table 2 — ACC (C.1's published rule; the careful rule beside it) and GPTScore (%) per subject "
        "and micro-averaged total; CoT prompt with \\boxed{}. Rows are ordered by total GPTScore. Failures (no "
        "response, judge errors) count as not correct; they and the accuracy over scored items are below.",
        wide,
        vs_paper=beside_paper_rules(long_df, table_id, ["metric", "subject"]),
        extra={"Failures": failures, RULE_GAP: gap, **shown},
        notes=[ACC_NOTE, RULES_NOTE, *rule_gap_notes(gap, ["model"]),
               *([judge_gap.note("GPTScore", "omibench_gptscore")] if shown else []),
               "Total = micro-average of the subject accuracies weighted by the subject's judged items (= correct "
               "over all items, the paper's Eq. 5).",
               "The paper's own Totals are its subject columns weighted by 251/217/430/424 except ACC of "
               "GPT-4o (24.05; its subjects give 29.29), InternVL3.5-1B (21.56 vs 20.99) and OpenAI-o4-mini "
               "(33.19 vs 33.18)."],
        provenance=Provenance([r for _, _, runs in judged for r in runs]
                              + (ctx.runs("omibench", [SETTING], judge_gap.CAREFUL["omibench_gptscore"]) if shown else [])),
    )
