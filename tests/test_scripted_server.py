"""Checks of the scripted test server itself, using plain urllib / aiohttp clients."""
from __future__ import annotations

import asyncio
import http.client
import json
import time
import urllib.error
import urllib.request
from typing import Any, Optional

import aiohttp
import pytest

from tests.scripted_server import Reply, ScriptedServer, scripted_server  # noqa: F401 (fixture)


def chat_body(text: str = "hello world", **extra: Any) -> dict:
    return {"model": "test-model", "messages": [{"role": "user", "content": text}], **extra}


def post(srv: ScriptedServer, body: Optional[dict] = None,
         timeout: float = 5.0) -> tuple[int, dict, bytes]:
    """POST a chat completion; return (status, headers, raw body) also for HTTP errors."""
    req = urllib.request.Request(srv.base_url + "/chat/completions",
                                 data=json.dumps(body or chat_body()).encode(),
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            return resp.status, dict(resp.headers), resp.read()
    except urllib.error.HTTPError as err:
        return err.code, dict(err.headers), err.read()


def test_models_health_check(scripted_server) -> None:
    srv = scripted_server(model_id="m1")
    with urllib.request.urlopen(srv.base_url + "/models", timeout=5) as resp:
        data = json.load(resp)
    assert [m["id"] for m in data["data"]] == ["m1"]
    assert srv.count == 0


def test_default_echo_with_parts_and_usage() -> None:
    content = [{"type": "text", "text": "what is"},
               {"type": "image_url", "image_url": {"url": "data:image/png;base64,AA=="}},
               {"type": "text", "text": "this?"}]
    body = {"model": "my-model", "messages": [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "first question"},
        {"role": "assistant", "content": "ok"},
        {"role": "user", "content": content}]}
    with ScriptedServer() as srv:
        status, _, raw = post(srv, body)
        assert srv.count == 1 and srv.requests == [body] and len(srv.request_times) == 1
    data = json.loads(raw)
    assert status == 200 and data["object"] == "chat.completion" and data["model"] == "my-model"
    assert data["id"] and isinstance(data["created"], int)
    [choice] = data["choices"]
    assert choice["message"] == {"role": "assistant", "content": "ECHO: what is <image> this?"}
    assert choice["finish_reason"] == "stop"
    # prompt: 2 + 2 + 1 + 4 words; completion: "ECHO: what is <image> this?" = 5 words
    assert data["usage"] == {"prompt_tokens": 9, "completion_tokens": 5, "total_tokens": 14}


def test_n_choices(scripted_server) -> None:
    srv = scripted_server()
    data = json.loads(post(srv, chat_body("a b", n=3))[2])
    assert [c["index"] for c in data["choices"]] == [0, 1, 2]
    assert {c["message"]["content"] for c in data["choices"]} == {"ECHO: a b"}
    assert data["usage"]["completion_tokens"] == 9


def test_ok_with_reasoning_and_usage(scripted_server) -> None:
    usage = {"prompt_tokens": 3, "completion_tokens": 10, "total_tokens": 13,
             "completion_tokens_details": {"reasoning_tokens": 7}}
    srv = scripted_server(script=[Reply.ok("42", reasoning_content="think", usage=usage,
                                           finish_reason="length")])
    data = json.loads(post(srv)[2])
    choice = data["choices"][0]
    assert choice["message"]["content"] == "42"
    assert choice["message"]["reasoning_content"] == "think"
    assert choice["finish_reason"] == "length" and data["usage"] == usage
    # list exhausted: back to the default echo
    assert json.loads(post(srv)[2])["choices"][0]["message"]["content"] == "ECHO: hello world"


def test_errors_with_and_without_retry_after(scripted_server) -> None:
    srv = scripted_server(script=[Reply.error(429, headers={"Retry-After": "3"}),
                                  Reply.error(429), Reply.error(500),
                                  Reply.error(502, body="Bad Gateway"),
                                  Reply.error(503, body={"detail": "overloaded"})])
    status, headers, raw = post(srv)
    assert status == 429 and headers["Retry-After"] == "3"
    assert json.loads(raw)["error"]["code"] == 429
    status, headers, _ = post(srv)
    assert status == 429 and "Retry-After" not in headers
    assert post(srv)[0] == 500
    assert post(srv)[::2] == (502, b"Bad Gateway")
    status, _, raw = post(srv)
    assert status == 503 and json.loads(raw) == {"detail": "overloaded"}
    assert post(srv)[0] == 200 and srv.count == 6


