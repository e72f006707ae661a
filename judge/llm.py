"""Answer judge requests through the one way to call a model, with the judge's log as its cache.

A judge request is an inference request like any other: rendered from a judge template, keyed by the
hash of what the judge model sees, sent by the one client and appended as a raw line to
results/judge_cache/<judge model>.jsonl. Re-judging, or judging again after swapping one judge, pays
only for requests whose key has no reply yet. A reply the judge's parser cannot read is asked again,
up to PARSE_ATTEMPTS times, unless the judge is deterministic (temperature 0) or gave the same reply.
Before the first call, the judge model's endpoints are checked (infer/preflight.py): a judge server that
is down is one error, not a judge error for every item.
"""
from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from infer.calls import Request, checked_endpoints, request_key, send
from infer.config import ModelConfig
from infer.layout import judge_cache_path
from infer.render import RenderError, render_spec
from infer.store import AppendLog, load_latest
from infer.templates import PROMPTS, Template, load_template
from judge.injection import boundary
from judge.judges import Ask, Item, Reply

log = logging.getLogger(__name__)
PARSE_ATTEMPTS = 3  # one call and two more when the reply cannot be read


def judge_template(prompt: str, prompts: Path = PROMPTS) -> Template:
    return load_template("judges", prompt, prompts)


def judge_log(results: Path, cfg: ModelConfig) -> Path:
    return judge_cache_path(results, cfg.name)


def _replies(path: Path) -> dict[str, dict[str, Any]]:
    """The latest line of each request key. Lines written before judge calls were raw lines hold
    `key` and `reply`; they are read as the same answers."""
    latest = load_latest(path, key=lambda r: r.get("request_key") or r.get("key"))
    return {k: {**r, "response": r["reply"], "error": None} if "reply" in r else r for k, r in latest.items()}


def answer(asks: list[tuple[Item, Ask]], cfg: ModelConfig, base: Path, results: Path,
           prompts: Path = PROMPTS) -> list[Reply]:
    """A reply to every (item, ask), from the judge's log or the judge model."""
    params = cfg.judge_params()
    deterministic = params.get("temperature") == 0
    by_key: dict[str, Request] = {}
    keys: list[str | None] = []
    failures: dict[int, Reply] = {}
    for i, (item, ask) in enumerate(asks):
        mode = "image" if ask.sees_images and cfg.accepts_images else "text"
        values = {"gold": ", ".join(item.rec["answer"]), "response": "", "extracted": "", **ask.values,
                  "boundary": boundary(ask.prompt, ask.values)}  # the tag of the markers around model text
        try:
            messages = render_spec(item.rec, judge_template(ask.prompt, prompts), base, mode, literal=values)
        except RenderError as e:
            failures[i] = Reply(None, None, f"RenderError: {e}")
            keys.append(None)
            continue
        extra = {"grammar": ask.grammar} if cfg.constrain_judge_replies and ask.grammar else {}
        key = request_key(messages, {**params, **extra}, cfg.model)
        keys.append(key)
        by_key.setdefault(key, Request(item.rec["id"], 0, key, lambda m=messages: m, setting=f"judge:{ask.prompt}",
                                       extra=extra))
    parse_of = {k: asks[i][1].parse for i, k in enumerate(keys) if k is not None}

    path = judge_log(results, cfg)
    settled: dict[str, dict[str, Any]] = {}
    urls: list[str] | None = None  # the judge model's endpoints that answer, checked before its first call
    with AppendLog(path) as out:
        latest = _replies(path)
        sends = dict.fromkeys(by_key, 0)
        before: dict[str, str | None] = {}  # the reply a key had when it was asked again
        open_keys = list(by_key)
        while open_keys:
            again = []
            for key in open_keys:
                line = latest.get(key) or ({"error": "no reply recorded"} if sends[key] else None)
                # a failure left by an earlier run is tried again; one of this run is final (the client retried)
                if line is not None and (sends[key] or line.get("error") is None):
                    unreadable = line.get("error") is None and parse_of[key](line.get("response") or "") is None
                    if not (unreadable and not deterministic and sends[key] < PARSE_ATTEMPTS
                            and before.get(key, object()) != line.get("response")):
                        settled[key] = line
                        continue
                    before[key] = line.get("response")
                again.append(key)
            if not again:
                break
            if any(sends[k] for k in again):
                log.warning("%d judge replies unusable, asking again", len(again))
            for k in again:
                sends[k] += 1

            def write(line: dict[str, Any]) -> None:
                out.write(line)
                latest[line["request_key"]] = line

            urls = urls or checked_endpoints(cfg)
            send([by_key[k] for k in again], cfg, params, write, results, f"judge {cfg.name}", urls=urls)
            open_keys = again
    return [failures[i] if k is None else _read(settled[k], asks[i][1]) for i, k in enumerate(keys)]


def _read(line: dict[str, Any], ask: Ask) -> Reply:
    usage = line.get("usage") or {}
    tokens = (usage.get("prompt_tokens") or 0) + (usage.get("completion_tokens") or 0)
    if line.get("error"):
        call = {"attempts": line.get("attempts"), "attempt_errors": line.get("attempt_errors"),
                "elapsed_s": line.get("elapsed_s")}
        return Reply(None, None, line["error"], tokens, call)
    text = line.get("response") or ""
    parsed = ask.parse(text)
    return Reply(text, parsed, None if parsed is not None else "judge reply could not be parsed", tokens)
