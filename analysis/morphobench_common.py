"""What the MorphoBench tables share: the paper's split names, the verdicts of an experiment's models (its
answer judge chosen per model by table.Context.judged), and the changes to the v0 baseline."""
from __future__ import annotations

import pandas as pd

from analysis.experiments import demo_model, experiment
from analysis.provenance import JudgeChoice, Provenance
from analysis.table import Context, MissingInputs

BENCH = "morphobench"
SETTING = "with_hints"   # hints are shown where a split has them (R-Lite, R-Complex); v0 items have none
# Release folder names -> the paper's column names (Table 2 order).
SPLITS = {"Morpho_R_Lite": "R(Lite)", "Morpho_R_v0": "R(v0)", "Morpho_R_Complex": "R(Complex)",
          "Morpho_P_v0": "P(v0)", "Morpho_P_Perturbed": "P(Perturbed)"}
# Each adapted split's baseline: "parentheses denote absolute changes relative to the corresponding v0".
V0 = {"R(Lite)": "R(v0)", "R(Complex)": "R(v0)", "P(Perturbed)": "P(v0)"}
# Δ column of a wide table (Tables 2 and 7) -> (split, its baseline).
DELTAS = {f"Δ {split}": (split, base) for split, base in V0.items()}
MISSING_SPLIT = ("the data file named in the morphobench verdict manifests is missing or has no `split` field; "
                 "convert the release again (python -m data.convert morphobench)")


def models_of(name: str) -> set[str]:
    """The models whose runs the tables of experiment `name` read: the paper's, ours, and the demo model where
    the demo runs the experiment. Experiments share the with_hints runs, so each table keeps its own models."""
    exp = experiment(name)
    return set(exp.all_models) | ({demo_model()} if exp.demo.get("settings", exp.settings) else set())


def how(name: str) -> str:
    exp = experiment(name)
    if exp.demo.get("settings", exp.settings):
        return f"run python -m pipeline.experiments --only {exp.id} (demo: bash run_all.sh)"
    return f"run python -m pipeline.experiments --profile paper --only {exp.id} (the demo does not run it)"


def verdicts(ctx: Context, name: str) -> tuple[pd.DataFrame, Provenance]:
    """The with_hints answer verdicts of experiment `name`'s models, each model under one judge
    (table.Context.judged: the paper's morphobench_correctness, else the rule judge), with the items' splits."""
    df, provenance = ctx.judged(BENCH, [SETTING], how(name))
    if "split" not in df:
        raise MissingInputs(MISSING_SPLIT)
    mine = models_of(name)
    df = df[df["model"].isin(mine)]
    if df.empty:
        raise MissingInputs(f"no judged {BENCH} {SETTING} runs of {', '.join(sorted(mine))}; {how(name)}")
    j = provenance.judges
    judges = JudgeChoice(j.llm, *({m: v for m, v in d.items() if m in mine}
                                  for d in (j.used, j.llm_scored, j.not_judged)))
    return df, Provenance([r for r in provenance.runs if r.model in mine], judges=judges)


def with_deltas(wide: pd.DataFrame) -> pd.DataFrame:
    """Add the Δ columns (split − its family's v0, points) to a frame with the five split columns."""
    out = wide.copy()
    for col, (split, base) in DELTAS.items():
        out[col] = out[split] - out[base]
    return out
