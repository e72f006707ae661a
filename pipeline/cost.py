"""What a run will cost, known before anything is sent: requests, judge calls, input and output tokens, and
dollars (API models, from the `price` of their configs) or GPU-hours (self-hosted models, at their `throughput`).

- Input tokens: the rendered prompts (text by pipeline/tokens.py's tokenizer, images by the model's
  `image_tokens`), from an evenly spaced sample of SAMPLE requests where a run has more, scaled to all.
- Output tokens: the bound is every request's `max_tokens`; the expectation is the model's mean over its earlier
  runs in results/ (pipeline/history.py), else the bound.
- Judge calls: each LLM judge's calls per item (`calls` of judge/judges.py), over the requests to send and the
  answers already in results/ that have no current verdict. A process judge's steps come from the item's
  trajectory where it is in results/, else from the model's earlier trajectories, else history.DEFAULT_STEPS.
  A call whose reply is already in the judge log costs nothing then; the estimate counts it all the same.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from infer.config import ModelConfig
from infer.cost_keys import Throughput
from infer.launch import GPU_MEMORY_GB, tensor_parallel
from infer.request import Request
from infer.templates import PROMPTS
from judge import run as judge_run
from judge.judges import JUDGES, asks_model
from judge.llm import judge_template
from judge.types import Item
from pipeline import history
from pipeline.tokens import image_size, image_tokens, measure, text_tokens

SAMPLE = 48  # requests (and judged items) measured per run; more are estimated from them
# A self-hosted server's speed where its config gives no `throughput`: one server (all its GPUs), batched.
DEFAULT_THROUGHPUT = Throughput(output_tokens_per_s=1000.0, input_tokens_per_s=10000.0)


@dataclass
class Estimate:
    """What runs will cost; `add` sums them."""

    requests: int = 0
    judge_calls: float = 0.0
    input_tokens: float = 0.0
    output_bound: float = 0.0
    output_expected: float = 0.0
    usd_bound: float = 0.0
    usd_expected: float = 0.0
    gpu_hours_bound: float = 0.0
    gpu_hours_expected: float = 0.0
    cpu_hours_bound: float = 0.0      # self-hosted models whose server takes no GPUs (the embedded default)
    cpu_hours_expected: float = 0.0
    unpriced: set[str] = field(default_factory=set)   # API models with no `price`: their dollars are unknown
    unplanned: list[str] = field(default_factory=list)  # runs that could not be planned: the bound leaves them out
    sampled: list[str] = field(default_factory=list)  # what was estimated from a sample
    sources: set[str] = field(default_factory=set)    # where the expectations and step counts come from
    unseen: set[str] = field(default_factory=set)     # what no earlier run shows: its expectation is the bound
    defaults: set[tuple[str, str]] = field(default_factory=set)  # (default used, model): image tokens, throughput, steps

    def add(self, other: "Estimate") -> None:
        for name, value in vars(other).items():
            mine = getattr(self, name)
            if isinstance(mine, set):
                mine |= value
            elif isinstance(mine, list):
                mine += value
            else:
                setattr(self, name, mine + value)

    def charge(self, cfg: ModelConfig, input_tokens: float, output_bound: float, output_expected: float,
               gpu_memory_gb: float) -> None:
        """Add tokens processed by `cfg`, with their dollars or GPU-hours."""
        self.input_tokens += input_tokens
        self.output_bound += output_bound
        self.output_expected += output_expected
        if cfg.price is not None:
            self.usd_bound += cfg.price.usd(input_tokens, output_bound)
            self.usd_expected += cfg.price.usd(input_tokens, output_expected)
        elif self_hosted(cfg):
            speed = cfg.throughput or DEFAULT_THROUGHPUT
            if cfg.throughput is None:
                self.defaults.add((f"throughput {DEFAULT_THROUGHPUT.output_tokens_per_s:g} output / "
                                   f"{DEFAULT_THROUGHPUT.input_tokens_per_s:g} input tokens/s a server", cfg.name))
            if uses_gpus(cfg):
                gpus = tensor_parallel(cfg, gpu_memory_gb)
                self.gpu_hours_bound += gpus * speed.hours(input_tokens, output_bound)
                self.gpu_hours_expected += gpus * speed.hours(input_tokens, output_expected)
            else:
                self.cpu_hours_bound += speed.hours(input_tokens, output_bound)
                self.cpu_hours_expected += speed.hours(input_tokens, output_expected)
        elif input_tokens or output_bound:
            self.unpriced.add(cfg.name)

    def line(self) -> str:
        money = f"${self.usd_bound:,.2f} at most, ${self.usd_expected:,.2f} expected"
        if self.unpriced:
            money += f" (+ unknown: no price for {', '.join(sorted(self.unpriced))})"
        gpu = (f"; {self.gpu_hours_bound:,.1f} GPU-h at most, {self.gpu_hours_expected:,.1f} expected"
               if self.gpu_hours_bound else "")
        gpu += (f"; {self.cpu_hours_bound:,.2f} h on CPU at most, {self.cpu_hours_expected:,.2f} expected"
                if self.cpu_hours_bound else "")
        return (f"{self.requests:,} request(s), {self.judge_calls:,.0f} judge call(s); input {_tokens(self.input_tokens)} "
                f"tokens; output {_tokens(self.output_bound)} at most, {_tokens(self.output_expected)} expected; "
                f"{money}{gpu}")


def _tokens(n: float) -> str:
    return f"{n / 1e6:,.2f}M" if n >= 1e5 else f"{n:,.0f}"


def uses_gpus(cfg: ModelConfig) -> bool:
    """Whether a self-hosted model takes GPUs: an offline engine, or a server command given a GPU count."""
    return cfg.engine != "http" or cfg.server is None or any("{tp}" in a for a in cfg.server.command)


def self_hosted(cfg: ModelConfig) -> bool:
    """A model on servers of one's own (no API key): it costs GPU time, not a price per token."""
    return not cfg.api_key_env


