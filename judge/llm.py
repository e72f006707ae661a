"""Answer judge requests the one way a model is asked (infer/ask.py), with the judge's log as its cache.

A judge request is an inference request like any other: rendered from a judge template, keyed by the
hash of what the judge model sees, sent by the one client and appended as a raw line to
results/judge_cache/<judge model>.jsonl. Re-judging, or judging again after swapping one judge, pays
only for requests whose key has no reply yet. A reply the judge's parser cannot read is asked again,
up to PARSE_ATTEMPTS times, unless the judge is deterministic (temperature 0) or gave the same reply.
Before the first call, the judge model's endpoints are checked (infer/preflight.py): a judge server that
is down is one error, not a judge error for every item.
"""
from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

from infer.ask import Ask, Log, Reask, Reply, answer as ask_model
from infer.config import ModelConfig
from infer.layout import judge_cache_path
from infer.render import render_spec
from infer.templates import PROMPTS, Template, load_template
from judge.injection import boundary
from judge.types import UNREADABLE, Item

PARSE_ATTEMPTS = 3  # one call and two more when the reply cannot be read


def judge_template(prompt: str, prompts: Path = PROMPTS) -> Template:
    return load_template("judges", prompt, prompts)


def judge_log(results: Path, cfg: ModelConfig) -> Path:
    return judge_cache_path(results, cfg.name)


def render(rec: dict[str, Any], ask: Ask, cfg: ModelConfig, base: Path, prompts: Path) -> list[dict[str, Any]]:
    """A judge request's messages: its template filled with the gold, the values it gives, and the tag of the
    markers around model text."""
    values = {"gold": ", ".join(rec["answer"]), "response": "", "extracted": "", **ask.values,
              "boundary": boundary(ask.prompt, ask.values)}
    return render_spec(rec, judge_template(ask.prompt, prompts), base, ask.mode_for(cfg), literal=values)


def answer(asks: list[tuple[Item, Ask]], cfg: ModelConfig, base: Path, results: Path,
           prompts: Path = PROMPTS) -> list[Reply]:
    """A reply to every (item, ask), from the judge's log or the judge model."""
    params = cfg.judge_params()
    reask = Reask(0 if params.get("temperature") == 0 else PARSE_ATTEMPTS, UNREADABLE)
    return ask_model([(item.rec, ask) for item, ask in asks], partial(render, cfg=cfg, base=base, prompts=prompts),
                     cfg, params, Log(judge_log(results, cfg), "judge", results), reask)
