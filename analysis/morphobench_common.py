"""What the MorphoBench tables share: the judge each model is read with, the paper's split names, and
the unified data file for data-only figures."""
from __future__ import annotations

from pathlib import Path

import pandas as pd
import yaml

from analysis.inputs import Run
from analysis.table import ROOT, Context, MissingInputs

SETTING = "with_hints"   # hints are shown where a split has them (R-Lite, R-Complex); v0 items have none
JUDGES = ("morphobench_correctness", "rules")   # preferred first
# Release folder names -> the paper's column names (Table 2 order).
SPLITS = {"Morpho_R_Lite": "R(Lite)", "Morpho_R_v0": "R(v0)", "Morpho_R_Complex": "R(Complex)",
          "Morpho_P_v0": "P(v0)", "Morpho_P_Perturbed": "P(Perturbed)"}
EXPERIMENT = ROOT / "configs" / "experiments" / "morphobench_main.yaml"
HOW = "run python -m pipeline.experiments --only morphobench.T1-T2 (demo: bash run_all.sh)"


def verdicts(ctx: Context) -> tuple[pd.DataFrame, list[Run]]:
    """Every model's with_hints verdicts, each model read with morphobench_correctness when that judge
    scored some of its items, else with the rule judge (an LLM judge run of nothing but judge errors
    is no verdict)."""
    frames: dict[str, pd.DataFrame] = {}
    for judge in JUDGES:
        try:
            frames[judge] = ctx.verdicts("morphobench", [SETTING], judge)
        except MissingInputs:
            pass
    if not frames:
        raise MissingInputs(f"no judged morphobench {SETTING} runs (judge morphobench_correctness or rules) "
                            f"under {ctx.results}/judged/morphobench; {HOW}")
    chosen, sources = [], []
    for model in sorted(set().union(*(set(df["model"]) for df in frames.values()))):
        scored = {j: (df["model"].eq(model) & df["status"].eq("ok")).any() for j, df in frames.items()}
        judge = next((j for j in JUDGES if scored.get(j)), next(j for j in JUDGES if j in frames
                                                                 and frames[j]["model"].eq(model).any()))
        chosen.append(frames[judge][frames[judge]["model"] == model])
        sources += [r for r in ctx.runs("morphobench", [SETTING], judge) if r.model == model]
    df = pd.concat(chosen, ignore_index=True)
    if "split" not in df:
        raise MissingInputs("the data file named in the morphobench verdict manifests is missing or has no "
                            "`split` field; convert the release again (python -m data.convert morphobench)")
    return df, sources


def data_path() -> Path:
    """The paper profile's data file (the experiment's `data`, else data/morphobench/test.jsonl), or the
    demo set when that does not exist."""
    exp = yaml.safe_load(EXPERIMENT.read_text(encoding="utf-8")) if EXPERIMENT.exists() else {}
    paper = ROOT / (exp.get("data") or "data/morphobench/test.jsonl")
    return paper if paper.exists() else ROOT / "data" / "demo" / "build" / "morphobench.jsonl"
