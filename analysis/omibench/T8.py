"""OMIBench Table 8: human experts and trained non-experts against the strongest model on the same
52-problem subset (Appendix K). Human answers: data/external/omibench/human_answers.csv (README-human.md)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from analysis.external import external_file
from analysis.inputs import read_records, shown
from analysis.omibench.metrics import RULE_GAP, RULES_NOTE, beside_paper_rules, rule_gap, rule_gap_notes
from analysis.omibench.runs import BENCH, EXTERNAL, SETTING, metric_verdicts
from analysis.provenance import Provenance
from analysis.stats import ACC_NOTE, accuracy_table, counted_correct
from analysis.table import Context, MissingInputs, Table
from analysis.table_experiments import how_to_run
from analysis.uncertainty import CI_HI, CI_LO, bootstrap, paired_difference, wilson, with_interval_columns
from judge import omibench_c1, rules

IDS = ["omibench.T8"]
ANSWERS = EXTERNAL / "human_answers.csv"
INTERVALS_NOTE = ("Intervals (95 %): a participant's and a model's accuracy Wilson's over the items; a group mean's the "
                  "bootstrap over items of its participants' answers; the gap's the bootstrap over the items both "
                  "answered of the per-item difference (paired; where no item differs, combined from the two sides' "
                  "Wilson intervals). The paper prints no test: none is added.")
# A human answer without a grader's verdict is graded by each rule: C.1's (the paper's ACC; a person's answer is the
# prediction itself, not a model output whose box C.1 reads) and the careful one.
GRADED = {"ACC": ("correct", omibench_c1.score_prediction), "ACC careful": ("correct_careful", rules.score)}


def load_answers(path: Path, recs: dict[str, dict]) -> tuple[pd.DataFrame, list[str]]:
    """Each participant's answer graded: the file's `correct` where given (a grader's verdict), else by each rule
    on `response` (`correct`: C.1's, `correct_careful`: the careful rule's). A blank answer is wrong: a person
    who does not answer has no request that could fail. Returns the graded answers and the ids not in the data
    file."""
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
    for column, score in GRADED.values():
        df[column] = [g in ("1", "true") if g else bool(r.strip()) and bool(score(recs[i], r)["correct"])
                      for g, r, i in zip(given, df["response"], df["id"])]
    return df, unknown


def gap_table(humans: pd.DataFrame, best: float, model: pd.Series | None = None) -> pd.DataFrame:
    """Per participant and per group (mean of its participants): accuracy with its 95 % interval and the gap to the
    best model, with the gap's interval on the items both answered (`model`: the best model's correctness per item,
    samples averaged; analysis.uncertainty.paired_difference). A participant's interval is Wilson's over the items;
    a group's the bootstrap over items of its participants' answers."""
    per = humans.groupby(["group", "participant"])["correct"].agg(acc=lambda s: 100 * s.mean(), items="count")
    per = per.reset_index()
    per["acc_ci_lo"], per["acc_ci_hi"] = wilson(per["acc"] / 100 * per["items"], per["items"])
    groups = per.groupby("group")["acc"].mean().reset_index().assign(participant=lambda d: d["group"] + " (mean)")
    ci = bootstrap(humans, ["group"], humans["id"], humans["correct"].astype(float), scale=100, proportion=True)
    groups = groups.merge(ci.rename(columns={CI_LO: "acc_ci_lo", CI_HI: "acc_ci_hi"}), on="group", how="left")
    out = pd.concat([per, groups], ignore_index=True)
    out["gap_to_best_model"] = out["acc"] - best
    sides = [humans[humans["participant"] == p] if not p.endswith(" (mean)") else humans[humans["group"] == g]
             for g, p in zip(out["group"], out["participant"])]
    gaps = [paired_difference(side.groupby("id")["correct"].mean().astype(float), model) if model is not None
            else {"diff_ci_lo": np.nan, "diff_ci_hi": np.nan} for side in sides]
    out["gap_to_best_model_ci_lo"] = [g["diff_ci_lo"] for g in gaps]
    out["gap_to_best_model_ci_hi"] = [g["diff_ci_hi"] for g in gaps]
    return out


def build(table_id: str, ctx: Context) -> Table:
    data = ctx.data_file(BENCH)
    answers, example_note = external_file(ANSWERS)
    humans, unknown = load_answers(answers, read_records(data.path))
    subset = set(humans["id"])
    models, frames, sources = [], {}, []
    for metric, df, runs in metric_verdicts(ctx, [SETTING]):
        df = df[df["id"].isin(subset)]
        acc = accuracy_table(df, ["model"]).assign(metric=metric)
        acc["coverage"] = [f"{len(set(g['id']))}/{len(subset)}" for _, g in df.groupby("model")]
        models.append(acc)
        frames[metric] = df
        sources += runs
    if not models:
        raise MissingInputs(f"no judged omibench {SETTING} runs to compare the humans with; {how_to_run(table_id)}")
    models = pd.concat(models, ignore_index=True)
    # the best model by the paper's ACC (C.1's rule), else by the careful rule where no run has C.1 verdicts
    by = next((m for m in GRADED if models.loc[models["metric"] == m, "acc"].notna().any()), None)
    acc = models[models["metric"] == by]
    full = acc[acc["coverage"] == f"{len(subset)}/{len(subset)}"]
    pool = full if len(full) else acc
    if pool.empty:
        raise MissingInputs(f"no judged item of the omibench {SETTING} runs is among the {len(subset)} human-answered items")
    best_row = pool.sort_values(["acc", "model"], ascending=[False, True]).iloc[0]
    best = models[models["model"] == best_row["model"]].rename(columns={"model": "participant", "judged": "items"})
    best_acc = best.set_index("metric")["acc"]
    table = pd.concat([gap_table(humans.assign(correct=humans[column]), float(best_acc.get(metric, float("nan"))),
                                 _per_item(frames.get(metric), best_row["model"])).assign(metric=metric)
                       for metric, (column, _) in GRADED.items()], ignore_index=True)
    best = best.assign(group="best model", gap_to_best_model=best["acc"] - best["metric"].map(best_acc))
    best.loc[~best["metric"].isin(list(GRADED)), "gap_to_best_model"] = float("nan")
    table = pd.concat([table, best], ignore_index=True)
    table = table[["group", "participant", "metric", *with_interval_columns(["acc"]), "items", "coverage",
                   *with_interval_columns(["gap_to_best_model"])]]
    table["items"] = table["items"].astype("Int64")  # group means have no item count of their own
    long = table.rename(columns={"participant": "model"})
    humans_graded = {metric: humans.assign(model=humans["participant"], sample_idx=0, status="ok",
                                           correct=humans[column]) for metric, (column, _) in GRADED.items()}
    gap = rule_gap({m: pd.concat([frames[m], humans_graded[m]], ignore_index=True) if m in frames else humans_graded[m]
                    for m in GRADED}, ["model"])
    notes = ([example_note] if example_note else []) + [
             ACC_NOTE, RULES_NOTE, *rule_gap_notes(gap, ["model"]),
             f"Subset: the {len(subset)} items in {shown(ANSWERS)}; human answers graded by the file's "
             f"`correct` ({int((humans['graded_by'] == 'grader').sum())}) or by each rule "
             f"({int((humans['graded_by'] == 'rules').sum())}: ACC by C.1's, ACC careful by the careful rule).",
             f"Best model: highest {by} on the subset ({best_row['model']})"
             + ("" if len(full) else " — no model answered every item of the subset: compare with care") + "; "
             "gap = human minus best model (points), by the same rule. A model's failures count as not correct, as "
             "a human's blank answer does; they and its accuracy over scored items are under 'Every model on the "
             "subset'.", INTERVALS_NOTE]
    if unknown:
        notes.append(f"{len(unknown)} id(s) not in the data file left out, e.g. {unknown[0]!r}.")
    return Table("OMIBench Table 8 — accuracy (%) of human experts / non-experts and the strongest model "
                 "on the same subset of OMIBench, with the gap to that model.", table,
                 vs_paper=beside_paper_rules(long, table_id, ["metric"]),
                 extra={"Every model on the subset": models, RULE_GAP: gap}, notes=notes,
                 provenance=Provenance(sources, data=data))


def _per_item(verdicts: pd.DataFrame | None, model: str) -> pd.Series | None:
    """The model's correctness per item (samples averaged, a failure not correct), for the paired gap."""
    if verdicts is None:
        return None
    mine = verdicts[verdicts["model"] == model]
    return counted_correct(mine).groupby(mine["id"]).mean().astype(float)
