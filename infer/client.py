"""One async client for every OpenAI-compatible endpoint (APIs, vLLM, LMDeploy, llama.cpp).

A fixed pool of workers per endpoint pulls requests from a shared queue, so a slow answer holds one
slot and never a batch (refill scheduling). Failures are retried with exponential backoff and jitter,
honouring Retry-After; what still fails is returned as an error with its reason, never dropped.
A failure that is the endpoint's and not the request's (a wrong model name, a refused key, an overloaded
gateway), met by GIVE_UP_AFTER requests in a row, stops the run early with GaveUp: the requests not yet
answered are not sent or retried and have no line, so a rerun sends them.
"""
from __future__ import annotations

import asyncio
import email.utils
import functools
import json
import logging
import random
import re
import time
from dataclasses import dataclass
from typing import Any, Awaitable, Callable, Iterable, Sized

import aiohttp

from infer.config import THINK_MARKERS

log = logging.getLogger(__name__)

RETRY_STATUS = {408, 409, 425, 429, 500, 502, 503, 504}
# Causes that say the endpoint cannot serve any request, unlike a 400 or 413 about one request's content: met by
# GIVE_UP_AFTER finished requests in a row (no success between them), the run stops instead of sending the rest.
GIVE_UP_AFTER = 20
ITEM_CAUSES = ("HTTP 400", "HTTP 413", "HTTP 422", "cannot build the request")


class GaveUp(RuntimeError):
    """A run stopped early: the endpoint failed every one of the last GIVE_UP_AFTER requests the same way."""


class _Abandoned(Exception):
    """A request dropped unanswered, before a retry, because its run gave up: no line is written for it."""


class Streak:
    """Requests failed in a row with the same endpoint-wide cause; `gave_up` once there are GIVE_UP_AFTER."""

    def __init__(self, limit: int = GIVE_UP_AFTER):
        self.limit, self.cause, self.count, self.error = limit, None, 0, ""
        self.gave_up: GaveUp | None = None

    def add(self, result: dict[str, Any]) -> None:
        causes = result.get("attempt_errors") or []
        cause = causes[-1] if result.get("error") and causes else None
        if cause is None or cause in ITEM_CAUSES:
            self.cause, self.count = None, 0
            return
        self.count = self.count + 1 if cause == self.cause else 1
        self.cause, self.error = cause, str(result["error"])[:200]
        if self.count >= self.limit and self.gave_up is None:
            self.gave_up = GaveUp(f"stopped after {self.count} requests in a row failed with {cause} "
                                  f"({self.error}); the requests not answered were not sent, a rerun sends them")
@functools.lru_cache(maxsize=None)
def _reasoning_patterns(markers: tuple[str, str]) -> tuple[re.Pattern, re.Pattern]:
    """A block between the markers (to the end if unclosed), and the text before a lone closing marker: a chat
    template that opens the reply with the opening marker itself (Bee, Qwen3 and R1-style thinking models)
    leaves the completion only the closing one, so what comes before it is the reasoning."""
    start, end = map(re.escape, markers)
    return (re.compile(f"{start}(.*?)(?:{end}|$)", re.S), re.compile(f"\\A((?:(?!{start}).)*?){end}", re.S))


class RetryableError(Exception):
    def __init__(self, message: str, retry_after: float | None = None, cause: str | None = None):
        super().__init__(message)
        self.retry_after = retry_after
        self.cause = cause or message  # short, for counting failures by cause ("HTTP 503", "read timeout")


class FatalError(Exception):
    """A reply that retrying cannot fix (e.g. 400 Bad Request, 401)."""

    def __init__(self, message: str, cause: str | None = None):
        super().__init__(message)
        self.cause = cause or message


def connection_cause(e: BaseException) -> str:
    """What stopped a request before any reply, in a few words: refused, DNS, connect or read timeout."""
    if isinstance(e, aiohttp.ClientConnectorDNSError):
        return "DNS failure"
    if isinstance(e, aiohttp.ClientConnectorCertificateError | aiohttp.ClientSSLError):
        return "TLS error"
    if isinstance(e, aiohttp.ConnectionTimeoutError):
        return "connect timeout"
    if isinstance(e, asyncio.TimeoutError):  # aiohttp's read timeouts are TimeoutErrors too
        return "read timeout"
    if isinstance(e, aiohttp.ClientConnectorError) and isinstance(e.os_error, ConnectionRefusedError):
        return "connection refused"
    if isinstance(e, aiohttp.ServerDisconnectedError):
        return "server disconnected"
    return "connection error"


def parse_retry_after(value: str | None) -> float | None:
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
        return max(0.0, when.timestamp() - time.time())
    except (TypeError, ValueError):
        return None


