"""ToT-Eval's verdicts as Table 5 reads them: each score with ToT-Width's second reading, the prose's
(judge.tot.tot_width_with_roots), taken from the score when it carries it, else computed from the tree the
verdict stores — verdicts judged before scores carried it are read again, never judged again.

Not a table itself (no IDS): analysis.run registers only modules that define IDS.
"""
from __future__ import annotations

from typing import Any

import pandas as pd

from analysis.inputs import Run, current_lines
from judge import tot

WITH_ROOTS = "tot_width_with_roots"


def with_roots_width(verdicts: pd.DataFrame, runs: list[Run]) -> pd.DataFrame:
    """`verdicts` (ToT-Eval rows: model, id, sample_idx, score) with WITH_ROOTS in every score whose verdict
    stores its tree. Only the runs of models whose scores lack it are read line by line (the frame holds no
    trees): a run judged since needs no second reading."""
    lacking = {m for m, s in zip(verdicts["model"], verdicts["score"]) if isinstance(s, dict) and WITH_ROOTS not in s}
    if not lacking:
        return verdicts
    trees = {(run.model, i, k): line.get("tree") for run in runs if run.model in lacking
             for (i, k), line in current_lines(run).items()}
    keys = zip(verdicts["model"], verdicts["id"], verdicts["sample_idx"])
    return verdicts.assign(score=[_added(s, trees.get(key)) for key, s in zip(keys, verdicts["score"])])


def _added(score: Any, tree: list[dict[str, Any]] | None) -> Any:
    # a score without a stored tree (a hand-made verdict) keeps no value: it is left out of that mean, and counted
    if not isinstance(score, dict) or WITH_ROOTS in score or not tree:
        return score
    return {**score, WITH_ROOTS: tot.tot_width_with_roots(tree)}
