"""C²RBench Table 3 (human accuracy per category, with the models on the same tasks beside it) and the
judge-vs-human agreement check of §4.1 (10 rounds of 100 sampled responses). Inputs from outside the
runs: data/external/c2rbench/human_answers.csv and human_labels.csv (see the README there)."""
from __future__ import annotations

import numpy as np
import pandas as pd

from analysis.c2rbench import common as c2r
from analysis.external import external_file
from analysis.inputs import shown
from analysis.provenance import Provenance
from analysis.reference import beside_paper
from analysis.stats import ACC_NOTE, BESIDE, accuracy_table, counted_correct, micro_average
from analysis.table import Context, MissingInputs, Table
from analysis.uncertainty import (CI_HI, CI_LO, EXACT, KIND, MEAN, UNITS, bootstrap, ci_columns, renamed, wilson,
                                  with_interval_columns, with_intervals)
from judge.agreement import cohen_kappa
from judge.current import UNJUDGED
from judge.judges import RULES

IDS = ["c2rbench.T3", "c2rbench.agree"]
TRUE, FALSE = {"1", "true", "yes", "y", "t"}, {"0", "false", "no", "n", "f"}


def read_csv(name: str, columns: list[str], flag: str) -> pd.DataFrame:
    """An external file with its required columns, `flag` parsed to bool; MissingInputs says what is wrong."""
    path, example_note = external_file(c2r.EXTERNAL / name)
    df = pd.read_csv(path, dtype=str, keep_default_na=False)
    df.attrs["example_note"] = example_note
    lacking = [c for c in columns if c not in df.columns]
    bad = ~df.get(flag, pd.Series(dtype=str)).str.strip().str.lower().isin(TRUE | FALSE)
    if lacking or bad.any():
        raise MissingInputs(f"{path}: missing columns {lacking}" if lacking else
                            f"{path}: column {flag} must be 1/0 (true/false), rows {list(df.index[bad] + 2)[:10]}")
    df[flag] = df[flag].str.strip().str.lower().isin(TRUE)
    df["task_id"] = df["task_id"].str.strip()
    return df


def category_accuracy(scores: pd.DataFrame, who: str) -> pd.DataFrame:
    """scores: one row per task (category, score in 0..1). Accuracy per category = mean task score; Overall =
    the task-weighted mean of the categories (= mean over all tasks), which is how Table 3's 89.75 comes out
    of its categories and Table 6's 113 tasks."""
    per = scores.groupby("category")["score"].agg(acc=lambda s: 100 * s.mean(), tasks="size").reset_index()
    per = per.sort_values("category")  # Table 3 lists the categories alphabetically, after Overall
    overall = {"category": "Overall", "acc": micro_average(per["acc"], per["tasks"]), "tasks": int(per["tasks"].sum())}
    out = pd.concat([pd.DataFrame([overall]), per], ignore_index=True).assign(model=who)
    # a task's score is a share of its annotators (or 0/1 for a model's answer): the bootstrap over tasks
    tasks = next((scores[c] for c in ("task_id", "id") if c in scores), pd.Series(scores.index, index=scores.index))
    ci = pd.concat([bootstrap(scores.assign(category="Overall"), ["category"], tasks, scores["score"], scale=100,
                              proportion=True),
                    bootstrap(scores, ["category"], tasks, scores["score"], scale=100, proportion=True)])
    out = out.merge(ci.rename(columns={CI_LO: "acc_ci_lo", CI_HI: "acc_ci_hi"}), on="category", how="left")
    return out[["category", "acc", "acc_ci_lo", "acc_ci_hi", "tasks", "model"]]


