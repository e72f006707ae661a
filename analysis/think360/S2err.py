"""Think360° Fig. S2 (Appendix C): the errors of the failed answers — width-centric (among them Incomplete
Branch Expansion and Ineffective Pruning), depth-centric, perception/calculation — as shares per model."""
from __future__ import annotations

from analysis import labels
from analysis.reference import beside_paper, paper_order
from analysis.table import Context, Table
from analysis.think360 import common
from judge.taxonomy import THINK360

IDS = ["think360.S2err"]
SETTING = "direct+temp0.7"   # Table 3's runs
JUDGE = "think360_error"
CATEGORIES = {c.slug: c.name for c in THINK360.classes}
SUBTYPES = {s.slug: s.name for s in THINK360.subtypes}   # width-centric errors the paper names


def build(table_id: str, ctx: Context) -> Table:
    failed = labels.failed_answers(ctx, table_id, common.BENCH, [SETTING], JUDGE)
    table, long = labels.summarize(failed, ["model"], {**CATEGORIES, **SUBTYPES}, ("labels", "subtypes"), "category")
    order = {m: i for i, m in enumerate(paper_order(table_id, list(table["model"])))}
    table = table.sort_values("model", key=lambda s: s.map(order), ignore_index=True)
    return Table(
        "Think360° Fig. S2 — error categories of the failed answers (%, of the answers labelled): width-centric "
        "(with its two named kinds, also % of all labelled errors), depth-centric and perception/calculation, per "
        "model, with the counts of every state.",
        table,
        vs_paper=beside_paper(long, table_id, ["category"], value="share"),
        figure=labels.share_bars(table, list(CATEGORIES.values()), ctx.figure(table_id),
                                 "Think360° Fig. S2: error categories of the failed answers"),
        notes=[*failed.notes,
               "Paper (Appendix C, Doubao-1.5-Thinking-Vision-Pro and Claude-Opus-4-Thinking; Fig. S2's caption names "
               "the first Seed-Thinking-v1.5): width-centric 56 % and 55 %, depth-centric 36–38 % and perception or "
               "calculation < 8 % (not said per model, so not set beside ours), Incomplete Branch Expansion ~30 % and "
               "Ineffective Pruning ~20 % of all errors across both models (set beside each).",
               "think360_error's prompt is ours (the paper prints none): Appendix C's three categories and two "
               "width-centric kinds; a width-centric error of neither kind has no subtype. The paper names no judge "
               "model: the paper profile uses GPT-4o, its ToT-Eval judge."],
        provenance=failed.provenance,
    )
