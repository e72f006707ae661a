"""What the MIRA tables share: the verdicts each model is read with (the paper's mira_judge, else the rule
judge: table.Context.judged), Gear Rotation pairs, accuracy per task, domain and overall.

Scoring follows the authors' acc.py (github.com/aiming-lab/MIRA): a Gear Rotation item is one of a
pair (uids n.1 / n.2, the same gears asked both ways) and the pair scores 1 only when both answers
are right, so the task has 20 scoring units for 40 items; every other item is its own unit. Domain and
overall accuracies pool the units (a micro average), as acc.py does for its per-aspect lines.

Two denominators, shown side by side as OMIBench's two ACCs are: `Acc` as published divides by the units acc.py
counts — it gives an item with no response no verdict (`if ground_truth is None or not model_response: return
None`), so such an item leaves the denominator, and a pair leaves it only when neither question was answered —
and it is the number set beside the paper's; `Acc careful` divides by every unit, a failure not correct, as every
other table here counts failures. They differ only where requests failed.
"""
from __future__ import annotations

from typing import Callable

import numpy as np
import pandas as pd

from analysis import judge_gap
from analysis.inputs import Run, read_records
from analysis.provenance import Provenance
from analysis.reference import beside_paper
from analysis.stats import BESIDE, BESIDE_NOTE, accuracy_table, flagged, truncated
from analysis.table import Context, MissingInputs
from analysis.table_experiments import how_to_run
from analysis.uncertainty import UNITS, ci_columns, renamed, wilson, with_interval_columns, with_intervals
from data.benchmarks.mira import DOMAINS, TASKS
from judge.current import UNJUDGED
from judge.status import UNDECIDED

LEVELS = {"direct": "D", "cot_general": "T", "visual_cot": "V"}
TASK_ORDER = [name for name, _, _ in TASKS]
DOMAIN_ORDER = list(DOMAINS)
PAIRED_TASKS = {"Gear Rotation"}
DENOMINATORS_NOTE = ("Acc is MIRA's accuracy as published, over the units the authors' acc.py counts: an item with no "
                     "response gets no verdict there and leaves the denominator (a Gear Rotation pair leaves it only "
                     "when neither question was answered), so it is the number set beside the paper's (n: answered "
                     "units). Acc careful is over every unit, a failure not correct (n: every unit). Judge errors "
                     "and unjudged units stay in both denominators, as acc.py counts a failed judge call wrong.")
UNIT_NOTE = ("A unit is an item or a Gear Rotation pair. " + DENOMINATORS_NOTE + " " + BESIDE_NOTE + " 95 % "
             "intervals in brackets: Wilson's over the units each accuracy is over (answered units for Acc, every "
             "unit for Acc careful). Beside the paper, its n per task is not printed: ours (the units of the data "
             "run, the release's when the paper profile ran it) stands in.")
_UID_KEYS = ("uid", "id", "pid", "qid")     # where the converter keeps the release id (in `extra`)


def verdicts(ctx: Context, settings: list[str], table_id: str) -> tuple[pd.DataFrame, Provenance]:
    """Every model's verdicts of `settings` under one judge for all its settings (table.Context.judged), so
    D, T and V of one model are never scored by different judges; missing, they are named by `table_id`'s
    experiments (how_to_run)."""
    df, provenance = ctx.judged("mira", settings, how_to_run(table_id))
    if "task" not in df:
        raise MissingInputs("the data file named in the mira verdict manifests is missing (it gives each "
                            "item's task); convert the release again (python -m data.convert mira)")
    return df, provenance


def _release_items(records: dict[str, dict]) -> dict[str, tuple[str, str]]:
    """id -> (task, release uid as text, e.g. "3.1"), from the unified records (uid kept in `extra`)."""
    out = {}
    for rid, rec in records.items():
        extra = rec.get("extra") or {}
        uid = next((extra[k] for k in _UID_KEYS if k in extra), rid.rsplit("/", 1)[-1])
        out[rid] = (rec.get("task", ""), str(uid))
    return out


