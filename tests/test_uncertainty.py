"""95 % intervals (analysis/uncertainty.py) against values computed by hand, the verdict of a cell beside the
paper's, the cell text rule, and interval columns that are neither counts nor range ends."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from analysis.cells import as_text, count_columns, ranges, shown_columns
from analysis.reference import with_verdicts
from analysis.stats import accuracy_table, mean_of_repeats
from analysis.uncertainty import (ABOVE, BELOW, CONSISTENT, bootstrap_mean, consistency_line, difference, wilson)

Z = 1.959963984540054


def wilson_by_hand(k: int, n: int) -> tuple[float, float]:
    p = k / n
    centre = (p + Z * Z / (2 * n)) / (1 + Z * Z / n)
    half = Z * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n)) / (1 + Z * Z / n)
    return centre - half, centre + half


@pytest.mark.parametrize("k,n", [(7, 10), (0, 10), (10, 10), (1, 4), (321, 1322), (50, 100)])
def test_wilson_is_the_score_interval(k, n):
    assert wilson(k, n) == pytest.approx(wilson_by_hand(k, n), abs=1e-9)


def test_wilson_of_seven_in_ten():
    lo, hi = wilson(7, 10)
    assert (round(lo, 4), round(hi, 4)) == (0.3968, 0.8922)
    assert all(math.isnan(x) for x in wilson(0, 0))


def test_the_bootstrap_interval_of_a_mean_is_seeded_and_near_the_normal_one_for_many_items():
    rng = np.random.default_rng(1)
    values = rng.normal(10, 2, size=2000)
    lo, hi = bootstrap_mean(values)
    se = values.std(ddof=1) / math.sqrt(len(values))
    assert lo == pytest.approx(values.mean() - Z * se, abs=0.02) and hi == pytest.approx(values.mean() + Z * se, abs=0.02)
    assert bootstrap_mean(values) == (lo, hi)  # the same resamples every time
    assert bootstrap_mean([3.0, 3.0, 3.0]) == (3.0, 3.0) and all(math.isnan(x) for x in bootstrap_mean([1.0]))


def test_newcombes_difference_counts_the_papers_sampling_error_too():
    lo, hi, verdict = difference(25.0, 4, 24.05, 1322)
    p1, p2 = 0.25, 0.2405
    (l1, u1), (l2, u2) = wilson_by_hand(1, 4), wilson_by_hand(round(p2 * 1322), 1322)
    assert lo == pytest.approx(100 * (p1 - p2 - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2)), abs=0.05)
    assert hi == pytest.approx(100 * (p1 - p2 + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)), abs=0.05)
    assert verdict == CONSISTENT
    wide = difference(60.0, 100, 50.0, 100)
    narrow = difference(60.0, 100, 50.0, 100_000)
    assert wide[1] - wide[0] > narrow[1] - narrow[0]  # a paper of many items leaves less room


@pytest.mark.parametrize("ours,paper,expected", [(50.0, 52.0, CONSISTENT), (90.0, 50.0, ABOVE), (10.0, 50.0, BELOW)])
def test_a_cell_beside_the_paper_is_consistent_above_or_below(ours, paper, expected):
    out = pd.DataFrame({"model": ["m"], "ours": [ours], "paper": [paper], "diff": [ours - paper]})
    got = with_verdicts(out, pd.Series([200]), "no.such-table")
    assert got.loc[0, "verdict"] == expected and got.loc[0, "paper_n"] == "unknown: ours used"
    assert got.loc[0, "diff_ci_lo"] < ours - paper < got.loc[0, "diff_ci_hi"]


def test_the_papers_n_is_read_per_cell_where_it_is_known():
    out = pd.DataFrame({"model": ["m", "m"], "subject": ["Biology", "Total"], "ours": [30.0, 30.0],
                        "paper": [25.0, 25.0], "diff": [5.0, 5.0]})
    got = with_verdicts(out, pd.Series([251, 1322]), "omibench.T2")
    assert list(got["paper_n"]) == ["251", "1322"]


def test_consistency_line():
    assert consistency_line([CONSISTENT, ABOVE, CONSISTENT, "", BELOW]) == \
        "2 of 4 cells consistent with the paper at 95 % (1 above, 1 below)"
    assert consistency_line(["", ""]) is None


def test_accuracy_tables_carry_wilson_intervals_and_repeats_an_interval_clustered_by_item():
    df = pd.DataFrame({"model": ["m"] * 10, "id": [f"q{i}" for i in range(10)], "sample_idx": [0] * 10,
                       "status": ["ok"] * 10, "correct": [True] * 7 + [False] * 3})
    row = accuracy_table(df, ["model"]).iloc[0]
    assert (row["acc_ci_lo"], row["acc_ci_hi"]) == pytest.approx((39.68, 89.22), abs=0.01)
    repeats = pd.concat([df.assign(sample_idx=r) for r in range(3)], ignore_index=True)
    mine = mean_of_repeats(repeats, ["model"], ["model"]).iloc[0]
    # three identical repeats are one draw per item, not 30: the bootstrap over 10 items is as wide as that
    assert mine["acc_ci_lo"] < 50 and mine["acc_ci_hi"] > 90


def test_the_cell_shows_its_interval_and_the_interval_columns_are_neither_counts_nor_ranges():
    t = pd.DataFrame({"model": ["m"], "acc": [70.0], "acc_ci_lo": [39.68], "acc_ci_hi": [89.22], "judged": [10],
                      "ACC Total": [25.0], "ACC Total ci_lo": [4.56], "ACC Total ci_hi": [69.94]})
    text = as_text(t)
    assert text.loc[0, "acc"] == "70.00 [39.68, 89.22]" and text.loc[0, "ACC Total"] == "25.00 [4.56, 69.94]"
    assert list(shown_columns(t).columns) == ["model", "acc", "judged", "ACC Total"]
    assert count_columns(t) == ["judged"] and ranges(t) == {}
