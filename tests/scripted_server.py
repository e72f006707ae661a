"""Scripted local OpenAI-compatible server: a test double for fault injection and exact output.

aiohttp runs in a background thread with its own event loop, so synchronous tests (and code
under test that calls ``asyncio.run`` itself) can talk to it over real HTTP::

    def script(body: dict, attempt: int) -> Reply | None:   # None -> default echo reply
        return Reply.error(429, headers={"Retry-After": "0"}) if attempt <= 2 else None

    with ScriptedServer(script=script, latency=0.0) as srv:  # or srv.start() / srv.stop()
        run_client(base_url=srv.base_url)                    # "http://127.0.0.1:<port>/v1"
        assert srv.count == 3 and srv.requests[0]["model"] == "m"

``script`` is a callable ``(request_body, attempt)`` (``attempt``: 1-based count of requests
with this exact body) or a list of ``Reply`` consumed in order, then the default reply:
``"ECHO: " + last user message text`` (image parts as ``<image>``), ``n`` choices, word-count
usage. ``latency`` (seconds, or ``callable(body) -> seconds``) is slept before every reply, so
hundreds of requests can be in flight; ``max_in_flight`` is their peak. ``request_times`` holds
``time.monotonic()`` arrivals. ``down()`` refuses connections (and drops open ones), ``up()``
listens again on the same port. ``models_status`` is the status ``GET /v1/models`` answers (200, with
the model list; another: an OpenAI error). The ``scripted_server`` fixture is a factory of started
servers, stopped at teardown (import it into a test module or conftest to use it).
"""
from __future__ import annotations

import asyncio
import json
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Optional, Union

import pytest
from aiohttp import web

Script = Union[Callable[[dict, int], Optional["Reply"]], list]
Latency = Union[float, Callable[[dict], float]]


@dataclass
class Reply:
    """One scripted answer; build it with the constructors below."""

    kind: str = "echo"  # echo | ok | error | delay | malformed | no_choices | reset
    content: Optional[str] = None
    reasoning_content: Optional[str] = None
    finish_reason: str = "stop"
    usage: Optional[dict] = None
    status: int = 200
    body: Any = None
    headers: dict = field(default_factory=dict)
    seconds: float = 0.0
    then: Optional["Reply"] = None

    @classmethod
    def echo(cls) -> "Reply":
        """The default reply (echo of the last user message)."""
        return cls("echo")

    @classmethod
    def ok(cls, content: str = "", reasoning_content: Optional[str] = None,
           finish_reason: str = "stop", usage: Optional[dict] = None) -> "Reply":
        return cls("ok", content=content, reasoning_content=reasoning_content,
                   finish_reason=finish_reason, usage=usage)

    @classmethod
    def error(cls, status: int, body: Any = None, headers: Optional[dict] = None) -> "Reply":
        """``body``: dict/list (sent as JSON), str (sent verbatim) or None (OpenAI error JSON)."""
        return cls("error", status=status, body=body, headers=dict(headers or {}))

    @classmethod
    def delay(cls, seconds: float, then: Optional["Reply"] = None) -> "Reply":
        return cls("delay", seconds=seconds, then=then or cls.echo())

    @classmethod
    def malformed(cls) -> "Reply":
        """Status 200, but the body is not JSON."""
        return cls("malformed")

    @classmethod
    def no_choices(cls) -> "Reply":
        """Status 200 chat.completion JSON without ``choices``."""
        return cls("no_choices")

    @classmethod
    def reset(cls) -> "Reply":
        """Send headers claiming a 1000-byte body, a few bytes of it, then abort the socket."""
        return cls("reset")


def message_text(content: Any) -> str:
    """Text of a message ``content``: a string, or text parts joined with images as <image>."""
    if isinstance(content, list):
        return " ".join(p.get("text", "") if p.get("type") == "text" else "<image>"
                        for p in content if isinstance(p, dict))
    return "" if content is None else str(content)


