"""What the Think360° tables share: the data file's records, the verdicts each model is read with (the
paper's cascade judge, else the rule judge: table.Context.judged), Acc / Time / Token per group and the
long layout (the paper's model order is analysis.reference.paper_order).

Not a table itself (no IDS): analysis.run registers only modules that define IDS.
"""
from __future__ import annotations

import pandas as pd

from analysis.inputs import DataFile, read_records
from analysis.provenance import Provenance
from analysis import uncertainty
from analysis.stats import accuracy_table, item_of, mean_of_repeats
from analysis.uncertainty import ci_columns
from analysis.table import Context
from analysis.table_experiments import how_to_run
from data.benchmarks.think360 import SKILLS

BENCH = "think360"
PAPER_NAME = "Think360°"   # the `model` of data-only tables, so that beside_paper can match them
METRICS = {"acc": "Acc", "time": "Time", "token": "Token"}


def records(ctx: Context) -> tuple[list[dict], DataFile]:
    data = ctx.data_file(BENCH)
    return list(read_records(data.path).values()), data


def words(text: str) -> int:
    """Length in words (the paper's unit): whitespace-separated tokens."""
    return len(str(text).split())


def as_list(value) -> list[str]:
    """Skills / question types: a list, one string, or missing (NaN)."""
    if isinstance(value, list):
        return value
    return [value] if isinstance(value, str) and value else []


def verdicts(ctx: Context, settings: list[str], table_id: str) -> tuple[pd.DataFrame, Provenance]:
    """Each model's verdicts of `settings` under one judge (table.Context.judged); missing, they are named by
    `table_id`'s experiments (how_to_run)."""
    return ctx.judged(BENCH, settings, how_to_run(table_id))


def runs_note(df: pd.DataFrame) -> str:
    """Which file each model's setting was read from (a text-only model runs "+caption" in the demo)."""
    pairs = df.drop_duplicates(["model", "setting"])[["model", "setting", "run_setting"]]
    return "Runs read: " + "; ".join(f"{m} {s} as {r}" if s != r else f"{m} {s}"
                                     for m, s, r in pairs.itertuples(index=False)) + "."


def summarize(df: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """Acc (%): each repeat's accuracy over all items, averaged over the repeats (§4.1: "the mean of three
    repeats"; analysis.stats.mean_of_repeats), a failure not correct, an item an incomplete repeat lacks not
    correct and counted in `missing`; acc_scored and the failures beside it (analysis.stats.accuracy_table);
    Time = mean latency_s and Token = mean completion tokens over the requests that got a response (a judge
    failure does not undo the model's answer, so its time and tokens count). Each has its 95 % interval: Acc's the
    bootstrap over items of the item's repeats averaged, Time's and Token's the bootstrap over items of the
    answers' means, an item's repeats resampled together."""
    run = [c for c in ("model", "setting", "input") if c in by]
    own = ["acc", "acc_hi", *ci_columns("acc"), *ci_columns("acc_hi")]
    acc = accuracy_table(df, by).drop(columns=own).merge(mean_of_repeats(df, by, run), on=by, how="left")
    answered = df[df["status"] != "no_response"]
    cost = (answered.groupby(by, dropna=False)
            .agg(time=("latency_s", "mean"), token=("completion_tokens", "mean")).reset_index()
            if len(answered) else pd.DataFrame(columns=[*by, "time", "token"]))
    for metric, column in (("time", "latency_s"), ("token", "completion_tokens")):
        values = pd.to_numeric(answered[column], errors="coerce") if len(answered) else pd.Series(dtype=float)
        rows = answered[values.notna()]
        ci = uncertainty.bootstrap(rows, by, item_of(rows), values[values.notna()])
        cost = cost.merge(ci.rename(columns=dict(zip((uncertainty.CI_LO, uncertainty.CI_HI), ci_columns(metric)))),
                          on=by, how="left")
    return acc.merge(cost, on=by, how="left")


def incomplete_repeats(summary: pd.DataFrame) -> str | None:
    """A note naming the runs whose repeats are incomplete (summarize's `missing` on ALL), or None."""
    rows = summary[summary["missing"].gt(0)]
    if "capability" in rows:
        rows = rows[rows["capability"].eq("ALL")]
    if rows.empty:
        return None
    runs = "; ".join(f"{r.model}: {r.missing} item × repeat pair(s) of {r.repeats} repeats not judged"
                     for r in rows.itertuples())
    return f"Incomplete repeats — {runs}: each counts as not correct in its repeat's accuracy."


def by_group(df: pd.DataFrame, field: str, key: str, order: list[str]) -> pd.DataFrame:
    """`summarize` per model × non-exclusive category (an item counts in each of its skills / types), plus ALL."""
    groups = df.get(field, pd.Series([None] * len(df), index=df.index)).map(as_list)
    exploded = df.assign(**{key: groups}).explode(key).dropna(subset=[key])
    keys = [c for c in ("model", "setting", "judge") if c in df]
    out = pd.concat([summarize(df, keys).assign(**{key: "ALL"}), summarize(exploded, [*keys, key])],
                    ignore_index=True)
    rank = {c: i for i, c in enumerate(["ALL", *order])}
    return out.sort_values([*keys, key], key=lambda s: s.map(rank).fillna(len(rank)) if s.name == key else s,
                           ignore_index=True)


def capability_table(df: pd.DataFrame) -> pd.DataFrame:
    """Per model × capability (ALL first, then the paper's order): acc, time, token and failures."""
    return by_group(df, "skills", "capability", SKILLS)


def to_long(summary: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """One row per metric (Acc, Time, Token) in long form: `metric`, `score`, its interval (`score_ci_lo`,
    `score_ci_hi`), what kind of number it is for the test against the paper (`ci_kind`: Acc a proportion of items,
    Time and Token means) and its n of items (`ci_n`)."""
    ids = ["model", *keys]
    long = summary.melt(id_vars=ids, value_vars=list(METRICS), var_name="metric", value_name="score")
    for end, name in ((0, "score_ci_lo"), (1, "score_ci_hi")):
        cols = {ci_columns(m)[end]: m for m in METRICS if ci_columns(m)[end] in summary}
        part = summary.melt(id_vars=ids, value_vars=list(cols), var_name="metric", value_name=name)
        long = long.merge(part.assign(metric=part["metric"].map(cols)), on=[*ids, "metric"], how="left")
    if "items" in summary:
        long = long.merge(summary[[*ids, "items"]].rename(columns={"items": uncertainty.UNITS}), on=ids, how="left")
    long[uncertainty.KIND] = long["metric"].map({"acc": uncertainty.PROPORTION}).fillna(uncertainty.MEAN)
    long["metric"] = long["metric"].map(METRICS)
    return long
