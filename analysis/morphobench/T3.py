"""MorphoBench Table 3: reasoning quality on every split — Completeness and Logical Coherence (both in
[0, 100], the reviewer judge morphobench_reasoning, Appendix B.4), with the absolute changes (points) of each
adapted split to its v0 baseline: R(Lite) and R(Complex) against R(v0), P(Perturbed) against P(v0)."""
from __future__ import annotations

from analysis.morphobench import common
from analysis.reference import beside_paper
from analysis.table import Context, Table

IDS = ["morphobench.T3"]
EXPERIMENT = "morphobench_T3-T4"
METRICS = list(common.REASONING_FIELDS.values())
SPLITS = list(common.SPLITS.values())


def build(table_id: str, ctx: Context) -> Table:
    df, provenance = common.reviews(ctx, table_id, common.REASONING, EXPERIMENT)
    t = common.ordered(common.reasoning_quality(df), table_id, SPLITS)
    return Table(
        "MorphoBench Table 3 — reasoning quality on MorphoBench: Completeness and Logical Coherence (both in "
        "[0, 100], the mean over the answers the reviewer scored) per split; Δ: absolute change (points) to the "
        "corresponding v0 baseline (R(v0) for R(Lite) and R(Complex), P(v0) for P(Perturbed)).",
        t, vs_paper=beside_paper(common.long(t, [*METRICS, *(f"Δ {m}" for m in METRICS)]), table_id,
                                 ["split", "metric"], value="score"),
        extra={"As Table 3 prints it (Completeness / Coherence)": common.as_printed(t, METRICS, SPLITS)},
        notes=common.REASONING_NOTES + [
            f"Setting {common.SETTING}: R(Lite) and R(Complex) items carry their hints; the other splits have none."],
        provenance=provenance,
    )
