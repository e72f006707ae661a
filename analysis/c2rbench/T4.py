"""C²RBench Table 4: average reasoning time per task (request latency, seconds) over all, correct and wrong
answers, per level, on the Logical subset (the paper: DeepSeek-R1)."""
from __future__ import annotations

import numpy as np
import pandas as pd

from analysis.c2rbench import common as c2r
from analysis.reference import beside_paper, load_reference
from analysis.stats import ACC_NOTE, accuracy
from analysis.table import Context, MissingInputs, Table
from analysis.uncertainty import CI_HI, CI_LO, UNITS, bootstrap, ci_columns, wilson

IDS = ["c2rbench.T4"]
TIMES = ["All", "Correct", "Wrong"]
SUBSET = "Logical"


def times(df: pd.DataFrame) -> pd.DataFrame:
    """Per model, setting and level (and Overall): mean latency of the answers (All: every request that
    got a response, a judge error included, since it does not undo the answer) and of the correct and
    wrong scored ones; acc, acc_scored and the counts beside them. Without judge errors, All is exactly
    acc_scored·Correct + (1 − acc_scored)·Wrong."""
    rows = []
    for (model, setting, judge), g in df.groupby(["model", "setting", "judge"]):
        for lv in ["Overall", *c2r.LEVELS]:
            h = g if lv == "Overall" else g[g["level"] == lv]
            timed = h[(h["status"] != "no_response") & h["latency_s"].notna()]
            ok = timed[timed["status"] == "ok"]
            right = ok["correct"].astype(bool)
            acc = accuracy(h)
            (lo,), (hi,) = wilson(acc["acc"] * acc["judged"] / 100, acc["judged"])
            (s_lo,), (s_hi,) = wilson(acc["acc_scored"] * acc["scored"] / 100, acc["scored"])
            rows.append({"model": model, "setting": setting, "judge": judge, "level": c2r.level_name(lv),
                         **_mean("All", timed), **_mean("Correct", ok[right]), **_mean("Wrong", ok[~right]),
                         "timed": len(timed),
                         "no_latency": int(((h["status"] != "no_response") & h["latency_s"].isna()).sum()),
                         "acc": acc.pop("acc"), "acc_ci_lo": lo, "acc_ci_hi": hi, "acc_hi": acc.pop("acc_hi"),
                         "acc_scored": acc.pop("acc_scored"), "acc_scored_ci_lo": s_lo, "acc_scored_ci_hi": s_hi,
                         **acc})
    return pd.DataFrame(rows)


def _mean(name: str, rows: pd.DataFrame) -> dict[str, float]:
    """The mean latency of `rows` as `name`, with its 95 % interval: the bootstrap over tasks."""
    ci = bootstrap(rows, [], rows["id"], rows["latency_s"]) if len(rows) else None
    lo, hi = ci_columns(name)
    return {name: rows["latency_s"].mean(), lo: float(ci[CI_LO].iloc[0]) if ci is not None else np.nan,
            hi: float(ci[CI_HI].iloc[0]) if ci is not None else np.nan}


def implied_accuracy(all_s: float, correct_s: float, wrong_s: float) -> float:
    """The share of correct answers (%) that makes All the mix of Correct and Wrong: All = p·C + (1 − p)·W."""
    return 100 * (wrong_s - all_s) / (wrong_s - correct_s)


def paper_implied() -> pd.DataFrame:
    """The accuracy Table 4's own All / Correct / Wrong imply, per level (§4.4 reports 74.48% overall)."""
    ref = load_reference("c2rbench.T4")
    if ref is None:
        return pd.DataFrame()
    w = ref.pivot_table(index=["paper_model", "level"], columns="time", values="value").reset_index()
    w["implied_acc_%"] = [implied_accuracy(r.All, r.Correct, r.Wrong) for r in w.itertuples()]
    return w


def build(table_id: str, ctx: Context) -> Table:
    df, provenance, notes = c2r.judged(ctx, table_id, [c2r.MAIN, c2r.TEXT])
    logical = df[df["category"] == SUBSET]
    if logical.empty:
        raise MissingInputs(f"no {SUBSET}-subset task in the judged c2rbench runs ({c2r.MAIN}, {c2r.TEXT})")
    table = times(logical)
    long = table.melt(id_vars=["model", "setting", "level"], value_vars=["All", "Correct", "Wrong"],
                      var_name="time", value_name="seconds")
    for end, column in enumerate(ci_columns("seconds")):
        part = table.melt(id_vars=["model", "setting", "level"], value_vars=[ci_columns(t)[end] for t in TIMES],
                          var_name="time", value_name=column)
        long[column] = part[column].to_numpy()  # melted in the same order
    timed = table.set_index(["model", "setting", "level"])["timed"]
    long[UNITS] = [timed.get(key, np.nan) for key in zip(long["model"], long["setting"], long["level"])]
    return Table(
        "C²RBench Table 4 — average reasoning time per task (s) on the Logical subset: all, correct and wrong "
        "answers, per level and overall.",
        table,
        vs_paper=beside_paper(long, table_id, ["setting", "level", "time"], value="seconds"),
        extra={"Every subset": times(df), "Accuracy implied by the paper's Table 4": paper_implied()},
        notes=notes + [
            "Time is the answer's latency (latency_s: the successful attempt, from sending the request to the full "
            "reply; retries and waits between them are not counted), so it depends on the server's load and speed "
            "as well as on the model.",
            "All averages every request that got a response and has a latency (`timed`; a judge error does not "
            "undo the model's answer, so its time counts); Correct / Wrong split the scored ones. Without judge "
            "errors All = acc_scored·Correct + (1 − acc_scored)·Wrong; `no_latency` counts answers without one.",
            "Intervals (95 %): each mean time's the bootstrap over tasks, acc's Wilson's over the tasks. Beside the "
            "paper, its times are taken as means whose spread per task is ours (its n of tasks is not printed: "
            "ours stands in).",
            ACC_NOTE,
            "The paper's Table 4 is DeepSeek-R1 tested through its web interface (74.48% on Logical, §4.4), "
            "not the API run compared here; its All/Correct/Wrong imply ≈ 74.8% overall (extra table)."],
        provenance=provenance,
    )
