"""OMIBench's metrics: ACC by its published rule (Appendix C.1), ACC careful by the careful rule judge, and
GPTScore; the two rules compared answer by answer (the published rule's ACC beside the careful rule's, with
the answers on which they differ), and the paper's numbers beside ours with the careful rule's value.
"""
from __future__ import annotations

from typing import Mapping

import pandas as pd

from analysis.inputs import Run, load_run
from analysis.reference import beside_paper
from analysis.stats import COUNTS, rule_disagreement
from analysis.uncertainty import renamed

PUBLISHED, CAREFUL, CASCADE = "omibench_c1", "rules", "careful_cascade"
# The paper's ACC is its published rule (Appendix C.1), so "ACC" is that judge's and the number set beside the
# paper's; the careful rule judge's accuracy stands beside it (a range where it leaves answers undecided), and
# RULE_GAP counts where the two differ. "ACC careful cascade" is the careful rule with GPTScore's judge model
# deciding only the undecided answers (judge/careful_cascade.py): one number, shown where it was run.
METRICS = {"ACC": PUBLISHED, "ACC careful": CAREFUL, "ACC careful cascade": CASCADE, "GPTScore": "omibench_gptscore"}
RULE_METRICS = ("ACC", "ACC careful")
RULE_GAP = "ACC: published rule (C.1) vs careful rule, on the same answers"
RULES_NOTE = ("ACC is OMIBench's published rule (Appendix C.1: LCS ratio ≥ 0.75, numbers within 1e-4; judge "
              "omibench_c1), the quantity of the paper's ACC, so it is the one set beside the paper's; ACC careful "
              "is the careful rule judge (rules), which rejects what C.1 accepts by mistake (\"impossible\" for "
              "\"possible\"), and leaves undecided what only a reader can tell (a paraphrase, a synonym, an option's "
              "text reworded): ACC careful is then the range from counting every undecided answer wrong (acc, the "
              "number compared) to counting it right (acc_hi), with `undecided` beside it; C.1 decides everything, "
              "as published. Under '" + RULE_GAP + "': acc_c1 and acc_careful (each with its _hi end), the answers "
              "only one of them accepts while the other decides them wrong (only_c1_correct, only_careful_correct), "
              "the answers the careful rule left undecided (careful_undecided) and the answers one of them has not "
              "judged (c1_missing, careful_missing).")


def rule_gap(frames: Mapping[str, pd.DataFrame], by: list[str]) -> pd.DataFrame:
    """The verdict frames of ACC (published rule) and ACC careful compared answer by answer, per group
    (analysis.stats.rule_disagreement): both accuracies, the disagreements each way, the answers one lacks."""
    published, careful = (f if f is not None and set(by) <= set(f.columns) else None  # no columns: nothing judged
                          for f in (frames.get("ACC"), frames.get("ACC careful")))
    if published is None and careful is None:
        return rule_disagreement(pd.DataFrame(columns=by), pd.DataFrame(columns=by), by, ("c1", "careful"))
    empty = (careful if published is None else published).iloc[0:0]
    return rule_disagreement(empty if published is None else published, empty if careful is None else careful,
                             by, ("c1", "careful"))


def rule_gap_notes(gap: pd.DataFrame, by: list[str]) -> list[str]:
    """The notes a table needs when one rule has not judged some answers: which groups and how many."""
    notes = []
    for column, judge, metric in (("c1_missing", PUBLISHED, "ACC"), ("careful_missing", CAREFUL, "ACC careful")):
        lacking = gap[gap[column] > 0]
        if len(lacking):
            groups = "; ".join(f"{' / '.join(str(r[c]) for c in by)}: {r[column]}" for _, r in lacking.iterrows())
            notes.append(f"Answers with no {judge} verdict ({metric} is missing there, or over fewer answers): "
                         f"{groups}. Judge them with python -m judge.run … --judge {judge} (or rerun the "
                         "experiment).")
    return notes


def with_both_rules(long: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """`long` (one row per metric and `keys`) with a row of each rule metric wherever either has one: a run
    that one rule has not judged keeps its row, acc empty and judged 0, so no column or model goes missing."""
    rules = long[long["metric"].isin(RULE_METRICS)]
    if rules.empty:
        return long
    present, added = rules[keys].drop_duplicates(), []
    counts = [c for c in COUNTS if c in long]
    for metric in RULE_METRICS:
        have = long.loc[long["metric"] == metric, keys].drop_duplicates()
        lacking = present.merge(have, on=keys, how="left", indicator=True)
        lacking = lacking[lacking["_merge"] == "left_only"].drop(columns="_merge")
        if len(lacking):
            added.append(lacking.assign(metric=metric, **{c: 0 for c in counts}))
    if not added:
        return long
    return pd.concat([long, *added], ignore_index=True)


def rule_gap_of_runs(runs: list[Run]) -> pd.DataFrame:
    """`rule_gap` over whole runs (every current verdict of each ACC and ACC careful run given), per model and
    the run's setting."""
    unique = {r.path: r for r in runs}.values()
    frames = {m: [load_run(r) for r in unique if r.judge == METRICS[m]] for m in RULE_METRICS}
    return rule_gap({m: pd.concat(f, ignore_index=True) for m, f in frames.items() if f}, ["model", "setting"])


def beside_paper_rules(long: pd.DataFrame, table_id: str, keys: list[str], **kw) -> pd.DataFrame:
    """analysis.reference.beside_paper (the paper's ACC beside ours by its own rule, C.1), with the careful
    rule's value on the same answers in `ours_careful` of each ACC row (`ours_careful_hi` its upper end with
    undecided answers, shown as one range): a gap the careful rule closes or widens is the matcher's, not the
    model's."""
    out = beside_paper(long, table_id, keys, **kw)
    other = ["model", *(k for k in keys if k != "metric")]
    value = kw.get("value", "acc")
    ends = {value: "ours_careful", **({"acc_hi": "ours_careful_hi"} if value == "acc" and "acc_hi" in long else {})}
    ends = {k: v for k, v in renamed(ends).items() if k in long}  # each with its 95 % interval
    careful = long.loc[long["metric"] == "ACC careful", [*other, *ends]].drop_duplicates(other)
    out = out.merge(careful.rename(columns=ends), on=other, how="left")
    for column in ends.values():
        out[column] = out[column].where(out["metric"] == "ACC")
    return out
