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
  A run that cannot be made (a setting its model refuses, its model's config unreadable: pipeline/pairing.py;
  its model's endpoint down; no request of it succeeding) is said in one line, the other runs are made, and the
  sweep exits 3 (SOME_NOT_MADE) naming it, so that run_all.sh rebuilds the report from the runs made.
Everything is resumable: a rerun sends and judges only what is missing.
"""
from __future__ import annotations

import argparse
import logging
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from infer.layout import RESULTS
from analysis.table_experiments import RUNS_OF, nearest
from data.jsonl import DataError
from data.checkout import DEMO_BUILD, ROOT
from infer import generation, layout, server
from infer import run as infer_run
from infer.config import ConfigError, ModelConfig, load_model_config
from infer.launch import GPU_MEMORY_GB, Node
from infer.request import describe_causes
from infer.experiment_spec import DEMO_MODEL, EXPERIMENTS, PAPER_MODELS, Experiment, load_experiment
from infer.interrupt import exits_cleanly
from infer.preflight import EndpointDown
from infer.progress import bar as progress_bar, say
from infer.settings import parse_setting
from infer.store import LockedError
from infer.templates import TemplateError
from judge import run as judge_run
from judge.judges import asks_model
from pipeline import cost
from pipeline.pairing import Unmade, refusal
from pipeline.sweep_advice import first_step, first_steps, marked, to_configure
from pipeline.sweep_totals import Totals, calls_since, log_sizes, run_totals
from pipeline.tokens import tokenizer_name

log = logging.getLogger(__name__)
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
    impossible: str = ""  # why this run cannot be made (a setting the model refuses, its config's error)
    name: str = ""        # the model's name, where its config could not be read (cfg None)

    @property
    def model(self) -> str:
        return self.cfg.name if self.cfg is not None else self.name

    @property
    def what(self) -> str:
        return f"{self.exp.id}: {self.model or '?'} / {self.setting}"


def plan_jobs(exp: Experiment, profile: str) -> list[Job]:
    if profile == "demo":
        cfg = load_model_config(DEMO_MODEL)
        data = ROOT / exp.demo["data"] if "data" in exp.demo else DEMO_BUILD / f"{exp.benchmark}.jsonl"
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
        cfg, broken = paper_model(exp, name)  # one model's broken config leaves the others' runs planned
        for s in exp.settings:
            job = Job(exp, cfg, s, data, exp.n, exp.limit, exp.judges, judge_cfgs, stands_for=s, name=name,
                      impossible=broken or refusal(cfg, s))
            if cfg is not None and not cfg.configured:
                job.skip = f"not configured ({cfg.why_unconfigured()})"
            elif not data.exists():
                job.skip = f"no data at {layout.recorded(data)} (convert the official release with python -m data.convert)"
            jobs.append(job)
    return jobs


def paper_config(exp: Experiment, name: str) -> ModelConfig:
    """The model's config with the experiment's generation overrides applied (paper profile)."""
    cfg = load_model_config(PAPER_MODELS / f"{name}.yaml")
    return generation.apply(cfg, exp.params_for(name), exp.thinking)


def paper_model(exp: Experiment, name: str) -> tuple[ModelConfig | None, str]:
    """The model's config for this experiment, or None and why it cannot be had (the error's first line)."""
    try:
        return paper_config(exp, name), ""
    except ConfigError as e:
        return None, str(e).splitlines()[0]


def shared_file_conflicts(experiments: list[Experiment]) -> list[str]:
    """Experiments writing one raw file (benchmark, model, setting) must send the same parameters."""
    effective: dict[tuple[str, str, str], dict[str, dict[str, Any]]] = {}
    for exp in experiments:
        for name in exp.all_models:
            cfg, _ = paper_model(exp, name)
            for s in exp.settings:
                if cfg is None or refusal(cfg, s):  # a run that cannot be made sends nothing (said when planned)
                    continue
                spec = parse_setting(s)
                params = cfg.generation_params(spec.thinking, **spec.overrides)
                effective.setdefault((exp.benchmark, name, s), {})[exp.id] = params
    return generation.conflicts(effective)


def run_job(job: Job, results: Path, node: Node | None = None, dry_run: bool = False) -> tuple[dict[str, Any], Totals]:
    """Make one run and its judges: the row the sweep prints and the run's requests (none for a dry run)."""
    p = infer_run.plan_run(job.exp.benchmark, job.data, job.cfg, job.setting, results, limit=job.limit, n=job.n,
                           stands_for=job.stands_for)
    if dry_run:
        dry = infer_run.preview(p, node)
        # every judge model, configured or not: what it would cost is known before its endpoint is
        estimate = cost.estimate_run(job.exp.benchmark, job.data, job.cfg, job.setting, dry.pending, dry.params,
                                     job.judges, job.judge_cfgs, results, node.gpu_memory_gb if node else GPU_MEMORY_GB)
        return {"to send": dry.to_send, "servers": "; ".join(dry.servers) or "none", "cost": estimate}, Totals()
    counts = infer_run.report(p, *infer_run.execute(p, node))
    made = run_totals(counts)
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
        raise RunFailed(f"none of the {counts['sent']} requests sent succeeded: {row['failed by cause']}", made)
    return row, made


