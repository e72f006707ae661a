"""Think360° Figure 5: frequency of each cognitive skill (occurrence count / total samples) and the skills'
co-occurrence (items needing both). Data only; a heatmap stands in for the paper's chord diagram."""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from data.benchmarks import think360
from analysis.plot import draw, save_figure, subplots
from analysis.provenance import Provenance
from analysis.table import Context, MissingInputs, Table
from analysis.think360 import common
from analysis.uncertainty import EXACT_NOTE

IDS = ["think360.F5"]


def co_occurrence(recs: list[dict], field: str, order: list[str]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(frequency, matrix). Frequency: count and count / total items (%) per category (non-exclusive, so
    the shares sum past 100). Matrix: items having both categories; the diagonal is the category's count."""
    cats_of = [list(dict.fromkeys(common.as_list(r.get(field)))) for r in recs]
    found = {c for cats in cats_of for c in cats}
    cats = [c for c in order if c in found] + sorted(found - set(order))
    m = pd.DataFrame(0, index=cats, columns=cats, dtype=int)
    for item in cats_of:
        for a in item:
            for b in item:
                m.loc[a, b] += 1
    counts = pd.Series({c: int(m.loc[c, c]) for c in cats}, dtype=int)
    freq = pd.DataFrame({"category": cats, "count": counts.values,
                         "frequency_pct": 100 * counts.values / len(recs) if recs else []})
    return freq, m


def figure(freq: pd.DataFrame, matrix: pd.DataFrame, path: Path) -> None:
    """Fig. 5: the skills' frequency (bars) and co-occurrence (heatmap)."""
    fig, (left, right) = subplots(1, 2, figsize=(13, 5), gridspec_kw={"width_ratios": [1, 1.1]})
    left.barh(freq["category"], freq["frequency_pct"], color="tab:blue", label="share of items")
    left.invert_yaxis()
    left.set_xlabel("items requiring the skill (% of all items)")
    left.set_title("Skill frequency")
    left.legend(loc="lower right")
    im = right.imshow(matrix.values, cmap="Blues")
    right.set_xticks(range(len(matrix)), matrix.columns, rotation=35, ha="right")
    right.set_yticks(range(len(matrix)), matrix.index)
    for i in range(len(matrix)):
        for j in range(len(matrix)):
            right.text(j, i, int(matrix.iat[i, j]), ha="center", va="center", fontsize=8)
    right.set_title("Skill co-occurrence\n(items needing both; diagonal = the skill's count)")
    fig.colorbar(im, ax=right, label="items (count)")
    fig.suptitle("Think360° Fig. 5 — cognitive skills: frequency and co-occurrence")
    save_figure(fig, path, dpi=150)


def build(table_id: str, ctx: Context) -> Table:
    recs, data = common.records(ctx)
    if not any(common.as_list(r.get("skills")) for r in recs):
        raise MissingInputs("the Think360 data file has no `skills` field (convert the release with its "
                            "cognitive-capability annotations)")
    freq, matrix = co_occurrence(recs, "skills", think360.SKILLS)
    q_freq, q_matrix = co_occurrence(recs, "question_type", think360.QUESTION_TYPES)
    path = draw(figure, freq, matrix, path=ctx.figure(table_id))
    table = freq.merge(matrix.reset_index(names="category"), on="category")
    return Table(
        "Think360° Figure 5 — frequency distribution (left) and co-occurrence (right) of the cognitive skills "
        "required to solve the problems; frequency = occurrence count / total samples (%).",
        table,
        extra={"Question types: frequency": q_freq,
               "Question types: co-occurrence": q_matrix.reset_index(names="question type")},
        figure=path,
        notes=[EXACT_NOTE, f"{len(recs)} items; skills are non-exclusive, so the frequencies sum past 100%.",
               "The paper draws the co-occurrence as a chord diagram; here it is a heatmap of the same counts "
               "(matplotlib has no chord diagram)."],
        provenance=Provenance(data=data),
    )
