"""OMIBench Figure 7 (Appendix F.2): the primary cause of the first fatal error in the answers GPTScore failed —
visual perception, cross-image association, logical reasoning, instruction comprehension, other — as shares per
model and over all models, of a seeded random sample of 100 failed answers as F.2 labels ("we randomly sampled 100
instances from the model outputs"), or of all of them (`sample:` in configs/experiments/omibench_F7.yaml)."""
from __future__ import annotations

import pandas as pd

from analysis import labels
from analysis.omibench.runs import BENCH, SETTING
from analysis.reference import beside_paper
from analysis.table import Context, Table
from analysis.table_experiments import experiment
from judge.taxonomy import OMIBENCH

IDS = ["omibench.F7"]
JUDGE = "omibench_error"
CLASSES = {c.slug: c.name for c in OMIBENCH.classes}
SOURCES = pd.DataFrame({"source": ["App. F.2", "§5"]})  # the paper gives Figure 7's shares twice, differently


def build(table_id: str, ctx: Context) -> Table:
    failed = labels.failed_answers(ctx, table_id, BENCH, [SETTING], JUDGE, sample=experiment("omibench_F7").sample)
    per_model, _ = labels.summarize(failed, ["model"], CLASSES)
    overall, overall_long = labels.summarize(labels.pooled(failed), ["model"], CLASSES)
    table = pd.concat([per_model, overall], ignore_index=True)
    totals = {**failed.population.groupby("model").size(), labels.ALL: len(failed.population)}
    table.insert(table.columns.get_loc("failed") + 1, "failed_total", table["model"].map(totals).fillna(0).astype(int))
    calls = int(failed.answers["label_calls"].fillna(0).sum()) if len(failed.answers) else 0
    return Table(
        f"OMIBench Figure 7 — the primary cause of the first fatal error (%, of the answers labelled with a class) "
        f"of {failed.population_text()} (GPTScore's), per model and over all models, with the counts of every state.",
        table,
        vs_paper=beside_paper(overall_long.merge(SOURCES, how="cross"), table_id, ["class", "source"], value="share"),
        figure=labels.share_bars(table, list(CLASSES.values()), ctx.figure(table_id),
                                 "OMIBench Fig. 7: first fatal error of the failed answers"),
        notes=[*failed.notes,
               population_note(failed),
               f"Cost: the labelling judge labels every answered response of the runs read (judge_calls, "
               f"judge_tokens); the label verdicts of the answers counted took {calls} of those calls.",
               "The paper's Figure 7 is of 100 sampled answers GPTScore failed, of models it does not name, labelled "
               "by expert annotators after dropping those GPTScore misjudged (our no_error). It states the shares "
               "twice: App. F.2 gives 35 / 30 / 25 / 10 % (visual perception, cross-image association, logical "
               "reasoning, instruction comprehension; Other not printed), §5 13 / 29 / 41 % for the first three; "
               "both are set beside our pooled row (column source).",
               "omibench_error asks the judge model for the class by F.2's annotator guidelines (quoted); the paper "
               "profile's judge is GPT-4o, B.2's model for its model analyses."],
        provenance=failed.provenance,
    )


def population_note(failed: labels.Failed) -> str:
    """Which failed answers the table counts and how the sample is drawn."""
    text = (f"Population: {failed.population_text()}. failed: the answers counted; failed_total: all failed answers "
            "of the row, the population. ")
    if failed.sample is None or failed.sample.size is None:
        return text + "`sample: {size: 100, seed: 0}` in configs/experiments/omibench_F7.yaml counts F.2's sample."
    return text + (f"The sample is drawn before any label is read: the {failed.sample.size} failed answers with the "
                   f"smallest SHA-256 of (seed {failed.sample.seed}, model, setting, id, sample index), the same on "
                   "every rerun; `sample: {size: all, seed: 0}` in configs/experiments/omibench_F7.yaml counts every "
                   "failed answer.")