@dataclass(frozen=True)
class RetryPolicy:
    max_retries: int = 6
    backoff_base: float = 1.0
    backoff_max: float = 60.0
    retry_after_max: float = 600.0

    def delay(self, attempt: int, retry_after: float | None = None) -> float:
        """Seconds to wait after failed attempt number `attempt` (1-based)."""
        if retry_after is not None:
            return min(retry_after, self.retry_after_max)
        # Full jitter: spreads retries of many workers hit by the same outage.
        return random.uniform(0, min(self.backoff_max, self.backoff_base * 2 ** (attempt - 1)))


def split_reasoning(message: dict[str, Any], markers: tuple[str, str] = THINK_MARKERS) -> tuple[str, str | None]:
    """Final text and reasoning: `reasoning_content` / `reasoning` fields, or a block between the model's
    reasoning markers (`<think>` … `</think>` unless its config names others), or the text before a lone
    closing marker."""
    content = message.get("content") or ""
    if isinstance(content, list):  # some servers return content parts
        content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
    reasoning = message.get("reasoning_content") or message.get("reasoning")
    block, close_only = _reasoning_patterns(tuple(markers))
    thought = block.search(content) or close_only.search(content)
    if thought:
        reasoning = (reasoning + "\n" if reasoning else "") + thought.group(1).strip()
        content = (content[: thought.start()] + content[thought.end():]).strip()
    return content, reasoning


def parse_completion(body: dict[str, Any], markers: tuple[str, str] = THINK_MARKERS) -> dict[str, Any]:
    choices = body.get("choices")
    if not choices or not isinstance(choices, list) or not isinstance(choices[0], dict):
        raise RetryableError(f"reply has no choices: {json.dumps(body)[:200]}", cause="reply has no choices")
    choice = choices[0]
    message = choice.get("message") or {}
    response, reasoning = split_reasoning(message, markers)
    usage = body.get("usage") or {}
    details = usage.get("completion_tokens_details") or {}
    return {
        "response": response,
        "reasoning": reasoning,
        "finish_reason": choice.get("finish_reason"),
        "usage": {
            "prompt_tokens": usage.get("prompt_tokens"),
            "completion_tokens": usage.get("completion_tokens"),
            "reasoning_tokens": details.get("reasoning_tokens"),
        },
    }


