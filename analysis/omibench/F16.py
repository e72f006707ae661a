"""OMIBench Figure 16 (Appendix C.3–C.4): rule judge (match accuracy) vs model judge (GPTScore) — the four
agreement quadrants per model, and a seeded sample of disagreements written out for human review. The rule is
the one C.4 analyses, the published rule of C.1 (judge omibench_c1), not the careful rule judge."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from analysis.inputs import latest
from analysis.omibench.metrics import METRICS
from analysis.omibench.runs import BENCH, SETTING, run_records
from analysis.plot import draw, save_figure, stacked_bars, subplots
from analysis.provenance import Provenance
from analysis.stats import ACC_NOTE, accuracy
from analysis.table import Context, MissingInputs, Table
from analysis.table_experiments import how_to_run
from analysis.uncertainty import wilson
from judge.agreement import compare, disagreements

IDS = ["omibench.F16"]
RULE, MODEL = METRICS["ACC"], METRICS["GPTScore"]   # omibench_c1 (C.1, as C.3–C.4 use it) and GPTScore
SAMPLE, SEED = 100, 0   # C.3: 100 disagreements per model, reviewed by two annotators
QUADRANTS = {"both_correct": "both correct", "both_incorrect": "both incorrect",
             "a_incorrect_b_correct": "model correct, rule incorrect", "a_correct_b_incorrect": "model incorrect, rule correct"}


def scored(df: pd.DataFrame) -> dict[tuple, dict]:
    """(id, sample_idx) → verdict of the scored lines (failures are not verdicts), as judge.agreement wants."""
    ok = df[df["status"] == "ok"]
    return {(i, int(s)): {"correct": bool(c), "extracted": e, "judge": j}
            for i, s, c, e, j in zip(ok["id"], ok["sample_idx"], ok["correct"], ok["extracted"], ok["judge"])}


def review_rows(model: str, sample: list[dict]) -> list[dict]:
    """Flat rows of judge.agreement.disagreements for the review sheet (category left for the annotator)."""
    return [{"model": model, "id": d["id"], "sample_idx": d["sample_idx"], "rule_correct": d["a"]["correct"],
             "model_correct": d["b"]["correct"], "rule_extracted": d["a"]["extracted"], "gold": d.get("gold"),
             "question": d.get("question"), "response": d.get("response"), "category": ""} for d in sample]


def figure(table: pd.DataFrame, path: Path) -> None:
    """Each model's four quadrants as shares of the items both judges scored, one stacked bar per model."""
    fig, ax = subplots(figsize=(7, 2.4 + 0.5 * len(table)))
    share = table[list(QUADRANTS.values())].div(table["items"].replace(0, np.nan), axis=0) * 100
    y = np.arange(len(table))
    stacked_bars(ax, y, {q: share[q] for q in QUADRANTS.values()}, horizontal=True,
                 missing="no item scored by both judges")
    ax.set_yticks(y, table["model"])
    ax.set_xlim(0, 100)
    ax.set_xlabel("share of items scored by both judges (%)")
    ax.set_ylabel("model")
    ax.set_title("OMIBench Fig. 16: C.1's rule vs model judge (GPTScore)")
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.35), ncol=2)  # below: bars fill the width
    save_figure(fig, path)


