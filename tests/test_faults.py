"""Faults of a served endpoint, through infer.run.run against the scripted server.

What tests/test_client.py already covers is not repeated here (Retry-After honoured, read timeouts,
400 / malformed / no-choices replies, resume of failed requests, a permanently dead second endpoint).
This file covers: 429 *without* Retry-After (exponential backoff), 502, an endpoint that falls over for
the rest of a run once it has been found answering (recorded, never scored: the rules judge says
no_response, which the main accuracy counts as not correct and the accuracy over scored items leaves
out), an endpoint that goes down mid-run and comes back, a connection reset mid-response, and the reason
each failure leaves in the raw line's `error`. An endpoint dead from the start: tests/test_fail_fast.py.
"""
from __future__ import annotations

import json
import re
import threading
import time

import pytest

import infer.client
from data.jsonl import write_jsonl_atomic
from infer.config import load_model_config
from infer.layout import judged_path, raw_path
from infer.run import run
from judge.run import run as judge_run
from tests.scripted_server import Reply, scripted_server  # noqa: F401  (fixture)

MODEL = "faulty"


def model_config(tmp_path, urls, **extra):
    fields = {"name": MODEL, "model": "m", "base_urls": urls, "modalities": ["text"], "max_tokens": 16,
              "max_retries": 2, "backoff_base": 0.01, "connect_timeout": 2, "read_timeout": 5, **extra}
    p = tmp_path / f"{MODEL}.yaml"
    p.write_text("\n".join(f"{k}: {json.dumps(v)}" for k, v in fields.items()) + "\n")
    return load_model_config(p)


def data_file(tmp_path, n=3):
    recs = [{"id": f"r{i}", "benchmark": "omibench", "question": f"question {i}", "images": [], "choices": [],
             "answer": ["1"], "answer_type": "numeric", "subject": "Mathematics"} for i in range(n)]
    path = tmp_path / "d.jsonl"
    write_jsonl_atomic(path, recs)
    return path


def go(tmp_path, cfg, data, **kw):
    return run("omibench", data, cfg, "cot_boxed", tmp_path / "results", **kw)


def raw_lines(tmp_path):
    path = raw_path(tmp_path / "results", "omibench", MODEL, "cot_boxed")
    return [json.loads(x) for x in path.read_text().splitlines()]


def question_of(body):
    """The record number a request is about ("question 7" → 7)."""
    return int(re.search(r"question (\d+)", body["messages"][0]["content"]).group(1))


def falls_over(srv, when=lambda body: True):
    """A script for `srv`: the first request `when` picks takes the server down for good, after the run has
    found it answering (infer/preflight.py). That request and any other in flight are dropped, later
    connections refused; requests before it are echoed."""
    fell = threading.Event()

    def take_down():
        fell.wait(30)
        srv.down()

    threading.Thread(target=take_down, daemon=True).start()

    def script(body, attempt):
        if not when(body):
            return None
        fell.set()
        return Reply.delay(10)  # held until the server drops it

    return script


# --- 429 without Retry-After, 502 ------------------------------------------------------------------


def test_429_without_retry_after_is_retried_with_exponential_backoff(tmp_path, scripted_server, monkeypatch):
    # Full jitter draws a wait in [0, base * 2^(attempt-1)]; take the top of each range so the waits
    # are known, and check both that they were asked for and that they were really slept.
    bounds = []

    def top_of_range(lo, hi):
        bounds.append(hi)
        return hi

    monkeypatch.setattr(infer.client.random, "uniform", top_of_range)
    srv = scripted_server(script=lambda body, attempt: Reply.error(429) if attempt <= 2 else None)
    cfg = model_config(tmp_path, [srv.base_url], backoff_base=0.1, max_retries=3, concurrency=1)
    counts = go(tmp_path, cfg, data_file(tmp_path, n=1))

    assert (counts["sent"], counts["ok"], counts["failed"]) == (1, 1, 0)
    (x,) = raw_lines(tmp_path)
    assert x["error"] is None and x["attempts"] == 3 and x["response"].startswith("ECHO: ")
    assert not Reply.error(429).headers  # no Retry-After: the client's own backoff decides
    assert bounds == pytest.approx([0.1, 0.2])  # doubling, from backoff_base
    t = srv.request_times
    assert srv.count == 3
    assert t[1] - t[0] >= 0.1 * 0.9 and t[2] - t[1] >= 0.2 * 0.9  # the waits were slept
    # the waits are in the request's elapsed time, never in its latency: the answer time the papers
    # report is the successful attempt alone (Think360 Time/s, C²RBench Table 4)
    assert x["elapsed_s"] >= 0.3 * 0.9 and x["latency_s"] < 0.1 and x["latency_s"] <= x["elapsed_s"]


