"""Think360° Figure S3: question word frequencies (the paper's word cloud, drawn as a bar chart) and the
distribution of question lengths in words. Data only."""
from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pandas as pd

from analysis.plot import draw, empty_panel, save_figure, subplots
from analysis.provenance import Provenance
from analysis.reference import beside_paper
from analysis.table import Context, Table
from analysis.think360 import common
from analysis.uncertainty import EXACT, EXACT_NOTE

IDS = ["think360.S3"]
TOP = 30
BIN = 10  # words per histogram bin
# Articles, prepositions, copulas and pronouns only: the paper's cloud keeps "which", "all", "how", "many".
STOPWORDS = set("""a an the of to in on at by for from with into onto and or but if then than that this these those
is are was were be been being it its as such each there their they them he she his her we you your our i
do does did can could would should will shall may might must has have had not no so""".split())


def word_counts(questions: list[str]) -> pd.DataFrame:
    tokens = [w for q in questions for w in re.findall(r"[a-z]+(?:'[a-z]+)?", q.lower())
              if w not in STOPWORDS and len(w) > 1]
    return pd.DataFrame(Counter(tokens).most_common(), columns=["word", "count"])


def length_stats(lengths: list[int]) -> pd.DataFrame:
    """The numbers Appendix E quotes: mean, median, max, share of 30–69 words (%), count over 100 words."""
    s = pd.Series(lengths, dtype=float)
    return pd.DataFrame({"statistic": ["mean words", "median words", "max words", "share 30-69 words (%)",
                                       "questions over 100 words"],
                         "score": [s.mean(), s.median(), s.max(), 100 * s.between(30, 69).mean(), int((s > 100).sum())]})


def figure(counts: pd.DataFrame, lengths: list[int], path: Path) -> None:
    """Fig. S3: the most frequent words (the first TOP rows of `counts`) and the histogram of `lengths`."""
    fig, (left, right) = subplots(1, 2, figsize=(13, 5.5))
    top = counts.head(TOP)
    left.barh(top["word"], top["count"], color="tab:green", label=f"top {len(top)} words")
    left.invert_yaxis()
    left.set_xlabel("occurrences in questions (count)")
    left.set_title("Question word frequencies")
    left.legend(loc="lower right")
    edges = list(range(0, max(lengths, default=0) + BIN + 1, BIN))
    right.hist(lengths, bins=edges, color="tab:purple", edgecolor="white", label="questions")
    mean = sum(lengths) / len(lengths) if lengths else 0
    right.axvline(mean, color="black", linestyle="--", label=f"mean {mean:.1f} words")
    right.set_xlabel(f"question length (words; bins of {BIN})")
    right.set_ylabel("questions (count)")
    right.set_title("Question length distribution")
    right.legend()
    if top.empty:
        empty_panel(left, "no word in the questions")
    if not lengths:
        empty_panel(right, "no question")
    fig.suptitle("Think360° Fig. S3 — question words and lengths")
    save_figure(fig, path, dpi=150)


def build(table_id: str, ctx: Context) -> Table:
    recs, data = common.records(ctx)
    questions = [r["question"] for r in recs]
    lengths = [common.words(q) for q in questions]
    counts = word_counts(questions)
    stats = length_stats(lengths).assign(model=common.PAPER_NAME)
    # only the words drawn are handed over: `counts` holds every distinct word
    path = draw(figure, counts.head(TOP), lengths, path=ctx.figure(table_id))
    edges = pd.cut(pd.Series(lengths), bins=range(0, max(lengths, default=0) + BIN + 1, BIN), right=False)
    histogram = edges.value_counts(sort=False).rename_axis("words").reset_index(name="questions")
    histogram["words"] = histogram["words"].astype(str)
    return Table(
        "Think360° Figure S3 — word frequencies and length distribution histogram of the questions "
        f"(top {TOP} words shown as bars instead of a word cloud).",
        counts.head(TOP),
        vs_paper=beside_paper(stats, table_id, ["statistic"], value="score", kind=EXACT),
        extra={"Length statistics": stats[["statistic", "score"]], "Length histogram": histogram},
        figure=path,
        notes=[EXACT_NOTE, "Words: lower-cased letter runs of the question text; articles, prepositions, copulas and "
               "pronouns are dropped (the paper's cloud keeps 'which', 'all', 'how many').",
               "Appendix E's numbers (mean 73.72, median 60, max 298) disagree with Table 1 (average 82, max 369): "
               "they seem to describe different item sets (testmini vs the full benchmark); the paper does not say."],
        provenance=Provenance(data=data),
    )