def test_callable_script_counts_attempts_per_body(scripted_server) -> None:
    seen: list[int] = []

    def script(body: dict, attempt: int) -> Optional[Reply]:
        seen.append(attempt)
        return Reply.error(429) if attempt <= 2 else None

    srv = scripted_server(script=script)
    assert [post(srv)[0] for _ in range(3)] == [429, 429, 200]
    assert post(srv, chat_body("other"))[0] == 429  # a different body starts at attempt 1
    assert seen == [1, 2, 3, 1]


def test_delay_causes_read_timeout_then_answers(scripted_server) -> None:
    srv = scripted_server(script=[Reply.delay(1.0), Reply.delay(0.3, then=Reply.ok("late"))])
    with pytest.raises((TimeoutError, urllib.error.URLError)):
        post(srv, timeout=0.3)
    start = time.monotonic()
    status, _, raw = post(srv)
    assert status == 200 and json.loads(raw)["choices"][0]["message"]["content"] == "late"
    assert time.monotonic() - start >= 0.3


def test_malformed_and_no_choices(scripted_server) -> None:
    srv = scripted_server(script=[Reply.malformed(), Reply.no_choices()])
    status, _, raw = post(srv)
    assert status == 200
    with pytest.raises(ValueError):
        json.loads(raw)
    status, _, raw = post(srv)
    data = json.loads(raw)
    assert status == 200 and "choices" not in data and data["object"] == "chat.completion"


def test_reset_closes_connection_mid_response(scripted_server) -> None:
    srv = scripted_server(script=[Reply.reset(), Reply.reset()])
    with pytest.raises((http.client.IncompleteRead, ConnectionError)):
        post(srv)

    async def with_aiohttp() -> None:
        async with aiohttp.ClientSession() as session:
            async with session.post(srv.base_url + "/chat/completions", json=chat_body()) as r:
                await r.read()

    with pytest.raises(aiohttp.ClientError):
        asyncio.run(with_aiohttp())
    assert post(srv)[0] == 200 and srv.count == 3  # the server itself is fine afterwards


def test_script_can_be_replaced(scripted_server) -> None:
    srv = scripted_server()
    srv.script = [Reply.error(503)]
    assert [post(srv)[0] for _ in range(2)] == [503, 200]


def test_max_in_flight_with_concurrent_requests(scripted_server) -> None:
    srv = scripted_server(latency=0.2)

    async def many() -> list[int]:
        async with aiohttp.ClientSession() as session:
            async def one(i: int) -> int:
                async with session.post(srv.base_url + "/chat/completions",
                                        json=chat_body(f"q{i}")) as resp:
                    await resp.json()
                    return resp.status
            return await asyncio.gather(*(one(i) for i in range(20)))

    start = time.monotonic()
    assert asyncio.run(many()) == [200] * 20
    assert time.monotonic() - start < 3.9  # served concurrently, not one after another (20 * 0.2 s)
    assert srv.count == 20 and srv.max_in_flight == 20 and srv.in_flight == 0
    assert len(srv.request_times) == 20


def test_callable_latency(scripted_server) -> None:
    srv = scripted_server(latency=lambda body: 0.3 if "slow" in json.dumps(body) else 0.0)
    start = time.monotonic()
    post(srv, chat_body("fast"))
    assert time.monotonic() - start < 0.25
    post(srv, chat_body("slow"))
    assert time.monotonic() - start >= 0.3


def test_down_refuses_then_up_accepts(scripted_server) -> None:
    srv = scripted_server()
    port = srv.port
    assert post(srv)[0] == 200
    srv.down()
    with pytest.raises(urllib.error.URLError) as info:
        post(srv)
    assert isinstance(info.value.reason, ConnectionRefusedError)
    srv.up()
    assert srv.port == port and post(srv)[0] == 200


def test_down_drops_keepalive_connections(scripted_server) -> None:
    srv = scripted_server()

    async def run() -> None:
        async with aiohttp.ClientSession() as session:
            url = srv.base_url + "/chat/completions"
            async with session.post(url, json=chat_body()) as resp:
                assert resp.status == 200
            srv.down()  # called from another thread while the pooled connection is open
            with pytest.raises(aiohttp.ClientError):
                async with session.post(url, json=chat_body()) as resp:
                    await resp.read()
            srv.up()
            async with session.post(url, json=chat_body()) as resp:
                assert resp.status == 200

    asyncio.run(run())
    assert srv.count == 2


def test_start_stop_explicitly() -> None:
    srv = ScriptedServer().start()
    try:
        assert post(srv)[0] == 200
    finally:
        srv.stop()
    srv.stop()  # idempotent
