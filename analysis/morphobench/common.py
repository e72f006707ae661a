"""What the MorphoBench tables share: the paper's split names, the verdicts of an experiment's models (its
answer judge chosen per model by table.Context.judged; its reviewer judges' scores), the changes to the v0
baseline, and the cells as the paper prints them ("60.33 (+0.47)")."""
from __future__ import annotations

import numpy as np
import pandas as pd

from analysis.provenance import JudgeChoice, Provenance
from analysis.reference import paper_order
from analysis.stats import SCORE_BESIDE, score_table
from analysis.table import Context, MissingInputs
from analysis.table_experiments import demo_model, experiment, how_to_run
from analysis.uncertainty import UNITS, ci_columns, renamed, with_difference_ci, with_interval_columns

BENCH = "morphobench"
SETTING = "with_hints"   # hints are shown where a split has them (R-Lite, R-Complex); v0 items have none
# Release folder names -> the paper's column names (Table 2 order).
SPLITS = {"Morpho_R_Lite": "R(Lite)", "Morpho_R_v0": "R(v0)", "Morpho_R_Complex": "R(Complex)",
          "Morpho_P_v0": "P(v0)", "Morpho_P_Perturbed": "P(Perturbed)"}
# Each adapted split's baseline: "parentheses denote absolute changes relative to the corresponding v0".
V0 = {"R(Lite)": "R(v0)", "R(Complex)": "R(v0)", "P(Perturbed)": "P(v0)"}
# Δ column of a wide table (Tables 2 and 7) -> (split, its baseline).
DELTAS = {f"Δ {split}": (split, base) for split, base in V0.items()}
HINT_SPLITS = ["R(Lite)", "R(Complex)"]          # Table 4: the hint-enabled splits; Δ is Complex − Lite
REASONING, HINT = "morphobench_reasoning", "morphobench_hint"   # the reviewer judges (§4.2, Appendix B.4–B.5)
REASONING_FIELDS = {"completeness": "Completeness", "coherence": "Coherence"}
MISSING_SPLIT = ("the data file named in the morphobench verdict manifests is missing or has no `split` field; "
                 "convert the release again (python -m data.convert morphobench)")


def models_of(name: str) -> set[str]:
    """The models whose runs the tables of experiment `name` read: the paper's, ours, and the demo model where
    the demo runs the experiment. Experiments share the with_hints runs, so each table keeps its own models."""
    exp = experiment(name)
    return set(exp.all_models) | ({demo_model()} if exp.demo.get("settings", exp.settings) else set())


def verdicts(ctx: Context, table_id: str, name: str, setting: str = SETTING) -> tuple[pd.DataFrame, Provenance]:
    """The answer verdicts of experiment `name`'s models (setting with_hints, or that of another item set),
    each model under one judge (table.Context.judged: the paper's morphobench_correctness, else the rule
    judge), with the items' splits; missing, they are named by `table_id`'s experiments (how_to_run)."""
    df, provenance = ctx.judged(BENCH, [setting], how_to_run(table_id))
    if "split" not in df:
        raise MissingInputs(MISSING_SPLIT)
    mine = models_of(name)
    df = df[df["model"].isin(mine)]
    if df.empty:
        raise MissingInputs(f"no judged {BENCH} {SETTING} runs of {', '.join(sorted(mine))}; {how_to_run(table_id)}")
    j = provenance.judges
    judges = JudgeChoice(j.llm, *({m: v for m, v in d.items() if m in mine}
                                  for d in (j.used, j.llm_scored, j.not_judged)))
    return df, Provenance([r for r in provenance.runs if r.model in mine], judges=judges)


def reviews(ctx: Context, table_id: str, judge: str, name: str) -> tuple[pd.DataFrame, Provenance]:
    """The with_hints verdicts of a reviewer judge for experiment `name`'s models, `split` in the paper's names
    (items of other splits left out); missing, they are named by `table_id`'s experiments (how_to_run)."""
    try:
        df = ctx.verdicts(BENCH, [SETTING], judge)
    except MissingInputs as e:
        raise MissingInputs(f"{e}; {how_to_run(table_id)}") from e
    if "split" not in df:
        raise MissingInputs(MISSING_SPLIT)
    mine = models_of(name)
    df = df[df["model"].isin(mine) & df["split"].isin(SPLITS)].assign(split=lambda d: d["split"].map(SPLITS))
    if df.empty:
        raise MissingInputs(f"no {judge} verdicts of {', '.join(sorted(mine))} on the MorphoBench splits; "
                            f"{how_to_run(table_id)}")
    return df, Provenance([r for r in ctx.runs(BENCH, [SETTING], judge) if r.model in mine])


