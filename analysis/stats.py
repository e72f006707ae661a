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

Every accuracy and score here carries its 95 % interval in `<name>_ci_lo` / `<name>_ci_hi` (analysis/uncertainty.py):
Wilson over the items when each item has one answer in the group, else the bootstrap over items, an item's answers
resampled together (repeats are not independent answers); the bootstrap over items for the means of repeats and of
graded scores.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from analysis import uncertainty
from analysis.uncertainty import METHOD_NOTE, ci_columns
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
            "set beside the paper's. " + BESIDE_NOTE + " " + METHOD_NOTE)
# What the tables show beside `acc`: the accuracy over scored verdicts, its denominator, the failures, the
# responses flagged as addressing the judge and those cut at the token limit.
COUNTS = ["judged", "scored", "undecided", "no_response", "judge_error", "unjudged", "flagged", "truncated"]
RATES = ["acc", "acc_hi", "acc_scored"]  # the accuracies of accuracy_table, each with its interval columns
INTERVALS = [c for rate in RATES for c in ci_columns(rate)]
BESIDE = ["acc_ci_lo", "acc_ci_hi", "acc_hi", "acc_hi_ci_lo", "acc_hi_ci_hi", "acc_scored", "acc_scored_ci_lo",
          "acc_scored_ci_hi", *COUNTS]  # the counts of accuracy_table are integers


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
    """`accuracy` per group: acc, acc_hi, acc_scored, each with its 95 % interval (`rate_intervals`), and the counts.

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
    out = out.merge(rate_intervals(df, by, rows, sums.assign(judged=judged).reset_index()), on=by, how="left")
    return out[[*by, "acc", *BESIDE]].astype({c: int for c in counts})


def item_of(df: pd.DataFrame) -> pd.Series:
    """Each row's item, the unit the intervals resample: `id`, else MIRA's scoring `unit`, else the row itself."""
    for column in ("id", "unit"):
        if column in df.columns:
            return df[column].astype(str)
    return pd.Series(np.arange(len(df)).astype(str), index=df.index)


def repeated(df: pd.DataFrame) -> bool:
    """Whether an item may have more than one answer in a group: some answer is not the first sample."""
    if "sample_idx" not in df.columns:
        return False
    column = df["sample_idx"]
    if pd.api.types.is_numeric_dtype(column):  # a million rows: a comparison of the array, no conversion
        return bool(np.nan_to_num(column.to_numpy(dtype=float)).any())
    return bool(pd.to_numeric(column, errors="coerce").fillna(0).ne(0).any())


def rate_intervals(df: pd.DataFrame, by: list[str], rows: pd.DataFrame, sums: pd.DataFrame) -> pd.DataFrame:
    """The 95 % intervals of acc, acc_hi and acc_scored per group (`sums`: by, right, undecided, scored, judged):
    Wilson where each item has one answer (the answers are independent), else the bootstrap over items."""
    out = sums[by].copy()
    k = {"acc": sums["right"], "acc_hi": sums["right"] + sums["undecided"], "acc_scored": sums["right"]}
    n = {"acc": sums["judged"], "acc_hi": sums["judged"], "acc_scored": sums["scored"]}
    for rate in RATES:
        out[ci_columns(rate)[0]], out[ci_columns(rate)[1]] = uncertainty.wilson(k[rate].to_numpy(), n[rate].to_numpy())
    if not repeated(df):
        return out
    item = item_of(df)
    items = df[by].assign(_item=item).groupby(by, dropna=False)["_item"].nunique().rename("_items").reset_index()
    clustered = sums["judged"].to_numpy() > sums[by].merge(items, on=by, how="left")["_items"].to_numpy()
    hits = {"acc": rows["right"], "acc_hi": rows["right"] | rows["undecided"], "acc_scored": rows["right"]}
    among = {"acc": None, "acc_hi": None, "acc_scored": rows["scored"]}
    for rate in RATES:
        boot = uncertainty.bootstrap(rows, by, item, hits[rate], among[rate], scale=100, proportion=True)
        boot = sums[by].merge(boot, on=by, how="left")
        lo, hi = ci_columns(rate)
        out.loc[clustered, lo] = boot.loc[clustered, uncertainty.CI_LO].to_numpy()
        out.loc[clustered, hi] = boot.loc[clustered, uncertainty.CI_HI].to_numpy()
    return out


def mean_of_repeats(df: pd.DataFrame, by: list[str], run: list[str]) -> pd.DataFrame:
    """Per group: each repeat's accuracy over all the group's items, averaged over the run's repeats (Think360:
    "the mean of three repeats"), in %: correct / (items × repeats), where items are the group's distinct ids
    and repeats the distinct sample_idx of its run (`run` ⊆ `by`, e.g. model and setting; a group pooling
    several settings counts an item once per setting). An item a repeat never judged (an incomplete repeat)
    counts as not correct there and is counted in `missing`. With every repeat complete this is
    accuracy_table's acc; `acc_hi` counts the undecided answers correct, as accuracy_table's. Each has its 95 %
    interval, the bootstrap over items of the item's correct answers over its repeats (the repeats averaged per
    item first, so an item's repeats move together), and `items` is how many items that is over."""
    cols = [*by, "acc", "acc_ci_lo", "acc_ci_hi", "acc_hi", "acc_hi_ci_lo", "acc_hi_ci_hi", "repeats", "missing",
            "items"]
    if not set(run) <= set(by):
        raise ValueError(f"the run {run} must be among the groups {by}")
    if df.empty:
        return pd.DataFrame(columns=cols)
    repeats = df.groupby(run, dropna=False)["sample_idx"].nunique().rename("repeats").reset_index()
    item = df["id"].astype(str)
    if "setting" in df.columns and "setting" not in by:
        item = item + "\x00" + df["setting"].astype(str)
    per_item = df[by].assign(item=item, right=counted_correct(df), undecided=df["status"].eq(UNDECIDED), judged=1)
    per_item = per_item.groupby([*by, "item"], dropna=False).sum().reset_index().merge(repeats, on=run, how="left")
    per_item["either"] = per_item["right"] + per_item["undecided"]
    groups = per_item.groupby(by, dropna=False)
    out = pd.DataFrame({"right": groups["right"].sum(), "undecided": groups["undecided"].sum(),
                        "items": groups.size(), "judged": groups["judged"].sum()}).reset_index()
    out = out.merge(repeats, on=run, how="left")
    expected = out["items"] * out["repeats"]
    out = out.assign(acc=100 * out["right"] / expected, acc_hi=100 * (out["right"] + out["undecided"]) / expected,
                     missing=(expected - out["judged"]).astype(int))
    for rate, hits in (("acc", "right"), ("acc_hi", "either")):
        ci = uncertainty.bootstrap(per_item, by, per_item["item"], per_item[hits], per_item["repeats"], scale=100,
                                     proportion=True)
        out = out.merge(ci.rename(columns=dict(zip((uncertainty.CI_LO, uncertainty.CI_HI), ci_columns(rate)))),
                        on=by, how="left")
    return out[cols]


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
    and `repeats`. `mean` and `mean_scored` have their 95 % intervals: the bootstrap over items of each item's
    correct answers over its answers (over its scored ones), an item's repeats resampled together. A standard
    deviation over a few repeats has none (it describes the repeats, it estimates nothing the paper's does not)."""
    per = accuracy_table(df, [*by, "sample_idx"])
    out = per.groupby(by).agg(mean=("acc", "mean"), std=("acc", "std"), repeats=("acc", "count"),
                              mean_scored=("acc_scored", "mean"), std_scored=("acc_scored", "std")).reset_index()
    out["std"] = out["std"].fillna(0.0)  # one repeat: no spread
    out["std_scored"] = out["std_scored"].fillna(0.0).where(out["mean_scored"].notna())
    right, ok = counted_correct(df), df["status"].eq("ok")
    for rate, among in (("mean", None), ("mean_scored", ok)):
        ci = uncertainty.bootstrap(df, by, item_of(df), right, among, scale=100, proportion=True)
        out = out.merge(ci.rename(columns=dict(zip((uncertainty.CI_LO, uncertainty.CI_HI), ci_columns(rate)))),
                        on=by, how="left")
    return out[[*by, "mean", "mean_ci_lo", "mean_ci_hi", "std", "repeats", "mean_scored", "mean_scored_ci_lo",
                "mean_scored_ci_hi", "std_scored"]]


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
    (status ok and the field defined), its 95 % interval (`<field>_ci_lo`, `<field>_ci_hi`: the bootstrap over
    items, an item's answers resampled together), how many that is, the failures, and the judge calls and tokens
    spent. `scale`: 100 turns fractions into % (ToT-Eval); 1 keeps scores as they are (MorphoBench's 0–100, 1–5
    ratings).

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

    columns = [*by, *(c for f in fields for c in (f, *ci_columns(f), f"{f}_n")), *SCORE_BESIDE]
    if df.empty:
        return pd.DataFrame(columns=columns)
    counts = [f"{f}_n" for f in fields] + SCORE_BESIDE
    out = df.groupby(by, dropna=False).apply(summarize, include_groups=False).reset_index()
    out = out.merge(score_intervals(df, by, fields, scale), on=by, how="left")
    return out[columns].astype({c: int for c in counts})


def score_intervals(df: pd.DataFrame, by: list[str], fields: list[str], scale: float) -> pd.DataFrame:
    """Per group, the 95 % interval of each score field's mean (score_table): the bootstrap over items."""
    ok = df[df["status"].eq("ok") & df["score"].map(lambda s: isinstance(s, dict))]
    out = df[by].drop_duplicates()
    for f in fields:
        values = pd.to_numeric(ok["score"].map(lambda s: s.get(f)), errors="coerce")
        rows = ok[values.notna()]
        ci = uncertainty.bootstrap(rows, by, item_of(rows), values[values.notna()], scale=scale)
        out = out.merge(ci.rename(columns=dict(zip((uncertainty.CI_LO, uncertainty.CI_HI), ci_columns(f)))),
                        on=by, how="left")
    return out