def _unit(task: str, rid: str, uid: str) -> str:
    """The scoring unit of an item: its Gear Rotation pair ("Gear Rotation#3"), else the item itself."""
    if task in PAIRED_TASKS and "." in uid:
        return f"{task}#{uid.split('.', 1)[0]}"
    return rid


def scoring_units(df: pd.DataFrame, sources: list[Run]) -> pd.DataFrame:
    """One row per scoring unit (an item, or a Gear Rotation pair) per model, setting and sample.

    A pair is correct only when every member is. It is a failure (not correct, counted; left out of
    acc_scored only) when a member failed or was not run at all (no_response), else when a member has no current
    verdict (unjudged) or an unreadable one (judge_error). It is flagged when a member's
    response addressed the judge, truncated when a member's was cut at the token limit with no final answer,
    undecided (judge/status.py) when a member is and none is decided wrong, and
    `answered` (in acc.py's denominator) unless every member run has no response.
    """
    items: dict[str, tuple[str, str]] = {}
    for path in {r.data for r in sources if r.data}:
        items.update(_release_items(read_records(path)))
    expected = pd.Series([_unit(t, i, u) for i, (t, u) in items.items()], dtype=object).value_counts()
    df = df.copy()
    df["unit"] = [_unit(t, i, items.get(i, ("", i.rsplit("/", 1)[-1]))[1]) for t, i in zip(df["task"], df["id"])]

    keys = ["model", "setting", "judge", "sample_idx", "task", "domain", "unit"]
    ok, undecided = df["status"].eq("ok"), df["status"].eq(UNDECIDED)
    right = ok & df["correct"].map(lambda v: v is True or v == 1)
    df = df.assign(ok=ok | undecided, no_resp=df["status"].eq("no_response"), unjudged=df["status"].eq(UNJUDGED),
                   right=right, undecided=undecided, wrong=ok & ~right, flagged=flagged(df), truncated=truncated(df))
    out = df.groupby(keys, dropna=False).agg(n=("id", "size"), ok=("ok", "all"), no_resp=("no_resp", "any"),
                                             answered=("no_resp", lambda s: not s.all()),
                                             unjudged=("unjudged", "any"), right=("right", "all"),
                                             undecided=("undecided", "any"), wrong=("wrong", "any"),
                                             flagged=("flagged", "any"), truncated=("truncated", "any")).reset_index()
    missing = out["n"] < out["unit"].map(expected).fillna(out["n"])
    # a pair with a member decided wrong is wrong; else one with an undecided member is undecided
    out["status"] = np.select([out["no_resp"] | missing, out["unjudged"], out["ok"] & out["undecided"] & ~out["wrong"],
                               out["ok"]], ["no_response", UNJUDGED, UNDECIDED, "ok"], "judge_error")
    out["correct"] = out["right"] & out["status"].eq("ok")
    return out[keys + ["status", "correct", "flagged", "truncated", "answered", "n"]]


