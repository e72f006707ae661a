"""The whole-column forms of the tables' shared statistics give what their one-row, one-group definitions give."""
from __future__ import annotations

import random

import numpy as np
import pandas as pd
import pytest

from analysis.omibench.baseline import common_items
from analysis.stats import INTERVALS, accuracy, accuracy_table, counted_correct
from analysis.uncertainty import wilson

CORRECT_VALUES = [True, False, None, np.nan, pd.NA, 1, 0, 1.0, 0.0, "1", 2]


def verdicts(seed: int, correct_values: list, n: int = 300) -> pd.DataFrame:
    rng = random.Random(seed)
    return pd.DataFrame({
        "model": [rng.choice(["a", "b", "c"]) for _ in range(n)],
        "setting": [rng.choice(["s1", "s2", None]) for _ in range(n)],
        "id": [f"q{rng.randint(0, 40)}" for _ in range(n)],
        "status": [rng.choice(["ok", "ok", "ok", "no_response", "judge_error", "unjudged", "undecided"])
                   for _ in range(n)],
        "correct": [rng.choice(correct_values) for _ in range(n)],
        "flagged": [rng.choice([True, False, None]) for _ in range(n)],
    })


@pytest.mark.parametrize("values", [CORRECT_VALUES, [True, False, None], [True, False], [1.0, 0.0, np.nan]],
                         ids=["mixed", "bool or none", "bool", "float"])
def test_counted_correct_is_the_rule_row_by_row(values):
    df = verdicts(0, values)
    rule = [s == "ok" and v is not None and v is not pd.NA and bool(v == 1) for s, v in zip(df["status"], df["correct"])]
    got = counted_correct(df)
    assert got.dtype == bool and got.tolist() == rule


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("by", [["model"], ["model", "setting"], ["setting"]])
@pytest.mark.parametrize("flagged", [True, False])
def test_accuracy_table_is_accuracy_of_each_group(seed, by, flagged):
    df = verdicts(seed, CORRECT_VALUES if seed % 2 else [True, False, None])
    if not flagged:
        df = df.drop(columns="flagged")
    df.loc[df["model"] == "c", "status"] = "no_response"  # a group with nothing scored: acc_scored is NaN
    counts = ["judged", "scored", "undecided", "no_response", "judge_error", "unjudged", "flagged",
              "truncated"]  # rows that do not say: none
    one_by_one = (df.groupby(by, dropna=False).apply(lambda g: pd.Series(accuracy(g)), include_groups=False)
                  .reset_index().astype({c: int for c in counts}))
    table = accuracy_table(df, by)
    pd.testing.assert_frame_equal(table.drop(columns=INTERVALS), one_by_one, check_exact=True)
    # one answer per item: each accuracy's interval is Wilson's over its own denominator
    lo, hi = wilson(table["acc"] * table["judged"] / 100, table["judged"])
    np.testing.assert_allclose(table[["acc_ci_lo", "acc_ci_hi"]].to_numpy().T, [lo, hi], atol=1e-9)
    lo, hi = wilson(table["acc_scored"] * table["scored"] / 100, table["scored"])
    np.testing.assert_allclose(table[["acc_scored_ci_lo", "acc_scored_ci_hi"]].to_numpy().T, [lo, hi], atol=1e-9)


@pytest.mark.parametrize("seed", range(4))
def test_common_items_are_those_every_setting_of_a_model_ran(seed):
    df = verdicts(seed, [True, False]).dropna(subset=["setting"])
    keep = []
    for _, g in df.groupby("model"):
        ids = set.intersection(*(set(x["id"]) for _, x in g.groupby("setting")))
        keep.append(g[g["id"].isin(ids)])
    pd.testing.assert_frame_equal(common_items(df), pd.concat(keep, ignore_index=True), check_exact=True)


def test_rule_disagreement_counts_each_direction_and_the_answers_one_rule_lacks():
    from analysis.stats import rule_disagreement

    def verdicts(rows):
        return pd.DataFrame(rows, columns=["model", "setting", "id", "sample_idx", "status", "correct"])

    c1 = verdicts([("m", "s", "q0", 0, "ok", True), ("m", "s", "q1", 0, "ok", True), ("m", "s", "q2", 0, "ok", False),
                   ("m", "s", "q3", 0, "no_response", None), ("m", "s", "q5", 0, "ok", True)])
    careful = verdicts([("m", "s", "q0", 0, "ok", True), ("m", "s", "q1", 0, "ok", False),
                        ("m", "s", "q2", 0, "ok", True), ("m", "s", "q3", 0, "no_response", None),
                        ("m", "s", "q4", 0, "ok", True), ("n", "s", "q0", 0, "ok", True)])
    t = rule_disagreement(c1, careful, ["model"], ("c1", "careful")).set_index("model")
    m = t.loc["m"]
    # C.1: q0, q1, q5 right of its 5 verdicts; careful: q0, q2, q4 of its 5
    assert (m["acc_c1"], m["acc_careful"]) == (60.0, 60.0)
    # on the 4 answers both judged: q1 only C.1 accepts, q2 only the careful rule; the failure q3 neither
    assert tuple(m[["both_judged", "only_c1_correct", "only_careful_correct"]]) == (4, 1, 1)
    assert tuple(m[["c1_missing", "careful_missing"]]) == (1, 1)   # q4 lacks a C.1 verdict, q5 a careful one
    n = t.loc["n"]
    assert np.isnan(n["acc_c1"]) and (n["acc_careful"], n["c1_missing"], n["both_judged"]) == (100.0, 1, 0)


def test_rule_disagreement_of_one_rule_alone_counts_every_answer_as_missing_from_the_other():
    from analysis.stats import rule_disagreement

    def verdicts(rows):
        return pd.DataFrame(rows, columns=["model", "setting", "id", "sample_idx", "status", "correct"])

    careful = verdicts([("m", "s", "q0", 0, "ok", True), ("m", "s", "q1", 0, "ok", False),
                        ("m", "s", "q2", 0, "no_response", None), ("m", "s", "q3", 0, "unjudged", None),
                        ("n", "s", "q0", 0, "ok", True)])
    alone = rule_disagreement(careful.iloc[0:0], careful, ["model"], ("c1", "careful")).set_index("model")
    # careful: q0 right of m's 3 current verdicts (q3 has none: not counted), n's one right; nothing to pair
    assert np.isnan(alone.loc["m", "acc_c1"]) and alone.loc["m", "acc_careful"] == 100 / 3
    assert alone.loc["n", "acc_careful"] == 100.0
    assert tuple(alone.loc["m", ["both_judged", "only_c1_correct", "only_careful_correct", "c1_missing",
                                 "careful_missing"]]) == (0, 0, 0, 3, 0)
    reverse = rule_disagreement(careful, careful.iloc[0:0], ["model"], ("c1", "careful")).set_index("model")
    assert reverse.loc["m", "acc_c1"] == 100 / 3 and np.isnan(reverse.loc["m", "acc_careful"])
    assert tuple(reverse.loc["m", ["both_judged", "c1_missing", "careful_missing"]]) == (0, 0, 3)