def _source(est: Estimate, what: str, seen: history.Seen) -> None:
    if seen.value is None:
        est.unseen.add(what)
    else:
        est.sources.add(f"{what}: {seen.value:,.0f} tokens a call, from {seen.where}")


def _sample(items: list[Any]) -> list[Any]:
    if len(items) <= SAMPLE:
        return items
    step = len(items) / SAMPLE
    return [items[int(i * step)] for i in range(SAMPLE)]


@dataclass
class Judged:
    """One item a judge will judge: its record, its images' sizes, and its trajectory in tokens."""

    rec: dict[str, Any]
    sizes: list[tuple[int, int]]
    trajectory: float
    steps: int


def estimate_run(bench: str, data: Path, cfg: ModelConfig, setting: str, pending: list[Request],
                 params: dict[str, Any], judges: list[str], judge_cfgs: dict[str, list[ModelConfig]],
                 results: Path, gpu_memory_gb: float = GPU_MEMORY_GB, prompts: Path = PROMPTS) -> Estimate:
    """The cost of a run's requests still to send (`pending`, from infer.run's dry run) and of its judges."""
    est = Estimate(requests=len(pending))
    sample = _sample(pending)
    if len(sample) < len(pending):
        est.sampled.append(f"{cfg.name}/{setting}: prompts of {len(sample)} of {len(pending)} requests")
    measured = [measure(cfg.with_system(r.messages()), cfg.max_image_pixels) for r in sample]
    if cfg.image_tokens is None and any(s for _, s in measured):
        est.defaults.add((f"{image_tokens(cfg, [(1, 1)])} tokens an image", cfg.name))
    per_input = (sum(t + image_tokens(cfg, s) for t, s in measured) / len(measured)) if measured else 0.0
    bound = float(params.get("max_tokens") or cfg.max_tokens)
    seen = history.output_tokens(results, bench, cfg.name, setting)
    expected = min(seen.value, bound) if seen.value is not None else bound
    _source(est, f"{cfg.name} output", seen)
    est.charge(cfg, per_input * len(pending), bound * len(pending), expected * len(pending), gpu_memory_gb)

    # The items the judges will see: the answers to come (their trajectories as long as expected) and the
    # answers already there without a current verdict (their own trajectories).
    seen_traj = history.trajectory_tokens(results, bench, cfg.name, setting)
    new_steps = history.steps_of(seen_traj.value) if seen_traj.value is not None else history.DEFAULT_STEPS
    new = [Judged(r.messages.rec, s, expected, new_steps) for r, (_, s) in zip(sample, measured)]
    for judge in judges:
        if not asks_model(judge):
            continue
        for jcfg in judge_cfgs.get(judge) or []:
            existing = judge_run.to_judge(bench, data, cfg.name, setting, judge, results, jcfg, prompts=prompts)
            old = [_judged(rec, raw, data.parent, jcfg) for rec, raw in _sample(existing)]
            est.add(_judge_cost(judge, jcfg, new, len(pending), old, len(existing), results, gpu_memory_gb, prompts))
            if existing and len(old) < len(existing):
                est.sampled.append(f"{judge}[{jcfg.name}] on {cfg.name}/{setting}: {len(old)} of {len(existing)} "
                                   "answers to judge")
            if pending and by_steps(judge):
                if seen_traj.value is None:
                    est.defaults.add((f"{history.DEFAULT_STEPS} steps a trajectory for the process judges "
                                      "(no earlier trajectories)", cfg.name))
                else:
                    est.sources.add(f"{cfg.name} steps: {new_steps} a trajectory, from {seen_traj.where}")
            if existing:
                est.sources.add(f"{cfg.name}/{setting} answers in results/ to judge with {judge}: {len(existing)}, "
                                "steps from their own trajectories")
    return est


