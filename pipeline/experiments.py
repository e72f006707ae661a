"""Run the experiments of configs/experiments/*.yaml: every (model, setting) run, then its judges.

    python -m pipeline.experiments [--profile demo|paper] [--only omibench.F4a ...]

Profiles:
- demo (default): the embedded model on the demo sets. A text-only model takes each image setting
  as its caption variant (`+caption`); settings that only make sense with pixels (io, icq, first,
  composite) and thinking switches the model lacks are skipped, and said so.
- paper: the papers' models (configs/models/paper/) and our marked additions, on the data the experiment
  names, with the experiment's generation overrides (`params`, `model_params`, `thinking`: see
  infer/generation.py); models whose endpoints or keys are not set in the environment are listed as not
  configured and skipped. Experiments that would write one raw file with different parameters are refused.
Everything is resumable: a rerun sends and judges only what is missing.
"""
from __future__ import annotations

import argparse
import logging
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tqdm import tqdm

from data.jsonl import DataError
from infer import generation, server
from infer import run as infer_run
from infer.config import ConfigError, ModelConfig, load_model_config
from infer.launch import Node
from infer.calls import describe_causes
from infer.experiment_spec import DEMO_MODEL, EXPERIMENTS, PAPER_MODELS, Experiment, load_experiment
from infer.interrupt import exits_cleanly
from infer.preflight import EndpointDown
from infer.settings import parse_setting
from infer.store import LockedError
from infer.templates import TemplateError
from judge import run as judge_run
from judge.judges import asks_model

log = logging.getLogger(__name__)
ROOT = Path(__file__).resolve().parent.parent
PIXEL_MODES = ("io", "icq", "first", "composite")


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
    judge_cfgs: dict[str, list[ModelConfig]]  # per judge, the models it runs with
    skip: str = ""
    stands_for: str | None = None  # the experiment's setting this run stands for (demo: X for X+caption)


def plan_jobs(exp: Experiment, profile: str) -> list[Job]:
    if profile == "demo":
        cfg = load_model_config(DEMO_MODEL)
        data = ROOT / exp.demo.get("data", f"data/demo/build/{exp.benchmark}.jsonl")
        jobs = []
        for s in exp.demo.get("settings", exp.settings):
            setting, why = demo_setting(s, cfg)
            if not why and not data.exists():  # a demo item set made by another step (adapted splits)
                why = f"no data at {data.relative_to(ROOT) if data.is_relative_to(ROOT) else data} yet"
            jobs.append(Job(exp, cfg, setting, data, exp.demo.get("n", exp.n), exp.demo.get("limit", exp.limit),
                            exp.demo.get("judges", exp.judges), {j: [cfg] for j in exp.demo.get("judges", exp.judges)},
                            skip=why and f"{s}: {why}", stands_for=s))
        return jobs
    judge_cfgs = {j: [load_model_config(PAPER_MODELS / f"{m}.yaml") for m in exp.judge_models_of(j)]
                  for j in exp.judges}
    data = ROOT / (exp.data or f"data/{exp.benchmark}/test.jsonl")
    jobs = []
    for name in exp.all_models:
        cfg = paper_config(exp, name)
        for s in exp.settings:
            why = "" if cfg.configured else f"not configured ({cfg.why_unconfigured()})"
            if not why and not data.exists():
                why = f"no data at {data} (convert the official release with python -m data.convert)"
            jobs.append(Job(exp, cfg, s, data, exp.n, exp.limit, exp.judges, judge_cfgs, skip=why, stands_for=s))
    return jobs


def paper_config(exp: Experiment, name: str) -> ModelConfig:
    """The model's config with the experiment's generation overrides applied (paper profile)."""
    cfg = load_model_config(PAPER_MODELS / f"{name}.yaml")
    return generation.apply(cfg, exp.params_for(name), exp.thinking)


def shared_file_conflicts(experiments: list[Experiment]) -> list[str]:
    """Experiments writing one raw file (benchmark, model, setting) must send the same parameters."""
    effective: dict[tuple[str, str, str], dict[str, dict[str, Any]]] = {}
    for exp in experiments:
        for name in exp.all_models:
            cfg = paper_config(exp, name)
            for s in exp.settings:
                spec = parse_setting(s)
                params = cfg.generation_params(spec.thinking, **spec.overrides)
                effective.setdefault((exp.benchmark, name, s), {})[exp.id] = params
    return generation.conflicts(effective)


