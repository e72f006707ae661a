"""What the MIRA tables share: the judge each model is read with, Gear Rotation pairs, accuracy per
task, domain and overall.

Scoring follows the authors' acc.py (github.com/aiming-lab/MIRA): a Gear Rotation item is one of a
pair (uids n.1 / n.2, the same gears asked both ways) and the pair scores 1 only when both answers
are right, so the task has 20 scoring units for 40 items; every other item is its own unit. Domain and
overall accuracies pool the units (a micro average), as acc.py does for its per-aspect lines; a failed
unit is not correct, as acc.py counts a missing answer.
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd

from analysis.inputs import Run
from analysis.reference import load_reference
from analysis.stats import ACC_NOTE, accuracy_table
from analysis.table import Context, MissingInputs
from data.converters.mira import DOMAINS, TASKS
from data.jsonl import iter_jsonl

LEVELS = {"direct": "D", "cot_general": "T", "visual_cot": "V"}
JUDGES = ("mira_judge", "rules")            # preferred first
HOW = "run the levels experiment: python -m pipeline.experiments --only mira.T4-T10 (demo: bash run_all.sh)"
TASK_ORDER = [name for name, _, _ in TASKS]
DOMAIN_ORDER = list(DOMAINS)
PAIRED_TASKS = {"Gear Rotation"}
UNIT_NOTE = ACC_NOTE + " A unit is an item or a Gear Rotation pair."
_UID_KEYS = ("uid", "id", "pid", "qid")     # where the converter keeps the release id (in `extra`)


def verdicts(ctx: Context, settings: list[str], how: str) -> tuple[pd.DataFrame, list[Run]]:
    """Every model's verdicts for `settings`, each model read with one judge for all its settings:
    mira_judge when it scored items in every setting the rule judge did, else the rule judge (so D, T
    and V of one model are never scored by different judges)."""
    frames: dict[str, pd.DataFrame] = {}
    for judge in JUDGES:
        try:
            frames[judge] = ctx.verdicts("mira", settings, judge)
        except MissingInputs:
            pass
    if not frames:
        raise MissingInputs(f"no judged mira runs of {settings} (judge mira_judge or rules) under "
                            f"{ctx.results}/judged/mira; {how}")
    chosen, sources = [], []
    for model in sorted(set().union(*(set(df["model"]) for df in frames.values()))):
        mine = {j: df[df["model"] == model] for j, df in frames.items() if (df["model"] == model).any()}
        scored = {j: set(d.loc[d["status"] == "ok", "setting"]) for j, d in mine.items()}
        llm = scored.get("mira_judge", set())
        judge = "mira_judge" if llm and llm >= scored.get("rules", set()) else "rules" if "rules" in mine else "mira_judge"
        chosen.append(mine[judge])
        sources += [r for r in ctx.runs("mira", settings, judge) if r.model == model]
    df = pd.concat(chosen, ignore_index=True)
    if "task" not in df:
        raise MissingInputs("the data file named in the mira verdict manifests is missing (it gives each "
                            "item's task); convert the release again (python -m data.convert mira)")
    return df, sources


@lru_cache(maxsize=8)
def _release_items(data: Path) -> dict[str, tuple[str, str]]:
    """id -> (task, release uid as text, e.g. "3.1"), from the unified data file (uid kept in `extra`)."""
    out = {}
    for _, rec in iter_jsonl(data):
        extra = rec.get("extra") or {}
        uid = next((extra[k] for k in _UID_KEYS if k in extra), rec["id"].rsplit("/", 1)[-1])
        out[rec["id"]] = (rec.get("task", ""), str(uid))
    return out


def _unit(task: str, rid: str, uid: str) -> str:
    """The scoring unit of an item: its Gear Rotation pair ("Gear Rotation#3"), else the item itself."""
    if task in PAIRED_TASKS and "." in uid:
        return f"{task}#{uid.split('.', 1)[0]}"
    return rid


def scoring_units(df: pd.DataFrame, sources: list[Run]) -> pd.DataFrame:
    """One row per scoring unit (an item, or a Gear Rotation pair) per model, setting and sample.

    A pair is correct only when every member is. It is a failure (not correct, counted; left out of
    acc_scored only) when a member failed or was not run at all; acc.py too counts a missing member as
    wrong.
    """
    items: dict[str, tuple[str, str]] = {}
    for path in {Path(r.manifest["data"]) for r in sources if r.manifest.get("data")}:
        if path.exists():
            items.update(_release_items(path))
    expected = pd.Series([_unit(t, i, u) for i, (t, u) in items.items()], dtype=object).value_counts()
    df = df.copy()
    df["unit"] = [_unit(t, i, items.get(i, ("", i.rsplit("/", 1)[-1]))[1]) for t, i in zip(df["task"], df["id"])]

    keys = ["model", "setting", "judge", "sample_idx", "task", "domain", "unit"]
    ok = df["status"].eq("ok")
    df = df.assign(ok=ok, no_resp=df["status"].eq("no_response"),
                   right=ok & df["correct"].map(lambda v: v is True or v == 1))
    out = df.groupby(keys, dropna=False).agg(n=("id", "size"), ok=("ok", "all"), no_resp=("no_resp", "any"),
                                             right=("right", "all")).reset_index()
    missing = out["n"] < out["unit"].map(expected).fillna(out["n"])
    out["status"] = np.where(out["no_resp"] | missing, "no_response", np.where(out["ok"], "ok", "judge_error"))
    out["correct"] = out["right"] & out["status"].eq("ok")
    return out[keys + ["status", "correct", "n"]]


def grouped(units: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """Accuracy per task, per domain and overall (micro over scoring units), as one long frame with a
    `group` column (task name, domain abbreviation or "Overall") and its `kind`."""
    parts = [accuracy_table(units, [*by, "task"]).rename(columns={"task": "group"}).assign(kind="task"),
             accuracy_table(units, [*by, "domain"]).rename(columns={"domain": "group"}).assign(kind="domain"),
             accuracy_table(units, by).assign(group="Overall", kind="overall")]
    return pd.concat(parts, ignore_index=True)


def paper_order(table_id: str, models: list[str]) -> list[str]:
    """Models in the paper's row order where the paper has them, the others after, by name."""
    ref = load_reference(table_id)
    order = list(dict.fromkeys(ref["model"])) if ref is not None else []
    return sorted(models, key=lambda m: (order.index(m) if m in order else len(order), m))