def build_t3(table_id: str, ctx: Context) -> Table:
    answers = read_csv("human_answers.csv", ["task_id", "annotator", "answer", "correct"], "correct")
    example_note = answers.attrs.get("example_note")
    tasks_of, data = c2r.records(ctx)
    cats = tasks_of.set_index("id")["category"]
    unknown = sorted(set(answers["task_id"]) - set(cats.index))
    answers = answers[answers["task_id"].isin(cats.index)]
    tasks = answers.groupby("task_id").agg(score=("correct", "mean"), answers=("correct", "size")).reset_index()
    tasks["category"] = tasks["task_id"].map(cats)
    human = category_accuracy(tasks, "Human")
    human["answers"] = human["category"].map(tasks.groupby("category")["answers"].sum()).fillna(tasks["answers"].sum())
    table = human[["category", "tasks", "answers", *with_interval_columns(["acc"])]].rename(columns=renamed({"acc": "Human"}))
    notes = [f"Human answers: {shown(c2r.EXTERNAL / 'human_answers.csv')}; a task's score is the share of its annotators "
             f"who answered correctly; categories from the data file (see Provenance)."]
    if unknown:
        notes.append(f"{len(unknown)} task id(s) of the answers file are not in the data and are left out: "
                     f"{unknown[:10]}")
    extra, provenance = {}, Provenance()
    try:
        df, provenance, judge_notes = c2r.judged(ctx, table_id, [c2r.MAIN])
        same = df[df["id"].isin(tasks["task_id"])]
        for model, g in same.groupby("model"):
            acc = category_accuracy(g.assign(score=counted_correct(g).astype(float)), model).set_index("category")
            for ours, column in renamed({"acc": model}).items():
                table[column] = table["category"].map(acc[ours])
        full = pd.concat([accuracy_table(df, ["model", "category"]),
                          accuracy_table(df, ["model"]).assign(category="Overall")])
        every = full.pivot(index="model", columns="category", values="acc").reset_index().rename_axis(columns=None)
        extra["Models on every task (zero-shot, T = 0)"] = with_intervals(every, full, ["model"], ["category"], str)
        extra["Models on the humans' tasks: failures and accuracy over scored tasks"] = \
            accuracy_table(same, ["model"])[["model", "acc", *BESIDE]]
        notes += judge_notes + [ACC_NOTE, "Model columns: accuracy (%) on the tasks the humans answered, a failure "
                                "counting as not correct (as a human's wrong answer).",
                                "Intervals (95 %): the bootstrap over tasks of each task's score (the share of its "
                                "annotators right; a model's 0 or 1), Wilson's over the tasks where every task scored "
                                "the same. Beside the paper, its human accuracy is taken as a mean over its tasks "
                                "(Table 3's own counts) whose spread per task is ours; the task counts are exact."]
    except MissingInputs as e:
        notes.append(f"No model beside the humans: {e}")
    long = pd.concat([human.assign(stat="acc", **{KIND: MEAN, UNITS: human["tasks"]}),
                      human.assign(stat="n_tasks", acc=human["tasks"].astype(float), acc_ci_lo=np.nan, acc_ci_hi=np.nan,
                                   **{KIND: EXACT})])
    provenance.data = data
    return Table("C²RBench Table 3 — human performance (%) across the subsets, with the models' accuracy "
                 "on the same sampled tasks beside it.", table,
                 vs_paper=beside_paper(long, table_id, ["category", "stat"]), extra=extra,
                 notes=([example_note] if example_note else []) + notes, provenance=provenance)


def build_agree(table_id: str, ctx: Context) -> Table:
    labels = read_csv("human_labels.csv", ["task_id", "model", "round", "human_correct"], "human_correct")
    example_note = labels.attrs.get("example_note")
    if "setting" not in labels or (labels["setting"].str.strip() == "").all():
        labels["setting"] = c2r.MAIN  # the optional column: which run of the model was labelled
    labels["setting"] = labels["setting"].replace("", c2r.MAIN)
    rows, sources = [], []
    for judge in (c2r.LLM_JUDGE, RULES):
        try:
            v = ctx.verdicts(c2r.BENCH, sorted(labels["setting"].unique()), judge)
        except MissingInputs:
            continue
        sources += ctx.runs(c2r.BENCH, sorted(labels["setting"].unique()), judge)
        v = v[v["sample_idx"] == 0][["model", "setting", "id", "status", "correct"]]
        m = labels.merge(v, left_on=["model", "setting", "task_id"], right_on=["model", "setting", "id"], how="left")
        for rnd, g in [*m.groupby("round", sort=False), ("All", m)]:
            ok = g[g["status"] == "ok"]
            h, j = ok["human_correct"].astype(bool).tolist(), ok["correct"].astype(bool).tolist()
            rows.append({"judge": judge, "round": rnd, "labels": len(g), "compared": len(ok),
                         "no_verdict": int((g["status"].isna() | g["status"].eq(UNJUDGED)).sum()),
                         "judge_error": int((g["status"] == "judge_error").sum()),
                         "no_response": int((g["status"] == "no_response").sum()),
                         **_share("agreement_%", sum(a == b for a, b in zip(h, j)), len(ok)),
                         "cohen_kappa": cohen_kappa(h, j), **_share("human_acc_%", sum(h), len(h)),
                         **_share("judge_acc_%", sum(j), len(j))})
    if not rows:
        raise MissingInputs(f"no judged {c2r.BENCH} runs (judge {c2r.LLM_JUDGE} or {RULES}) for the labelled "
                            f"settings {sorted(labels['setting'].unique())}")
    table = pd.DataFrame(rows)
    return Table("C²RBench §4.1 — agreement of the automatic judge with human judgements, per round of "
                 "sampled responses and over all rounds (paper: GPT-4o agrees > 98% in 10 rounds of 100).",
                 table, notes=([example_note] if example_note else []) + [f"Human labels: {shown(c2r.EXTERNAL / 'human_labels.csv')} (one consensus label per response). "
                               "Only verdicts the judge scored are compared; missing and failed verdicts are counted.",
                               "Intervals (95 %): Wilson's over the responses compared (each agrees or not, is right "
                               "or not); κ has none here (the agreement's interval says how sure it is).",
                               "The paper gives no exact agreement per round, so there is no reference file."],
                 provenance=Provenance(sources))


def build(table_id: str, ctx: Context) -> Table:
    return build_t3(table_id, ctx) if table_id == "c2rbench.T3" else build_agree(table_id, ctx)


def _share(name: str, k: int, n: int) -> dict[str, float]:
    """k of n in %, with its Wilson interval, as the row's `name`, `name_ci_lo`, `name_ci_hi`."""
    (lo,), (hi,) = wilson(k, n)
    lo_name, hi_name = ci_columns(name)
    return {name: 100 * k / n if n else float("nan"), lo_name: float(lo), hi_name: float(hi)}