def run_job(job: Job, results: Path, node: Node | None = None, dry_run: bool = False) -> dict[str, Any]:
    counts = infer_run.run(job.exp.benchmark, job.data, job.cfg, job.setting, results, limit=job.limit, n=job.n,
                           stands_for=job.stands_for, node=node, dry_run=dry_run)
    if dry_run:
        return {"to send": counts["to_send"], "servers": "; ".join(counts["servers"]) or "none"}
    row: dict[str, Any] = {"sent": counts["sent"], "failed": counts["failed"] + counts["unrenderable"]}
    causes = [describe_causes(counts["failed_by_cause"])] if counts["failed"] else []
    causes += [f"{counts['unrenderable']} unrenderable"] if counts["unrenderable"] else []
    if causes:
        row["failed by cause"] = ", ".join(causes)
    for judge in job.judges:
        # An LLM judge runs once per judge model; its verdicts share one file, keyed by the judge model.
        asks = asks_model(judge)  # a rule judge asks no model: it runs once, without a judge model
        cfgs = job.judge_cfgs.get(judge) or [None]
        for cfg in cfgs if asks else [None]:
            label = judge if not asks or len(cfgs) < 2 else f"{judge}[{cfg.name}]"
            if asks and (cfg is None or not cfg.configured):
                row[label] = "judge model not configured"
                continue
            s = judge_run.run(job.exp.benchmark, job.data, job.cfg.name, job.setting, judge, results, cfg)
            row[label] = judge_run.describe(s)
    if infer_run.nothing_succeeded(counts):  # judged all the same: its failures are counted in the tables
        raise RunFailed(f"none of the {counts['sent']} requests sent succeeded: {row['failed by cause']}")
    return row


class RunFailed(RuntimeError):
    """A run that sent requests of which none succeeded."""


def marked(experiments: list[Experiment]) -> list[str]:
    """What the experiments run beyond the papers: added models and our own choices, to print."""
    lines = []
    for exp in experiments:
        lines += [f"{exp.id}: added model {m} — {why}" for m, why in exp.added_models.items()]
        lines += [f"{exp.id}: ours — {o}" for o in exp.ours]
    return lines


@exits_cleanly
def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="*", type=Path, help="experiment files (default: configs/experiments/*.yaml)")
    ap.add_argument("--profile", choices=("demo", "paper"), default="demo")
    ap.add_argument("--only", nargs="+", help="experiment ids to run")
    ap.add_argument("--results", type=Path, default=Path("results"))
    infer_run.add_node_args(ap)
    ap.add_argument("--dry-run", action="store_true", help="print each run's requests to send and the servers it "
                    "would start, then stop: nothing is written, started or judged")
    args = ap.parse_args(argv)
    try:
        node = infer_run.node_from(args)
    except ConfigError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    files = args.files or sorted(EXPERIMENTS.glob("*.yaml"))
    status, skipped, report, chosen, todo = 0, [], [], [], []
    down: set[str] = set()  # models found not answering
    loaded = []
    for f in files:
        try:
            loaded.append(load_experiment(f))
        except (ConfigError, ValueError, OSError) as e:
            print(f"error: {e}", file=sys.stderr)
            status = 1
    if args.profile == "paper":
        try:
            problems = shared_file_conflicts(loaded)
        except (ConfigError, ValueError, OSError) as e:
            problems = [str(e)]
        if problems:
            print("\n".join(f"error: {p}" for p in problems), file=sys.stderr)
            return 1
    for exp in loaded:
        if args.only and exp.id not in args.only:
            continue
        try:
            jobs = plan_jobs(exp, args.profile)
        except (ConfigError, ValueError, OSError) as e:
            print(f"error: {e}", file=sys.stderr)
            status = 1
            continue
        chosen.append(exp)
        for job in jobs:
            if job.skip:
                skipped.append(f"{exp.id}: {job.cfg.name}: {job.skip}")
            else:
                todo.append(job)
    # One bar over every run, with its ETA; a model server a config starts is started once for all runs.
    with server.kept(), tqdm(todo, desc=f"{args.profile} runs", unit="run", position=0) as bar:
        for job in bar:
            what = f"{job.exp.id}: {job.cfg.name if job.cfg else '?'} / {job.setting}"
            bar.set_postfix_str(what, refresh=True)
            try:
                report.append((what, run_job(job, args.results, node, args.dry_run)))
            except EndpointDown as e:  # every run asking that model fails alike: said once, the others listed
                if e.model not in down:
                    print(f"error: {what}: {e}", file=sys.stderr)
                down.add(e.model)
                skipped.append(f"{what}: not done, {e.model} does not answer")
                status = 1
            except (DataError, ConfigError, TemplateError, LockedError, ValueError, RuntimeError) as e:
                print(f"error: {what}: {e}", file=sys.stderr)
                status = 1
    print(f"\n== {args.profile} profile: {len(report)} run(s) ==")
    for what, row in report:
        print(f"{what}: " + "; ".join(f"{k} {v}" for k, v in row.items()))
    if skipped:
        print(f"\n== skipped ({len(skipped)}) ==")
        print("\n".join(sorted(set(skipped))))
    if args.profile == "paper" and marked(chosen):
        print("\n== beyond the papers (added models, our choices) ==")
        print("\n".join(marked(chosen)))
    return status


if __name__ == "__main__":
    sys.exit(main())