class RunFailed(RuntimeError):
    """A run that sent requests of which none succeeded (`made`: its requests, counted in the sweep's totals)."""

    def __init__(self, message: str, made: Totals) -> None:
        super().__init__(message)
        self.made = made


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
            whole.add(run_job(job, results, node, dry_run=True)[0]["cost"])
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


@dataclass
class Sweep:
    """What a sweep found and did, run by run, for the lines it ends with."""

    dry_run: bool
    status: int = 0
    todo: list[Job] = field(default_factory=list)
    report: list[tuple[str, str, dict[str, Any]]] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    chosen: list[Experiment] = field(default_factory=list)
    unconfigured: dict[str, ModelConfig] = field(default_factory=dict)
    no_data: dict[Path, list[Job]] = field(default_factory=dict)
    not_configured: int = 0
    unmade: Unmade = field(default_factory=Unmade)   # runs that could not be made, each cause said once
    plans: dict[str, cost.Estimate] = field(default_factory=dict)  # --dry-run: the cost of each experiment's runs
    done: Totals = field(default_factory=Totals)

    def cannot(self, job: Job, reason: str, cause: str | None = None) -> None:
        """A run that cannot be made: said in one line (once per cause), the sweep goes on and exits non-zero."""
        if line := self.unmade.add(job.what, reason, cause):
            say(line, sys.stderr)  # a line of its own, above the sweep's progress bar
        self.status = 1
        if self.dry_run:  # its cost is unknown: said, never counted as nothing
            self.plans.setdefault(job.exp.id, cost.Estimate()).unplanned.append(job.what)

    def take(self, jobs: list[Job]) -> None:
        """Sort an experiment's planned runs: to make, skipped (and why), waiting for data or keys, impossible."""
        for job in jobs:  # the judge models too: an unconfigured one leaves its verdicts out
            self.unconfigured.update({c.name: c for j in job.judges if asks_model(j)
                                      for c in job.judge_cfgs.get(j) or [] if not c.configured})
            if job.impossible:  # whatever the keys and data: the experiment file pairs them wrongly
                self.cannot(job, job.impossible, job.impossible if job.cfg is None else None)
            elif job.cfg is not None and job.skip and not job.cfg.configured:
                self.unconfigured[job.cfg.name] = job.cfg
                if not job.data.exists():  # said too: a newcomer needs both the data and the keys
                    self.no_data.setdefault(job.data, []).append(job)
                elif self.dry_run:  # its cost is known before its endpoint is
                    self.todo.append(job)
                else:
                    self.not_configured += 1
            elif job.skip and job.setting is not None and not job.data.exists():
                self.no_data.setdefault(job.data, []).append(job)
            elif job.skip:
                self.skipped.append(f"{job.exp.id}: {job.model}: {job.skip}")
            else:
                self.todo.append(job)

    def run(self, results: Path, node: Node | None, profile: str) -> None:
        """Make every run to make, under one progress bar; a model server a config starts is started once."""
        with server.kept(), progress_bar(self.todo, desc=f"{profile} runs", unit="run", position=0) as bar:
            for job in bar:
                bar.set_postfix_str(job.what, refresh=True)
                self.make(job, results, node)

    def make(self, job: Job, results: Path, node: Node | None) -> None:
        try:
            row, made = run_job(job, results, node, self.dry_run)
        except RunFailed as e:  # its failed requests are counted with the rest
            self.done.add(e.made)
            self.cannot(job, str(e))
            return
        except EndpointDown as e:  # every run asking that model fails alike: said once, the others listed
            self.cannot(job, str(e), f"not done, {e.model} does not answer")
            return
        except (DataError, ConfigError, TemplateError, LockedError, ValueError, RuntimeError) as e:
            self.cannot(job, str(e))
            return
        if "cost" in row:
            self.plans.setdefault(job.exp.id, cost.Estimate()).add(row["cost"])
        self.report.append((job.exp.id, job.what, row))
        self.done.add(made)
        self.done.runs += 1
        self.done.to_send += row.get("to send", 0)


def load_all(files: list[Path], only: list[str] | None, sweep: Sweep) -> list[Experiment] | int:
    """The experiments chosen (an unreadable file said, the others kept), or the exit status of a sweep that must
    not start: a mistyped --only (2)."""
    loaded = []
    for f in files:
        try:
            loaded.append(load_experiment(f))
        except (ConfigError, ValueError, OSError) as e:
            print(f"error: {e}", file=sys.stderr)
            sweep.status = 1
    if only:
        selected, notes, errors = resolve_only(only, {exp.id for exp in loaded})
        if errors:  # a mistyped name runs nothing
            print("\n".join(errors), file=sys.stderr)
            return 2
        if notes:
            print("\n".join(notes))
        loaded = [exp for exp in loaded if exp.id in selected]
    return loaded


