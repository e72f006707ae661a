"""The whole-column forms of the tables' shared statistics give what their one-row, one-group definitions give."""
from __future__ import annotations

import random

import numpy as np
import pandas as pd
import pytest

from analysis.omibench_common import common_items
from analysis.stats import accuracy, accuracy_table, counted_correct

CORRECT_VALUES = [True, False, None, np.nan, pd.NA, 1, 0, 1.0, 0.0, "1", 2]


def verdicts(seed: int, correct_values: list, n: int = 300) -> pd.DataFrame:
    rng = random.Random(seed)
    return pd.DataFrame({
        "model": [rng.choice(["a", "b", "c"]) for _ in range(n)],
        "setting": [rng.choice(["s1", "s2", None]) for _ in range(n)],
        "id": [f"q{rng.randint(0, 40)}" for _ in range(n)],
        "status": [rng.choice(["ok", "ok", "ok", "no_response", "judge_error"]) for _ in range(n)],
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
    counts = ["judged", "scored", "no_response", "judge_error"] + (["flagged"] if flagged else [])
    one_by_one = (df.groupby(by, dropna=False).apply(lambda g: pd.Series(accuracy(g)), include_groups=False)
                  .reset_index().astype({c: int for c in counts}))
    pd.testing.assert_frame_equal(accuracy_table(df, by), one_by_one, check_exact=True)


@pytest.mark.parametrize("seed", range(4))
def test_common_items_are_those_every_setting_of_a_model_ran(seed):
    df = verdicts(seed, [True, False]).dropna(subset=["setting"])
    keep = []
    for _, g in df.groupby("model"):
        ids = set.intersection(*(set(x["id"]) for _, x in g.groupby("setting")))
        keep.append(g[g["id"].isin(ids)])
    pd.testing.assert_frame_equal(common_items(df), pd.concat(keep, ignore_index=True), check_exact=True)
