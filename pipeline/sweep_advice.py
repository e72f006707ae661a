"""What a sweep tells its user before its runs can be made (pipeline/experiments.py): where the experiments depart
from the papers, what to set or install for the models not configured here, and what makes each missing data file."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from data.checkout import ROOT
from data.dataset import how_to_make
from infer.config import ModelConfig
from infer.experiment_spec import Experiment


def marked(experiments: list[Experiment]) -> list[str]:
    """Where the experiments depart from the papers: added models, models left out, our own choices, to print."""
    lines = []
    for exp in experiments:
        lines += [f"{exp.id}: added model {m} — {why}" for m, why in exp.added_models.items()]
        lines += [f"{exp.id}: left out {m} — {why}" for m, why in exp.left_out.items()]
        lines += [f"{exp.id}: ours — {o}" for o in exp.ours]
    return lines


def to_configure(cfgs: dict[str, ModelConfig]) -> list[str]:
    """What to set for models that are not configured here: each environment variable once, with the models it
    would enable (a model needing two is under both), then what to install for the rest."""
    enables: dict[str, list[str]] = {}
    startable = set()  # URL variables of servers the harness could start itself, were their program installed
    for name, cfg in sorted(cfgs.items()):
        if cfg.engine != "http":
            enables.setdefault(f"install {cfg.engine} (pip install -r requirements-gpu.txt)", []).append(name)
            continue
        env = list(cfg.missing_env) if not cfg.launches_server or cfg.server.missing_program() else []
        startable.update(cfg.missing_env if cfg.launches_server else ())
        if cfg.api_key_env and not os.environ.get(cfg.api_key_env):
            env.append(cfg.api_key_env)
        for var in env or [cfg.why_unconfigured()]:
            enables.setdefault(var, []).append(name)
    # keys first, then server URLs, then what to install
    order = sorted(enables, key=lambda var: (var.startswith("install"), var.endswith("_URL"), var))
    lines = [f"{var}: {', '.join(enables[var])}" for var in order]
    if startable:
        lines.append("(a *_URL variable is the URL of a running vLLM / LMDeploy server, with /v1; or install them "
                     "(pip install -r requirements-gpu.txt) and the harness starts the servers on --gpus)")
    return lines


def first_steps(no_data: dict[Path, list[Any]], profile: str) -> list[str]:
    """One line per missing data file: what makes it, and the runs waiting for it (pipeline.experiments.Job)."""
    lines = []
    for data, jobs in sorted(no_data.items()):
        exps = ", ".join(dict.fromkeys(j.exp.id for j in jobs))
        shown = data.relative_to(ROOT) if data.is_relative_to(ROOT) else data
        make = ("bash run_all.sh makes it" if profile == "demo" else
                how_to_make(shown, jobs[0].exp.benchmark) + " (data/README.md)")
        lines.append(f"{shown}: no such file ({len(jobs)} run(s) of {exps}); {make}")
    return lines


def first_step(profile: str, unconfigured: bool, no_data: bool) -> str:
    """What to do before a sweep in which nothing could run."""
    if no_data:
        return ("bash run_all.sh makes the demo data first" if profile == "demo" else "get the data above first"
                + ("; the models not configured need the environment variables above" if unconfigured else ""))
    if unconfigured:
        return "set the environment variables above first"
    return f"the experiments chosen have no run in the {profile} profile" + (
        " (--profile paper runs them)" if profile == "demo" else "")
