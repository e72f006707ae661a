"""Think360° Table 3: Acc / Time(s) / Token for ALL and the five cognitive capabilities; direct prompt,
T = 0.7, three repeats, mean."""
from __future__ import annotations

import pandas as pd

from data.benchmarks import think360
from analysis.reference import beside_paper, paper_order
from analysis.stats import ACC_NOTE, BESIDE, repeat_mean_std
from analysis.table import Context, Table
from analysis.table_experiments import models_of
from analysis.think360 import common
from analysis.uncertainty import with_intervals

IDS = ["think360.T3"]
EXPERIMENT = "think360_T3"
SETTING = "direct+temp0.7"


def wide(summary: pd.DataFrame, index: list[str], table_id: str) -> pd.DataFrame:
    """Columns "<capability> <metric>" in the paper's order; rows in the paper's model order."""
    long = common.to_long(summary, [c for c in index if c != "model"] + ["capability"])
    out = long.pivot(index=index, columns=["capability", "metric"], values="score")  # one value per cell
    caps = [c for c in ["ALL", *think360.SKILLS] if c in out.columns.get_level_values(0)]
    out = out[[(c, m) for c in caps for m in common.METRICS.values() if (c, m) in out.columns]]
    out.columns = [f"{c} {m}" for c, m in out.columns]
    out = with_intervals(out.reset_index(), long, index, ["capability", "metric"], lambda c, m: f"{c} {m}", "score")
    rank = {m: i for i, m in enumerate(paper_order(table_id, list(out["model"].unique())))}
    return out.sort_values("model", key=lambda s: s.map(rank), kind="stable", ignore_index=True)


def build(table_id: str, ctx: Context) -> Table:
    df, provenance = common.verdicts(ctx, [SETTING], table_id)
    df = df[df["model"].isin(models_of(EXPERIMENT))]  # Table 5 runs other models with the same setting
    summary = common.capability_table(df)
    table = wide(summary, ["model", "judge"], table_id)
    failures = summary[summary["capability"] == "ALL"][["model", "judge", "acc", *BESIDE, "repeats", "missing"]]
    names = {"mean": "acc_mean", "std": "acc_std_over_repeats", "mean_scored": "acc_scored_mean",
             "std_scored": "acc_scored_std_over_repeats"}
    names.update({f"{m}_{end}": f"{names[m]}_{end}" for m in ("mean", "mean_scored") for end in ("ci_lo", "ci_hi")})
    repeats = repeat_mean_std(df, ["model"]).rename(columns=names)
    notes = [common.runs_note(df), ACC_NOTE,
             "Acc = the mean of the repeats' accuracies, each over all items (§4.1: three repeats, mean); an item "
             "a repeat lacks counts as not correct there (`missing`). Time = mean "
             "latency_s (the successful attempt, request sent to last byte: no retries or back-off), Token = mean "
             "completion tokens, over the requests that got a response (a judge error does not undo the model's "
             "answer, so its time and tokens count).",
             "Capabilities are non-exclusive: an item counts in each of its skills; ALL counts it once.",
             "Rows follow the paper's order (closed-source, then open-source); models not in the paper last.",
             "Intervals (95 %): Acc's is the bootstrap over items of each item's correct answers over its three "
             "repeats (the repeats averaged per item first, so an item's repeats are resampled together, not "
             "counted as independent answers); Time's and Token's the bootstrap over items of the answers' values. "
             "Beside the paper, its Acc is taken as a proportion of its n items (Wilson), its Time and Token as "
             "means whose spread per item is ours."]
    notes += [n for n in [common.incomplete_repeats(summary)] if n]
    return Table(
        "Think360° Table 3 — reasoning performance (Acc./%, Time/s, Token) on ALL and the five cognitive "
        "capabilities; direct prompt (Image+Question), T = 0.7, mean of three repeats. Failures count as not "
        "correct in Acc; they and the accuracy over scored verdicts are below.",
        table,
        vs_paper=beside_paper(common.to_long(summary, ["capability"]).assign(setting=SETTING), table_id,
                              ["setting", "capability", "metric"], value="score"),
        extra={"Failures (ALL)": failures.reset_index(drop=True), "Repeats (ALL accuracy per repeat)": repeats},
        notes=notes,
        provenance=provenance,
    )
