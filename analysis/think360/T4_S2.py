"""Think360° Table 4 and Table S2: chain-of-thought ablation, ✗ (direct prompt) / ✓ (CoT prompt) / Δ = ✓ − ✗,
for Acc / Time / Token on ALL (Table 4) and on each cognitive capability (Table S2); T = 0.7, three repeats."""
from __future__ import annotations

import pandas as pd

from data.benchmarks import think360
from analysis.reference import beside_paper, paper_order
from analysis.stats import ACC_NOTE, BESIDE
from analysis.table import Context, Table
from analysis.think360 import common

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


def build(table_id: str, ctx: Context) -> Table:
    df, provenance = common.verdicts(ctx, list(SETTINGS.values()), table_id)
    summary = common.capability_table(df)
    summary["cot"] = summary["setting"].map({s: m for m, s in SETTINGS.items()})
    if table_id == "think360.T4":
        summary = summary[summary["capability"] == "ALL"]
    judge_of = summary.drop_duplicates("model").set_index("model")["judge"]
    long = with_delta(common.to_long(summary, ["cot", "capability"]))
    long["judge"] = long["model"].map(judge_of)

    table = long.pivot(index=["model", "judge", "cot"], columns=["capability", "metric"], values="score")
    caps = [c for c in ["ALL", *think360.SKILLS] if c in table.columns.get_level_values(0)]
    table = table[[(c, m) for c in caps for m in common.METRICS.values() if (c, m) in table.columns]]
    table.columns = [f"{c} {m}" for c, m in table.columns]
    table = table.reset_index()
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
             "tokens over the requests that got a response (a judge error does not undo the answer)."]
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