class ScriptedServer:
    """See the module docstring. Usable as a context manager or via start()/stop()."""

    def __init__(self, script: Optional[Script] = None, latency: Latency = 0.0,
                 model_id: str = "scripted-model", host: str = "127.0.0.1", port: int = 0) -> None:
        self._lock = threading.Lock()
        self.script, self.latency, self.model_id = script, latency, model_id
        self.host, self.port = host, port
        self.requests: list[dict] = []
        self.request_times: list[float] = []
        self.in_flight = self.max_in_flight = 0
        self.models_status = 200
        self._seen: dict[str, int] = {}
        self._loop: Optional[asyncio.AbstractEventLoop] = None
        self._thread: Optional[threading.Thread] = None
        self._runner: Optional[web.AppRunner] = None
        self._server: Optional[asyncio.base_events.Server] = None

    @property
    def script(self) -> Optional[Script]:
        return self._script

    @script.setter
    def script(self, script: Optional[Script]) -> None:
        """Replace the script (a list is consumed afresh); attempt counts are kept."""
        with self._lock:
            self._script = script
            self._queue = deque(script) if isinstance(script, list) else None

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

    @property
    def count(self) -> int:
        with self._lock:
            return len(self.requests)

    def start(self) -> "ScriptedServer":
        ready = threading.Event()
        self._loop = asyncio.new_event_loop()

        def run() -> None:
            asyncio.set_event_loop(self._loop)
            self._loop.call_soon(ready.set)
            self._loop.run_forever()

        self._thread = threading.Thread(target=run, name="scripted-server", daemon=True)
        self._thread.start()
        ready.wait()
        self._call(self._astart())
        return self

    def stop(self) -> None:
        if self._loop is None:
            return
        self._call(self._astop())
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)
        self._loop.close()
        self._loop = None

    def down(self) -> None:
        """Stop listening and drop open connections: new connections are refused."""
        self._call(self._adown())

    def up(self) -> None:
        """Listen again on the same port."""
        self._call(self._listen())

    def __enter__(self) -> "ScriptedServer":
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def _call(self, coro: Any) -> Any:
        if threading.current_thread() is self._thread:  # called from a script: don't block
            return asyncio.ensure_future(coro)
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result(30)

    async def _astart(self) -> None:
        app = web.Application()
        app.router.add_get("/v1/models", self._models)
        app.router.add_post("/v1/chat/completions", self._chat)
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=0.5)
        await self._runner.setup()
        await self._listen()

    async def _listen(self) -> None:
        if self._server is None:
            self._server = await self._loop.create_server(
                self._runner.server, self.host, self.port, reuse_address=True, backlog=1024)
            self.port = self._server.sockets[0].getsockname()[1]

    async def _adown(self) -> None:
        if self._server is not None:
            self._server.close()
            self._server = None
        for handler in list(self._runner.server.connections):
            if handler.transport is not None:
                handler.transport.abort()

    async def _astop(self) -> None:
        await self._adown()
        await self._runner.cleanup()
        tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        for task in tasks:  # handlers still sleeping in a Reply.delay
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def _models(self, request: web.Request) -> web.Response:
        if self.models_status != 200:
            return web.json_response({"error": {"message": "scripted", "code": self.models_status}},
                                     status=self.models_status)
        return web.json_response({"object": "list", "data": [
            {"id": self.model_id, "object": "model", "created": 0, "owned_by": "scripted"}]})

    def _pick(self, body: dict) -> Reply:
        key = json.dumps(body, sort_keys=True)
        with self._lock:
            self._seen[key] = attempt = self._seen.get(key, 0) + 1
            if self._queue is not None:
                return self._queue.popleft() if self._queue else Reply.echo()
            script = self._script
        reply = script(body, attempt) if callable(script) else None
        return reply or Reply.echo()

    async def _chat(self, request: web.Request) -> web.StreamResponse:
        raw = await request.read()
        try:
            body = json.loads(raw)
        except ValueError:
            body = {"_raw": raw.decode("utf-8", "replace")}
        with self._lock:
            self.requests.append(body)
            self.request_times.append(time.monotonic())
            number = len(self.requests)
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            reply = self._pick(body)
            latency = self.latency(body) if callable(self.latency) else self.latency
            if latency:
                await asyncio.sleep(latency)
            return await self._respond(request, body, reply, number)
        finally:
            with self._lock:
                self.in_flight -= 1

    async def _respond(self, request: web.Request, body: dict, reply: Reply,
                       number: int) -> web.StreamResponse:
        while reply.kind == "delay":
            await asyncio.sleep(reply.seconds)
            reply = reply.then
        if reply.kind == "error":
            payload = reply.body if reply.body is not None else {"error": {
                "message": f"scripted error {reply.status}", "type": "scripted_error",
                "code": reply.status}}
            text = payload if isinstance(payload, str) else json.dumps(payload)
            return web.Response(status=reply.status, text=text, headers=reply.headers,
                                content_type="application/json")
        if reply.kind == "malformed":
            return web.Response(text='{"id": "x", "choices": [ this is not json',
                                content_type="application/json")
        if reply.kind == "reset":
            resp = web.StreamResponse(headers={"Content-Type": "application/json"})
            resp.content_length = 1000
            await resp.prepare(request)
            await resp.write(b'{"id": "chatcmpl-reset", "choi')
            request.transport.abort()
            return resp
        result = self.completion(body, reply, number)
        if reply.kind == "no_choices":
            del result["choices"]
        return web.json_response(result)

    def completion(self, body: dict, reply: Reply, number: int = 0) -> dict:
        """The chat.completion JSON for an ``echo``/``ok`` (or ``no_choices``) reply."""
        messages = body.get("messages") or []
        if reply.kind == "ok":
            content = reply.content
        else:
            users = [m for m in messages if isinstance(m, dict) and m.get("role") == "user"]
            content = "ECHO: " + (message_text(users[-1].get("content")) if users else "")
        n = int(body.get("n") or 1)
        message: dict[str, Any] = {"role": "assistant", "content": content}
        if reply.reasoning_content is not None:
            message["reasoning_content"] = reply.reasoning_content
        usage = reply.usage
        if usage is None:
            prompt = sum(len(message_text(m.get("content")).split()) for m in messages
                         if isinstance(m, dict))
            completion = n * len(f"{content or ''} {reply.reasoning_content or ''}".split())
            usage = {"prompt_tokens": prompt, "completion_tokens": completion,
                     "total_tokens": prompt + completion}
        return {"id": f"chatcmpl-scripted-{number}", "object": "chat.completion",
                "created": int(time.time()), "model": body.get("model", self.model_id),
                "choices": [{"index": i, "message": dict(message), "logprobs": None,
                             "finish_reason": reply.finish_reason} for i in range(n)],
                "usage": usage}


@pytest.fixture
def scripted_server() -> Iterator[Callable[..., ScriptedServer]]:
    """Factory fixture: ``srv = scripted_server(script=..., latency=...)``; stopped at teardown."""
    servers: list[ScriptedServer] = []

    def make(**kwargs: Any) -> ScriptedServer:
        servers.append(ScriptedServer(**kwargs).start())
        return servers[-1]

    yield make
    for srv in servers:
        srv.stop()
