"""MorphoBench Table 8 (Appendix C.1): reasoning quality and hint alignment of the additional models —
Completeness / Logical Coherence on MORPHO-R(v0), and HAlign from R(Lite) to R(Complex) with the difference;
Tables 3 and 4 for Qwen3-VL-32B and Claude-Opus-4.6."""
from __future__ import annotations

import pandas as pd

from analysis.morphobench import common
from analysis.provenance import Provenance
from analysis.reference import beside_paper
from analysis.table import Context, Table
from analysis.uncertainty import with_interval_columns

IDS = ["morphobench.T8"]
EXPERIMENT = "morphobench_T8"
METRICS = list(common.REASONING_FIELDS.values())


def build(table_id: str, ctx: Context) -> Table:
    reasoning, by_reasoning = common.reviews(ctx, table_id, common.REASONING, EXPERIMENT)
    hints, by_hint = common.reviews(ctx, table_id, common.HINT, EXPERIMENT)
    rq = common.reasoning_quality(reasoning[reasoning["split"] == "R(v0)"])
    ha = common.hint_alignment(hints)
    t = pd.concat([rq.drop(columns=with_interval_columns([f"Δ {m}" for m in METRICS])).assign(judge=common.REASONING),
                   ha.assign(judge=common.HINT)], ignore_index=True)
    t = common.ordered(t, table_id, list(common.SPLITS.values()))
    t = t[["model", "split", "judge", *[c for c in t.columns if c not in ("model", "split", "judge")]]]
    both = pd.concat([common.long(rq, METRICS), common.long(ha, ["HAlign", "Δ HAlign"])], ignore_index=True)
    return Table(
        "MorphoBench Table 8 — reasoning quality and hint alignment of the additional models: Completeness and "
        "Logical Coherence on MORPHO-R(v0), and Hint Alignment on R(Lite) and R(Complex) with the difference "
        "(Complex − Lite), each in [0, 100] and the mean over the answers its reviewer scored.",
        t, vs_paper=beside_paper(both, table_id, ["split", "metric"], value="score"),
        extra={"As Table 8 prints it": _printed(rq, ha)},
        notes=[*common.REASONING_NOTES, *common.HINT_NOTES, common.na_elsewhere(hints)],
        provenance=Provenance(by_reasoning.runs + by_hint.runs),
    )


def _printed(rq: pd.DataFrame, ha: pd.DataFrame) -> pd.DataFrame:
    """"Comp. / Coh." on R(v0) and "Lite → Complex (Δ)", a row per model."""
    v0 = rq.set_index("model")
    lite, complex_ = (ha[ha["split"] == s].set_index("model") for s in common.HINT_SPLITS)
    models = list(dict.fromkeys([*rq["model"], *ha["model"]]))
    return pd.DataFrame({
        "model": models,
        "Reasoning Quality (v0) (Comp. / Coh.)": [
            " / ".join(common.cell(v0[m].get(model)) for m in METRICS) for model in models],
        "Hint Alignment (Lite → Complex)": [
            f"{common.cell(lite['HAlign'].get(model))} → "
            f"{common.cell(complex_['HAlign'].get(model), complex_['Δ HAlign'].get(model))}" for model in models]})
