"""MorphoBench Tables 1, 2 and 7: answer correctness, Acc = (1/N) Σ Acc_i over all N items run (Eq. 18): a
failed request or judge error is not correct; the accuracy over scored items is given beside it.

T1: accuracy per discipline on MORPHO-R(v0), with the "Total (share)" row of question counts.
T2: accuracy on R(Lite), R(v0), R(Complex), P(v0), P(Perturbed); the parenthesised numbers are absolute
changes (points) to the v0 split of the same family: Lite and Complex against R(v0), Perturbed against
P(v0).
T7 (Appendix C.1): Table 2 for the additional models, Qwen3-VL-32B and Claude-Opus-4.6."""
from __future__ import annotations

import numpy as np
import pandas as pd

from analysis.morphobench.common import DELTA_NOTE, DELTAS, SETTING, SPLITS, verdicts, with_deltas
from analysis.provenance import Provenance
from analysis.reference import beside_paper
from analysis.stats import ACC_NOTE, accuracy_table
from analysis.table import Context, MissingInputs, Table
from analysis.uncertainty import KIND, MEAN, UNITS, ci_columns, with_intervals

IDS = ["morphobench.T1", "morphobench.T2", "morphobench.T7"]
DISCIPLINES = ["Engineering", "Mathematics", "Natural Sciences", "Social Sciences", "Other"]
# Each table's experiment (configs/experiments/), whose models it reads, and the caption's opening.
EXPERIMENT = {"morphobench.T1": "morphobench_main", "morphobench.T2": "morphobench_main",
              "morphobench.T7": "morphobench_T7"}
TITLE = {"morphobench.T2": "MorphoBench Table 2 — answer correctness (accuracy, %)",
         "morphobench.T7": "MorphoBench Table 7 (Appendix C.1) — answer correctness of the additional models "
                           "(accuracy, %)"}


def build_T1(table_id: str, df: pd.DataFrame, provenance: Provenance) -> Table:
    v0 = df[df["split"] == "Morpho_R_v0"]
    if v0.empty or "discipline" not in v0 or v0["discipline"].isna().all():
        raise MissingInputs("no judged Morpho_R_v0 items with a `discipline` in the morphobench runs "
                            "(the data must carry the split and discipline fields)")
    long = accuracy_table(v0, ["model", "judge", "discipline"])
    wide = long.pivot_table(index="model", columns="discipline", values="acc", aggfunc="first")
    wide = wide.reindex(columns=DISCIPLINES).rename_axis(columns=None).reset_index()
    wide = with_intervals(wide, long, ["model"], ["discipline"], str)
    items = v0.drop_duplicates("id")["discipline"].value_counts().reindex(DISCIPLINES, fill_value=0)
    total = pd.DataFrame({"discipline": DISCIPLINES, "questions": items.values,
                          "share (%)": 100 * items.values / max(items.sum(), 1)})
    return Table(
        "MorphoBench Table 1 — subject-level answer correctness on MORPHO-R(v0): accuracy (%) per discipline. "
        "Total (share): questions per discipline in the R(v0) items that were run, and their proportion.",
        wide, vs_paper=beside_paper(long, table_id, ["discipline"]),
        extra={"Total (share)": total, "Scored and failures": long.drop(columns=["acc", "acc_ci_lo", "acc_ci_hi"])},
        notes=[ACC_NOTE,
               f"Setting {SETTING}: v0 items carry no hints, so this is the plain question.",
               "The paper's Total row (439+560+250+86+212 = 1547 questions) does not add up to the N = 1307 "
               "of its caption; its shares are of 1547."],
        provenance=provenance)


def build_T2(table_id: str, df: pd.DataFrame, provenance: Provenance) -> Table:
    long = accuracy_table(df[df["split"].isin(SPLITS)], ["model", "judge", "split"])
    long["split"] = long["split"].map(SPLITS)
    wide = long.pivot_table(index="model", columns="split", values="acc", aggfunc="first")
    wide = wide.reindex(columns=list(SPLITS.values())).rename_axis(columns=None).reset_index()
    wide = with_deltas(with_intervals(wide, long, ["model"], ["split"], str))
    deltas = _delta_rows(wide, long)
    both = pd.concat([long, deltas.dropna(subset=["acc"])], ignore_index=True)
    wide = wide.sort_values("R(v0)", ascending=False, na_position="last").reset_index(drop=True)
    other = sorted(set(df["split"].dropna()) - set(SPLITS))
    return Table(
        f"{TITLE[table_id]} on the MORPHO-R and MORPHO-P splits; Δ columns "
        "are absolute changes (points) to the family's v0 split (R(v0) for Lite and Complex, P(v0) for "
        "Perturbed).",
        wide, vs_paper=beside_paper(both, table_id, ["split"]),
        extra={"Scored and failures": long.drop(columns=["acc", "acc_ci_lo", "acc_ci_hi"])},
        notes=[ACC_NOTE, DELTA_NOTE, f"Setting {SETTING}: R(Lite) and R(Complex) items carry their (helpful or "
               "misleading) hints; the other splits have none."]
        + ([f"Items of other splits left out: {', '.join(other)}."] if other else []),
        provenance=provenance)


ADAPTED = ("morphobench_adapted", "with_hints+items-adapted")  # our splits, made by python -m pipeline.morphobench_adapt


def build(table_id: str, ctx: Context) -> Table:
    df, provenance = verdicts(ctx, table_id, EXPERIMENT[table_id])
    if table_id == "morphobench.T1":
        return build_T1(table_id, df, provenance)
    table = build_T2(table_id, df, provenance)
    if table_id == "morphobench.T2":
        _add_adapted(table_id, table, ctx)
    return table


def _add_adapted(table_id: str, table: Table, ctx: Context) -> None:
    """Table 2 again on the splits we derived ourselves from the v0 items (pipeline.morphobench_adapt), beside the
    release's: how many adapted items there are is said, and a split without any is said so."""
    try:
        df, provenance = verdicts(ctx, table_id, *ADAPTED)
    except MissingInputs as e:
        table.notes.append(f"Our adapted splits: none judged ({e}).")
        return
    ours = build_T2(table_id, df, provenance)
    items = df.drop_duplicates("id")["split"].map(SPLITS).value_counts().reindex(list(SPLITS.values()), fill_value=0)
    table.extra["Our adapted splits (python -m pipeline.morphobench_adapt)"] = ours.table
    table.extra["Items per split of our adapted splits"] = items.rename_axis("split").reset_index(name="items")
    missing = [s for s, n in items.items() if n == 0]
    if missing:
        table.notes.append(f"Our adapted splits have no item in {', '.join(missing)}: the adaptation dropped them "
                           "(its report, adapt_<family>.md beside the adapted release, says why).")
    table.provenance.runs += ours.provenance.runs


def _delta_rows(wide: pd.DataFrame, long: pd.DataFrame) -> pd.DataFrame:
    """The Δ columns of `wide` as rows beside the paper's (split "Δ R(Lite)", …): acc with its interval, a
    difference (kind mean) over the smaller side's judged items."""
    rows = []
    judged = long.set_index(["model", "split"])["judged"]
    for column, (split, base) in DELTAS.items():
        lo, hi = ci_columns(column)
        part = wide[["model", column, *(c for c in (lo, hi) if c in wide)]].rename(
            columns={column: "acc", lo: "acc_ci_lo", hi: "acc_ci_hi"})
        n = [min(judged.get((m, split), np.nan), judged.get((m, base), np.nan)) for m in part["model"]]
        rows.append(part.assign(split=column, **{KIND: MEAN, UNITS: n}))
    return pd.concat(rows, ignore_index=True)
