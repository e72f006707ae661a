"""Run the experiments of configs/experiments/*.yaml: every (model, setting) run, then its judges.

    python -m infer.experiments [--profile demo|paper] [--only omibench.F4a ...]

Profiles:
- demo (default): the embedded model on the demo sets. A text-only model takes each image setting
  as its caption variant (`+caption`); settings that only make sense with pixels (io, icq, first,
  composite) and thinking switches the model lacks are skipped, and said so.
- paper: the papers' models (configs/models/paper/), on the data the experiment names; models whose
  endpoints or keys are not set in the environment are listed as not configured and skipped.
Everything is resumable: a rerun sends and judges only what is missing.
"""
from __future__ import annotations

import argparse
import logging
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from data.jsonl import DataError
from infer import run as infer_run
from infer.config import ConfigError, ModelConfig, load_model_config
from infer.settings import parse_setting
from infer.store import LockedError
from infer.templates import TemplateError

log = logging.getLogger(__name__)
ROOT = Path(__file__).resolve().parent.parent
EXPERIMENTS = ROOT / "configs" / "experiments"
DEMO_MODEL = ROOT / "configs" / "models" / "smollm2-135m.yaml"
PAPER_MODELS = ROOT / "configs" / "models" / "paper"
PIXEL_MODES = ("io", "icq", "first", "composite")


@dataclass
class Experiment:
    id: str
    caption: str
    benchmark: str
    settings: list[str]
    models: list[str] = field(default_factory=list)
    data: str | None = None
    n: int = 1
    limit: int | None = None
    judges: list[str] = field(default_factory=lambda: ["rules"])
    judge_model: str | None = None
    demo: dict[str, Any] = field(default_factory=dict)   # overrides for the demo profile
    path: str = ""


def load_experiment(path: Path) -> Experiment:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    known = set(Experiment.__dataclass_fields__) - {"path"}
    unknown = set(data) - known
    if unknown:
        raise ConfigError(f"{path}: unknown key(s) {sorted(unknown)} (known: {', '.join(sorted(known))})")
    bad_demo = set(data.get("demo", {})) - {"settings", "n", "limit", "judges", "data"}
    if bad_demo:
        raise ConfigError(f"{path}: demo: unknown key(s) {sorted(bad_demo)}")
    exp = Experiment(**data, path=str(path))
    for s in exp.settings + exp.demo.get("settings", []):
        parse_setting(s)  # a typo in a setting is an error before anything runs
    return exp


def demo_setting(setting: str, cfg: ModelConfig) -> tuple[str | None, str]:
    """The setting a model can take in the demo, or None and why not."""
    spec = parse_setting(setting)
    if spec.thinking and spec.thinking not in cfg.thinking:
        return None, f"{cfg.name} has no thinking switch"
    if cfg.accepts_images or not spec.sends_images:
        return setting, ""
    if spec.mode in PIXEL_MODES:
        return None, f"'{spec.mode}' needs an image model ({cfg.name} reads text only)"
    return setting + "+caption", ""


@dataclass
class Job:
    exp: Experiment
    cfg: ModelConfig | None
    setting: str | None
    data: Path
    n: int
    limit: int | None
    judges: list[str]
    judge_cfg: ModelConfig | None
    skip: str = ""


def plan_jobs(exp: Experiment, profile: str) -> list[Job]:
    if profile == "demo":
        cfg = load_model_config(DEMO_MODEL)
        data = ROOT / exp.demo.get("data", f"data/demo/build/{exp.benchmark}.jsonl")
        jobs = []
        for s in exp.demo.get("settings", exp.settings):
            setting, why = demo_setting(s, cfg)
            jobs.append(Job(exp, cfg, setting, data, exp.demo.get("n", exp.n), exp.demo.get("limit", exp.limit),
                            exp.demo.get("judges", exp.judges), cfg, skip=why and f"{s}: {why}"))
        return jobs
    judge_cfg = load_model_config(PAPER_MODELS / f"{exp.judge_model}.yaml") if exp.judge_model else None
    data = ROOT / (exp.data or f"data/{exp.benchmark}/test.jsonl")
    jobs = []
    for name in exp.models:
        cfg = load_model_config(PAPER_MODELS / f"{name}.yaml")
        for s in exp.settings:
            why = "" if cfg.configured else f"not configured ({cfg.why_unconfigured()})"
            if not why and not data.exists():
                why = f"no data at {data} (convert the official release with python -m data.convert)"
            jobs.append(Job(exp, cfg, s, data, exp.n, exp.limit, exp.judges, judge_cfg, skip=why))
    return jobs


def run_job(job: Job, results: Path) -> dict[str, Any]:
    from judge import run as judge_run  # judging after inference; imported here to keep infer light

    counts = infer_run.run(job.exp.benchmark, job.data, job.cfg, job.setting, results, job.limit, job.n)
    row: dict[str, Any] = {"sent": counts["sent"], "failed": counts["failed"] + counts["unrenderable"]}
    for judge in job.judges:
        cfg = None if judge == "rules" else job.judge_cfg
        if judge != "rules" and (cfg is None or not cfg.configured):
            row[judge] = "judge model not configured"
            continue
        s = judge_run.run(job.exp.benchmark, job.data, job.cfg.name, job.setting, judge, results, cfg)
        acc = "n/a" if s["accuracy"] is None else f"{s['accuracy']:.1%}"
        row[judge] = f"{acc} of {s['scored']} ({s['no_response']} no response, {s['judge_error']} judge errors)"
    return row


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="*", type=Path, help="experiment files (default: configs/experiments/*.yaml)")
    ap.add_argument("--profile", choices=("demo", "paper"), default="demo")
    ap.add_argument("--only", nargs="+", help="experiment ids to run")
    ap.add_argument("--results", type=Path, default=Path("results"))
    args = ap.parse_args(argv)
    files = args.files or sorted(EXPERIMENTS.glob("*.yaml"))
    status, skipped, report = 0, [], []
    for f in files:
        try:
            exp = load_experiment(f)
            if args.only and exp.id not in args.only:
                continue
            jobs = plan_jobs(exp, args.profile)
        except (ConfigError, ValueError, OSError) as e:
            print(f"error: {e}", file=sys.stderr)
            status = 1
            continue
        for job in jobs:
            what = f"{exp.id}: {job.cfg.name if job.cfg else '?'} / {job.setting}"
            if job.skip:
                skipped.append(f"{exp.id}: {job.cfg.name}: {job.skip}")
                continue
            try:
                report.append((what, run_job(job, args.results)))
            except (DataError, ConfigError, TemplateError, LockedError, ValueError, RuntimeError) as e:
                print(f"error: {what}: {e}", file=sys.stderr)
                status = 1
    print(f"\n== {args.profile} profile: {len(report)} run(s) ==")
    for what, row in report:
        print(f"{what}: " + "; ".join(f"{k} {v}" for k, v in row.items()))
    if skipped:
        print(f"\n== skipped ({len(skipped)}) ==")
        print("\n".join(sorted(set(skipped))))
    return status


if __name__ == "__main__":
    sys.exit(main())