def build(table_id: str, ctx: Context) -> Table:
    try:
        rule, judged = ctx.verdicts(BENCH, [SETTING], RULE), ctx.verdicts(BENCH, [SETTING], MODEL)
    except MissingInputs as e:
        raise MissingInputs(f"F16 needs both judges on {SETTING}: {e}; {how_to_run(table_id)}") from None
    runs = {r.model: r for r in ctx.runs(BENCH, [SETTING], RULE)}
    rows, review = [], []
    for model in sorted(set(rule["model"]) & set(judged["model"])):
        ra, mb = rule[rule["model"] == model], judged[judged["model"] == model]
        a, b = scored(ra), scored(mb)
        c = compare(a, b)
        acc_a, acc_b = accuracy(ra), accuracy(mb)
        agreement = None if c["agreement"] is None else 100 * c["agreement"]   # %, as the accuracies beside it
        rows.append({"model": model, **{v: c[k] for k, v in QUADRANTS.items()}, "items": c["items"],
                     **_with_wilson("agreement", agreement, c["items"]), "cohen_kappa": c["cohen_kappa"],
                     **_with_wilson("rule_acc", acc_a["acc"], acc_a["judged"]),
                     **_with_wilson("model_acc", acc_b["acc"], acc_b["judged"]),
                     **_with_wilson("rule_acc_scored", acc_a["acc_scored"], acc_a["scored"]),
                     **_with_wilson("model_acc_scored", acc_b["acc_scored"], acc_b["scored"]),
                     "rule_failures": len(ra) - len(a), "model_judge_failures": len(mb) - len(b)})
        raw = latest(runs[model].raw)  # the responses, for the sample (the verdict frames hold their lengths only)
        review += review_rows(model, disagreements(a, b, SAMPLE, SEED, run_records(runs[model]), raw))
    if not rows:
        raise MissingInputs(f"no model has both a {RULE} and a {MODEL} verdict file of {SETTING}; "
                            f"{how_to_run(table_id)}")
    table = pd.DataFrame(rows)
    sheet = ctx.table_file(table_id, "disagreements.jsonl")
    sheet.parent.mkdir(parents=True, exist_ok=True)
    sheet.write_text("".join(json.dumps(r, ensure_ascii=False, default=str) + "\n" for r in review), encoding="utf-8")

    # the counts per model only: the verdicts and the review sample stay here
    path = draw(figure, table[["model", *QUADRANTS.values(), "items"]], path=ctx.figure(table_id))
    shown = pd.DataFrame(review).assign(response=lambda d: d["response"].astype(str).str.slice(0, 160)) if review \
        else pd.DataFrame(columns=["model", "id"])
    return Table("OMIBench Figure 16 — agreement of the rule judge (C.1's match accuracy, omibench_c1) and the model "
                 "judge (GPTScore) per model: counts of the four quadrants over the items both scored, agreement "
                 "(%) and Cohen's κ.",
                 table, extra={"Disagreement sample for review": shown}, figure=path,
                 provenance=Provenance(list(runs.values()) + ctx.runs(BENCH, [SETTING], MODEL)),
                 notes=[ACC_NOTE + " rule_acc and model_acc are each judge's accuracy over all its verdicts.",
                        f"Rule = {RULE}, the published rule of Appendix C.1 (C.3 counts \"match score > 0.75 as "
                        "correct\"; Eq. 6 and our judge take ≥ 0.75). agreement = % of the items both scored on "
                        "which the two judges agree; cohen_kappa is a coefficient (−1 to 1), not a share.",
                        "Intervals (95 %): Wilson's for the agreement (over `items`) and each accuracy (over its "
                        "verdicts); κ has none here (it summarises agreement beyond chance; the agreement's interval "
                        "says how sure it is).",
                        f"Review sheet: {sheet} — up to {SAMPLE} disagreements per model (seed {SEED}) with "
                        "question, gold and response; fill `category` with the paper's sources (No Effective "
                        "Reasoning, Reasoning Error, Rule Match Error, Others). The paper's annotation counts are "
                        "not printed.",
                        "The quadrants compare the items both judges scored: a failure (no response, unparsable "
                        "judge reply) has no verdict to agree with, so it is left out of them and counted. "
                        "When several judge models judged one file, each answer's latest verdict is used."])


def _with_wilson(name: str, value: float | None, n: int) -> dict[str, float | None]:
    """A percentage with its Wilson interval over n, as the row's `name`, `name_ci_lo`, `name_ci_hi`."""
    if value is None or not n:
        return {name: value, f"{name}_ci_lo": None, f"{name}_ci_hi": None}
    (lo,), (hi,) = wilson(value / 100 * n, n)
    return {name: value, f"{name}_ci_lo": float(lo), f"{name}_ci_hi": float(hi)}
