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
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from analysis.table_experiments import RUNS_OF, nearest
from data.dataset import how_to_make
from data.jsonl import DataError
from infer import generation, layout, server
from infer import run as infer_run
from infer.config import ConfigError, ModelConfig, load_model_config
from infer.launch import GPU_MEMORY_GB, Node
from infer.request import describe_causes
from infer.experiment_spec import DEMO_MODEL, EXPERIMENTS, PAPER_MODELS, Experiment, load_experiment
from infer.interrupt import exits_cleanly
from infer.preflight import EndpointDown
from infer.progress import bar as progress_bar
from infer.settings import parse_setting
from infer.store import LockedError
from infer.templates import TemplateError
from judge import run as judge_run
from judge.judges import asks_model
from pipeline import cost
from pipeline.sweep_totals import Totals, calls_since, log_sizes, run_counts
from pipeline.tokens import tokenizer_name

log = logging.getLogger(__name__)
ROOT = Path(__file__).resolve().parent.parent
PIXEL_MODES = ("io", "icq", "first", "composite")
JUDGE_LOGS = layout.JUDGE_CACHES  # every judge call, one line each (judge/llm.py)


def demo_setting(setting: str, cfg: ModelConfig) -> tuple[str | None, str]:
    """The setting a model can take in the demo, or None and why not."""
    spec = parse_setting(setting)
    if spec.thinking and spec.thinking not in cfg.thinking:
        return None, f"{cfg.name} has no thinking switch"
    if cfg.accepts_images or not spec.sends_images:
        return setting, ""
    if spec.mode in PIXEL_MODES:
        return None, f"'{spec.mode}' needs an image model ({cfg.name} reads text only)"
    return layout.caption_stand_in(setting), ""


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
                why = f"no data at {layout.recorded(data)} (convert the official release with python -m data.convert)"
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
        # every judge model, configured or not: what it would cost is known before its endpoint is
        estimate = cost.estimate_run(job.exp.benchmark, job.data, job.cfg, job.setting, counts["pending"],
                                     counts["params"], job.judges, job.judge_cfgs, results,
                                     node.gpu_memory_gb if node else GPU_MEMORY_GB)
        return {"to send": counts["to_send"], "servers": "; ".join(counts["servers"]) or "none", "cost": estimate}
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


def resolve_only(names: list[str], experiment_ids: set[str]) -> tuple[set[str], list[str], list[str]]:
    """The experiment ids `--only` selects, notes on what a name selected, and one error line per name that
    selects nothing. An experiment id selects that experiment; a table id (python -m analysis.run --list) the
    experiments whose runs the table reads (analysis.table_experiments.RUNS_OF). Names are exact, case included."""
    selected: set[str] = set()
    notes, errors = [], []
    for name in names:
        reads = [e for e in RUNS_OF.get(name, ()) if e in experiment_ids]
        if name in experiment_ids:
            selected.add(name)
            if more := [e for e in reads if e != name and e not in names]:  # what --only does not give already
                notes.append(f"--only {name}: the experiment {name}; the table {name} also reads the runs of "
                             f"{', '.join(more)} (add them to --only)")
        elif reads:
            selected.update(reads)
            notes.append(f"--only {name}: the table {name} reads the runs of {', '.join(reads)}")
        elif name in RUNS_OF:
            why = "none of its experiments is given" if RUNS_OF[name] else \
                "it is made from the data, the model configs or external files"
            errors.append(f"error: --only {name}: the table {name} reads no model run ({why}); "
                          f"python -m analysis.run {name} makes it")
        else:
            close = nearest(name, experiment_ids | set(RUNS_OF))
            errors.append(f"error: --only {name}: no such experiment or table id"
                          + (f"; did you mean {' or '.join(close)}?" if close else "")
                          + " (experiment ids: the `id` of configs/experiments/*.yaml; table ids: "
                            "python -m analysis.run --list)")
    return selected, notes, errors


def plan_cost(jobs: list[Job], results: Path, node: Node | None) -> cost.Estimate:
    """The cost of the runs, planned as --dry-run plans them; a run that cannot be planned is named in `unplanned`
    (the sweep then says why it cannot run)."""
    whole = cost.Estimate()
    for job in jobs:
        try:
            whole.add(run_job(job, results, node, dry_run=True)["cost"])
        except (DataError, ConfigError, TemplateError, ValueError, RuntimeError) as e:
            whole.unplanned.append(f"{job.exp.id}: {job.cfg.name} / {job.setting} ({str(e).splitlines()[0]})")
    return whole


