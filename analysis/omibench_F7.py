"""OMIBench Figure 7 (Appendix F.2): the primary cause of the first fatal error in the answers GPTScore failed —
visual perception, cross-image association, logical reasoning, instruction comprehension, other — as shares per
model and over all models."""
from __future__ import annotations

import pandas as pd

from analysis import labels
from analysis.omibench_common import BENCH, SETTING
from analysis.reference import beside_paper
from analysis.table import Context, Table
from judge.taxonomy import OMIBENCH

IDS = ["omibench.F7"]
JUDGE = "omibench_error"
EXPERIMENTS = ["omibench.T2", "omibench.F7"]  # GPTScore's verdicts, the labels
CLASSES = {c.slug: c.name for c in OMIBENCH.classes}
SOURCES = pd.DataFrame({"source": ["App. F.2", "§5"]})  # the paper gives Figure 7's shares twice, differently


def build(table_id: str, ctx: Context) -> Table:
    failed = labels.failed_answers(ctx, BENCH, [SETTING], JUDGE, EXPERIMENTS)
    per_model, _ = labels.summarize(failed, ["model"], CLASSES)
    overall, overall_long = labels.summarize(labels.pooled(failed), ["model"], CLASSES)
    table = pd.concat([per_model, overall], ignore_index=True)
    return Table(
        "OMIBench Figure 7 — the primary cause of the first fatal error of each answer GPTScore failed (%, of the "
        "answers labelled with a class), per model and over all models, with the counts of every state.",
        table,
        vs_paper=beside_paper(overall_long.merge(SOURCES, how="cross"), table_id, ["class", "source"], value="share"),
        figure=labels.share_bars(table, list(CLASSES.values()), ctx.figures / f"{table_id}.png",
                                 "OMIBench Fig. 7: first fatal error of the failed answers"),
        notes=[*failed.notes,
               "The paper's Figure 7 is of 100 sampled answers GPTScore failed, of models it does not name, labelled "
               "by expert annotators after dropping those GPTScore misjudged (our no_error). It states the shares "
               "twice: App. F.2 gives 35 / 30 / 25 / 10 % (visual perception, cross-image association, logical "
               "reasoning, instruction comprehension; Other not printed), §5 13 / 29 / 41 % for the first three; "
               "both are set beside our pooled row (column source).",
               "omibench_error asks the judge model for the class by F.2's annotator guidelines (quoted); the paper "
               "profile's judge is GPT-4o, B.2's model for its model analyses."],
        provenance=failed.provenance,
    )