def delta(t: pd.DataFrame, column: str, baseline: dict[str, str]) -> pd.Series:
    """Per (model, split) row: its value minus the same model's value on the split's baseline (points);
    NaN for a split without a baseline, or when either mean is missing."""
    value = t.set_index(["model", "split"])[column]
    base = [value.get((m, baseline[s]), np.nan) if s in baseline else np.nan for m, s in zip(t["model"], t["split"])]
    return t[column] - np.asarray(base, dtype=float)


def with_delta(t: pd.DataFrame, column: str, baseline: dict[str, str]) -> pd.DataFrame:
    """`t` with "Δ <column>" (`delta`) and its 95 % interval: MOVER of the row's interval and its baseline's
    (DELTA_NOTE)."""
    keyed = t.set_index(["model", "split"])
    names = [c for c in with_interval_columns([column]) if c in t]
    out = t.copy()
    for c in names:  # the same model's value on the split's baseline, beside each row
        out[f"_base {c}"] = np.asarray([keyed[c].get((m, baseline[s]), np.nan) if s in baseline else np.nan
                                        for m, s in zip(t["model"], t["split"])], dtype=float)
    lo, hi = ci_columns(column)
    out = with_difference_ci(out, column, f"_base {column}", f"Δ {column}", (lo, hi), (f"_base {lo}", f"_base {hi}"))
    return out.drop(columns=[f"_base {c}" for c in names])


def with_deltas(wide: pd.DataFrame) -> pd.DataFrame:
    """Add the Δ columns (split − its family's v0, points) to a frame with the five split columns, each with its 95 %
    interval from the two splits' intervals when the frame has them (MOVER: the adapted split's items are other
    questions than v0's, so the two accuracies are taken as independent)."""
    out = wide.copy()
    for col, (split, base) in DELTAS.items():
        out = with_difference_ci(out, split, base, col)
    return out


DELTA_NOTE = ("Δ's 95 % interval is combined from the two splits' intervals (MOVER), the adapted split's items taken "
              "as independent of v0's (they are other questions); no test is made.")


def ordered(t: pd.DataFrame, table_id: str, splits: list[str]) -> pd.DataFrame:
    """Rows in the paper's model order (others after, by name), then in the paper's split order."""
    rank = {m: i for i, m in enumerate(paper_order(table_id, set(t["model"])))}
    return t.sort_values(["model", "split"], key=lambda s: s.map(rank if s.name == "model" else splits.index),
                         ignore_index=True)


def _scores(df: pd.DataFrame, fields: list[str]) -> pd.DataFrame:
    """score_table per model and split, of scores already in [0, 100]; every column even when nothing was read."""
    columns = ["model", "split", *with_interval_columns(fields), *(f"{f}_n" for f in fields), *SCORE_BESIDE]
    return score_table(df, ["model", "split"], fields, scale=1).reindex(columns=columns)


def reasoning_quality(df: pd.DataFrame) -> pd.DataFrame:
    """Completeness and Logical Coherence per model and split: means over the answers scored (Eq. 23–24), the
    change to the v0 baseline, each with its 95 % interval, and beside them how many were scored, the failures and
    the judge's cost."""
    t = _scores(df, list(REASONING_FIELDS)).rename(columns=renamed(REASONING_FIELDS))
    for metric in REASONING_FIELDS.values():
        t = with_delta(t, metric, V0)
    return t[["model", "split", *with_interval_columns(["Completeness", "Δ Completeness", "Coherence", "Δ Coherence"]),
              *(f"{f}_n" for f in REASONING_FIELDS), *SCORE_BESIDE]]


def hint_alignment(df: pd.DataFrame) -> pd.DataFrame:
    """HAlign per model on R(Lite) and R(Complex): the mean over the hint-bearing answers scored (Eq. 30), the
    change from Lite to Complex, and beside it the items without hints (NA: scored, but no HAlign), the
    failures and the judge's cost."""
    t = _scores(df[df["split"].isin(HINT_SPLITS)], ["halign"])
    t = t.rename(columns=renamed({"halign": "HAlign"}))
    t = with_delta(t, "HAlign", {"R(Complex)": "R(Lite)"})
    t["NA (no hints)"] = t["scored"] - t["halign_n"]   # scored by the judge as NA: an item without hints
    return t[["model", "split", *with_interval_columns(["HAlign", "Δ HAlign"]), "halign_n", "NA (no hints)",
              *SCORE_BESIDE]]


