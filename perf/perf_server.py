"""The benchmark's local OpenAI-compatible server (its own process) and the load generators that drive it.

The server answers POST /v1/chat/completions after sleeping `bench_latency` seconds (a field of the
request body, default 0) with a fixed chat.completion of `bench_chars` characters (default 200), and
GET /stats with its request count and its own CPU time, so a benchmark can show how busy it was.

Drivers (all return one (start, end) time.monotonic() span per request):
  drive_raw        a bare aiohttp loop posting the same pre-encoded JSON body (the baseline)
  drive_chatclient infer.client.ChatClient.run, one endpoint, ChatClient(concurrency=c)
  drive_openai     openai.AsyncOpenAI with a pool of c workers (for comparison)
"""
from __future__ import annotations

import asyncio
import heapq
import json
import multiprocessing as mp
import time
import urllib.request
from typing import Any

HEADERS = {"Authorization": "Bearer EMPTY", "Content-Type": "application/json"}
PROMPT = ("Please reason step by step, and then provide the final answer in the exact format: \"\\boxed{ANSWER}\".\n\n"
          "[Question]\nA cyclist rides 12 km north and then 5 km east. How far is she from her starting point, "
          "in kilometres? Give the exact value.\nLet's think step-by-step!")


def request_body(latency: float, chars: int = 200) -> dict[str, Any]:
    """The chat body every driver sends (the bench_* fields steer the server)."""
    return {"model": "bench", "messages": [{"role": "user", "content": PROMPT}], "max_tokens": 512,
            "temperature": 0.0, "bench_latency": latency, "bench_chars": chars}


# ----------------------------------------------------------------------------------------- server


