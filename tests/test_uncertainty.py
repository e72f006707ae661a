"""The 95 % intervals (analysis/uncertainty.py) against values computed by hand, the cell text rule that writes them
(analysis/cells.py), interval columns never read as counts or range ends, and error bars drawn from them."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy.stats import binom, binomtest
from scipy.stats import bootstrap as scipy_bootstrap

from analysis import html, stats, uncertainty
from analysis.cells import as_text, count_columns, counts_by_name, ranges, shown_columns
from analysis.plot import bars, subplots
from analysis.table import Table, md_table, write
from analysis.uncertainty import (CI_HI, CI_LO, bootstrap, ci_columns, difference, intervals, paired_difference,
                                  rho_interval, wilson)

Z = 1.959963984540054


def wilson_by_hand(k: float, n: float) -> tuple[float, float]:
    """Wilson's score interval written out: (p + z²/2n ± z √(p(1−p)/n + z²/4n²)) / (1 + z²/n)."""
    p = k / n
    centre = (p + Z ** 2 / (2 * n)) / (1 + Z ** 2 / n)
    half = Z * math.sqrt(p * (1 - p) / n + Z ** 2 / (4 * n ** 2)) / (1 + Z ** 2 / n)
    return centre - half, centre + half


def test_wilson_of_7_in_10_is_the_textbook_interval():
    lo, hi = wilson(7, 10, scale=1)
    assert (round(float(lo[0]), 4), round(float(hi[0]), 4)) == (0.3968, 0.8922)


@pytest.mark.parametrize("k,n", [(0, 10), (1, 10), (5, 10), (10, 10), (3, 7), (137, 1322), (1, 3), (52, 52)])
def test_wilson_is_the_hand_formula_and_scipys(k, n):
    lo, hi = wilson(k, n, scale=1)
    hand = wilson_by_hand(k, n)
    # scipy sets the end at 0 (1) exactly for k = 0 (k = n), where the formula gives 0 (1) up to rounding
    assert float(lo[0]) == pytest.approx(0.0 if k == 0 else hand[0], abs=1e-12)
    assert float(hi[0]) == pytest.approx(1.0 if k == n else hand[1], abs=1e-12)
    ci = binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    assert (float(lo[0]), float(hi[0])) == pytest.approx((ci.low, ci.high), abs=1e-12)


def test_wilson_in_percent_of_arrays_and_an_empty_group():
    lo, hi = wilson(np.array([7, 0]), np.array([10, 0]))
    assert lo[0] == pytest.approx(39.677815, abs=1e-5) and hi[0] == pytest.approx(89.220873, abs=1e-5)
    assert np.isnan(lo[1]) and np.isnan(hi[1])  # nothing judged: no interval


def test_the_bootstrap_of_a_proportion_is_the_binomials_percentiles():
    """Resampling n items of which k are right draws Binomial(n, k/n) right ones: the exact bootstrap distribution,
    whose 2.5 and 97.5 percentiles are computed by hand from scipy's binom; 2,000 resamples land within a point."""
    n, k = 200, 60
    frame = pd.DataFrame({"g": ["a"] * n})
    ci = bootstrap(frame, ["g"], np.arange(n), np.r_[np.ones(k), np.zeros(n - k)])
    exact = binom.ppf([0.025, 0.975], n, k / n) / n
    assert ci[CI_LO].iloc[0] == pytest.approx(exact[0], abs=0.01)
    assert ci[CI_HI].iloc[0] == pytest.approx(exact[1], abs=0.01)


def test_the_bootstrap_matches_scipys_percentile_bootstrap_and_is_seeded():
    rng = np.random.default_rng(3)
    values = rng.integers(0, 6, 300) / 5  # a graded score per item
    frame = pd.DataFrame(index=range(300))
    ours = bootstrap(frame, [], np.arange(300), values)
    theirs = scipy_bootstrap((values,), np.mean, n_resamples=20000, method="percentile", random_state=1)
    assert ours[CI_LO].iloc[0] == pytest.approx(theirs.confidence_interval.low, abs=0.01)
    assert ours[CI_HI].iloc[0] == pytest.approx(theirs.confidence_interval.high, abs=0.01)
    again = bootstrap(frame, [], np.arange(300), values)
    assert again.equals(ours)  # a fixed seed: the same interval on every rerun


def test_the_bootstrap_resamples_items_not_answers():
    """Ten items answered three times each, every repeat alike: the interval is that of ten item means, not of
    thirty independent answers (which would be about √3 narrower)."""
    right = np.repeat([1, 1, 1, 0, 0, 0, 0, 1, 0, 1], 3).astype(float)
    items = np.repeat(np.arange(10), 3)
    frame = pd.DataFrame(index=range(30))
    clustered = bootstrap(frame, [], items, right)
    per_item = bootstrap(pd.DataFrame(index=range(10)), [], np.arange(10), right[::3])
    assert clustered[CI_LO].iloc[0] == pytest.approx(per_item[CI_LO].iloc[0], abs=1e-12)
    assert clustered[CI_HI].iloc[0] == pytest.approx(per_item[CI_HI].iloc[0], abs=1e-12)
    as_answers = bootstrap(frame, [], np.arange(30), right)
    assert clustered[CI_HI].iloc[0] - clustered[CI_LO].iloc[0] > as_answers[CI_HI].iloc[0] - as_answers[CI_LO].iloc[0]


