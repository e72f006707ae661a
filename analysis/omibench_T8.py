"""OMIBench Table 8: human experts and trained non-experts against the strongest model on the same
52-problem subset (Appendix K). Human answers: data/external/omibench/human_answers.csv (README-human.md)."""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from analysis.external import external_file
from analysis.inputs import read_records, shown
from analysis.omibench_common import BENCH, EXTERNAL, SETTING, metric_verdicts
from analysis.provenance import Provenance
from analysis.reference import beside_paper
from analysis.stats import ACC_NOTE, accuracy_table
from analysis.table import Context, MissingInputs, Table
from judge import rules

IDS = ["omibench.T8"]
ANSWERS = EXTERNAL / "human_answers.csv"


def load_answers(path: Path, recs: dict[str, dict]) -> tuple[pd.DataFrame, list[str]]:
    """Each participant's answer graded: the file's `correct` where given (a grader's verdict), else the
    rule judge on `response`. A blank answer is wrong: a person who does not answer has no request that
    could fail. Returns the graded answers and the ids not in the data file."""
    if not path.exists():
        raise MissingInputs(f"no human answers at {shown(path)} (columns participant,group,id,response[,correct]: see "
                            "data/external/omibench/README-human.md and human_answers.EXAMPLE.csv)")
    df = pd.read_csv(path, dtype=str, keep_default_na=False)
    lacking = [c for c in ("participant", "group", "id", "response") if c not in df]
    if lacking:
        raise MissingInputs(f"{shown(path)}: missing column(s) {lacking} (see data/external/omibench/README-human.md)")
    unknown = sorted(set(df["id"]) - recs.keys())
    df = df[df["id"].isin(recs.keys())].copy()
    given = df["correct"].str.strip().str.lower() if "correct" in df else pd.Series("", index=df.index)
    bad = sorted(set(given) - {"", "1", "0", "true", "false"})
    if bad:
        raise MissingInputs(f"{shown(path)}: correct must be 1/0/true/false or empty, found {bad}")
    df["graded_by"] = ["grader" if g else "rules" for g in given]
    df["correct"] = [g in ("1", "true") if g else bool(r.strip()) and bool(rules.score(recs[i], r)["correct"])
                     for g, r, i in zip(given, df["response"], df["id"])]
    return df, unknown


def gap_table(humans: pd.DataFrame, best: float) -> pd.DataFrame:
    """Per participant and per group (mean of its participants): accuracy and the gap to the best model."""
    per = humans.groupby(["group", "participant"])["correct"].agg(acc=lambda s: 100 * s.mean(), items="count")
    per = per.reset_index()
    groups = per.groupby("group")["acc"].mean().reset_index().assign(participant=lambda d: d["group"] + " (mean)")
    out = pd.concat([per, groups], ignore_index=True)
    out["gap_to_best_model"] = out["acc"] - best
    return out


def build(table_id: str, ctx: Context) -> Table:
    data = ctx.data_file(BENCH)
    answers, example_note = external_file(ANSWERS)
    humans, unknown = load_answers(answers, read_records(data.path))
    subset = set(humans["id"])
    models, sources = [], []
    for metric, df, runs in metric_verdicts(ctx, [SETTING]):
        acc = accuracy_table(df[df["id"].isin(subset)], ["model"]).assign(metric=metric)
        acc["coverage"] = [f"{len(set(g['id']))}/{len(subset)}" for _, g in df[df["id"].isin(subset)].groupby("model")]
        models.append(acc)
        sources += runs
    if not models:
        raise MissingInputs(f"no judged omibench {SETTING} runs to compare the humans with")
    models = pd.concat(models, ignore_index=True)
    acc = models[models["metric"] == "ACC"]
    full = acc[acc["coverage"] == f"{len(subset)}/{len(subset)}"]
    pool = full if len(full) else acc
    if pool.empty:
        raise MissingInputs(f"no judged item of the omibench {SETTING} runs is among the {len(subset)} human-answered items")
    best_row = pool.sort_values(["acc", "model"], ascending=[False, True]).iloc[0]
    table = gap_table(humans, float(best_row["acc"])).assign(metric="ACC")
    best = models[models["model"] == best_row["model"]].rename(columns={"model": "participant", "judged": "items"})
    best = best.assign(group="best model", gap_to_best_model=best["acc"] - best_row["acc"])
    best.loc[best["metric"] != "ACC", "gap_to_best_model"] = float("nan")
    table = pd.concat([table, best], ignore_index=True)
    table = table[["group", "participant", "metric", "acc", "items", "coverage", "gap_to_best_model"]]
    table["items"] = table["items"].astype("Int64")  # group means have no item count of their own
    long = table.rename(columns={"participant": "model"})
    notes = ([example_note] if example_note else []) + [
             ACC_NOTE,
             f"Subset: the {len(subset)} items in {shown(ANSWERS)}; human answers graded by the file's "
             f"`correct` ({int((humans['graded_by'] == 'grader').sum())}) or the rule judge "
             f"({int((humans['graded_by'] == 'rules').sum())}).",
             f"Best model: highest rule-judge ACC on the subset ({best_row['model']})"
             + ("" if len(full) else " — no model answered every item of the subset: compare with care") + "; "
             "gap = human minus best model (points). A model's failures count as not correct, as a human's "
             "blank answer does; they and its accuracy over scored items are under 'Every model on the subset'."]
    if unknown:
        notes.append(f"{len(unknown)} id(s) not in the data file left out, e.g. {unknown[0]!r}.")
    return Table("OMIBench Table 8 — accuracy (%) of human experts / non-experts and the strongest model "
                 "on the same subset of OMIBench, with the gap to that model.", table,
                 vs_paper=beside_paper(long, table_id, ["metric"]),
                 extra={"Every model on the subset": models}, notes=notes,
                 provenance=Provenance(sources, data=data))
