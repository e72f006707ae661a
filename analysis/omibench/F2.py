"""OMIBench Fig. 2: dataset statistics — items per subject, open-ended vs multiple-choice, average images
per item, average question and rationale lengths (data only)."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd

from analysis.inputs import read_records
from analysis.omibench.runs import BENCH
from analysis.omibench.subjects import SUBJECTS
from analysis.plot import bars, draw, empty_panel, save_figure, stacked_bars, subplots
from analysis.provenance import Provenance
from analysis.reference import beside_paper
from analysis.table import Context, Table
from analysis.uncertainty import EXACT, EXACT_NOTE
from data.records import IMAGE_TAG

IDS = ["omibench.F2"]
WORD = re.compile(r"\S+")


def words(text: str) -> int:
    """Length in whitespace-separated words, [IMAGEn] tags removed (the paper excludes images)."""
    return len(WORD.findall(IMAGE_TAG.sub(" ", text or "")))


def records(path: Path) -> pd.DataFrame:
    rows = [{"subject": r.get("subject"), "mcq": r["answer_type"] == "mcq", "images": len(r["images"]),
             "question_words": words(r["question"]), "question_chars": len(IMAGE_TAG.sub("", r["question"])),
             "rationale": bool((r.get("solution") or "").strip()), "rationale_words": words(r.get("solution") or "")}
            for r in read_records(path).values()]
    return pd.DataFrame(rows)


def statistics(df: pd.DataFrame) -> pd.DataFrame:
    """Long form (subject, statistic, value): per subject and for "All"."""
    rows = []
    groups = [(s, df[df["subject"] == s]) for s in [*SUBJECTS, *sorted(set(df["subject"].dropna().unique()) - set(SUBJECTS))]]
    for subject, g in [*groups, ("All", df)]:
        if g.empty:
            continue
        with_rat = g[g["rationale"]]
        stats = {"items": len(g), "with rationale (%)": 100 * g["rationale"].mean(),
                 "open-ended items": int((~g["mcq"]).sum()), "multiple-choice items": int(g["mcq"].sum()),
                 "avg images": g["images"].mean(), "avg question length": g["question_words"].mean(),
                 "avg question length (chars)": g["question_chars"].mean(),
                 "avg rationale length": with_rat["rationale_words"].mean() if len(with_rat) else np.nan}
        rows += [{"model": "OMIBench", "subject": subject, "statistic": k, "number": float(v)} for k, v in stats.items()]
    return pd.DataFrame(rows)


def figure(long: pd.DataFrame, counts: pd.Series, path: Path) -> None:
    """Items (open-ended / multiple-choice) and average images per subject, from `statistics`; items per
    image count (`counts`: number of images → items)."""
    subjects = [s for s in long["subject"].unique() if s != "All"]
    val = long.set_index(["subject", "statistic"])["number"]
    fig, (ax1, ax2, ax3) = subplots(1, 3, figsize=(14, 4.5))
    x = np.arange(len(subjects))
    open_, mc = [val[(s, "open-ended items")] for s in subjects], [val[(s, "multiple-choice items")] for s in subjects]
    stacked_bars(ax1, x, {"open-ended": open_, "multiple-choice": mc})
    ax1.set(xticks=x, xticklabels=subjects, xlabel="subject", ylabel="items", title="Items per subject")
    ax1.legend()
    bars(ax2, x, [val[(s, "avg images")] for s in subjects])
    ax2.set(xticks=x, xticklabels=subjects, xlabel="subject", ylabel="images per item", title="Average images")
    bars(ax3, counts.index, counts.values)
    ax3.set(xlabel="images per item", ylabel="items", title="Image-count distribution")
    if not subjects:
        for ax in (ax1, ax2):
            empty_panel(ax, "no item has a subject")
    fig.suptitle("OMIBench Fig. 2: dataset statistics")
    save_figure(fig, path)


def build(table_id: str, ctx: Context) -> Table:
    data = ctx.data_file(BENCH)
    df = records(data.path)
    long = statistics(df)
    wide = long.pivot_table(index="subject", columns="statistic", values="number", aggfunc="first", sort=False)
    wide = wide[list(dict.fromkeys(long["statistic"]))].reset_index().rename_axis(columns=None)
    return Table(
        "OMIBench Fig. 2 — key statistics: items per subject, open-ended and multiple-choice items, average "
        "images per item, average question and rationale lengths (images excluded from lengths).",
        wide,
        vs_paper=beside_paper(long, table_id, ["subject", "statistic"], value="number", kind=EXACT),
        # the image-count distribution, not the per-item frame
        figure=draw(figure, long, df["images"].value_counts().sort_index(), path=ctx.figure(table_id)),
        notes=[EXACT_NOTE,
               "Lengths are whitespace words with [IMAGEn] tags removed (question text only, options excluded); "
               "the paper counts tokens of an unnamed tokenizer, so its 210.12 / 420.18 are not the same unit.",
               "Images = entries of `images` (a file repeated within an item counts each time).",
               "Multiple-choice = answer_type mcq; open records with inline lettered options count as open-ended. "
               "The paper prints 574 (44.4%), but 574 of 1,322 is 43.4%."],
        provenance=Provenance(data=data),
    )
