"""Statistics the tables share: accuracy with failures reported beside it, repeats, intervals, tests."""
from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.stats import binomtest, spearmanr


def accuracy_table(df: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """Per group: accuracy (%) over scored verdicts, and the failures kept out of it.

    Repeated samples count as they are (micro-average over item × sample), which for a fixed number
    of repeats per item equals the mean of the per-repeat accuracies.
    """
    flagged = "flagged" in df.columns

    def summarize(g: pd.DataFrame) -> pd.Series:
        ok = g[g["status"] == "ok"]
        row = {
            "acc": 100 * ok["correct"].astype(bool).mean() if len(ok) else np.nan,
            "scored": len(ok),
            "no_response": int((g["status"] == "no_response").sum()),
            "judge_error": int((g["status"] == "judge_error").sum()),
        }
        if flagged:  # responses that addressed the judge (judge/injection.py): still scored, but visible
            row["flagged"] = int(g["flagged"].fillna(False).astype(bool).sum())
        return pd.Series(row)

    counts = ["scored", "no_response", "judge_error"] + (["flagged"] if flagged else [])
    if df.empty:
        return pd.DataFrame(columns=[*by, "acc", *counts])
    out = df.groupby(by, dropna=False).apply(summarize, include_groups=False).reset_index()
    return out.astype({c: int for c in counts})


def repeat_mean_std(df: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """Accuracy (%) per repeat (sample_idx), then mean and standard deviation over repeats."""
    ok = df[df["status"] == "ok"]
    per = ok.groupby([*by, "sample_idx"])["correct"].apply(lambda s: 100 * s.astype(bool).mean()).reset_index()
    out = per.groupby(by)["correct"].agg(mean="mean", std="std", repeats="count").reset_index()
    out["std"] = out["std"].fillna(0.0)
    return out


def bootstrap_ci(correct: np.ndarray, n_boot: int = 2000, seed: int = 0, level: float = 0.95) -> tuple[float, float]:
    """Percentile bootstrap interval of an accuracy (%), items resampled with replacement."""
    x = np.asarray(correct, dtype=float)
    if len(x) == 0:
        return (np.nan, np.nan)
    rng = np.random.default_rng(seed)
    means = x[rng.integers(0, len(x), size=(n_boot, len(x)))].mean(axis=1)
    lo, hi = np.quantile(means, [(1 - level) / 2, (1 + level) / 2])
    return 100 * lo, 100 * hi


def mcnemar(a: np.ndarray, b: np.ndarray) -> dict[str, float]:
    """Exact McNemar test on paired correctness: only discordant pairs count."""
    a, b = np.asarray(a, bool), np.asarray(b, bool)
    only_a, only_b = int((a & ~b).sum()), int((~a & b).sum())
    n = only_a + only_b
    p = binomtest(only_a, n, 0.5).pvalue if n else 1.0
    return {"only_a": only_a, "only_b": only_b, "p": float(p)}


def paired_permutation(a: np.ndarray, b: np.ndarray, n_perm: int = 10000, seed: int = 0) -> dict[str, float]:
    """Two-sided paired permutation test of the mean difference (sign flips of per-item differences)."""
    d = np.asarray(a, float) - np.asarray(b, float)
    if len(d) == 0:
        return {"diff": np.nan, "p": np.nan}
    observed = abs(d.mean())
    rng = np.random.default_rng(seed)
    signs = rng.choice([-1.0, 1.0], size=(n_perm, len(d)))
    extreme = (np.abs((signs * d).mean(axis=1)) >= observed - 1e-12).sum()
    return {"diff": 100 * float(d.mean()), "p": float((extreme + 1) / (n_perm + 1))}


def spearman(x: list[float], y: list[float]) -> dict[str, float]:
    """Spearman's ρ and its p-value (NaN when either side is constant)."""
    if len(x) < 3 or len(set(x)) < 2 or len(set(y)) < 2:
        return {"rho": np.nan, "p": np.nan, "n": len(x)}
    r = spearmanr(x, y)
    return {"rho": float(r.statistic), "p": float(r.pvalue), "n": len(x)}


def micro_average(acc: list[float], sizes: list[int]) -> float:
    """An overall accuracy from per-group accuracies weighted by group size (OMIBench totals)."""
    w = np.asarray(sizes, float)
    return float((np.asarray(acc, float) * w).sum() / w.sum())