def print_runs(sweep: Sweep, profile: str) -> None:
    """Each run made, then what was skipped, not made, departs from the papers, waits for data or keys."""
    if sweep.report:
        print(f"\n== {profile} profile: {len(sweep.report)} run(s) ==")
    for _, what, row in sweep.report:
        estimate = row.pop("cost", None)
        print(f"{what}: " + "; ".join(f"{k} {v}" for k, v in row.items()))
        if estimate is not None:
            print(f"    cost: {estimate.line()}")
    if sweep.skipped:
        print(f"\n== skipped ({len(sweep.skipped)}) ==")
        print("\n".join(sorted(set(sweep.skipped))))
    if sweep.unmade.runs:
        print(f"\n== could not be made ({len(sweep.unmade.runs)}) ==")
        print("\n".join(sweep.unmade.lines()))
    ran = {exp_id for exp_id, _, _ in sweep.report}
    if profile == "paper" and (beyond := marked([exp for exp in sweep.chosen if exp.id in ran])):
        print("\n== beyond the papers (added models, models left out, our choices) ==")
        print("\n".join(beyond))
    if sweep.no_data:
        print(f"\n== no data: {sum(map(len, sweep.no_data.values()))} run(s) not run ==")
        print("\n".join(first_steps(sweep.no_data, profile)))
    if sweep.unconfigured:
        not_run = f", {sweep.not_configured} run(s) not run" if sweep.not_configured else ""
        print(f"\n== not configured: {len(sweep.unconfigured)} model(s){not_run}; set these to run them "
              "(configs/models/paper/README.md) ==")
        print("\n".join(to_configure(sweep.unconfigured)))


# Exit status of a sweep that made some runs and could not make others (each said above): the report is worth
# rebuilding from those made (run_all.sh does), unlike after 1, when nothing was made.
SOME_NOT_MADE = 3


def ending(sweep: Sweep, args: argparse.Namespace) -> int:
    """The sweep's totals and last line; its exit status."""
    print(f"\n== {args.profile} profile, in all ==")
    print("\n".join(sweep.done.lines(args.results, args.dry_run)))
    if args.dry_run and sweep.plans:
        whole = print_plan(sweep.plans)
        if args.max_cost is not None and (refusal_line := over_budget(whole, args.max_cost)):
            print(refusal_line, file=sys.stderr)
            return 1
    if not sweep.status:
        return 0
    if closing := sweep.unmade.closing(len(sweep.report)):
        print(closing, file=sys.stderr)
    return SOME_NOT_MADE if sweep.report else 1


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="python -m pipeline.experiments", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="*", type=Path, help="experiment files (default: configs/experiments/*.yaml)")
    ap.add_argument("--profile", choices=("demo", "paper"), default="demo")
    ap.add_argument("--only", nargs="+", metavar="ID", help="experiment ids (configs/experiments/*.yaml `id`) or "
                    "table ids (python -m analysis.run --list: the experiments whose runs the table reads)")
    ap.add_argument("--results", type=Path, default=RESULTS)
    infer_run.add_node_args(ap)
    ap.add_argument("--dry-run", action="store_true", help="print each run's requests to send and the servers it "
                    "would start, then stop: nothing is written, started or judged")
    ap.add_argument("--max-cost", type=float, metavar="USD", help="refuse to start (send nothing, exit 1) when the "
                    "sweep's cost bound in dollars is above USD, or unknown (an API model without a price)")
    return ap.parse_args(argv)


@exits_cleanly
def main(argv: list[str] | None = None, totals: Totals | None = None) -> int:
    """The command line; `totals`, when given, receives what the sweep did (pipeline.demo sums its sweeps).
    Exit status: 0 every run made; 3 (SOME_NOT_MADE) some made, others not (each said); 1 none made, or the
    sweep refused (a parameter conflict, --max-cost); 2 a bad argument."""
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    args = parse_args(argv)
    try:
        node = infer_run.node_from(args)
    except ConfigError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    sweep = Sweep(args.dry_run)
    loaded = load_all(args.files or sorted(EXPERIMENTS.glob("*.yaml")), args.only, sweep)
    if isinstance(loaded, int):
        return loaded
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
            sweep.status = 1
            continue
        sweep.chosen.append(exp)
        sweep.take(jobs)
    if args.max_cost is not None and not args.dry_run:  # the plan first: nothing is sent above the limit
        if refusal_line := over_budget(plan_cost(sweep.todo, args.results, node), args.max_cost):
            print(refusal_line, file=sys.stderr)
            return 1
    judge_logs = log_sizes(args.results, JUDGE_LOGS)
    sweep.run(args.results, node, args.profile)
    if not args.dry_run:
        sweep.done.judge_calls, sweep.done.judge_failed = calls_since(args.results, JUDGE_LOGS, judge_logs)
    print_runs(sweep, args.profile)
    if totals is not None:
        totals.add(sweep.done)
    if sweep.report or sweep.status:
        return ending(sweep, args)
    print(f"error: nothing ran: {first_step(args.profile, bool(sweep.unconfigured), bool(sweep.no_data))}",
          file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