def test_502_is_retried_and_succeeds(tmp_path, scripted_server):
    srv = scripted_server(script=lambda body, attempt: Reply.error(502, body="<html>Bad Gateway</html>")
                          if question_of(body) == 1 and attempt <= 2 else None)
    counts = go(tmp_path, model_config(tmp_path, [srv.base_url]), data_file(tmp_path, n=3))
    assert (counts["ok"], counts["failed"]) == (3, 0)
    by_id = {x["id"]: x for x in raw_lines(tmp_path)}
    assert {k: (x["attempts"], x["error"]) for k, x in by_id.items()} == {
        "r0": (1, None), "r1": (3, None), "r2": (1, None)}
    assert by_id["r1"]["response"].startswith("ECHO: ") and "question 1" in by_id["r1"]["response"]
    assert srv.count == 5


# --- a dead endpoint ------------------------------------------------------------------------------


def test_connection_refused_for_the_whole_run_is_recorded_and_never_scored(tmp_path, scripted_server):
    answers = {0: "so \\boxed{1}", 1: "\\boxed{7}"}  # r0 right, r1 wrong
    srv = scripted_server(script=lambda body, attempt: Reply.ok(answers.get(question_of(body), "?")))
    data = data_file(tmp_path, n=4)
    first = go(tmp_path, model_config(tmp_path, [srv.base_url]), data, limit=2)
    assert (first["ok"], first["failed"]) == (2, 0)

    srv.script = falls_over(srv, when=lambda body: question_of(body) >= 2)
    counts = go(tmp_path, model_config(tmp_path, [srv.base_url], max_retries=2), data)
    assert (counts["sent"], counts["ok"], counts["failed"]) == (2, 0, 2)
    assert counts["failed_by_cause"] == {"connection refused after 3 attempts": 2}
    by_id = {x["id"]: x for x in raw_lines(tmp_path)}
    assert set(by_id) == {"r0", "r1", "r2", "r3"}
    for rid in ("r2", "r3"):
        x = by_id[rid]
        assert x["response"] is None and x["usage"] is None and x["attempts"] == 3
        assert "connection error" in x["error"] and re.search(r"[Cc]onnect", x["error"].split("connection error")[1])

    s = judge_run("omibench", data, MODEL, "cot_boxed", "rules", tmp_path / "results")
    assert (s["items"], s["scored"], s["correct"], s["no_response"], s["judge_error"]) == (4, 2, 1, 2, 0)
    # the paper-comparable accuracy counts the two failures as not correct; over the answered ones it is 1/2
    assert s["accuracy"] == 0.25 and s["accuracy_scored"] == 0.5
    verdicts = [json.loads(x) for x in judged_path(tmp_path / "results", "omibench", MODEL, "cot_boxed", "rules")
                .read_text().splitlines()]
    v = {x["id"]: x for x in verdicts}
    for rid in ("r2", "r3"):
        assert v[rid]["status"] == "no_response" and v[rid]["correct"] is None
        assert "connection error" in v[rid]["error"]
    assert v["r0"]["correct"] is True and v["r1"]["correct"] is False


