"""OMIBench Table 2: ACC (rule judge) and GPTScore (LLM judge) per subject, and the micro-averaged total,
CoT prompt with \\boxed{}. Rows are ordered by total GPTScore, as in the paper.

Also the helpers the other per-subject OMIBench tables share (T4, T6): the paper's subject order, the
micro-averaged total and the wide layout.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from analysis.reference import beside_paper
from analysis.stats import ACC_NOTE, BESIDE, accuracy_table, micro_average
from analysis.table import Context, MissingInputs, Table

IDS = ["omibench.T2"]
SETTING = "cot_boxed"
METRICS = {"ACC": "rules", "GPTScore": "omibench_gptscore"}
SUBJECTS = ["Biology", "Chemistry", "Mathematics", "Physics"]  # the paper's column order (Table 2)
SIZES = {"Biology": 251, "Chemistry": 217, "Mathematics": 430, "Physics": 424}  # Figure 2


def micro_total(by_subject: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """Total per group: the subject accuracies weighted by the subject's size (§4.1 "micro-averaged").

    acc is weighted by the judged items (so the total is correct / all items, failures not correct, as
    the paper's Eq. 5 over N), acc_scored by the scored ones. Written as a weighted mean so that the same
    code reproduces the paper's totals from its subject columns (tests weight them by Figure 2's sizes).
    """
    counts = [c for c in ("judged", "scored", "no_response", "judge_error", "flagged") if c in by_subject]
    rows = []
    for key, g in by_subject.groupby(by, dropna=False):
        row = dict(zip(by, key if isinstance(key, tuple) else (key,)))
        row.update(acc=_weighted(g, "acc", "judged"), acc_scored=_weighted(g, "acc_scored", "scored"),
                   **{c: int(g[c].sum()) for c in counts})
        rows.append(row)
    return pd.DataFrame(rows, columns=[*by, "acc", "acc_scored", *counts])


def _weighted(g: pd.DataFrame, acc: str, size: str) -> float:
    keep = (g[size] > 0) & g[acc].notna()
    return micro_average(g.loc[keep, acc], g.loc[keep, size]) if keep.any() else np.nan


def per_subject(df: pd.DataFrame, metric: str, by: list[str] | None = None) -> pd.DataFrame:
    """Accuracy per group (default: model) and subject, plus the micro-averaged "Total"."""
    by = by or ["model"]
    by_subject = accuracy_table(df, [*by, "subject"])
    total = micro_total(by_subject, by).assign(subject="Total")
    out = pd.concat([by_subject, total], ignore_index=True)
    out["metric"] = metric
    return out


def subject_columns(present: list[str], metrics: list[str]) -> list[str]:
    """"<metric> <subject>" in the paper's order: subject by subject (ACC, then GPTScore), Total last."""
    subjects = [s for s in SUBJECTS if s in present] + sorted(set(present) - {*SUBJECTS, "Total"}) + ["Total"]
    return [f"{m} {s}" for s in subjects for m in metrics]


def subject_wide(long_df: pd.DataFrame, index: list[str]) -> pd.DataFrame:
    wide = long_df.pivot_table(index=index, columns=["metric", "subject"], values="acc", aggfunc="first",
                               dropna=False)
    wide.columns = [f"{m} {s}" for m, s in wide.columns]
    metrics = [m for m in METRICS if m in set(long_df["metric"])]
    cols = [c for c in subject_columns(list(long_df["subject"].dropna().unique()), metrics) if c in wide]
    return wide[cols].reset_index()


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
    wide = subject_wide(long_df, ["model"])
    order = "GPTScore Total" if "GPTScore Total" in wide else "ACC Total"
    wide = wide.sort_values(order, ascending=False).reset_index(drop=True)
    counts = ["acc", *BESIDE, *(["flagged"] if "flagged" in long_df else [])]
    failures = long_df[long_df["subject"] == "Total"][["model", "metric", *counts]]
    return Table(
        table_id,
        "OMIBench Table 2 — ACC and GPTScore (%) per subject and micro-averaged total; CoT prompt with \\boxed{}. "
        "Rows are ordered by total GPTScore. Failures (no response, judge errors) count as not correct; they "
        "and the accuracy over scored items are below.",
        wide,
        vs_paper=beside_paper(long_df, table_id, ["metric", "subject"]),
        extra={"Failures": failures},
        notes=[ACC_NOTE,
               "Total = micro-average of the subject accuracies weighted by the subject's judged items (= correct "
               "over all items, the paper's Eq. 5).",
               "The paper's own Totals are its subject columns weighted by 251/217/430/424 except ACC of "
               "GPT-4o (24.05; its subjects give 29.29), InternVL3.5-1B (21.56 vs 20.99) and OpenAI-o4-mini "
               "(33.19 vs 33.18)."],
        sources=sources,
    )
