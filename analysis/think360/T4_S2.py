"""Think360° Table 4 and Table S2: chain-of-thought ablation, ✗ (direct prompt) / ✓ (CoT prompt) / Δ = ✓ − ✗,
for Acc / Time / Token on ALL (Table 4) and on each cognitive capability (Table S2); T = 0.7, three repeats."""
from __future__ import annotations

import pandas as pd

from data.benchmarks import think360
from analysis.reference import beside_paper, paper_order
from analysis.stats import ACC_NOTE, BESIDE, counted_correct
from analysis.table import Context, Table
from analysis.think360 import common
from analysis.uncertainty import KIND, MEAN, UNITS, paired_difference, with_intervals

IDS = ["think360.T4", "think360.S2"]
SETTINGS = {"✗": "direct+temp0.7", "✓": "cot+temp0.7"}
MARKS = ["✗", "✓", "Δ"]
KEYS = ["model", "capability", "metric"]


def with_delta(long: pd.DataFrame, value: str = "score") -> pd.DataFrame:
    """Add the Δ rows: ✓ − ✗ per model, capability and metric (NaN where either side is missing).

    `long` has columns model, cot (✗/✓), capability, metric and `value`; the same function recomputes the
    paper's Δ rows from its own typed ✗/✓ values in the tests.
    """
    both = long[long["cot"].isin(["✗", "✓"])].set_index([*KEYS, "cot"])[value].unstack("cot")
    both = both.reindex(columns=["✗", "✓"])  # a side not run is NaN, and so is its Δ
    delta = (both["✓"] - both["✗"]).rename(value)
    delta = delta.reset_index().assign(cot="Δ")
    return pd.concat([long[long["cot"] != "Δ"], delta], ignore_index=True)


def delta_intervals(df: pd.DataFrame) -> pd.DataFrame:
    """Per model, capability (ALL and each skill) and metric: the 95 % interval of Δ = ✓ − ✗ on the items both
    prompts ran (analysis.uncertainty.paired_difference of the per-item values, each item's repeats averaged: its
    correctness for Acc, its answers' latency for Time and tokens for Token)."""
    cot = df["setting"].map({s: m for m, s in SETTINGS.items()})
    answered = df["status"] != "no_response"
    rows = df.assign(cot=cot, acc=counted_correct(df).astype(float),
                     time=df["latency_s"].where(answered), token=df["completion_tokens"].where(answered))
    skills = rows.get("skills", pd.Series([None] * len(rows), index=rows.index)).map(common.as_list)
    rows = pd.concat([rows.assign(capability="ALL"), rows.assign(capability=skills).explode("capability")
                      .dropna(subset=["capability"])], ignore_index=True)
    out = []
    for (model, capability), g in rows.groupby(["model", "capability"]):
        sides = {m: g[g["cot"] == m].groupby("id")[list(common.METRICS)].mean() for m in ("✓", "✗")}
        for key, name in common.METRICS.items():
            d = paired_difference(sides["✓"][key].astype(float), sides["✗"][key].astype(float),
                                  scale=100 if key == "acc" else 1, proportion=key == "acc")
            out.append({"model": model, "capability": capability, "metric": name, "cot": "Δ",
                        "score_ci_lo": d["diff_ci_lo"], "score_ci_hi": d["diff_ci_hi"], UNITS: d["items"]})
    return pd.DataFrame(out, columns=["model", "capability", "metric", "cot", "score_ci_lo", "score_ci_hi", UNITS])


def with_delta_intervals(long: pd.DataFrame, df: pd.DataFrame) -> pd.DataFrame:
    """`long` (with its Δ rows, `with_delta`) with the Δ rows' intervals (`delta_intervals`), their kind a mean."""
    keys = ["model", "capability", "metric", "cot"]
    deltas = delta_intervals(df).set_index(keys)
    out = long.set_index(keys)
    at = out.index.isin(deltas.index)
    for column in ("score_ci_lo", "score_ci_hi", UNITS):
        out.loc[at, column] = deltas[column].reindex(out.index[at]).to_numpy()
    out.loc[out.index.get_level_values("cot") == "Δ", KIND] = MEAN
    return out.reset_index()


def build(table_id: str, ctx: Context) -> Table:
    df, provenance = common.verdicts(ctx, list(SETTINGS.values()), table_id)
    summary = common.capability_table(df)
    summary["cot"] = summary["setting"].map({s: m for m, s in SETTINGS.items()})
    if table_id == "think360.T4":
        summary = summary[summary["capability"] == "ALL"]
    judge_of = summary.drop_duplicates("model").set_index("model")["judge"]
    long = with_delta_intervals(with_delta(common.to_long(summary, ["cot", "capability"])), df)
    long["judge"] = long["model"].map(judge_of)

    index = ["model", "judge", "cot"]
    table = long.pivot(index=index, columns=["capability", "metric"], values="score")
    caps = [c for c in ["ALL", *think360.SKILLS] if c in table.columns.get_level_values(0)]
    table = table[[(c, m) for c in caps for m in common.METRICS.values() if (c, m) in table.columns]]
    table.columns = [f"{c} {m}" for c, m in table.columns]
    table = with_intervals(table.reset_index(), long, index, ["capability", "metric"], lambda c, m: f"{c} {m}", "score")
    order = {m: i for i, m in enumerate(paper_order(table_id, list(table["model"].unique())))}
    table = table.sort_values(["model", "cot"], key=lambda s: s.map(order) if s.name == "model" else s.map(MARKS.index),
                              ignore_index=True)

    all_rows = summary[summary["capability"] == "ALL"]
    failures = all_rows[["model", "judge", "cot", "acc", *BESIDE]] \
        .sort_values(["model", "cot"], key=lambda s: s.map(MARKS.index) if s.name == "cot" else s)
    missing = [f"{m} ({'/'.join(sorted(set(SETTINGS.values()) - set(g['setting'])))})"
               for m, g in summary.groupby("model") if g["setting"].nunique() < len(SETTINGS)]
    notes = [common.runs_note(df), ACC_NOTE,
             "✗ = direct prompt (direct+temp0.7), ✓ = CoT prompt (cot+temp0.7); Δ = ✓ − ✗, computed from "
             "unrounded values. Acc over every item × repeat; Time = mean latency_s, Token = mean completion "
             "tokens over the requests that got a response (a judge error does not undo the answer).",
             "Intervals (95 %): Acc's the bootstrap over items of each item's repeats averaged, Time's and Token's the "
             "bootstrap over items of the answers' values; Δ's the bootstrap over the items both prompts ran of the "
             "per-item difference (paired: each item's repeats averaged first; for Acc, where no item differs, "
             "combined from the two Wilson intervals). The paper prints no test and none is added: the interval "
             "says whether Δ is told from 0."]
    if missing:
        notes.append("Without one of the two runs (Δ is empty): " + ", ".join(missing))
    caption = ("Think360° Table 4 — influence of Chain-of-Thought prompting on model performance (ALL): "
               if table_id == "think360.T4" else
               "Think360° Table S2 — fine-grained influence of Chain-of-Thought prompting per cognitive capability: ")
    return Table(
        caption + "Acc./%, Time/s, Token without (✗) and with (✓) the CoT prompt and their difference (Δ); "
        "T = 0.7, three repeats. Failures count as not correct in Acc; they and the accuracy over scored "
        "verdicts are below.",
        table,
        vs_paper=beside_paper(long, table_id, ["cot", "capability", "metric"], value="score"),
        extra={"Failures (ALL)": failures.reset_index(drop=True)},
        notes=notes,
        provenance=provenance,
    )
