"""Think360° Table 1: key statistics — answer types, difficulty tiers, skill and question-type counts,
question and answer lengths (words). Data only."""
from __future__ import annotations

import pandas as pd

from data.benchmarks import think360
from analysis.provenance import Provenance
from analysis.reference import beside_paper
from analysis.table import Context, Table
from analysis.think360 import common
from analysis.uncertainty import EXACT, EXACT_NOTE

IDS = ["think360.T1"]
# Unified answer_type → the paper's answer kinds (Table 1); free-form kinds are shares of the free-form items.
FREE_FORM = {"numeric": "Numerical", "expression": "Formula", "structured": "Structure", "text": "Others",
             "multi-part": "Others", "open": "Free-form, kind not given"}


def percent(count: float, base: float) -> float:
    return 100 * count / base if base else float("nan")


def statistics(recs: list[dict]) -> pd.DataFrame:
    """Long form: section, item, measure (count / percent / words), score."""
    n = len(recs)
    rows: list[tuple[str, str, str, float]] = [("Total", "Total questions", "count", n),
                                               ("Total", "Total questions", "percent", 100.0)]

    def counted(section: str, item: str, count: int, base: int) -> None:
        rows.extend([(section, item, "count", count), (section, item, "percent", percent(count, base))])

    if any("split" in r for r in recs):
        counted("Total", "Testmini set", sum(r.get("split") == "testmini" for r in recs), n)
    kinds = pd.Series([r["answer_type"] for r in recs], dtype=str)
    free = kinds[kinds != "mcq"]
    counted("Answer Type", "Multiple-choice questions", int((kinds == "mcq").sum()), n)
    counted("Answer Type", "Free-form questions", len(free), n)
    found = free.map(FREE_FORM).fillna(free).value_counts()
    paper_kinds = list(dict.fromkeys(FREE_FORM.values()))
    for kind in [k for k in paper_kinds if k in found] + sorted(set(found.index) - set(paper_kinds)):
        counted("Answer Type", f"Free-form: {kind}", int(found[kind]), len(free))
    for section, field, order in (("Difficulty Tier", "difficulty", think360.TIERS),
                                  ("Cognitive Capability/Skill", "skills", think360.SKILLS),
                                  ("Question Type", "question_type", think360.QUESTION_TYPES)):
        # Skills and question types are non-exclusive: an item counts once in each of its categories.
        found = pd.Series([c for r in recs for c in common.as_list(r.get(field))], dtype=str).value_counts()
        rows.append((section, "categories", "count", len(found)))
        for cat in [c for c in order if c in found] + sorted(c for c in found.index if c not in order):
            counted(section, cat, int(found[cat]), n)
    for section, lengths in (("Question Length", [common.words(r["question"]) for r in recs]),
                             ("Answer Length", [common.words(" ".join(map(str, r["answer"]))) for r in recs])):
        s = pd.Series(lengths, dtype=float)
        rows.extend([(section, "Maximum length", "words", s.max()), (section, "Average length", "words", s.mean())])
    return pd.DataFrame(rows, columns=["section", "item", "measure", "score"])


def build(table_id: str, ctx: Context) -> Table:
    recs, data = common.records(ctx)
    long = statistics(recs).assign(model=common.PAPER_NAME)
    table = long.pivot_table(index=["section", "item"], columns="measure", values="score", aggfunc="first",
                             sort=False).reset_index()
    table = table[["section", "item", *[c for c in ("count", "percent", "words") if c in table]]]
    table.columns.name = None
    return Table(
        "Think360° Table 1 — key statistics: answer type, difficulty tier, cognitive capability/skill and question "
        "type (non-exclusive: an item counts in each of its categories), question and answer lengths (words).",
        table,
        vs_paper=beside_paper(long, table_id, ["section", "item", "measure"], value="score", kind=EXACT),
        notes=[EXACT_NOTE,
               "Percentages are of all items, except the free-form answer kinds: of the free-form items (as the "
               "paper).",
               "Lengths count whitespace-separated words of the question text (options not included) and of the gold "
               "answer(s); an MCQ gold is its letter.",
               "The paper's Table 1 counts the whole benchmark (1225 items, 740 in testmini); the paper profile's "
               "data file is testmini, so counts differ by construction where only testmini is converted."],
        provenance=Provenance(data=data),
    )
