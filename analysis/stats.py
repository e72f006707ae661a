"""Statistics the tables share: the paper-comparable accuracy with the accuracy over scored verdicts and
the failures beside it, repeats, tests.

Two accuracies, both in %:
  acc         correct / judged: every item × sample that was run counts, and a failed request
              (no_response), an unparsable judge reply (judge_error) or an outcome with no current
              verdict (unjudged: judging interrupted, a judge not yet run, or only verdicts of an earlier
              outcome, record or judge; judge/current.py) is not correct. This is the papers' accuracy
              (correct over all N items), so it is the main number and the one set beside the paper's.
  acc_scored  correct / scored: over the verdicts the judge scored (status ok) only.
An answer the careful rule judge left `undecided` (judge/status.py: only a reader can tell) is neither correct
nor a failure: `acc` counts it not correct, the lower end of the careful accuracy, and `acc_hi` counts it
correct, the upper end; the tables write the two as one range (analysis/cells.py), with `undecided` beside.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from judge.current import UNJUDGED
from judge.status import UNDECIDED

# What the counts beside every accuracy mean.
BESIDE_NOTE = ("acc_scored = correct / scored verdicts only. undecided: answers in words the careful rule judge "
               "could not decide (a paraphrase, a synonym, an option's text reworded: no rule accepts them and none "
               "contradicts the gold), neither correct nor failures; acc counts them not correct (the lower end, so "
               "comparisons with the papers stay meaningful) and acc_hi correct, and the .md writes the careful "
               "accuracy as the range acc–acc_hi where any is undecided (the .csv keeps the two columns). "
               "flagged: responses that addressed the judge "
               "(judge/injection.py); an LLM judge's verdict of one is replaced by the rule judge's. truncated: "
               "responses cut at the token limit (max_tokens) with no final answer stated (no \\boxed{}, answer tag "
               "or \"Answer:\" line), whatever their verdict; an empty one is also under no_response.")
# The definition every table with an accuracy states in its notes.
ACC_NOTE = ("Accuracy (acc, %) = correct / every item × sample run (`judged`): a failed request (no_response), an "
            "unparsable judge reply (judge_error) or an answer with no current verdict (unjudged: not judged yet, "
            "or judged only as an earlier outcome, against an earlier record or by another judge model or prompt; "
            "rerun judge.run) counts as not correct, as in the papers' accuracy over all items; it is the number "
            "set beside the paper's. " + BESIDE_NOTE)
# What the tables show beside `acc`: the accuracy over scored verdicts, its denominator, the failures, the
# responses flagged as addressing the judge and those cut at the token limit.
BESIDE = ["acc_hi", "acc_scored", "judged", "scored", "undecided", "no_response", "judge_error", "unjudged", "flagged",
          "truncated"]
COUNTS = BESIDE[2:]  # the counts of accuracy_table, integers


def counted_correct(df: pd.DataFrame) -> pd.Series:
    """Per judged row: correct as the papers count it. Only a scored verdict (status ok) can be correct:
    a failed request or a judge error is not. `correct` is True/1 when right; None, NA or NaN never is
    (as a set lookup: True, 1 and 1.0 are equal and hash alike, a missing value matches none; several times
    faster than comparing a column of Python objects one by one)."""
    return df["status"].eq("ok") & df["correct"].isin([True])


def truncated(df: pd.DataFrame) -> pd.Series:
    """Per row: whether its response was cut at the token limit with no final answer (False when rows do not say:
    analysis.run_frame reads it from the raw file)."""
    if "truncated" not in df.columns:
        return pd.Series(False, index=df.index)
    return df["truncated"].fillna(False).astype(bool)


def flagged(df: pd.DataFrame) -> pd.Series:
    """Per judged row: whether its response was flagged as addressing the judge (False when rows do not say)."""
    if "flagged" not in df.columns:
        return pd.Series(False, index=df.index)
    return df["flagged"].fillna(False).astype(bool)


def accuracy(df: pd.DataFrame) -> dict[str, float]:
    """acc, acc_hi and acc_scored (%) of a group of judged rows, with the counts: judged (the denominator of
    acc: every answer, unjudged ones too), scored (of acc_scored), undecided, no_response, judge_error, unjudged, flagged
    (responses that addressed the judge, judge/injection.py: an LLM judge's verdict of one is the rule judge's;
    0 when the rows do not say) and truncated (cut at the token limit with no final answer)."""
    right, ok, undecided = counted_correct(df), df["status"].eq("ok"), df["status"].eq(UNDECIDED)
    out = {"acc": 100 * right.mean() if len(df) else np.nan,
           "acc_hi": 100 * (right | undecided).mean() if len(df) else np.nan,
           "acc_scored": 100 * right[ok].mean() if ok.any() else np.nan,
           "judged": len(df), "scored": int(ok.sum()), "undecided": int(undecided.sum()),
           "no_response": int(df["status"].eq("no_response").sum()),
           "judge_error": int(df["status"].eq("judge_error").sum()),
           "unjudged": int(df["status"].eq(UNJUDGED).sum()), "flagged": int(flagged(df).sum()),
           "truncated": int(truncated(df).sum())}
    return out


def accuracy_table(df: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """`accuracy` per group: acc, acc_hi, acc_scored and the counts.

    Repeated samples count as they are (micro-average over item × sample), which for a fixed number
    of repeats per item equals the mean of the per-repeat accuracies.
    """
    counts = COUNTS
    if df.empty:
        return pd.DataFrame(columns=[*by, "acc", *BESIDE])
    # `accuracy` of every group at once: sums of per-row indicators, so no group is split off as a frame
    rows = df[by].assign(right=counted_correct(df), scored=df["status"].eq("ok"), undecided=df["status"].eq(UNDECIDED),
                         no_response=df["status"].eq("no_response"), judge_error=df["status"].eq("judge_error"),
                         unjudged=df["status"].eq(UNJUDGED), flagged=flagged(df), truncated=truncated(df))
    groups = rows.groupby(by, dropna=False)
    sums, judged = groups.sum(), groups.size()
    out = pd.DataFrame({"acc": 100 * (sums["right"] / judged),
                        "acc_hi": 100 * ((sums["right"] + sums["undecided"]) / judged),
                        "acc_scored": (100 * (sums["right"] / sums["scored"])).where(sums["scored"] > 0),
                        "judged": judged, **{c: sums[c] for c in counts[1:]}}).reset_index()
    return out.astype({c: int for c in counts})


def mean_of_repeats(df: pd.DataFrame, by: list[str], run: list[str]) -> pd.DataFrame:
    """Per group: each repeat's accuracy over all the group's items, averaged over the run's repeats (Think360:
    "the mean of three repeats"), in %: correct / (items × repeats), where items are the group's distinct ids
    and repeats the distinct sample_idx of its run (`run` ⊆ `by`, e.g. model and setting; a group pooling
    several settings counts an item once per setting). An item a repeat never judged (an incomplete repeat)
    counts as not correct there and is counted in `missing`. With every repeat complete this is
    accuracy_table's acc; `acc_hi` counts the undecided answers correct, as accuracy_table's."""
    if not set(run) <= set(by):
        raise ValueError(f"the run {run} must be among the groups {by}")
    if df.empty:
        return pd.DataFrame(columns=[*by, "acc", "acc_hi", "repeats", "missing"])
    repeats = df.groupby(run, dropna=False)["sample_idx"].nunique().rename("repeats").reset_index()
    item = df["id"].astype(str)
    if "setting" in df.columns and "setting" not in by:
        item = item + "\x00" + df["setting"].astype(str)
    groups = df[by].assign(item=item, right=counted_correct(df), undecided=df["status"].eq(UNDECIDED)).groupby(
        by, dropna=False)
    out = pd.DataFrame({"right": groups["right"].sum(), "undecided": groups["undecided"].sum(),
                        "items": groups["item"].nunique(),
                        "judged": groups.size()}).reset_index().merge(repeats, on=run, how="left")
    expected = out["items"] * out["repeats"]
    return out.assign(acc=100 * out["right"] / expected, acc_hi=100 * (out["right"] + out["undecided"]) / expected,
                      missing=(expected - out["judged"]).astype(int))[[*by, "acc", "acc_hi", "repeats", "missing"]]


ANSWER_KEY = ("model", "setting", "id", "sample_idx", "outcome")  # what makes one answer, as far as a frame says


def rule_disagreement(a: pd.DataFrame, b: pd.DataFrame, by: list[str], names: tuple[str, str]) -> pd.DataFrame:
    """Two rule judges' verdicts of the same answers (a paper's published rule and the careful one), per group.

    For names (x, y): `acc_x`, `acc_y` (%, each over its own verdicts, a failure not correct, as `acc`) and
    `acc_x_hi`, `acc_y_hi` (an undecided answer correct, as `acc_hi`); over the answers both judged,
    `both_judged`, `only_x_correct` and `only_y_correct` (the verdicts on which they disagree, in each direction:
    one correct, the other decided not correct), `x_undecided` and `y_undecided` (the answers one could not decide:
    no disagreement, and no agreement either); `x_missing`: answers y judged and x did not (x has no current
    verdict of them: unjudged, or no row), `y_missing` the reverse. An answer is the same in both when every
    field of ANSWER_KEY the two frames carry agrees (a verdict of an earlier raw outcome is another answer)."""
    x, y = names
    a, b = (f[~f["status"].eq(UNJUDGED)] if "status" in f else f for f in (a, b))
    key = list(dict.fromkeys([*by, *(c for c in ANSWER_KEY if c in a.columns and c in b.columns)]))
    cols = [*by, f"acc_{x}", f"acc_{x}_hi", f"acc_{y}", f"acc_{y}_hi", "both_judged", f"only_{x}_correct",
            f"only_{y}_correct", f"{x}_undecided", f"{y}_undecided", f"{x}_missing", f"{y}_missing"]
    if a.empty and b.empty:
        return pd.DataFrame(columns=cols)
    if a.empty or b.empty:  # one judge alone: no answer to pair, so no key to match (a million of them is slow)
        one = b if a.empty else a
        mine, none = _judged_as(one), np.full(len(one), np.nan)
        m = one[by].reset_index(drop=True).assign(
            _a=none if a.empty else mine, _b=mine if a.empty else none, _merge="right_only" if a.empty else "left_only")
    else:
        m = _outer_by_answer(a, b, key, by)
    both = m["_merge"].eq("both")
    ra, ua = m["_a"].eq(RIGHT), m["_a"].eq(UNDECIDED_CODE)  # missing: neither
    rb, ub = m["_b"].eq(RIGHT), m["_b"].eq(UNDECIDED_CODE)
    rows = m[by].assign(has_a=m["_a"].notna(), has_b=m["_b"].notna(), ra=ra, rb=rb, ha=ra | ua, hb=rb | ub, both=both,
                        only_a=both & ra & ~rb & ~ub, only_b=both & rb & ~ra & ~ua, ua=both & ua, ub=both & ub,
                        a_missing=m["_merge"].eq("right_only"), b_missing=m["_merge"].eq("left_only"))
    s = rows.groupby(by, dropna=False).sum()
    out = pd.DataFrame({f"acc_{x}": (100 * s["ra"] / s["has_a"]).where(s["has_a"] > 0),
                        f"acc_{x}_hi": (100 * s["ha"] / s["has_a"]).where(s["has_a"] > 0),
                        f"acc_{y}": (100 * s["rb"] / s["has_b"]).where(s["has_b"] > 0),
                        f"acc_{y}_hi": (100 * s["hb"] / s["has_b"]).where(s["has_b"] > 0),
                        "both_judged": s["both"], f"only_{x}_correct": s["only_a"], f"only_{y}_correct": s["only_b"],
                        f"{x}_undecided": s["ua"], f"{y}_undecided": s["ub"],
                        f"{x}_missing": s["a_missing"], f"{y}_missing": s["b_missing"]}).reset_index()
    return out[cols].astype({c: int for c in cols[len(by) + 4:]})


RIGHT, WRONG, UNDECIDED_CODE = 1.0, 0.0, 2.0  # a verdict as rule_disagreement pairs it (NaN: no verdict)


def _judged_as(df: pd.DataFrame) -> np.ndarray:
    """Per row: RIGHT when counted correct, UNDECIDED_CODE when undecided, else WRONG (a failure is not correct)."""
    return np.select([counted_correct(df).to_numpy(), df["status"].eq(UNDECIDED).to_numpy()],
                     [RIGHT, UNDECIDED_CODE], WRONG)


def _outer_by_answer(a: pd.DataFrame, b: pd.DataFrame, key: list[str], by: list[str]) -> pd.DataFrame:
    """The outer merge of a's and b's answers on `key` (indicator `_merge`): `_a`, `_b` how each judged the answer
    (`_judged_as`; missing where it has no row), with the values of `by`."""
    # each key column as integer codes shared by both frames (equal values, missing ones too, get one code): an
    # outer merge sorts its keys, and sorting a million strings is most of a large table's time
    codes, values = {}, {}
    for c in key:
        codes[c], values[c] = pd.factorize(pd.concat([a[c], b[c]], ignore_index=True), use_na_sentinel=False)
    left = pd.DataFrame({c: codes[c][:len(a)] for c in key}).assign(_a=_judged_as(a))
    right = pd.DataFrame({c: codes[c][len(a):] for c in key}).assign(_b=_judged_as(b))
    m = left.merge(right, on=key, how="outer", indicator=True)
    return pd.DataFrame({c: values[c].take(m[c].to_numpy()) for c in by}).assign(
        _a=m["_a"], _b=m["_b"], _merge=m["_merge"])


def repeat_mean_std(df: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """Accuracy (%) per repeat (sample_idx), then mean and sample standard deviation over repeats: `mean`,
    `std` of acc, `mean_scored`, `std_scored` of acc_scored (a repeat with nothing scored has none),
    and `repeats`."""
    per = accuracy_table(df, [*by, "sample_idx"])
    out = per.groupby(by).agg(mean=("acc", "mean"), std=("acc", "std"), repeats=("acc", "count"),
                              mean_scored=("acc_scored", "mean"), std_scored=("acc_scored", "std")).reset_index()
    out["std"] = out["std"].fillna(0.0)  # one repeat: no spread
    out["std_scored"] = out["std_scored"].fillna(0.0).where(out["mean_scored"].notna())
    return out


def mcnemar(a: np.ndarray, b: np.ndarray) -> dict[str, float]:
    """Exact McNemar test on paired correctness: only discordant pairs count."""
    a, b = np.asarray(a, bool), np.asarray(b, bool)
    only_a, only_b = int((a & ~b).sum()), int((~a & b).sum())
    n = only_a + only_b
    if not n:
        return {"only_a": only_a, "only_b": only_b, "p": 1.0}
    from scipy.stats import binomtest  # imported when a test is made: scipy.stats takes a second to import

    p = binomtest(only_a, n, 0.5).pvalue
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
    from scipy.stats import spearmanr  # imported when a test is made: scipy.stats takes a second to import

    r = spearmanr(x, y)
    return {"rho": float(r.statistic), "p": float(r.pvalue), "n": len(x)}


def micro_average(acc: list[float], sizes: list[int]) -> float:
    """An overall accuracy from per-group accuracies weighted by group size, the number of rows each
    accuracy is over (OMIBench totals: judged items for acc, scored ones for acc_scored)."""
    w = np.asarray(sizes, float)
    return float((np.asarray(acc, float) * w).sum() / w.sum())


# What the process-judge tables show beside their scores: how many answers each mean covers and what the
# judging cost.
SCORE_BESIDE = ["judged", "scored", "no_response", "judge_error", "unjudged", "truncated", "judge_calls",
                "judge_tokens"]


def score_table(df: pd.DataFrame, by: list[str], fields: list[str], scale: float = 100) -> pd.DataFrame:
    """Per group: the mean × `scale` of each score field of a process judge over the answers it scored
    (status ok and the field defined), how many that is, the failures, and the judge calls and tokens spent.
    `scale`: 100 turns fractions into % (ToT-Eval); 1 keeps scores as they are (MorphoBench's 0–100, 1–5 ratings).

    A failed request, a judge error or an answer with no current verdict (unjudged) has no score: it is left out
    of the means and counted beside them — a reasoning score is not defined for an answer nobody could read,
    unlike an accuracy, where it is wrong."""
    def summarize(g: pd.DataFrame) -> pd.Series:
        ok = g[g["status"].eq("ok")]
        scores = [s for s in ok["score"] if isinstance(s, dict)]
        row: dict[str, float] = {}
        for f in fields:
            values = [s[f] for s in scores if s.get(f) is not None]
            row[f] = scale * float(np.mean(values)) if values else np.nan
            row[f"{f}_n"] = len(values)
        row.update({"judged": len(g), "scored": len(scores), "no_response": int(g["status"].eq("no_response").sum()),
                    "judge_error": int(g["status"].eq("judge_error").sum()),
                    "unjudged": int(g["status"].eq(UNJUDGED).sum()), "truncated": int(truncated(g).sum()),
                    "judge_calls": int(g["judge_calls"].fillna(0).sum()), "judge_tokens": int(g["judge_tokens"].fillna(0).sum())})
        return pd.Series(row)

    if df.empty:
        return pd.DataFrame(columns=[*by, *fields, *SCORE_BESIDE])
    counts = [f"{f}_n" for f in fields] + SCORE_BESIDE
    out = df.groupby(by, dropna=False).apply(summarize, include_groups=False).reset_index()
    return out.astype({c: int for c in counts})
