"""What the C²RBench tables share: the data file's tasks, the subsets in the paper's order, the verdicts
each model is read with (the paper's GPT-4o judge `c2rbench_judge`, else the rule judge:
table.Context.judged), the raw responses' reasoning text, and the model's modalities. No table ids here."""
from __future__ import annotations

import pandas as pd

from analysis.inputs import DataFile, Run, latest, read_records
from analysis.provenance import Provenance
from analysis.table import ROOT, Context
from analysis.table_experiments import how_to_run

BENCH = "c2rbench"
LLM_JUDGE = "c2rbench_judge"      # the paper's GPT-4o evaluator prompt
MAIN = "zero_shot+temp0"            # configs/experiments/c2rbench_main.yaml
TEXT = "zero_shot+temp0+text"       # configs/experiments/c2rbench_F10.yaml
# §3.5's order of the eight subsets.
SUBSETS = ["Math", "Multimodal", "Logical", "General Knowledge", "Graph Analysis", "Reading", "Science",
           "File Processing"]
LEVELS = [1, 2, 3]
EXTERNAL = ROOT / "data" / "external" / "c2rbench"


def records(ctx: Context) -> tuple[pd.DataFrame, DataFile]:
    """id, category, level, num_steps of every task, and the data file they come from."""
    data = ctx.data_file(BENCH)
    rows = [{"id": r["id"], "category": r.get("category"), "level": r.get("level"), "num_steps": r.get("num_steps")}
            for r in read_records(data.path).values()]
    return pd.DataFrame(rows), data


def subset_order(values) -> list[str]:
    """The paper's eight subsets first, then any other label the data has."""
    return [s for s in SUBSETS if s in set(values)] + sorted(set(values) - set(SUBSETS) - {None})


def judged(ctx: Context, table_id: str, settings: list[str]) -> tuple[pd.DataFrame, Provenance, list[str]]:
    """Each model's verdicts of `settings` under one judge (table.Context.judged), and the notes they need;
    missing, the runs are named by `table_id`'s experiments (how_to_run)."""
    df, provenance = ctx.judged(BENCH, settings, how_to_run(table_id))
    notes = []
    if (df["run_setting"] != df["setting"]).any():
        notes.append("Some models ran a variant of the setting (column `run_setting`, e.g. +caption: images "
                     "replaced by captions for a text-only demo model).")
    return df, provenance, notes


def reasoning(run: Run) -> dict[tuple, str | None]:
    """(id, sample_idx) → the raw request's `reasoning` text."""
    return {key: line.get("reasoning") for key, line in latest(run.raw).items()}


def modalities(run: Run) -> list[str]:
    """The evaluated model's input modalities, from the raw file's manifest."""
    model = run.raw_manifest.get("model")
    return list(model.get("modalities", [])) if isinstance(model, dict) else []


def level_name(level) -> str:
    return "Overall" if level == "Overall" else f"Level {int(level)}"