def over_budget(plan: cost.Estimate, max_cost: float) -> str:
    """The one line refusing a sweep whose cost bound is above `max_cost` dollars or unknown ('' if it is not)."""
    if plan.unplanned:  # a bound that leaves a run out would let it spend unchecked
        return (f"error: --max-cost {max_cost:g}: the cost bound is unknown ({len(plan.unplanned)} run(s) could not be "
                f"planned, e.g. {plan.unplanned[0]}); nothing was sent")
    if plan.unpriced:
        return (f"error: --max-cost {max_cost:g}: the cost bound is unknown (no price for "
                f"{', '.join(sorted(plan.unpriced))}); nothing was sent")
    if plan.usd_bound > max_cost:
        return (f"error: --max-cost {max_cost:g}: the sweep may cost up to ${plan.usd_bound:,.2f} "
                f"(${plan.usd_expected:,.2f} expected); nothing was sent (--dry-run shows the plan per run)")
    return ""


def print_plan(plans: dict[str, cost.Estimate]) -> cost.Estimate:
    """The cost per experiment and in all, with how it was estimated; returns the whole."""
    whole = cost.Estimate()
    print("\n== cost per experiment (before anything is sent) ==")
    for exp_id, est in plans.items():
        print(f"{exp_id}: {est.line()}")
        whole.add(est)
    print(f"in all: {whole.line()}")
    print("\n".join(f"  {n}" for n in cost.notes(whole, tokenizer_name())))
    return whole


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


def first_steps(no_data: dict[Path, list[Job]], profile: str) -> list[str]:
    """One line per missing data file: what makes it, and the runs waiting for it."""
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


