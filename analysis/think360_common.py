"""Think360° helpers the table modules share: the data file of the data-only tables, the preferred judge
per model (the paper's cascade, the rule judge as fallback), Acc / Time / Token per group and the long
and paper-ordered layouts.

Not a table itself (no IDS): analysis.run registers only modules that define IDS.
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd
import yaml

from analysis.inputs import Run
from analysis.reference import load_reference
from analysis.stats import accuracy_table
from analysis.table import ROOT, Context, MissingInputs
from data.converters.think360 import QUESTION_TYPES, SKILLS, TIERS  # noqa: F401  (re-exported: the paper's order)
from data.jsonl import read_jsonl
from judge.judges import CASCADE, RULES

BENCH = "think360"
CONFIG = ROOT / "configs" / "experiments" / "think360_T3.yaml"
DEMO_DATA = ROOT / "data" / "demo" / "build" / "think360.jsonl"
JUDGES = (CASCADE, RULES)  # the paper's cascade first; the rule judge only where the cascade did not run
PAPER_NAME = "Think360°"   # the `model` of data-only tables, so that beside_paper can match them
METRICS = {"acc": "Acc", "time": "Time", "token": "Token"}


def data_file() -> tuple[Path, str]:
    """The unified data file of the paper profile (the experiment config's `data`), else the demo's."""
    paper = ROOT / yaml.safe_load(CONFIG.read_text(encoding="utf-8"))["data"]
    for path, what in ((paper, "the paper profile's data"), (DEMO_DATA, "the demo data (no paper data yet)")):
        if path.exists():
            return path, f"Data: {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path} ({what})."
    raise MissingInputs(f"no Think360 data: neither {paper} (convert the release with python -m data.convert) "
                        f"nor {DEMO_DATA} (python -m data.demo)")


def records() -> tuple[list[dict], str]:
    path, note = data_file()
    return read_jsonl(path), note


def words(text: str) -> int:
    """Length in words (the paper's unit): whitespace-separated tokens."""
    return len(str(text).split())


def as_list(value) -> list[str]:
    """Skills / question types: a list, one string, or missing (NaN)."""
    if isinstance(value, list):
        return value
    return [value] if isinstance(value, str) and value else []


def preferred_verdicts(ctx: Context, settings: list[str], experiment: str) -> tuple[pd.DataFrame, list[Run], list[str]]:
    """Each model's verdicts under one judge, whichever scores more of the settings (ties go to
    think360_cascade, the paper's judge; the rule judge is the fallback). One judge per model: mixing
    judges inside a model would bias its Δ rows and ratios."""
    loaded = {}
    for judge in JUDGES:
        try:
            loaded[judge] = ctx.verdicts(BENCH, settings, judge)
        except MissingInputs:
            loaded[judge] = pd.DataFrame(columns=["model", "setting"])
    models = sorted(set().union(*(set(df["model"]) for df in loaded.values())))
    if not models:
        raise MissingInputs(f"no judged think360 runs of {settings} (judge {' or '.join(JUDGES)}) under "
                            f"{ctx.results}/judged: python -m pipeline.experiments --profile paper --only {experiment}")
    frames, sources, used, passed_over = [], [], {}, []
    for model in models:
        # Coverage counts settings with at least one scored verdict: a cascade whose LLM judge failed on
        # every item (judge_error throughout) measures nothing, and the rule judge then stands in.
        mine = {j: loaded[j][loaded[j]["model"] == model] for j in JUDGES}
        cover = {j: mine[j].loc[mine[j].get("status", pd.Series(dtype=str)) == "ok", "setting"].nunique() for j in JUDGES}
        judge = max(JUDGES, key=lambda j: (cover[j], j == CASCADE))
        used[model] = judge
        if judge == RULES and len(mine[CASCADE]):
            passed_over.append(model)
        frames.append(mine[judge])
        sources += [r for r in ctx.runs(BENCH, settings, judge) if r.model == model]
    fallback = [m for m, j in used.items() if j == RULES]
    notes = [f"Judge: {CASCADE} (the paper's extraction + rules + LLM consistency cascade) for "
             f"{', '.join(m for m, j in used.items() if j == CASCADE) or 'no model'}; rule judge (fallback: no "
             f"cascade verdicts scoring every setting) for {', '.join(fallback) or 'no model'}."]
    if passed_over:
        notes.append(f"Cascade verdicts exist but score fewer settings than the rule judge's (LLM judge failures) "
                     f"for {', '.join(passed_over)}: see results/judged/think360/<model>/*.{CASCADE}.manifest.json.")
    sources = list({r.path: r for r in sources}.values())  # IQ and CQ can be one file (the caption variant)
    return pd.concat(frames, ignore_index=True), sources, notes


def runs_note(df: pd.DataFrame) -> str:
    """Which file each model's setting was read from (a text-only model runs "+caption" in the demo)."""
    pairs = df.drop_duplicates(["model", "setting"])[["model", "setting", "run_setting"]]
    return "Runs read: " + "; ".join(f"{m} {s} as {r}" if s != r else f"{m} {s}"
                                     for m, s, r in pairs.itertuples(index=False)) + "."


def summarize(df: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """Acc (%) over every item × repeat (the mean of the repeats), a failure not correct, with acc_scored
    and the failures beside it (analysis.stats.accuracy_table); Time = mean latency_s and Token = mean
    completion tokens over the requests that got a response (a judge failure does not undo the model's
    answer, so its time and tokens count)."""
    acc = accuracy_table(df, by)
    answered = df[df["status"] != "no_response"]
    cost = (answered.groupby(by, dropna=False)
            .agg(time=("latency_s", "mean"), token=("completion_tokens", "mean")).reset_index()
            if len(answered) else pd.DataFrame(columns=[*by, "time", "token"]))
    return acc.merge(cost, on=by, how="left")


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
    """One row per metric (Acc, Time, Token) in long form: `metric`, `score`."""
    long = summary.melt(id_vars=["model", *keys], value_vars=list(METRICS), var_name="metric", value_name="score")
    long["metric"] = long["metric"].map(METRICS)
    return long


def paper_order(models: list[str], table_id: str) -> list[str]:
    """Our models in the order the paper's table lists them (via the aliases); the others after, sorted."""
    ref = load_reference(table_id)
    seen = list(dict.fromkeys(ref["model"])) if ref is not None else []
    return [m for m in seen if m in models] + sorted(m for m in models if m not in seen)