def test_an_accuracy_over_repeats_where_every_item_agrees_falls_back_to_wilson_over_the_items():
    ci = bootstrap(pd.DataFrame(index=range(6)), [], [0, 0, 0, 1, 1, 1], np.ones(6), scale=100, proportion=True)
    lo, hi = wilson(2, 2)
    assert (ci[CI_LO].iloc[0], ci[CI_HI].iloc[0]) == pytest.approx((lo[0], hi[0]))


def test_accuracy_table_uses_wilson_for_one_answer_per_item_and_the_bootstrap_over_items_for_repeats():
    one = pd.DataFrame({"model": "m", "id": [f"q{i}" for i in range(10)], "sample_idx": 0, "status": "ok",
                        "correct": [True] * 7 + [False] * 3})
    row = stats.accuracy_table(one, ["model"]).iloc[0]
    assert (row["acc_ci_lo"], row["acc_ci_hi"]) == pytest.approx((39.6778147, 89.2208733))
    repeats = pd.concat([one.assign(sample_idx=s) for s in range(3)], ignore_index=True)
    row = stats.accuracy_table(repeats, ["model"]).iloc[0]
    per_item = bootstrap(pd.DataFrame(index=range(10)), [], np.arange(10), one["correct"].astype(float), scale=100)
    assert (row["acc_ci_lo"], row["acc_ci_hi"]) == pytest.approx((per_item[CI_LO].iloc[0], per_item[CI_HI].iloc[0]))


def test_mean_of_repeats_averages_each_items_repeats_first():
    df = pd.DataFrame({"model": "m", "setting": "s", "id": np.repeat([f"q{i}" for i in range(8)], 3),
                       "sample_idx": np.tile([0, 1, 2], 8), "status": "ok",
                       "correct": np.r_[[True] * 9, [False] * 6, [True, False, True] * 3]})
    row = stats.mean_of_repeats(df, ["model", "setting"], ["model", "setting"]).iloc[0]
    means = df.groupby("id")["correct"].mean().to_numpy(dtype=float)
    by_hand = bootstrap(pd.DataFrame(index=range(8)), [], np.arange(8), means, scale=100)
    assert row["acc"] == pytest.approx(100 * means.mean())
    assert (row["acc_ci_lo"], row["acc_ci_hi"]) == pytest.approx((by_hand[CI_LO].iloc[0], by_hand[CI_HI].iloc[0]))
    assert row["items"] == 8


def test_mover_difference_by_hand():
    d, lo, hi = difference(0.5, 0.4, 0.6, 0.3, 0.2, 0.45)
    assert d == pytest.approx(0.2)
    assert lo == pytest.approx(0.2 - math.sqrt(0.1 ** 2 + 0.15 ** 2))
    assert hi == pytest.approx(0.2 + math.sqrt(0.1 ** 2 + 0.1 ** 2))


def test_a_paired_difference_with_no_item_differing_is_the_two_wilson_intervals_combined():
    same = pd.Series([1.0, 0.0, 1.0, 0.0])
    d = paired_difference(same, same)
    lo, hi = wilson(2, 4)
    width = math.hypot(50 - lo[0], hi[0] - 50)
    assert (d["diff"], d["diff_ci_lo"], d["diff_ci_hi"]) == pytest.approx((0.0, -width, width))


def test_rho_interval_is_fishers_z_with_bonett_and_wrights_variance():
    lo, hi = rho_interval(np.array([0.6]), np.array([30]))
    se = math.sqrt((1 + 0.36 / 2) / 27)
    assert lo[0] == pytest.approx(math.tanh(math.atanh(0.6) - Z * se))
    assert hi[0] == pytest.approx(math.tanh(math.atanh(0.6) + Z * se))


# --- the columns and the cells -------------------------------------------------------------------------------------

def test_interval_column_names():
    assert ci_columns("acc") == ("acc_ci_lo", "acc_ci_hi")
    assert ci_columns("ACC Total") == ("ACC Total ci_lo", "ACC Total ci_hi")
    assert ci_columns("ToT-Width") == ("ToT-Width ci_lo", "ToT-Width ci_hi")
    assert intervals(["acc", "acc_ci_lo", "acc_ci_hi", "ACC Total", "ACC Total ci_lo"]) == {
        "acc": ("acc_ci_lo", "acc_ci_hi")}  # an interval needs both ends


