"""MorphoBench Table 4: hint following on the hint-enabled splits — Hint Alignment (HAlign in [0, 100], the
reviewer judge morphobench_hint, Appendix B.5) on R(Lite) and R(Complex), and the absolute difference of
R(Complex) to R(Lite)."""
from __future__ import annotations

from analysis.morphobench import common
from analysis.reference import beside_paper
from analysis.table import Context, Table

IDS = ["morphobench.T4"]
EXPERIMENT = "morphobench_T3-T4"


def build(table_id: str, ctx: Context) -> Table:
    df, provenance = common.reviews(ctx, table_id, common.HINT, EXPERIMENT)
    t = common.ordered(common.hint_alignment(df), table_id, common.HINT_SPLITS)
    return Table(
        "MorphoBench Table 4 — hint following on the hint-enabled splits: Hint Alignment (HAlign, [0, 100], the "
        "mean over the hint-bearing answers the reviewer scored) on R(Lite) and R(Complex); Δ HAlign: the "
        "absolute difference of R(Complex) to R(Lite).",
        t, vs_paper=beside_paper(common.long(t, ["HAlign", "Δ HAlign"]), table_id, ["split", "metric"], value="score"),
        extra={"As Table 4 prints it": common.as_printed(t, ["HAlign"], common.HINT_SPLITS)},
        notes=[*common.HINT_NOTES, common.na_elsewhere(df)],
        provenance=provenance,
    )
