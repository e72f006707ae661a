"""Before the first request: does each endpoint of a model answer? A dead one is named in seconds, not
found out after every request has been tried `max_retries` times.

Each base URL is asked `GET <base>/models` (or, for a config that says how its server is started, the
server's health path), with a short connect timeout. A reply other than 2xx is asked once more, as a
chat completion with an empty body: a server that checks keys refuses it with 401/403 before reading it,
any other server with 400/422, and no model generates anything (some APIs refuse `/models` to keys their
chat endpoint takes). Servers the harness starts are checked by infer/server.py while they start, and
offline engines have no URL: neither comes here.
"""
from __future__ import annotations

import asyncio
import logging
from urllib.parse import urlsplit

import aiohttp

from infer.client import connection_cause
from infer.config import ConfigError, ModelConfig

log = logging.getLogger(__name__)
CONNECT_TIMEOUT = 5.0   # seconds, at most (a config's shorter connect_timeout wins)
REPLY_TIMEOUT = 10.0    # seconds for the whole check of one URL, at most (a shorter read_timeout wins)
DOWN_STATUS = {502, 503, 504}  # a gateway or server saying it cannot serve


class EndpointDown(ConfigError):
    """No endpoint of a model answers; the message is one line naming each URL and its cause."""

    def __init__(self, message: str, model: str):
        super().__init__(message)
        self.model = model


def probe_url(cfg: ModelConfig, base: str) -> str:
    """What to ask first: the health path of the config's server (relative to the server's root, the base URL
    without its trailing /v1) or the OpenAI-compatible `/models`."""
    base = base.rstrip("/")
    if cfg.server is not None:
        root = base[: -len("/v1")] if base.endswith("/v1") else "{0.scheme}://{0.netloc}".format(urlsplit(base))
        return root + cfg.server.health
    return base + "/models"


def _refused_key(cfg: ModelConfig, status: int) -> str:
    if cfg.api_key_env:
        return f"HTTP {status}: the key was refused (check the environment variable {cfg.api_key_env})"
    return f"HTTP {status}: the endpoint wants a key (name its environment variable as api_key_env in " \
           f"{cfg.path or 'the model config'})"


async def _check(session: aiohttp.ClientSession, cfg: ModelConfig, base: str, headers: dict[str, str]) -> str | None:
    """None if `base` answers, else its cause in a few words."""
    try:
        async with session.get(probe_url(cfg, base), headers=headers) as resp:
            first = resp.status
        if 200 <= first < 300:
            return None
        async with session.post(base.rstrip("/") + "/chat/completions", json={}, headers=headers) as resp:
            second = resp.status
    except (aiohttp.ClientError, asyncio.TimeoutError) as e:
        cause = connection_cause(e)
        if cause == "connect timeout":
            return f"connect timeout: no connection within {_connect(cfg):g} s"
        if cause == "read timeout":
            return f"timeout: no reply within {_reply(cfg):g} s"
        if cause == "DNS failure":
            return f"DNS failure: cannot resolve {urlsplit(base).hostname}"
        return cause if cause != "connection error" else f"connection error: {type(e).__name__}: {e}"
    if second in (401, 403):
        return _refused_key(cfg, second)
    if second in DOWN_STATUS:
        return f"HTTP {second}"
    if second == 404 and first == 404:
        return "HTTP 404: no OpenAI-compatible API at this URL (check the base URL, usually ending in /v1)"
    return None


def _connect(cfg: ModelConfig) -> float:
    return min(cfg.connect_timeout, CONNECT_TIMEOUT)


def _reply(cfg: ModelConfig) -> float:
    return min(cfg.read_timeout, REPLY_TIMEOUT)


async def _check_all(cfg: ModelConfig, urls: list[str], key: str) -> list[str | None]:
    timeout = aiohttp.ClientTimeout(total=_reply(cfg), sock_connect=_connect(cfg))
    headers = {"Authorization": f"Bearer {key}"}
    async with aiohttp.ClientSession(timeout=timeout) as session:
        return await asyncio.gather(*(_check(session, cfg, u, headers) for u in urls))


def live_urls(cfg: ModelConfig) -> list[str]:
    """The base URLs of `cfg` that answer, in the config's order; those that do not are named in a warning.
    None answering: EndpointDown, naming each URL and why."""
    key = cfg.api_key()  # an unset key is its own error, before anything is asked
    urls = list(dict.fromkeys(cfg.base_urls))
    causes = dict(zip(urls, asyncio.run(_check_all(cfg, urls, key))))
    live = [u for u in cfg.base_urls if causes[u] is None]
    dead = "; ".join(f"{u} ({cause})" for u, cause in causes.items() if cause)
    if not live:
        where = f" (model config {cfg.path})" if cfg.path else ""
        raise EndpointDown(f"no endpoint of model {cfg.name} answers: {dead}; nothing was sent{where}", cfg.name)
    if dead:
        log.warning("%s: %d of %d endpoints do not answer and are left out of this run: %s", cfg.name,
                    len(cfg.base_urls) - len(live), len(cfg.base_urls), dead)
    return live