def test_a_cell_is_its_number_with_its_interval_in_brackets():
    df = pd.DataFrame({"model": ["a", "b", "c"], "acc": [42.8, 0.0, 12.0], "acc_ci_lo": [40.1, 0.0, np.nan],
                       "acc_ci_hi": [45.5, 35.4, np.nan], "acc_hi": [42.8, 14.29, 12.0],
                       "acc_hi_ci_lo": [40.1, 1.0, np.nan], "acc_hi_ci_hi": [45.5, 51.3, np.nan],
                       "ACC Total": [1.0, np.nan, 2.0], "ACC Total ci_lo": [0.5, np.nan, 1.0],
                       "ACC Total ci_hi": [3.0, np.nan, 4.0], "judged": [10, 7, 3]})
    text = as_text(df)
    assert list(text.columns) == ["model", "acc", "ACC Total", "judged"]
    assert text["acc"].tolist() == ["42.80 [40.10, 45.50]", "0.00–14.29 [0.00, 51.30]", "12.00"]
    assert text["ACC Total"].tolist() == ["1.00 [0.50, 3.00]", "—", "2.00 [1.00, 4.00]"]
    md = md_table(df)
    assert "42.80 [40.10, 45.50]" in md and "ci_lo" not in md and "acc_hi" not in md
    page = html.table(df)
    assert "<td class='num' data-v='42.8'>42.80 [40.10, 45.50]</td>" in page and "ci_hi" not in page


def test_interval_columns_are_neither_counts_nor_range_ends(tmp_path):
    df = pd.DataFrame({"model": ["a"], "tokens": [12.0], "tokens_ci_lo": [10.0], "tokens_ci_hi": [14.0],
                       "judged": [5.0], "judged_ci_lo": [3.0], "judged_ci_hi": [7.0], "acc": [50.0],
                       "acc_ci_hi": [60.0], "acc_ci_lo": [40.0]})
    assert not counts_by_name("judged_ci_lo") and not counts_by_name("ACC Total ci_hi")
    # a number with an interval is an estimate (a mean of tokens here), never a count, even when it is whole
    assert count_columns(df) == []
    assert ranges(df) == {}  # acc_ci_hi is not acc_ci's upper end, nor acc's
    assert list(shown_columns(df).columns) == ["model", "tokens", "judged", "acc"]
    assert as_text(df).iloc[0].tolist() == ["a", "12.00 [10.00, 14.00]", "5.00 [3.00, 7.00]", "50.00 [40.00, 60.00]"]
    csv, _ = write("x.T1", Table("x", df), tmp_path)
    header = csv.read_text().splitlines()[0].split(",")
    assert header == list(df.columns)  # the .csv keeps every column as it is


def test_a_range_and_its_interval_with_word_named_columns():
    df = pd.DataFrame({"model": ["m"], "ACC careful Total": [0.0], "ACC careful Total ci_lo": [0.0],
                       "ACC careful Total ci_hi": [35.43], "ACC careful Total hi": [14.29],
                       "ACC careful Total hi ci_lo": [2.57], "ACC careful Total hi ci_hi": [51.31]})
    assert ranges(df) == {"ACC careful Total": "ACC careful Total hi"}
    assert as_text(df)["ACC careful Total"].tolist() == ["0.00–14.29 [0.00, 51.31]"]


# --- error bars ----------------------------------------------------------------------------------------------------

def _error_bars(ax) -> list[tuple[float, float, float]]:
    """(x, low, high) of every vertical error bar drawn on the axes."""
    from matplotlib.container import ErrorbarContainer

    out = []
    for container in ax.containers:
        if isinstance(container, ErrorbarContainer):
            for segment in container.lines[2][0].get_segments():
                if len(segment) < 2:  # a missing bar has no error bar
                    continue
                (x, low), (_, high) = segment
                out.append((float(x), float(low), float(high)))
    return out


def test_bars_draw_their_intervals_as_error_bars():
    fig, ax = subplots(figsize=(3, 3))
    bars(ax, [0, 1, 2], [40.0, float("nan"), 10.0], ci=([30.0, float("nan"), 5.0], [55.0, float("nan"), 20.0]))
    drawn = sorted(_error_bars(ax))
    assert drawn == [(0.0, 30.0, 55.0), (2.0, 5.0, 20.0)]  # nothing where the bar is missing


def test_a_figure_module_draws_error_bars_from_its_tables_interval_columns(tmp_path, monkeypatch):
    from analysis.think360 import S5

    captured = {}
    monkeypatch.setattr(S5, "save_figure", lambda fig, path, dpi=120: captured.setdefault("fig", fig))
    summary = pd.DataFrame({"model": ["m", "m"], "input": ["IQ", "CQ"], "acc": [50.0, 75.0],
                            "acc_ci_lo": [30.0, 60.0], "acc_ci_hi": [70.0, 88.0]})
    table = S5.modality_table(summary)
    assert {"IQ ci_lo", "IQ ci_hi", "CQ ci_lo", "CQ ci_hi"} <= set(table.columns)
    S5.figure(table, tmp_path / "s5.png")
    lows_highs = sorted((lo, hi) for _, lo, hi in _error_bars(captured["fig"].axes[0]))
    assert lows_highs == [(30.0, 70.0), (60.0, 88.0)]


def test_uncertainty_has_no_table_dependency():
    """The one module every table calls imports nothing of the analysis package (cells, stats and reference
    import it)."""
    import ast
    from pathlib import Path

    tree = ast.parse(Path(uncertainty.__file__).read_text())
    imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)} | {
        a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    assert not any(m and m.startswith("analysis") for m in imported)