def na_elsewhere(df: pd.DataFrame) -> str:
    """The note on the hint verdicts of the splits without hints: NA by Eq. 31, no judge call, in no mean."""
    other = df[~df["split"].isin(HINT_SPLITS)]
    na = sum(1 for st, s in zip(other["status"], other["score"]) if st == "ok" and isinstance(s, dict)
             and s.get("halign") is None)
    return (f"Splits without hints ({', '.join(s for s in SPLITS.values() if s not in HINT_SPLITS)}): "
            f"{na} of their {len(other)} hint verdicts are NA: no judge call, in no mean.")


SCORE_NOTE = ("Intervals (95 %): each mean's the bootstrap over items of the scores (where every answer scored the "
              "same, a point: the bootstrap cannot tell how far off that is); Δ's combined from the two splits' "
              "intervals (MOVER), the splits' items taken as independent; no test is made. Beside the paper, its "
              "means are taken as means whose spread per item is ours, scaled to the split's size.")
REASONING_NOTES = [
    "Judge morphobench_reasoning (§4.2, Eq. 19–23): the reasoning trace (the model's separate reasoning, else its "
    "response) is broken into steps, every adjacent pair of steps is checked, and the summary judge scores the "
    "evidence: Completeness and Logical Coherence, each in [0, 100].",
    "Means are over the answers scored (`scored`; completeness_n and coherence_n are the scores each mean covers). "
    "A failed request or an empty trace (no_response) or a review that could not be read at any stage "
    "(judge_error) has no score: it is left out of the means and counted beside them — Eq. 24 divides by N, "
    "which assumes every answer was scored. judge_calls and judge_tokens are what the reviews asked of the "
    "judge model.",
    SCORE_NOTE,
]
HINT_NOTES = [
    "Judge morphobench_hint (§4.2, Eq. 25–30): the same step breakdown, every step checked against the numbered "
    "hints and the earlier steps (aligned / deviated / neutral, whether a deviation is justified), and the "
    "summary judge scores the evidence: HAlign in [0, 100].",
    "HAlign is defined only for an item with hints (Eq. 31): an item without them is NA (`NA (no hints)`, "
    "scored but without HAlign), costs no call and is left out of the mean, which is over D^hint (Eq. 30); "
    "halign_n is how many scores each mean covers. A failed request or an empty trace (no_response) or a review "
    "that could not be read (judge_error) has no score: left out of the mean and counted beside it. judge_calls "
    "and judge_tokens count every request of the reviews, the step breakdown included, which both reviewers "
    "send alike: the judge model answers it once and the judge's log the second time.",
    SCORE_NOTE,
]


def long(t: pd.DataFrame, metrics: list[str]) -> pd.DataFrame:
    """(model, split, metric, score, its interval, its n of items) rows of the given columns, for beside_paper."""
    out = t.melt(id_vars=["model", "split"], value_vars=metrics, var_name="metric", value_name="score")
    by_row = t.set_index(["model", "split"])
    for end, name in enumerate(("score_ci_lo", "score_ci_hi")):
        out[name] = [by_row[ci_columns(m)[end]].get(key, np.nan) if ci_columns(m)[end] in by_row else np.nan
                     for key, m in zip(zip(out["model"], out["split"]), out["metric"])]
    counts = [c for c in by_row.columns if c.endswith("_n")]
    out[UNITS] = [by_row[counts[0]].get(key, np.nan) if counts else np.nan for key in zip(out["model"], out["split"])]
    return out.dropna(subset=["score"])


def cell(value: float, change: float = np.nan) -> str:
    """A number as the paper prints it: "60.33", "60.33 (+0.47)"; "—" for no value."""
    if pd.isna(value):
        return "—"
    return f"{value:.2f}" + (f" ({change:+.2f})" if pd.notna(change) else "")


def as_printed(t: pd.DataFrame, metrics: list[str], splits: list[str]) -> pd.DataFrame:
    """The paper's layout: a row per model, a column per split, each cell "value (Δ)" of every metric, " / "
    between them."""
    cells = t.assign(cell=[" / ".join(cell(r[m], r.get(f"Δ {m}", np.nan)) for m in metrics) for _, r in t.iterrows()])
    wide = cells.pivot(index="model", columns="split", values="cell").reindex(
        index=list(dict.fromkeys(t["model"])), columns=[s for s in splits if s in set(t["split"])])
    return wide.fillna("—").rename_axis(columns=None).reset_index()
