"""What the MorphoBench tables share: the verdicts each model is read with (the paper's
morphobench_correctness judge, else the rule judge: table.Context.judged) and the paper's split names."""
from __future__ import annotations

import pandas as pd

from analysis.provenance import Provenance
from analysis.table import Context, MissingInputs

BENCH = "morphobench"
SETTING = "with_hints"   # hints are shown where a split has them (R-Lite, R-Complex); v0 items have none
# Release folder names -> the paper's column names (Table 2 order).
SPLITS = {"Morpho_R_Lite": "R(Lite)", "Morpho_R_v0": "R(v0)", "Morpho_R_Complex": "R(Complex)",
          "Morpho_P_v0": "P(v0)", "Morpho_P_Perturbed": "P(Perturbed)"}
HOW = "run python -m pipeline.experiments --only morphobench.T1-T2 (demo: bash run_all.sh)"


def verdicts(ctx: Context) -> tuple[pd.DataFrame, Provenance]:
    """Every model's with_hints verdicts under one judge (table.Context.judged), with the items' splits."""
    df, provenance = ctx.judged(BENCH, [SETTING], HOW)
    if "split" not in df:
        raise MissingInputs("the data file named in the morphobench verdict manifests is missing or has no "
                            "`split` field; convert the release again (python -m data.convert morphobench)")
    return df, provenance