def test_endpoint_down_mid_run_and_back_every_request_ends_ok(tmp_path, scripted_server):
    n = 30
    srv = scripted_server(latency=0.05)
    outage = {}

    def break_it():
        deadline = time.monotonic() + 20
        while srv.count < 6 and time.monotonic() < deadline:  # the run is under way
            time.sleep(0.005)
        outage["count_at_down"] = srv.count
        srv.down()
        outage["start"] = time.monotonic()
        time.sleep(0.25)
        outage["end"] = time.monotonic()
        srv.up()

    # Retries outlast the outage: 13 attempts whose backoff ranges double from 0.02 s.
    cfg = model_config(tmp_path, [srv.base_url], concurrency=4, max_retries=12, backoff_base=0.02)
    timer = threading.Thread(target=break_it, daemon=True)
    timer.start()
    counts = go(tmp_path, cfg, data_file(tmp_path, n=n))
    timer.join(20)

    assert "end" in outage, "the outage never happened"
    assert outage["count_at_down"] < n, "the run finished before the outage"
    assert (counts["sent"], counts["ok"], counts["failed"]) == (n, n, 0)
    xs = raw_lines(tmp_path)
    assert sorted(x["id"] for x in xs) == sorted(f"r{i}" for i in range(n))  # none lost, none twice
    assert all(x["error"] is None and x["response"].startswith("ECHO: ") for x in xs)
    assert max(x["attempts"] for x in xs) > 1  # the outage was felt and retried through
    during = [t for t in srv.request_times if outage["start"] < t < outage["end"]]
    assert during == []  # nothing was served while down
    assert any(t >= outage["end"] for t in srv.request_times)


def test_reset_mid_response_on_first_attempt_then_success(tmp_path, scripted_server):
    srv = scripted_server(script=lambda body, attempt: Reply.reset() if attempt == 1 else None)
    counts = go(tmp_path, model_config(tmp_path, [srv.base_url], concurrency=1), data_file(tmp_path, n=2))
    assert (counts["ok"], counts["failed"]) == (2, 0)
    xs = raw_lines(tmp_path)
    assert len(xs) == 2 and srv.count == 4
    for x in xs:
        assert x["error"] is None and x["attempts"] == 2
        assert x["response"].startswith("ECHO: ") and f"question {x['id'][1:]}" in x["response"]


# --- the reason each failure leaves ----------------------------------------------------------------

FAILURES = {
    # kind: (reply every time, or None for a server that falls over at the first request; what `error` must
    # say; attempts)
    "429 without Retry-After": (Reply.error(429), r"^RetryableError: HTTP 429\b", 3),
    "502": (Reply.error(502, body="upstream connect error"), r"^RetryableError: HTTP 502: upstream connect error", 3),
    "500": (Reply.error(500), r"^RetryableError: HTTP 500\b", 3),
    "401": (Reply.error(401), r"^FatalError: HTTP 401\b", 1),
    "reset mid-response": (Reply.reset(), r"^RetryableError: (broken reply|connection error)\b.*"
                                          r"(payload|[Cc]ontent[Ll]ength|[Dd]isconnect|reset)", 3),
    "connection refused": (None, r"^RetryableError: connection error: ClientConnectorError\b", 3),
}


@pytest.mark.parametrize("kind", list(FAILURES))
def test_failure_reason_is_named_in_the_raw_line(tmp_path, scripted_server, kind):
    reply, reason, attempts = FAILURES[kind]
    srv = scripted_server(script=lambda body, attempt: reply)
    if reply is None:
        srv.script = falls_over(srv)
    counts = go(tmp_path, model_config(tmp_path, [srv.base_url]), data_file(tmp_path, n=1))
    assert (counts["ok"], counts["failed"]) == (0, 1)
    (x,) = raw_lines(tmp_path)
    assert x["response"] is None and x["finish_reason"] is None and x["usage"] is None
    assert re.search(reason, x["error"]), x["error"]
    assert x["attempts"] == attempts
    assert srv.count == (1 if reply is None else attempts)


def test_outage_longer_than_the_retries_is_recorded_not_lost_and_resumed(tmp_path, scripted_server):
    srv = scripted_server(latency=0.02)
    data = data_file(tmp_path, n=12)
    srv.script = falls_over(srv)
    first = go(tmp_path, model_config(tmp_path, [srv.base_url], max_retries=1, concurrency=2), data, limit=6)
    assert (first["ok"], first["failed"]) == (0, 6)
    assert first["failed_by_cause"] == {"connection refused after 2 attempts": 6}
    assert all(re.match(r"RetryableError: connection error: ", x["error"]) for x in raw_lines(tmp_path))
    srv.script = None
    srv.up()
    second = go(tmp_path, model_config(tmp_path, [srv.base_url], max_retries=1, concurrency=2), data)
    assert (second["sent"], second["ok"], second["failed"]) == (12, 12, 0)
    latest = {x["id"]: x for x in raw_lines(tmp_path)}
    assert len(latest) == 12 and all(x["error"] is None for x in latest.values())
