"""What the C²RBench tables share: the data file, the subsets in the paper's order, the choice of judge
(the paper's GPT-4o judge `c2rbench_judge` where it scored, the rule judge otherwise), the raw
responses' reasoning text, and the model's modalities. No table ids here."""
from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import yaml

from analysis.inputs import Run
from analysis.table import ROOT, Context, MissingInputs
from data.jsonl import iter_jsonl

BENCH = "c2rbench"
LLM_JUDGE, RULES = "c2rbench_judge", "rules"
MAIN = "zero_shot+temp0"            # configs/experiments/c2rbench_main.yaml
TEXT = "zero_shot+temp0+text"       # configs/experiments/c2rbench_F10.yaml
# §3.5's order of the eight subsets.
SUBSETS = ["Math", "Multimodal", "Logical", "General Knowledge", "Graph Analysis", "Reading", "Science",
           "File Processing"]
LEVELS = [1, 2, 3]
EXTERNAL = ROOT / "data" / "external" / "c2rbench"


def data_file() -> Path:
    """The unified data of the paper profile (experiment config `data`, else data/c2rbench/test.jsonl),
    or the demo set when that has not been converted."""
    cfg = yaml.safe_load((ROOT / "configs" / "experiments" / "c2rbench_main.yaml").read_text(encoding="utf-8"))
    paper = ROOT / (cfg.get("data") or f"data/{BENCH}/test.jsonl")
    return paper if paper.exists() else ROOT / "data" / "demo" / "build" / f"{BENCH}.jsonl"


def records(path: Path | None = None) -> pd.DataFrame:
    """id, category, level, num_steps of every task."""
    path = path or data_file()
    if not path.exists():
        raise MissingInputs(f"no C²RBench data at {path} (python -m data.convert c2rbench, or python -m data.demo)")
    rows = [{"id": r["id"], "category": r.get("category"), "level": r.get("level"), "num_steps": r.get("num_steps")}
            for _, r in iter_jsonl(path)]
    return pd.DataFrame(rows)


def subset_order(values) -> list[str]:
    """The paper's eight subsets first, then any other label the data has."""
    return [s for s in SUBSETS if s in set(values)] + sorted(set(values) - set(SUBSETS) - {None})


def judged(ctx: Context, settings: list[str]) -> tuple[pd.DataFrame, list[Run], list[str]]:
    """Verdicts per model and setting from `c2rbench_judge` when it scored at least one response of
    that run, else from the rule judge. Returns (verdicts, the runs used, notes)."""
    frames = {}
    for judge in (LLM_JUDGE, RULES):
        try:
            frames[judge] = ctx.verdicts(BENCH, settings, judge)
        except MissingInputs:
            pass
    if not frames:
        exp = "c2rbench.F10" if settings == [TEXT] else "c2rbench.F7-F8"
        raise MissingInputs(f"no judged {BENCH} runs of {settings} (judge {LLM_JUDGE} or {RULES}) under "
                            f"{ctx.results}/judged: run the experiment (python -m pipeline.experiments --only {exp})")
    picked = []
    keys = {k for df in frames.values() for k in df[["model", "setting"]].itertuples(index=False, name=None)}
    for model, setting in sorted(keys):
        mine = {j: df[(df["model"] == model) & (df["setting"] == setting)] for j, df in frames.items()}
        llm = mine.get(LLM_JUDGE)
        use = LLM_JUDGE if llm is not None and (llm["status"] == "ok").any() else (
            RULES if RULES in mine and not mine[RULES].empty else LLM_JUDGE)
        picked.append(mine[use])
    df = pd.concat(picked, ignore_index=True)
    used = set(df[["model", "run_setting", "judge"]].itertuples(index=False, name=None))
    runs = [r for j in frames for r in ctx.runs(BENCH, settings, j) if (r.model, r.setting, r.judge) in used]
    notes = []
    if (df["judge"] == RULES).any():
        fallback = sorted(set(df.loc[df["judge"] == RULES, "model"]))
        notes.append(f"Judge: the paper scored with GPT-4o ({LLM_JUDGE}); for {', '.join(fallback)} no "
                     f"{LLM_JUDGE} verdict was scored, so the rule judge ({RULES}) is used (column `judge`).")
    else:
        notes.append(f"Judge: {LLM_JUDGE} (the paper's GPT-4o evaluator prompt) for every model.")
    if (df["run_setting"] != df["setting"]).any():
        notes.append("Some models ran a variant of the setting (column `run_setting`, e.g. +caption: images "
                     "replaced by captions for a text-only demo model).")
    return df, runs, notes


def raw_fields(run: Run) -> dict[tuple, dict]:
    """(id, sample_idx) → the raw request's `reasoning` text (the last line of a key wins)."""
    out: dict[tuple, dict] = {}
    if run.raw.exists():
        for line in run.raw.read_text(encoding="utf-8").splitlines():
            if line.strip():
                obj = json.loads(line)
                out[(obj["id"], obj["sample_idx"])] = {"reasoning": obj.get("reasoning")}
    return out


def modalities(run: Run) -> list[str]:
    """The evaluated model's input modalities, from the raw file's manifest."""
    p = run.raw.with_suffix(".manifest.json")
    model = json.loads(p.read_text()).get("model") if p.exists() else None
    return list(model.get("modalities", [])) if isinstance(model, dict) else []


def level_name(level) -> str:
    return "Overall" if level == "Overall" else f"Level {int(level)}"
