"""The one way to call a model: keyed requests sent by the one client and appended to a keyed log.

A model's answers to a benchmark (infer/run.py) and a judge's replies (judge/run.py) are the same kind of
thing: a request rendered from a template, keyed by the hash of what the model sees, sent with bounded
concurrency and retries, and written as one raw line per outcome to an append-only log. The log is the
cache: a request whose key already has a successful line is not sent again.
"""
from __future__ import annotations

import asyncio
import hashlib
import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from tqdm import tqdm

from infer.client import ChatClient, RetryPolicy
from infer.config import ModelConfig
from infer.image_placeholder import PARAM as PLACEHOLDER, place_images, without_placeholder
from infer.launch import Launch, Node, plan_for
from infer.layout import server_log_dir
from infer.preflight import live_urls
from infer.render import to_wire
from infer.server import serve
from infer.system_prompt import without_sha


@dataclass(frozen=True, slots=True)  # slots, and no dict of its own unless `extra`: a large run holds 100,000s
class Request:
    """One request: the item and sample it answers, its key, and how to render its messages (rendered
    again when sent, so a large run never holds every prompt at once)."""

    id: str
    sample_idx: int
    key: str
    messages: Callable[[], list[dict[str, Any]]]
    setting: str = ""  # the raw line's `setting` (a judge call: the judge stage's prompt)
    extra: dict[str, Any] | None = None  # body fields of this request alone (a reply grammar)
    inputs: str | None = None  # what the request was made from (infer/resume.py), for the raw line