def _judged(rec: dict[str, Any], raw: dict[str, Any], base: Path, jcfg: ModelConfig) -> Judged:
    """An answer already in results/: its own trajectory and images."""
    tokens = text_tokens(Item(rec, raw.get("response") or "", raw.get("reasoning")).trajectory)
    sizes = []
    for name in rec.get("images") or []:
        try:
            sizes.append(image_size(str(base / name), jcfg.max_image_pixels))
        except OSError:  # a missing image fails the judge call, which then costs little: counted as 1024²
            sizes.append((1024, 1024))
    return Judged(rec, sizes, tokens, history.steps_of(tokens))


def by_steps(judge: str) -> bool:
    """Whether a judge's calls grow with the steps of a trajectory (a process judge)."""
    return JUDGES[judge].calls({"hints": ["x"]}, 3).total != JUDGES[judge].calls({"hints": ["x"]}, 2).total


def _judge_cost(judge: str, jcfg: ModelConfig, new: list[Judged], n_new: int, old: list[Judged], n_old: int,
                results: Path, gpu_memory_gb: float, prompts: Path) -> Estimate:
    """A judge model's calls on `n_new` items like `new` and `n_old` like `old` (samples of them)."""
    spec = JUDGES[judge]
    template = sum(text_tokens(judge_template(p, prompts).text) for p in spec.prompts) / len(spec.prompts)
    reply_bound = float(jcfg.judge_params().get("max_tokens") or jcfg.max_tokens)
    seen = history.judge_output_tokens(results, jcfg.name, tuple(spec.prompts))
    reply = min(seen.value, reply_bound) if seen.value is not None else reply_bound
    est = Estimate()
    _source(est, f"{jcfg.name} as {judge}", seen)
    if jcfg.image_tokens is None and any(it.sizes for it in new + old):
        est.defaults.add((f"{image_tokens(jcfg, [(1, 1)])} tokens an image", jcfg.name))
    for items, count in ((new, n_new), (old, n_old)):
        if not items or not count:
            continue
        calls = inputs = 0.0
        for it in items:
            c = spec.calls(it.rec, it.steps)
            question = text_tokens(it.rec.get("question") or "") + text_tokens(" ".join(map(str, it.rec.get("choices") or [])))
            inputs += (c.total * (template + question) + c.whole * it.trajectory
                       + c.step_texts * it.trajectory / it.steps + c.with_images * image_tokens(jcfg, it.sizes))
            calls += c.total
        scale = count / len(items)
        est.judge_calls += calls * scale
        est.charge(jcfg, inputs * scale, calls * scale * reply_bound, calls * scale * reply, gpu_memory_gb)
    return est


def notes(est: Estimate, tokenizer: str) -> list[str]:
    """How the estimate was made, to print under it."""
    lines = [f"text tokens: {tokenizer}"]
    lines += [f"from a sample: {s}" for s in est.sampled]
    kinds: dict[str, list[str]] = {}
    for kind, model in sorted(est.defaults):
        kinds.setdefault(kind, []).append(model)
    lines += [f"default {kind}: {', '.join(models)}" for kind, models in kinds.items()]
    lines += [f"expected: {s}" for s in sorted(est.sources)]
    if est.unseen:
        lines.append(f"expected = the bound (no earlier runs in results/): {', '.join(sorted(est.unseen))}")
    if est.unplanned:
        lines.append(f"not planned (their cost is not in the figures above): {'; '.join(est.unplanned)}")
    if est.unpriced:
        lines.append(f"no price (dollars unknown): {', '.join(sorted(est.unpriced))} — add `price` to their configs")
    lines.append(f"judge calls: per item as each judge asks (a process judge: about one step per {history.STEP_TOKENS} "
                 "trajectory tokens), replies already in the judge log counted too")
    lines.append("$ counts API models (their `price`); self-hosted models count GPU-hours (`throughput`), apart")
    return lines
