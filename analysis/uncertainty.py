"""95 % intervals for what the tables report, and the test of a reproduced cell against the paper's.

- A proportion over items (an accuracy: k right of n) gets Wilson's score interval, which stays inside [0, 1]
  and keeps its coverage at small n and near 0 or 1, where the normal interval does neither
  (`scipy.stats.binomtest(k, n).proportion_ci(method="wilson")`).
- A mean of per-item values (graded scores, ratings, tree widths) gets a percentile bootstrap over items, seeded,
  2,000 resamples (`scipy.stats.bootstrap`).
- A cell beside the paper's: the difference ours − paper with Newcombe's interval for a difference of two
  independent proportions (his method 10: from the two Wilson intervals), so the paper's own sampling error, from
  its n, counts as much as ours. The verdict is *consistent* when the interval covers 0, else *above* or *below*.
  Where the paper's n is not known, ours stands in for it (the item count of the same split), and the table says so.
"""
from __future__ import annotations

import math
from typing import Iterable

import numpy as np

LEVEL = 0.95
RESAMPLES = 2_000
SEED = 0
CONSISTENT, ABOVE, BELOW = "consistent", "above", "below"


def wilson(k: int, n: int) -> tuple[float, float]:
    """The 95 % Wilson interval of a proportion k / n, as fractions; (nan, nan) for n = 0."""
    if not n or n <= 0 or k is None or math.isnan(k) or math.isnan(n):
        return math.nan, math.nan
    from scipy import stats  # imported when a table tests a number: a second that finding the tables does not pay

    ci = stats.binomtest(int(round(k)), int(round(n))).proportion_ci(confidence_level=LEVEL, method="wilson")
    return float(ci.low), float(ci.high)


def wilson_columns(k: Iterable[float], n: Iterable[float], scale: float = 100) -> tuple[list[float], list[float]]:
    """Wilson intervals of many proportions, scaled (percent by default): the `lo` and `hi` columns of a table."""
    ends = [wilson(a, b) for a, b in zip(k, n)]
    return [lo * scale for lo, _ in ends], [hi * scale for _, hi in ends]


def bootstrap_mean(values: Iterable[float]) -> tuple[float, float]:
    """The 95 % percentile-bootstrap interval of the mean of per-item values (seeded); (nan, nan) for fewer than
    two values."""
    data = np.asarray([v for v in values if v is not None and not math.isnan(v)], dtype=float)
    if len(data) < 2:
        return math.nan, math.nan
    if np.all(data == data[0]):
        return float(data[0]), float(data[0])
    from scipy import stats

    res = stats.bootstrap((data,), np.mean, confidence_level=LEVEL, n_resamples=RESAMPLES, method="percentile",
                          random_state=np.random.default_rng(SEED), vectorized=True)
    return float(res.confidence_interval.low), float(res.confidence_interval.high)


def difference(ours: float, n_ours: float, paper: float, n_paper: float) -> tuple[float, float, str]:
    """Newcombe's 95 % interval of ours − paper (both in percent, over n_ours and n_paper items) and the verdict."""
    if any(x is None or math.isnan(x) for x in (ours, n_ours, paper, n_paper)) or not n_ours or not n_paper:
        return math.nan, math.nan, ""
    p1, p2 = ours / 100, paper / 100
    l1, u1 = wilson(p1 * n_ours, n_ours)
    l2, u2 = wilson(p2 * n_paper, n_paper)
    d = p1 - p2
    lo = d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2)
    hi = d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)
    verdict = CONSISTENT if lo <= 0 <= hi else ABOVE if lo > 0 else BELOW
    return 100 * lo, 100 * hi, verdict


def consistency_line(verdicts: Iterable[str]) -> str | None:
    """"k of m cells consistent with the paper" (with how many lie above and below), or None when no cell was
    tested."""
    said = [v for v in verdicts if v in (CONSISTENT, ABOVE, BELOW)]
    if not said:
        return None
    k = said.count(CONSISTENT)
    return (f"{k} of {len(said)} cells consistent with the paper at 95 % ({said.count(ABOVE)} above, "
            f"{said.count(BELOW)} below)")
