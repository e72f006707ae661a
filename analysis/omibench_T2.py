"""OMIBench Table 2: ACC (rule judge) and GPTScore (LLM judge) per subject, and the micro-averaged total,
CoT prompt with \\boxed{}. Rows are ordered by total GPTScore, as in the paper."""
from __future__ import annotations

import pandas as pd

from analysis.reference import beside_paper
from analysis.stats import accuracy_table
from analysis.table import Context, MissingInputs, Table

IDS = ["omibench.T2"]
SETTING = "cot_boxed"
METRICS = {"ACC": "rules", "GPTScore": "omibench_gptscore"}


def per_subject(df: pd.DataFrame, metric: str) -> pd.DataFrame:
    """Accuracy per model and subject, plus the total over all items (a micro-average by construction)."""
    by_subject = accuracy_table(df, ["model", "subject"])
    total = accuracy_table(df, ["model"]).assign(subject="Total")
    out = pd.concat([by_subject, total], ignore_index=True)
    out["metric"] = metric
    return out


def build(table_id: str, ctx: Context) -> Table:
    long, sources = [], []
    for metric, judge in METRICS.items():
        try:
            df = ctx.verdicts("omibench", [SETTING], judge)
        except MissingInputs:
            continue
        long.append(per_subject(df, metric))
        sources += ctx.runs("omibench", [SETTING], judge)
    if not long:
        raise MissingInputs(f"no judged omibench {SETTING} runs (rules or omibench_gptscore)")
    long_df = pd.concat(long, ignore_index=True)
    wide = long_df.pivot_table(index="model", columns=["metric", "subject"], values="acc", aggfunc="first",
                               dropna=False)
    wide.columns = [f"{m} {s}" for m, s in wide.columns]
    order = "GPTScore Total" if "GPTScore Total" in wide else "ACC Total"
    wide = wide.sort_values(order, ascending=False).reset_index()
    failures = long_df[long_df["subject"] == "Total"][["model", "metric", "scored", "no_response", "judge_error"]]
    return Table(
        table_id,
        "OMIBench Table 2 — ACC and GPTScore (%) per subject and micro-averaged total; CoT prompt with \\boxed{}. "
        "Failures (no response, judge errors) are excluded from the percentages and counted below.",
        wide,
        vs_paper=beside_paper(long_df, table_id, ["metric", "subject"]),
        extra={"Failures": failures},
        sources=sources,
    )