def _reply(chars: int) -> bytes:
    text = ("By Pythagoras the distance is sqrt(12^2 + 5^2) = sqrt(169) = 13 km. " * (chars // 60 + 1))[:chars]
    return json.dumps({
        "id": "chatcmpl-bench", "object": "chat.completion", "created": 0, "model": "bench",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text + " \\boxed{13}"},
                     "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 60, "completion_tokens": chars // 4, "total_tokens": 60 + chars // 4},
    }).encode()


def _serve(conn: Any) -> None:  # runs in the server process
    import socket

    from aiohttp import web

    count = 0
    replies: dict[int, bytes] = {}

    async def chat(request: web.Request) -> web.Response:
        nonlocal count
        body = json.loads(await request.read())
        latency = body.get("bench_latency") or 0
        if latency > 0:
            await asyncio.sleep(latency)
        chars = int(body.get("bench_chars", 200))
        if chars not in replies:
            replies[chars] = _reply(chars)
        count += 1
        return web.Response(body=replies[chars], content_type="application/json")

    async def stats(request: web.Request) -> web.Response:
        return web.json_response({"count": count, "cpu": time.process_time()})

    async def main() -> None:
        app = web.Application(client_max_size=64 * 2**20)
        app.router.add_post("/v1/chat/completions", chat)
        app.router.add_get("/stats", stats)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        await web.SockSite(runner, sock, backlog=4096).start()  # 256 connections opened at once
        conn.send(sock.getsockname()[1])
        await asyncio.Event().wait()

    asyncio.run(main())


class Server:
    """The server in a separate process (multiprocessing, spawn): `with Server() as srv: srv.base_url`."""

    def __enter__(self) -> "Server":
        ctx = mp.get_context("spawn")
        parent, child = ctx.Pipe()
        self.proc = ctx.Process(target=_serve, args=(child,), daemon=True, name="perf-server")
        self.proc.start()
        if not parent.poll(60):
            self.proc.terminate()
            raise RuntimeError("benchmark server did not start within 60 s")
        self.port = parent.recv()
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        return self

    def stats(self) -> dict[str, float]:
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/stats", timeout=10) as r:
            return json.loads(r.read())

    def __exit__(self, *exc: object) -> None:
        self.proc.terminate()
        self.proc.join(10)


# ----------------------------------------------------------------------------------------- drivers


async def drive_raw(base_url: str, bodies: list[dict[str, Any]], c: int) -> list[tuple[float, float]]:
    """The baseline: a bare loop posting the same JSON body (bodies[0], pre-encoded) with c in flight."""
    import aiohttp

    url, data = base_url + "/chat/completions", json.dumps(bodies[0]).encode()
    spans: list[tuple[float, float]] = []
    todo = iter(range(len(bodies)))
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as session:
        async def worker() -> None:
            for _ in todo:
                start = time.monotonic()
                async with session.post(url, data=data, headers=HEADERS) as resp:
                    await resp.read()
                    if resp.status != 200:
                        raise RuntimeError(f"raw generator got HTTP {resp.status}")
                spans.append((start, time.monotonic()))
        await asyncio.gather(*(worker() for _ in range(min(c, len(bodies)))))
    return spans


async def drive_chatclient(base_url: str, bodies: list[dict[str, Any]], c: int,
                           client_class: Any = None) -> list[tuple[float, float]]:
    """infer.client.ChatClient.run over the bodies; make_body marks when a worker picks an item up."""
    from infer.client import ChatClient

    starts: dict[int, float] = {}
    spans: list[tuple[float, float]] = []
    errors: list[str] = []

    def make_body(i: int) -> dict[str, Any]:
        starts[i] = time.monotonic()
        return bodies[i]

    def on_result(i: int, result: dict[str, Any]) -> None:
        spans.append((starts.pop(i), time.monotonic()))
        if result["error"]:
            errors.append(result["error"])

    await (client_class or ChatClient)([base_url], "EMPTY", concurrency=c).run(list(range(len(bodies))), make_body, on_result)
    if errors:
        raise RuntimeError(f"ChatClient: {len(errors)} errors, e.g. {errors[0]}")
    return spans


async def drive_openai(base_url: str, bodies: list[dict[str, Any]], c: int) -> list[tuple[float, float]]:
    """openai.AsyncOpenAI, c workers sharing one iterator (the same refill pattern as ChatClient)."""
    from openai import AsyncOpenAI

    client = AsyncOpenAI(base_url=base_url, api_key="EMPTY", max_retries=0)
    spans: list[tuple[float, float]] = []
    todo = iter(bodies)

    async def worker() -> None:
        for b in todo:
            start = time.monotonic()
            extra = {k: v for k, v in b.items() if k.startswith("bench_")}
            await client.chat.completions.create(model=b["model"], messages=b["messages"], max_tokens=b["max_tokens"],
                                                 temperature=b["temperature"], extra_body=extra)
            spans.append((start, time.monotonic()))

    try:
        await asyncio.gather(*(worker() for _ in range(min(c, len(bodies)))))
    finally:
        await client.close()
    return spans


DRIVERS = {"raw": drive_raw, "chatclient": drive_chatclient, "openai": drive_openai}


def measure(server: Server, driver: str, bodies: list[dict[str, Any]], c: int) -> dict[str, Any]:
    """One run of a driver in this process: spans, client CPU per request, server CPU share."""
    s0, cpu0, w0 = server.stats(), time.process_time(), time.perf_counter()
    spans = asyncio.run(DRIVERS[driver](server.base_url, bodies, c))
    cpu, wall, s1 = time.process_time() - cpu0, time.perf_counter() - w0, server.stats()
    served = s1["count"] - s0["count"]
    return {"spans": spans, "n": len(spans), "wall_s": wall, "cpu_per_req_ms": 1e3 * cpu / len(spans),
            "server_cpu_per_req_ms": 1e3 * (s1["cpu"] - s0["cpu"]) / max(served, 1),
            "server_busy": (s1["cpu"] - s0["cpu"]) / wall}


# ----------------------------------------------------------------------------------------- figures


def window_rate(spans: list[tuple[float, float]], lead: float, tail: float) -> float:
    """Steady-state completions/s in [first start + lead, last end - tail].

    Each request counts with the fraction of its own span inside the window, so a window edge that
    cuts a burst of completions, or a 10 s request, does not make the figure jump by whole requests.
    """
    a = min(s for s, _ in spans) + lead
    b = max(e for _, e in spans) - tail
    if b <= a:
        raise ValueError("run too short for its steady-state window")
    done = sum((min(e, b) - max(s, a)) / (e - s) for s, e in spans if e > s and e > a and s < b)
    return done / (b - a)


def ideal_refill(latencies: list[float], c: int) -> list[tuple[float, float]]:
    """Spans of the same requests under ideal refill scheduling: c workers, zero overhead."""
    free = [0.0] * c
    spans = []
    for lat in latencies:
        t = heapq.heappop(free)
        spans.append((t, t + lat))
        heapq.heappush(free, t + lat)
    return spans
