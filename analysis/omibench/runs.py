"""What the OMIBench tables read: Table 2's setting (the baseline of every comparison), the records of a run,
runs by the setting they stand for, a verdict file's verdicts per evaluator model, each metric's verdicts,
the parallel-sampling runs and the models' parameter counts.

Not a table itself (no IDS), nor are its neighbours metrics, subjects, baseline, scaling and votes.
"""
from __future__ import annotations

import re

import pandas as pd

from analysis.inputs import (Run, current_lines, data_file, find_runs, judges_asked, read_records, record_fields,
                             stand_in)
from analysis.omibench.metrics import METRICS
from analysis.table import ROOT, Context, MissingInputs
from analysis.table_experiments import models_of
from data.files import read_yaml

BENCH = "omibench"
SETTING = "cot_boxed"     # CoT prompt with \boxed{}: Table 2's runs, and the baseline of every comparison
EXTERNAL = ROOT / "data" / "external" / "omibench"
# Figure 5(c)'s parallel-sampling runs: the paper's (T 0.6, L_max 16384), then the demo's without +max.
SAMPLING, SAMPLING_SETTINGS = "omibench_F5c", ["cot_boxed+temp0.6+max16384", "cot_boxed+temp0.6"]


def run_records(run: Run) -> dict[str, dict]:
    """The records a run was judged against (its manifest's data file), else the benchmark's data file."""
    return read_records(run.data or data_file(BENCH).path)


def runs_named(ctx: Context, judge: str, pattern: re.Pattern) -> dict[tuple[str, str], Run]:
    """(model, setting) → run, for every setting of `judge`'s runs that matches the regex (a run counts under
    the setting it stands for; the run of that very name is preferred)."""
    found = find_runs(ctx.results, BENCH, judge)
    return {(r.model, r.stands_for): stand_in([x for x in found if x.model == r.model], r.stands_for)
            for r in found if pattern.fullmatch(r.stands_for)}


def evaluator_verdicts(run: Run) -> pd.DataFrame:
    """A verdict file's current verdicts per evaluator: one file holds every judge model that judged it, so each
    judge model asked for on it (inputs.judges_asked) gives its own current verdict of each current outcome
    (status `unjudged` where it has none); the rule judge's evaluator is "rules"."""
    columns = ["evaluator", "id", "sample_idx", "status", "correct", "extracted", "flagged"]
    frames = []
    for judge in judges_asked(run):
        ev = judge.get("model") or judge.get("name") or run.judge
        rows = [{"evaluator": ev, "id": i, "sample_idx": s, "status": v.get("status", "ok"),
                 "correct": v.get("correct"), "extracted": v.get("extracted"), "flagged": bool(v.get("flags"))}
                for (i, s), v in current_lines(run, judge).items()]
        frames.append(pd.DataFrame(rows, columns=columns))
    df = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=columns)
    fields = record_fields(run.data or data_file(BENCH).path)  # the subjects only: not every record whole
    subjects = fields["subject"] if "subject" in fields else pd.Series(dtype=object)
    df["subject"] = df["id"].map(subjects).astype(object).where(lambda s: s.notna(), None)
    df.insert(0, "model", run.model)
    return df


def metric_verdicts(ctx: Context, settings: list[str]) -> list[tuple[str, pd.DataFrame, list[Run]]]:
    """(metric, verdicts, runs read) of `settings` for each metric whose judge has runs of them."""
    out = []
    for metric, judge in METRICS.items():
        try:
            out.append((metric, ctx.verdicts(BENCH, settings, judge), ctx.runs(BENCH, settings, judge)))
        except MissingInputs:
            continue
    return out


def sampling_runs(ctx: Context) -> dict[str, dict[str, Run]]:
    """metric → model → its parallel-sampling run (the first of SAMPLING_SETTINGS the model has), for the
    sampling experiment's models only: Table 5 and the significance runs sample cot_boxed+temp0.6 too, and
    Table 5's GPTScore file holds two judge models' verdicts, which a vote must not mix."""
    out: dict[str, dict[str, Run]] = {}
    for metric, judge in METRICS.items():
        for setting in SAMPLING_SETTINGS:
            for run in ctx.runs(BENCH, [setting], judge):
                if run.model in models_of(SAMPLING):
                    out.setdefault(metric, {}).setdefault(run.model, run)
    return out


def model_params(model: str, run: Run | None = None) -> tuple[float | None, float | None]:
    """(total, activated) parameters in billions: configs/models/paper/<model>.yaml, else the config
    recorded in the run's raw manifest (the demo's models are not paper configs)."""
    cfg_path = ROOT / "configs" / "models" / "paper" / f"{model}.yaml"
    cfg = read_yaml(cfg_path) if cfg_path.exists() else None
    if cfg is None and run is not None:
        cfg = run.raw_manifest.get("model")
    cfg = cfg or {}
    total = cfg.get("params_total_b")
    return total, cfg.get("params_active_b", total)
