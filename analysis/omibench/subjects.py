"""OMIBench's subjects: accuracy per subject with its micro-averaged Total (§4.1), and the wide layouts of
"<metric> <subject>" columns in the paper's order.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from analysis.omibench.metrics import METRICS
from analysis.stats import COUNTS, accuracy_table, micro_average
from analysis.uncertainty import ci_columns, wilson, with_intervals

SUBJECTS = ["Biology", "Chemistry", "Mathematics", "Physics"]  # the paper's column order (Table 2)
SIZES = {"Biology": 251, "Chemistry": 217, "Mathematics": 430, "Physics": 424}  # Figure 2


def micro_total(by_subject: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """Total per group: the subject accuracies weighted by the subject's size (§4.1 "micro-averaged").

    acc (and acc_hi, its upper end with undecided answers) is weighted by the judged items (so the total is
    correct / all items, failures not correct, as the paper's Eq. 5 over N), acc_scored by the scored ones.
    Written as a weighted mean so that the same code reproduces the paper's totals from its subject columns
    (tests weight them by Figure 2's sizes). Each total's 95 % interval is Wilson's over the pooled items: the
    correct answers the weighted mean stands for, over their denominator.
    """
    counts = [c for c in COUNTS if c in by_subject]
    rates = [c for c in ("acc", "acc_hi") if c in by_subject]
    rows = []
    for key, g in by_subject.groupby(by, dropna=False):
        row = dict(zip(by, key if isinstance(key, tuple) else (key,)))
        row.update({c: _weighted(g, c, "judged") for c in rates}, acc_scored=_weighted(g, "acc_scored", "scored"),
                   **{c: int(g[c].sum()) for c in counts})
        for rate, size in [*((c, "judged") for c in rates), ("acc_scored", "scored")]:
            if size in g:
                row.update(_pooled_interval(g, rate, size))
        rows.append(row)
    intervals = [c for rate in [*rates, "acc_scored"] for c in ci_columns(rate)]
    out = pd.DataFrame(rows, columns=[*by, *rates, "acc_scored", *counts, *intervals])
    return out[[*by, *(c for c in by_subject.columns if c in out.columns and c not in by)]]


def _pooled_interval(g: pd.DataFrame, acc: str, size: str) -> dict[str, float]:
    """Wilson's interval of the pooled proportion Σ acc × size / Σ size (in %)."""
    keep = (g[size] > 0) & g[acc].notna()
    k = float((g.loc[keep, acc] * g.loc[keep, size]).sum() / 100)
    lo, hi = wilson(round(k, 6), float(g.loc[keep, size].sum()))
    return dict(zip(ci_columns(acc), (float(lo[0]), float(hi[0]))))


def _weighted(g: pd.DataFrame, acc: str, size: str) -> float:
    keep = (g[size] > 0) & g[acc].notna()
    return micro_average(g.loc[keep, acc], g.loc[keep, size]) if keep.any() else np.nan


def per_subject(df: pd.DataFrame, metric: str, by: list[str] | None = None) -> pd.DataFrame:
    """Accuracy per group (default: model) and subject, plus the micro-averaged "Total" (`micro_total`)."""
    by = by or ["model"]
    by_subject = accuracy_table(df, [*by, "subject"])
    total = micro_total(by_subject, by).assign(subject="Total")
    out = pd.concat([by_subject, total], ignore_index=True)
    out["metric"] = metric
    return out


def pooled_per_subject(df: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """Accuracy per group and subject plus "Total" over all items pooled (the same micro-average, computed
    from the items rather than from the subjects); a frame without subjects has the Total only."""
    sub = accuracy_table(df, [*by, "subject"]) if "subject" in df else pd.DataFrame()
    total = accuracy_table(df, by).assign(subject="Total")
    return pd.concat([sub, total], ignore_index=True)


def subject_columns(present: list[str], metrics: list[str]) -> list[str]:
    """"<metric> <subject>" in the paper's order: subject by subject (ACC, then GPTScore), Total last."""
    subjects = [s for s in SUBJECTS if s in present] + sorted(set(present) - {*SUBJECTS, "Total"}) + ["Total"]
    return [f"{m} {s}" for s in subjects for m in metrics]


def subject_wide(long_df: pd.DataFrame, index: list[str]) -> pd.DataFrame:
    """One row per every combination of the `index` values, columns `subject_columns`; beside a column whose
    accuracy is a range in some row (undecided answers), its upper end "<column> hi" (`with_upper_ends`)."""
    wide = long_df.pivot_table(index=index, columns=["metric", "subject"], values="acc", aggfunc="first",
                               dropna=False)
    wide.columns = [f"{m} {s}" for m, s in wide.columns]
    metrics = [m for m in METRICS if m in set(long_df["metric"])]
    cols = [c for c in subject_columns(list(long_df["subject"].dropna().unique()), metrics) if c in wide]
    wide = with_intervals(wide[cols].reset_index(), long_df, index, ["metric", "subject"], lambda m, s: f"{m} {s}")
    return with_upper_ends(wide, long_df, index)


def with_upper_ends(wide: pd.DataFrame, long: pd.DataFrame, index: list[str]) -> pd.DataFrame:
    """`wide` ("<metric> <subject>" columns of `long`'s acc, each maybe with its interval columns) with "<metric>
    <subject> hi" (and its interval columns) after each column where `long`'s acc_hi differs from its acc in some
    row: the .md shows the two as one range (analysis.cells), its interval from the lower end's lower bound to the
    upper end's upper bound."""
    if "acc_hi" not in long:
        return wide
    ranged = long[long["acc_hi"].notna() & long["acc_hi"].ne(long["acc"])]
    if ranged.empty:
        return wide
    hi = long.drop_duplicates([*index, "metric", "subject"]).set_index([*index, "metric", "subject"])["acc_hi"]
    hi = hi.unstack(["metric", "subject"])
    hi.columns = [f"{m} {s}" for m, s in hi.columns]
    wanted = {f"{m} {s}" for m, s in zip(ranged["metric"], ranged["subject"])}
    hi = hi[[c for c in wide.columns if c in wanted and c in hi.columns]].reset_index()
    out = wide.merge(hi, on=index, how="left", suffixes=("", " hi"))
    order = [x for c in wide.columns for x in ([c, f"{c} hi"] if c in wanted else [c])]
    return with_intervals(out[order], long, index, ["metric", "subject"], lambda m, s: f"{m} {s} hi", "acc_hi")


def subject_wide_present(long: pd.DataFrame, index: list[str]) -> pd.DataFrame:
    """One row per `index` combination present, columns "<metric> <subject>" (subjects, then Total)."""
    # unstack, not pivot_table(dropna=False): that would add every combination of the index levels
    t = long.drop_duplicates([*index, "metric", "subject"]).set_index([*index, "metric", "subject"])["acc"]
    t = t.unstack(["metric", "subject"])
    order = [s for s in [*SUBJECTS, "Total"] if s in set(long["subject"])]
    order += sorted(set(long["subject"]) - set(order))
    cols = [(m, s) for s in order for m in METRICS if (m, s) in t.columns]
    t = t[cols]
    t.columns = [f"{m} {s}" for m, s in cols]
    t = with_intervals(t.reset_index(), long, index, ["metric", "subject"], lambda m, s: f"{m} {s}")
    return with_upper_ends(t, long, index)