@exits_cleanly
def main(argv: list[str] | None = None, totals: Totals | None = None) -> int:
    """The command line; `totals`, when given, receives what the sweep did (pipeline.demo sums its sweeps)."""
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="*", type=Path, help="experiment files (default: configs/experiments/*.yaml)")
    ap.add_argument("--profile", choices=("demo", "paper"), default="demo")
    ap.add_argument("--only", nargs="+", metavar="ID", help="experiment ids (configs/experiments/*.yaml `id`) or "
                    "table ids (python -m analysis.run --list: the experiments whose runs the table reads)")
    ap.add_argument("--results", type=Path, default=Path("results"))
    infer_run.add_node_args(ap)
    ap.add_argument("--dry-run", action="store_true", help="print each run's requests to send and the servers it "
                    "would start, then stop: nothing is written, started or judged")
    ap.add_argument("--max-cost", type=float, metavar="USD", help="refuse to start (send nothing, exit 1) when the "
                    "sweep's cost bound in dollars is above USD, or unknown (an API model without a price)")
    args = ap.parse_args(argv)
    try:
        node = infer_run.node_from(args)
    except ConfigError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    files = args.files or sorted(EXPERIMENTS.glob("*.yaml"))
    status, skipped, report, chosen, todo = 0, [], [], [], []
    down: set[str] = set()  # models found not answering
    unconfigured: dict[str, ModelConfig] = {}
    no_data: dict[Path, list[Job]] = {}
    not_configured = 0
    loaded = []
    for f in files:
        try:
            loaded.append(load_experiment(f))
        except (ConfigError, ValueError, OSError) as e:
            print(f"error: {e}", file=sys.stderr)
            status = 1
    if args.only:
        only, notes, errors = resolve_only(args.only, {exp.id for exp in loaded})
        if errors:  # a mistyped name runs nothing
            print("\n".join(errors), file=sys.stderr)
            return 2
        if notes:
            print("\n".join(notes))
        loaded = [exp for exp in loaded if exp.id in only]
    if args.profile == "paper":
        try:
            problems = shared_file_conflicts(loaded)
        except (ConfigError, ValueError, OSError) as e:
            problems = [str(e)]
        if problems:
            print("\n".join(f"error: {p}" for p in problems), file=sys.stderr)
            return 1
    for exp in loaded:
        try:
            jobs = plan_jobs(exp, args.profile)
        except (ConfigError, ValueError, OSError) as e:
            print(f"error: {e}", file=sys.stderr)
            status = 1
            continue
        chosen.append(exp)
        for job in jobs:  # the judge models too: an unconfigured one leaves its verdicts out
            unconfigured.update({c.name: c for j in job.judges if asks_model(j)
                                 for c in job.judge_cfgs.get(j) or [] if not c.configured})
            if job.cfg is not None and job.skip and not job.cfg.configured:
                unconfigured[job.cfg.name] = job.cfg
                if not job.data.exists():  # said too: a newcomer needs both the data and the keys
                    no_data.setdefault(job.data, []).append(job)
                elif args.dry_run:  # its cost is known before its endpoint is
                    todo.append(job)
                else:
                    not_configured += 1
            elif job.skip and job.setting is not None and not job.data.exists():
                no_data.setdefault(job.data, []).append(job)
            elif job.skip:
                skipped.append(f"{exp.id}: {job.cfg.name}: {job.skip}")
            else:
                todo.append(job)
    if args.max_cost is not None and not args.dry_run:  # the plan first: nothing is sent above the limit
        if refusal := over_budget(plan_cost(todo, args.results, node), args.max_cost):
            print(refusal, file=sys.stderr)
            return 1
    done = Totals()
    plans: dict[str, cost.Estimate] = {}  # --dry-run: the cost of each experiment's runs
    judge_logs = log_sizes(args.results, JUDGE_LOGS)
    # One bar over every run, with its ETA; a model server a config starts is started once for all runs.
    with server.kept(), progress_bar(todo, desc=f"{args.profile} runs", unit="run", position=0) as bar:
        for job in bar:
            what = f"{job.exp.id}: {job.cfg.name if job.cfg else '?'} / {job.setting}"
            bar.set_postfix_str(what, refresh=True)
            started = time.time()
            try:
                row = run_job(job, args.results, node, args.dry_run)
                if "cost" in row:
                    plans.setdefault(job.exp.id, cost.Estimate()).add(row["cost"])
                report.append((job.exp.id, what, row))
                done.runs += 1
                done.to_send += row.get("to send", 0)
            except EndpointDown as e:  # every run asking that model fails alike: said once, the others listed
                if e.model not in down:
                    print(f"error: {what}: {e}", file=sys.stderr)
                down.add(e.model)
                skipped.append(f"{what}: not done, {e.model} does not answer")
                status = 1
            except (DataError, ConfigError, TemplateError, LockedError, ValueError, RuntimeError) as e:
                print(f"error: {what}: {e}", file=sys.stderr)
                status = 1
                if args.dry_run:  # its cost is unknown: said, never counted as nothing
                    plans.setdefault(job.exp.id, cost.Estimate()).unplanned.append(what)
            if not args.dry_run:
                done.add(run_counts(args.results, job.exp.benchmark, job.cfg.name, job.setting, started))
    if not args.dry_run:
        done.judge_calls, done.judge_failed = calls_since(args.results, JUDGE_LOGS, judge_logs)
    if report:
        print(f"\n== {args.profile} profile: {len(report)} run(s) ==")
    for _, what, row in report:
        estimate = row.pop("cost", None)
        print(f"{what}: " + "; ".join(f"{k} {v}" for k, v in row.items()))
        if estimate is not None:
            print(f"    cost: {estimate.line()}")
    if skipped:
        print(f"\n== skipped ({len(skipped)}) ==")
        print("\n".join(sorted(set(skipped))))
    ran = {exp_id for exp_id, _, _ in report}
    if args.profile == "paper" and (beyond := marked([exp for exp in chosen if exp.id in ran])):
        print("\n== beyond the papers (added models, our choices) ==")
        print("\n".join(beyond))
    if no_data:
        print(f"\n== no data: {sum(map(len, no_data.values()))} run(s) not run ==")
        print("\n".join(first_steps(no_data, args.profile)))
    if unconfigured:
        not_run = f", {not_configured} run(s) not run" if not_configured else ""
        print(f"\n== not configured: {len(unconfigured)} model(s){not_run}; set these to run them "
              "(configs/models/paper/README.md) ==")
        print("\n".join(to_configure(unconfigured)))
    if totals is not None:
        totals.add(done)
    if report or status:
        print(f"\n== {args.profile} profile, in all ==")
        print("\n".join(done.lines(args.results, args.dry_run)))
        if args.dry_run and plans:
            whole = print_plan(plans)
            if args.max_cost is not None and (refusal := over_budget(whole, args.max_cost)):
                print(refusal, file=sys.stderr)
                return 1
        return status
    print(f"error: nothing ran: {first_step(args.profile, bool(unconfigured), bool(no_data))}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
