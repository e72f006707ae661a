"""The one way to send requests to a model: by the one client, and written as raw lines to a keyed log.

A model's answers to a benchmark (infer/run.py) and a judge's or an adaptation's replies (infer/ask.py) are
the same kind of thing: a request (infer/request.py) rendered from a template, keyed by the hash of what the
model sees, sent with bounded concurrency and retries, and written as one raw line per outcome to an
append-only log. The log is the cache: a request whose key already has a successful line is not sent again.
"""
from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any, Callable, Iterable, Sized, Union

from infer.client import ChatClient, RetryPolicy
from infer.config import ModelConfig
from infer.launch import Launch, Node, plan_for
from infer.layout import server_log_dir
from infer.preflight import live_urls
from infer.progress import bar as progress_bar
from infer.request import Request, count_outcome, new_stats, raw_line, wire_body
from infer.server import serve

Total = Union[int, Callable[[], int], None]  # a run's number of requests, for its progress bar


async def _send(pending: Iterable[Request], total: Total, cfg: ModelConfig, urls: list[str],
                params: dict[str, Any], write: Callable[[dict[str, Any]], None], label: str) -> dict[str, Any]:
    client = ChatClient(urls, cfg.api_key(), cfg.concurrency, cfg.connect_timeout, cfg.read_timeout,
                        RetryPolicy(max_retries=cfg.max_retries, backoff_base=cfg.backoff_base),
                        markers=cfg.reasoning_markers)
    stats = new_stats()
    start = time.monotonic()
    estimate = total if callable(total) else None
    bar = progress_bar(total=None if estimate else total, desc=label, unit="req", dynamic_ncols=True)

    def on_result(req: Request, result: dict[str, Any]) -> None:
        nonlocal estimate
        if estimate is not None:  # reckoned once the first requests are out, not before them
            bar.total, estimate = estimate(), None
        write(raw_line(req.id, req.sample_idx, req.key, cfg, req.setting, {**params, **(req.extra or {})}, result, req.inputs))
        count_outcome(stats, result)
        bar.update(1)
        bar.set_postfix(done=stats["ok"], failed=stats["failed"],
                        tok_s=f"{stats['tokens'] / max(time.monotonic() - start, 1e-9):.1f}", refresh=False)

    try:
        await client.run(pending, lambda req: wire_body(cfg, req.messages(), {**params, **(req.extra or {})}), on_result)
    finally:
        bar.total = bar.n  # an estimate until the plan was through (infer.run.expected_requests)
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


def send(pending: Iterable[Request], cfg: ModelConfig, params: dict[str, Any], write: Callable[[dict[str, Any]], None],
         results: Path, label: str, node: Node | None = None, urls: list[str] | None = None,
         total: Total = None) -> dict[str, Any]:
    """Send every request (starting the model's servers on the node's GPUs if its config says how, for as
    long as it takes) and `write` one raw line per outcome (to the run's AppendLog); return counts of ok,
    failed (and by cause: `causes`) and generated tokens.

    The endpoints a config gives are checked first unless `urls` gives those already found answering
    (`checked_endpoints`).

    `pending` may be a stream (infer.run plans while the first requests are out), sent as it comes when the
    endpoints are given; `total` is then about how many it holds, for the progress bar (a function: reckoned
    once the first requests are out). An offline engine and a
    server started here need every request first (a batch; the server's settings)."""
    if cfg.engine != "http" or cfg.launches_server:
        pending = list(pending)
        total = len(pending)
    elif total is None:
        total = len(pending) if isinstance(pending, Sized) else None
    if isinstance(pending, Sized) and not pending:
        return new_stats()
    if cfg.engine != "http":
        from infer.engines import send_offline  # builds on this module; imports an engine only when asked
        return send_offline(pending, cfg, params, write, node)
    if not cfg.launches_server:
        return asyncio.run(_send(pending, total, cfg, urls or live_urls(cfg), params, write, label))
    with serve(cfg, server_log_dir(results), servers(pending, cfg, params, node)) as started:
        return asyncio.run(_send(pending, total, cfg, started, params, write, label))