def accuracies(units: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """Per group: `acc_published` over the units acc.py counts (`answered`, their number), `acc` (Acc careful)
    over every unit, and the counts of analysis.stats.accuracy_table."""
    out = accuracy_table(units, by)
    if out.empty:
        return out.assign(**{c: pd.Series(dtype=float) for c in with_interval_columns(["acc_published"])},
                          answered=pd.Series(dtype=int))
    published = units.assign(right=units["correct"] & units["answered"]).groupby(by, dropna=False).agg(
        right=("right", "sum"), answered=("answered", "sum")).reset_index()
    published["acc_published"] = (100 * published["right"] / published["answered"]).where(published["answered"] > 0)
    published["acc_published_ci_lo"], published["acc_published_ci_hi"] = wilson(published["right"],
                                                                                 published["answered"])
    return out.merge(published[[*by, *with_interval_columns(["acc_published"]), "answered"]], on=by, how="left")


def grouped(units: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """Both accuracies (`accuracies`) per task, per domain and overall (micro over scoring units), as one long
    frame with a `group` column (task name, domain abbreviation or "Overall") and its `kind`."""
    parts = [accuracies(units, [*by, "task"]).rename(columns={"task": "group"}).assign(kind="task"),
             accuracies(units, [*by, "domain"]).rename(columns={"domain": "group"}).assign(kind="domain"),
             accuracies(units, by).assign(group="Overall", kind="overall")]
    return pd.concat(parts, ignore_index=True)


METRICS = {"Acc": "acc_published", "Acc careful": "acc"}  # the row label of each accuracy, and its column
# Each accuracy with its n, then the counts beside every accuracy: the columns of the failures tables
SHOWN = ["acc_published", "acc_published_ci_lo", "acc_published_ci_hi", "answered", "acc", *BESIDE]


def metric_rows(long: pd.DataFrame, index: list[str], columns: list[str]) -> pd.DataFrame:
    """`long` with one row per `index`, `columns` and metric (Acc, Acc careful): its `value` and the value's 95 %
    interval (`value_ci_lo`, `value_ci_hi`)."""
    parts = []
    for name, column in METRICS.items():
        lo, hi = ci_columns(column)
        part = long[[*index, *columns, column]].rename(columns={column: "value"}).assign(metric=name)
        part["value_ci_lo"] = long[lo] if lo in long else np.nan
        part["value_ci_hi"] = long[hi] if hi in long else np.nan
        parts.append(part)
    return pd.concat(parts, ignore_index=True)


def by_metric(long: pd.DataFrame, index: list[str], columns: list[str]) -> pd.DataFrame:
    """`long` pivoted to one row per `index` and metric (Acc, then Acc careful), one column per `columns`."""
    rows = metric_rows(long, index, columns)
    return rows.pivot_table(index=[*index, "metric"], columns=columns, values="value", aggfunc="first",
                            dropna=False)


def with_metric_intervals(wide: pd.DataFrame, long: pd.DataFrame, index: list[str], columns: list[str],
                          name: Callable[..., str]) -> pd.DataFrame:
    """`wide` (by_metric's, index reset; columns named `name(*key)`) with each column's interval columns."""
    return with_intervals(wide, metric_rows(long, index, columns), [*index, "metric"], columns, name, "value")


def beside_paper_both(long: pd.DataFrame, table_id: str, keys: list[str]) -> pd.DataFrame:
    """The paper's number beside our Acc as published (`ours`, over `n` answered units), with Acc careful
    (`ours_careful`, over `n_careful`, every unit) beside it."""
    out = beside_paper(long.assign(**{UNITS: long["answered"]}), table_id, keys, value="acc_published")
    both = long[["model", *keys, "answered", *with_interval_columns(["acc"]), "judged"]].rename(
        columns={"answered": "n", **renamed({"acc": "ours_careful"}), "judged": "n_careful"})
    out = out.merge(both, on=["model", *keys], how="left")
    return out[["model", *keys, "paper_model", "ours", "ours_ci_lo", "ours_ci_hi", "n", "paper", "paper_n",
                "paper_n_from", "diff", "diff_ci_lo", "diff_ci_hi", "verdict",
                *with_interval_columns(["ours_careful"]), "n_careful"]]


def careful_judge_gap(ctx: Context, provenance: Provenance, tasks: list[str] | None = None
                      ) -> tuple[dict[str, pd.DataFrame], list[str]]:
    """The published judge (mira_judge) and its careful variant (mira_judge_careful) compared item by item per model
    and level, over `tasks` (all when None): the extra table and its note, or none where the careful judge has not
    run (analysis/judge_gap.py). The careful judge's runs join the table's `provenance`."""
    keep = None if tasks is None else (lambda f: f["task"].isin(tasks) if "task" in f else f["id"].isna())
    gap = judge_gap.judge_gap(ctx.results, "mira", list(LEVELS), "mira_judge", ["model", "setting"], keep)
    if gap is None:
        return {}, []
    gap.insert(1, "level", gap.pop("setting").map(LEVELS))
    provenance.runs = list({r.path: r for r in provenance.runs + ctx.runs("mira", list(LEVELS), judge_gap.CAREFUL[
        "mira_judge"])}.values())
    return ({judge_gap.title("Acc", "mira_judge"): gap},
            [judge_gap.note("Acc", "mira_judge") + " Counted per item (a Gear Rotation question on its own), over the "
             "answers acc.py's rule leaves to the judge and the rest alike."])
