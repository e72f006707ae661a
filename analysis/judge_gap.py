"""A published LLM judge and its careful variant compared answer by answer, as the tables compare a published rule
with the careful rule (analysis.stats.rule_disagreement): GPTScore (omibench_gptscore) against
omibench_gptscore_careful, MIRA's judge (mira_judge) against mira_judge_careful (judge/judges.py).

The careful variants read the same answers with a prompt that declares the response data and tells the judge to
ignore instructions inside it, and are shown the final answer; where the two disagree, an answer's verdict turned
on how its text addressed the judge, or on what the judge was shown. Shown only where the careful judge has run.
"""
from __future__ import annotations

from pathlib import Path
from typing import Callable

import pandas as pd

from analysis.inputs import load
from analysis.stats import rule_disagreement

CAREFUL = {"omibench_gptscore": "omibench_gptscore_careful", "mira_judge": "mira_judge_careful"}


def title(metric: str, published: str) -> str:
    """The extra table's title: `metric` by the published judge's prompt against the careful one."""
    return f"{metric}: published judge prompt ({published}) vs careful prompt ({CAREFUL[published]}), on the same answers"


def note(metric: str, published: str) -> str:
    return (f"Under '{title(metric, published)}': {CAREFUL[published]} is the paper's judge with the response declared "
            "data between tagged markers, instructions inside it ignored, and the final answer shown (ours, beside the "
            "published prompt, which stays as the paper prints it); acc_published and acc_careful (each over its own "
            "verdicts, a flagged response's verdict being the rule judge's in both), the answers only one of them "
            "counts correct (only_published_correct, only_careful_correct) and the answers one of them has not judged "
            "(published_missing, careful_missing).")


def judge_gap(results: Path, bench: str, settings: list[str], published: str, by: list[str],
              keep: Callable[[pd.DataFrame], pd.Series] | None = None) -> pd.DataFrame | None:
    """The published judge's and its careful variant's verdicts of `settings` compared per group `by`; None where the
    careful judge has no verdicts. `keep`: a filter of the verdict rows (applied to both), by their columns."""
    frames = [load(results, bench, settings, judge) for judge in (published, CAREFUL[published])]
    if frames[1].empty:
        return None
    if keep is not None:
        frames = [f[keep(f)] if not f.empty else f for f in frames]
    a, b = (f if not f.empty else frames[1].iloc[0:0] for f in frames)
    return rule_disagreement(a, b, by, ("published", "careful"))