def request_key(messages: list[dict[str, Any]], params: dict[str, Any], model: str) -> str:
    """Hash of what the model sees: messages (images by content hash) as they are sent, placed for the
    config's image placeholder (infer/image_placeholder.py), generation params, model. The placeholder is
    hashed only as the messages hold it: a request its placement leaves as it was keeps its key."""
    messages = place_images(messages, params.get(PLACEHOLDER))
    params = without_placeholder(params)

    def strip(m: dict[str, Any]) -> dict[str, Any]:
        if isinstance(m["content"], list):
            return {**m, "content": [{"type": "image", "sha": p["sha"]} if p["type"] == "image_ref" else p for p in m["content"]]}
        return m

    blob = json.dumps({"model": model, "params": params, "messages": [strip(m) for m in messages]},
                      sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(blob.encode()).hexdigest()[:24]


def sent_messages(cfg: ModelConfig, messages: list[dict[str, Any]], params: dict[str, Any]) -> list[dict[str, Any]]:
    """The messages a request sends, images still as references: the model's system prompt first, and the
    images placed as the parameters' image placeholder asks (the form its key hashes)."""
    return cfg.with_system(place_images(messages, params.get(PLACEHOLDER)))


def request_fields(params: dict[str, Any]) -> dict[str, Any]:
    """The parameters sent as request fields: all but those the key alone carries (the system prompt's
    hash, the image placeholder)."""
    return without_placeholder(without_sha(params))


def wire_body(cfg: ModelConfig, messages: list[dict[str, Any]], params: dict[str, Any]) -> dict[str, Any]:
    """The request as the endpoint expects it: `sent_messages`, images encoded (or as file URLs, for a
    server the harness started here that reads them itself), the token limit under its field name."""
    as_files = cfg.images_as_files and cfg.launches_server
    body = {"model": cfg.model, "messages": to_wire(sent_messages(cfg, messages, params), cfg.max_image_pixels, as_files),
            **request_fields(params)}
    if cfg.token_limit_field != "max_tokens" and "max_tokens" in body:
        body[cfg.token_limit_field] = body.pop("max_tokens")
    return body


def raw_line(req_id: str, sample_idx: int, key: str, cfg: ModelConfig, setting: str,
             params: dict[str, Any], result: dict[str, Any], inputs: str | None = None) -> dict[str, Any]:
    """One request's outcome. The fields a rerun reads come first, `error` included, so that reading which
    requests are done needs only the start of each line (infer/resume.py); `inputs` only when known."""
    head = {"id": req_id, "sample_idx": sample_idx, "request_key": key}
    if inputs is not None:
        head["inputs"] = inputs
    return {**head, "error": result.get("error"), "model": cfg.name, "setting": setting, "params": params,
            **result, "created": time.strftime("%Y-%m-%dT%H:%M:%S%z")}


def failure(reason: str) -> dict[str, Any]:
    """The result of a request that could not be made (an item that cannot be rendered)."""
    return {"response": None, "reasoning": None, "finish_reason": None, "usage": None, "error": reason,
            "latency_s": 0.0, "elapsed_s": 0.0, "attempts": 0, "attempt_errors": []}


def failure_cause(result: dict[str, Any]) -> str:
    """A failed request's cause in a few words, with its attempts: "HTTP 500 after 7 attempts"."""
    causes = result.get("attempt_errors") or [str(result.get("error")).split(":")[0]]
    attempts = result.get("attempts") or 0
    return f"{causes[-1]} after {attempts} attempts" if attempts > 1 else causes[-1]


def count_outcome(stats: dict[str, Any], result: dict[str, Any]) -> None:
    """Count one request's outcome into a run's `stats` (ok, failed, tokens and failures by cause)."""
    if result["error"]:
        stats["failed"] += 1
        cause = failure_cause(result)
        stats["causes"][cause] = stats["causes"].get(cause, 0) + 1
    else:
        stats["ok"] += 1
    stats["tokens"] += ((result.get("usage") or {}).get("completion_tokens") or 0)


def new_stats() -> dict[str, Any]:
    return {"ok": 0, "failed": 0, "tokens": 0, "causes": {}}


def describe_causes(causes: dict[str, int]) -> str:
    """Failures by cause, the most frequent first: "2 × HTTP 500 after 7 attempts, 1 × read timeout"."""
    return ", ".join(f"{n} × {cause}" for cause, n in sorted(causes.items(), key=lambda kv: (-kv[1], kv[0])))


async def _send(pending: list[Request], cfg: ModelConfig, urls: list[str], params: dict[str, Any],
                write: Callable[[dict[str, Any]], None], label: str) -> dict[str, Any]:
    client = ChatClient(urls, cfg.api_key(), cfg.concurrency, cfg.connect_timeout, cfg.read_timeout,
                        RetryPolicy(max_retries=cfg.max_retries, backoff_base=cfg.backoff_base))
    stats = new_stats()
    start = time.monotonic()
    bar = tqdm(total=len(pending), desc=label, unit="req", dynamic_ncols=True)

    def on_result(req: Request, result: dict[str, Any]) -> None:
        write(raw_line(req.id, req.sample_idx, req.key, cfg, req.setting, {**params, **(req.extra or {})}, result, req.inputs))
        count_outcome(stats, result)
        bar.update(1)
        bar.set_postfix(done=stats["ok"], failed=stats["failed"],
                        tok_s=f"{stats['tokens'] / max(time.monotonic() - start, 1e-9):.1f}")

    try:
        await client.run(pending, lambda req: wire_body(cfg, req.messages(), {**params, **(req.extra or {})}), on_result)
    finally:
        bar.close()
    return stats


def servers(pending: list[Request], cfg: ModelConfig, params: dict[str, Any], node: Node | None = None) -> list[Launch]:
    """The servers a run's pending requests need started ([] if the config gives its endpoints)."""
    if not cfg.launches_server or not pending:
        return []
    return plan_for(cfg, (cfg.with_system(r.messages()) for r in pending), params.get("max_tokens") or cfg.max_tokens,
                    node)


def checked_endpoints(cfg: ModelConfig) -> list[str] | None:
    """The endpoints a config gives that answer (infer/preflight.py), found before the first request of a
    run; None where there is nothing to check: a server the run starts is checked as it starts, an
    offline engine has no endpoint."""
    return live_urls(cfg) if cfg.engine == "http" and not cfg.launches_server else None


def send(pending: list[Request], cfg: ModelConfig, params: dict[str, Any], write: Callable[[dict[str, Any]], None],
         results: Path, label: str, node: Node | None = None, urls: list[str] | None = None) -> dict[str, Any]:
    """Send every request (starting the model's servers on the node's GPUs if its config says how, for as
    long as it takes) and `write` one raw line per outcome (to the run's AppendLog); return counts of ok,
    failed (and by cause: `causes`) and generated tokens.

    The endpoints a config gives are checked first unless `urls` gives those already found answering
    (`checked_endpoints`)."""
    if not pending:
        return new_stats()
    if cfg.engine != "http":
        from infer.engines import send_offline  # builds on this module; imports an engine only when asked
        return send_offline(pending, cfg, params, write, node)
    if not cfg.launches_server:
        return asyncio.run(_send(pending, cfg, urls or live_urls(cfg), params, write, label))
    with serve(cfg, server_log_dir(results), servers(pending, cfg, params, node)) as started:
        return asyncio.run(_send(pending, cfg, started, params, write, label))