class ChatClient:
    """Sends chat-completion bodies to one or more endpoints with bounded concurrency and retries."""

    def __init__(
        self,
        base_urls: list[str],
        api_key: str,
        concurrency: int = 16,
        connect_timeout: float = 10.0,
        read_timeout: float = 600.0,
        retry: RetryPolicy = RetryPolicy(),
        secrets: tuple[str, ...] = (),
        markers: tuple[str, str] = THINK_MARKERS,
    ):
        if not base_urls:
            raise ValueError("no endpoint to send requests to")
        self.urls = [u.rstrip("/") + "/chat/completions" for u in base_urls]
        self.headers = {"Authorization": f"Bearer {api_key}", "Content-Type": "application/json"}
        self.concurrency = max(1, concurrency)
        self.timeout = aiohttp.ClientTimeout(total=None, sock_connect=connect_timeout, sock_read=read_timeout)
        self.retry = retry
        self.secrets = tuple(s for s in (api_key, *secrets) if s and s != "EMPTY")
        self.markers = tuple(markers)  # the model's reasoning tags (split_reasoning)
        self.streak = Streak()  # of the current run

    def scrub(self, text: str) -> str:
        """Secrets out of a text, also a secret's beginning cut off at the end of an excerpt."""
        for s in self.secrets:
            text = text.replace(s, "***")
            for k in range(len(s) - 1, 7, -1):
                if text.endswith(s[:k]):
                    text = text[:-k] + "***"
                    break
        return text

    async def _post(self, session: aiohttp.ClientSession, url: str, body: dict[str, Any]) -> dict[str, Any]:
        try:
            async with session.post(url, data=json.dumps(body), headers=self.headers) as resp:
                # scrubbed whole, before any excerpt of it is cut: an endpoint may echo the key back
                text = self.scrub(await resp.text())
                if resp.status != 200:
                    msg, cause = f"HTTP {resp.status}: {text[:300]}", f"HTTP {resp.status}"
                    if resp.status in RETRY_STATUS:
                        raise RetryableError(msg, parse_retry_after(resp.headers.get("Retry-After")), cause)
                    raise FatalError(msg, cause)
        except aiohttp.ConnectionTimeoutError as e:
            raise RetryableError(f"connect timeout after {self.timeout.sock_connect}s", cause="connect timeout") from e
        except asyncio.TimeoutError as e:
            raise RetryableError(f"read timeout after {self.timeout.sock_read}s", cause="read timeout") from e
        except aiohttp.ClientConnectionError as e:
            raise RetryableError(f"connection error: {type(e).__name__}: {e}", cause=connection_cause(e)) from e
        except aiohttp.ClientPayloadError as e:
            raise RetryableError(f"broken reply: {e}", cause="broken reply") from e
        try:
            data = json.loads(text)
        except ValueError:
            raise RetryableError(f"reply is not JSON: {text[:200]!r}", cause="reply not JSON")
        if not isinstance(data, dict):
            raise RetryableError(f"reply is not a JSON object: {text[:200]!r}", cause="reply not JSON")
        return parse_completion(data, self.markers)

    async def complete(self, session: aiohttp.ClientSession, body: dict[str, Any], endpoint: int = 0) -> dict[str, Any]:
        """One request with retries. Returns the parsed completion plus timing, attempts and error.

        `latency_s` is the last attempt alone, request sent → last byte read: the model's answer time that
        the papers report (Think360 Time/s, C²RBench Table 4), free of retries and back-off. `elapsed_s`
        is the whole request, failed attempts and waits between them included.

        A plain loop rather than tenacity's AsyncRetrying: set up per request, tenacity cost a third of
        the client's CPU at high request rates (perf/measure.py), for the same policy.
        """
        start = time.monotonic()
        attempts = 0
        causes: list[str] = []  # of each failed attempt, in order
        while True:
            # A retry moves to the next endpoint, so one dead server does not sink its share.
            url = self.urls[(endpoint + attempts) % len(self.urls)]
            attempts += 1
            sent = time.monotonic()
            try:
                out = await self._post(session, url, body)
                out["error"] = None
                break
            except RetryableError as e:
                causes.append(e.cause)
                if attempts > self.retry.max_retries:
                    out = self._failure(e)
                    break
                if self.streak.gave_up:  # the run stopped: waiting to retry would only delay saying so
                    raise _Abandoned
                await asyncio.sleep(self.retry.delay(attempts, e.retry_after))
            except FatalError as e:
                causes.append(e.cause)
                out = self._failure(e)
                break
        end = time.monotonic()
        out["latency_s"] = round(end - sent, 4)
        out["elapsed_s"] = round(end - start, 4)
        out["attempts"] = attempts
        out["attempt_errors"] = causes
        return out

    def _failure(self, e: Exception) -> dict[str, Any]:
        return {"response": None, "reasoning": None, "finish_reason": None, "usage": None,
                "error": self.scrub(f"{type(e).__name__}: {e}")}

    async def run(
        self,
        items: Iterable[Any],
        make_body: Callable[[Any], dict[str, Any]],
        on_result: Callable[[Any, dict[str, Any]], Awaitable[None] | None],
    ) -> None:
        """Send a request for every item; call `on_result(item, result)` as each finishes.

        Bodies are built by `make_body` only when a worker picks the item up, so a large run never
        holds every encoded request (base64 images) in memory at once.
        """
        pending = iter(items)
        stopped: list[Exception] = []  # what ended a stream of items early (a bad line of the data file it reads)
        self.streak = streak = Streak()
        connector = aiohttp.TCPConnector(limit=0, enable_cleanup_closed=True)
        async with aiohttp.ClientSession(connector=connector, timeout=self.timeout) as session:

            async def worker(endpoint: int) -> None:
                while not stopped and not streak.gave_up:  # a shared iterator: each free worker takes the next item
                    try:
                        item = next(pending)
                    except StopIteration:
                        return
                    except Exception as e:  # no more items; the requests already out finish and are written
                        stopped.append(e)
                        return
                    try:
                        body = make_body(item)
                    except Exception as e:  # one unbuildable request is that item's error, not the run's
                        result = {"response": None, "reasoning": None, "finish_reason": None, "usage": None,
                                  "error": self.scrub(f"cannot build the request: {type(e).__name__}: {e}"),
                                  "latency_s": 0.0, "elapsed_s": 0.0, "attempts": 0,
                                  "attempt_errors": ["cannot build the request"]}
                    else:
                        try:
                            result = await self.complete(session, body, endpoint)
                        except _Abandoned:
                            return
                    streak.add(result)
                    maybe = on_result(item, result)
                    if asyncio.iscoroutine(maybe):
                        await maybe

            # a stream of unknown length (infer.run's plan) gets every worker; a worker that finds it ended stops
            n_workers = self.concurrency * len(self.urls)
            n_workers = min(len(items), n_workers) if isinstance(items, Sized) else n_workers
            await asyncio.gather(*(worker(i % len(self.urls)) for i in range(n_workers)))
        if stopped:
            raise stopped[0]
        if streak.gave_up:
            raise streak.gave_up
