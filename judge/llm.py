"""Ask an LLM judge, through the same client as inference, with a cache and no silent defaults.

Replies are cached by the hash of the judge request (judge prompt, question, gold, response, judge
model and parameters), so re-judging, or judging again after swapping one judge, pays only for new
calls. A reply the judge's parser cannot read is asked again, then recorded as a judge error.
"""
from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from infer.client import ChatClient, RetryPolicy
from infer.config import ModelConfig
from infer.render import render_spec
from infer.run import request_key, wire_body
from infer.store import AppendLog, load_latest
from infer.templates import PROMPTS, Template, load_template
from judge.judges import LLMJudge

log = logging.getLogger(__name__)

PARSE_ATTEMPTS = 3  # one call and two more when the reply cannot be read


@dataclass
class Ask:
    """One question to a judge about one response; filled in by `ask_all`."""

    judge: LLMJudge
    messages: list[dict[str, Any]]
    key: str = ""
    verdict: dict[str, Any] | None = None   # parsed reply, None while unanswered or unparseable
    reply: str | None = None
    error: str | None = None
    tag: Any = field(default=None, compare=False)


def judge_template(judge: LLMJudge, prompts: Path = PROMPTS) -> Template:
    return load_template("judges", judge.prompt, prompts)


def build_ask(judge: LLMJudge, template: Template, rec: dict[str, Any], base: Path, cfg: ModelConfig,
              params: dict[str, Any], literal: dict[str, str], tag: Any = None) -> Ask:
    mode = "image" if judge.sees_images and cfg.accepts_images else "text"
    values = {"gold": ", ".join(rec["answer"]), "response": "", "extracted": "", **literal}
    messages = render_spec(rec, template, base, mode, literal=values)
    return Ask(judge, messages, request_key(messages, params, cfg.model), tag=tag)


class JudgeCache:
    """Judge replies by request key, in results/judge_cache/<judge model>.jsonl.

    Unreadable replies are kept too: a deterministic judge (temperature 0) would only repeat them.
    """

    def __init__(self, path: Path):
        self.path = path
        self.replies = {k: v["reply"] for k, v in load_latest(path, key=lambda r: r["key"], keep=("reply",)).items()}

    def get(self, key: str) -> str | None:
        return self.replies.get(key)

    def put(self, out: AppendLog, key: str, judge: str, reply: str, usage: Any) -> None:
        self.replies[key] = reply
        out.write({"key": key, "judge": judge, "reply": reply, "usage": usage})


def ask_all(asks: list[Ask], cfg: ModelConfig, urls_for: Any, cache_path: Path, params: dict[str, Any]) -> dict[str, int]:
    """Answer every Ask from the cache or the judge model; return call counts.

    `urls_for` is a context manager factory yielding the judge's base URLs (it starts a server only
    when some question is not cached).
    """
    counts = {"cached": 0, "calls": 0, "judge_errors": 0}
    with AppendLog(cache_path) as out:
        cache = JudgeCache(cache_path)
        todo = []
        deterministic = params.get("temperature") == 0
        for a in asks:
            reply = cache.get(a.key)
            if reply is None:
                todo.append(a)
                continue
            a.reply, a.verdict = reply, a.judge.parse(reply)
            if a.verdict is not None:
                counts["cached"] += 1
            elif deterministic:
                a.error = "judge reply could not be parsed"  # a deterministic judge would repeat it
                counts["cached"] += 1
            else:
                todo.append(a)
        if todo:
            with urls_for() as urls:
                asyncio.run(_send(todo, cfg, urls, params, cache, out, counts))
    counts["judge_errors"] = sum(1 for a in asks if a.verdict is None)
    return counts


async def _send(todo: list[Ask], cfg: ModelConfig, urls: list[str], params: dict[str, Any], cache: JudgeCache,
                out: AppendLog, counts: dict[str, int]) -> None:
    client = ChatClient(urls, cfg.api_key(), cfg.concurrency, cfg.connect_timeout, cfg.read_timeout,
                        RetryPolicy(max_retries=cfg.max_retries, backoff_base=cfg.backoff_base))
    for attempt in range(PARSE_ATTEMPTS):
        if not todo:
            return

        repeated: set[int] = set()

        def done(a: Ask, result: dict[str, Any]) -> None:
            counts["calls"] += 1
            if result["error"]:
                a.error = result["error"]
                return
            previous, a.reply = a.reply, result["response"] or ""
            a.verdict = a.judge.parse(a.reply)
            cache.put(out, a.key, a.judge.name, a.reply, result["usage"])
            if a.verdict is None:
                a.error = "judge reply could not be parsed"
                if a.reply == previous:  # a deterministic judge says the same again: asking more cannot help
                    repeated.add(id(a))
            else:
                a.error = None

        await client.run(todo, lambda a: wire_body(cfg, a.messages, params), done)
        todo = [a for a in todo if a.verdict is None and id(a) not in repeated]
        if todo:
            log.warning("%d judge replies unusable (attempt %d of %d)", len(todo), attempt + 1, PARSE_ATTEMPTS)
