"""The client and the runner against the scripted local server: retries, timeouts, resume, n, endpoints."""
import json
import time

import pytest
from PIL import Image

from data.jsonl import write_jsonl_atomic
from infer.config import ConfigError, load_model_config
from infer.layout import manifest_of, raw_path
from infer.run import run
from tests.scripted_server import Reply, ScriptedServer, scripted_server  # noqa: F401  (fixture)


def model_config(tmp_path, urls, **extra):
    lines = {"name": "scripted", "model": "m", "base_urls": urls, "modalities": ["text", "image"],
             "max_tokens": 32, "max_retries": 2, "backoff_base": 0.01, "read_timeout": 5, **extra}
    p = tmp_path / "scripted.yaml"
    p.write_text("\n".join(f"{k}: {json.dumps(v)}" for k, v in lines.items()))
    return load_model_config(p)


def data_file(tmp_path, n=3, **extra):
    recs = [{"id": f"r{i}", "benchmark": "omibench", "question": f"question {i}", "images": [], "choices": [],
             "answer": ["1"], "answer_type": "numeric", **extra} for i in range(n)]
    path = tmp_path / "d.jsonl"
    write_jsonl_atomic(path, recs)
    return path


def lines(tmp_path, setting="cot_boxed"):
    path = raw_path(tmp_path / "results", "omibench", "scripted", setting)
    return [json.loads(x) for x in path.read_text().splitlines()]


def go(tmp_path, cfg, data, setting="cot_boxed", **kw):
    return run("omibench", data, cfg, setting, tmp_path / "results", **kw)


def test_429_and_500_with_retry_after_are_retried(tmp_path, scripted_server):
    def script(body, attempt):
        text = body["messages"][0]["content"]
        if "question 0" in text and attempt <= 2:
            return Reply.error(429, headers={"Retry-After": "0.3"})
        if "question 1" in text and attempt == 1:
            return Reply.error(503, headers={"Retry-After": "0.3"})
        return None

    srv = scripted_server(script=script)
    start = time.monotonic()
    counts = go(tmp_path, model_config(tmp_path, [srv.base_url]), data_file(tmp_path))
    assert counts == {**counts, "sent": 3, "ok": 3, "failed": 0}
    by_id = {x["id"]: x for x in lines(tmp_path)}
    assert by_id["r0"]["attempts"] == 3 and by_id["r1"]["attempts"] == 2 and by_id["r2"]["attempts"] == 1
    assert by_id["r0"]["response"].startswith("ECHO: ")
    assert time.monotonic() - start >= 0.6  # two Retry-After waits of 0.3 s were honoured
    assert srv.count == 6


def test_read_timeout_is_recorded_as_an_error_not_an_answer(tmp_path, scripted_server):
    srv = scripted_server(script=lambda body, attempt: Reply.delay(3))
    cfg = model_config(tmp_path, [srv.base_url], read_timeout=0.3, max_retries=1)
    counts = go(tmp_path, cfg, data_file(tmp_path, n=1))
    assert counts["failed"] == 1 and counts["ok"] == 0
    (x,) = lines(tmp_path)
    assert x["response"] is None and "timeout" in x["error"] and x["attempts"] == 2


@pytest.mark.parametrize("reply, reason, attempts", [
    (Reply.error(400, body={"error": {"message": "context too long"}}), "HTTP 400", 1),
    (Reply.malformed(), "not JSON", 3),
    (Reply.no_choices(), "no choices", 3),
    (Reply.reset(), "", 3),
])
def test_unusable_replies_become_errors_with_reasons(tmp_path, scripted_server, reply, reason, attempts):
    srv = scripted_server(script=lambda body, attempt: reply)
    go(tmp_path, model_config(tmp_path, [srv.base_url]), data_file(tmp_path, n=1))
    (x,) = lines(tmp_path)
    assert x["error"] and reason in x["error"] and x["attempts"] == attempts and x["response"] is None


def test_resume_skips_finished_and_retries_failed_requests(tmp_path, scripted_server):
    failing = {"on": True}
    srv = scripted_server(script=lambda body, attempt: Reply.error(500) if failing["on"] and "question 1" in
                          body["messages"][0]["content"] else None)
    cfg, data = model_config(tmp_path, [srv.base_url], max_retries=0), data_file(tmp_path)
    first = go(tmp_path, cfg, data)
    assert (first["ok"], first["failed"]) == (2, 1)
    failing["on"] = False
    before = srv.count
    second = go(tmp_path, cfg, data)
    assert second["sent"] == 1 and second["ok"] == 1 and srv.count == before + 1
    assert srv.requests[-1]["messages"][0]["content"].count("question 1") == 1
    third = go(tmp_path, cfg, data)
    assert third["sent"] == 0 and srv.count == before + 1


def test_changed_prompt_reruns_only_changed_requests(tmp_path, scripted_server):
    srv = scripted_server()
    prompts = tmp_path / "prompts"
    (prompts / "omibench").mkdir(parents=True)
    (prompts / "omibench" / "p.txt").write_text("{{question}}\nAnswer briefly.")
    cfg, data = model_config(tmp_path, [srv.base_url]), data_file(tmp_path)
    assert go(tmp_path, cfg, data, "p", prompts=prompts)["sent"] == 3
    assert go(tmp_path, cfg, data, "p", prompts=prompts)["sent"] == 0
    (prompts / "omibench" / "p.txt").write_text("{{question}}\nAnswer very briefly.")
    assert go(tmp_path, cfg, data, "p", prompts=prompts)["sent"] == 3
    # a record whose rendered prompt is unchanged is not resent
    recs = [json.loads(x) for x in data.read_text().splitlines()]
    recs[0]["question"] = "question zero, edited"
    write_jsonl_atomic(data, recs)
    assert go(tmp_path, cfg, data, "p", prompts=prompts)["sent"] == 1
    assert srv.count == 7


def test_n_samples_are_separate_requests_with_indices(tmp_path, scripted_server):
    srv = scripted_server()
    go(tmp_path, model_config(tmp_path, [srv.base_url]), data_file(tmp_path, n=2), n=3)
    got = sorted((x["id"], x["sample_idx"]) for x in lines(tmp_path))
    assert got == [(f"r{i}", k) for i in range(2) for k in range(3)] and srv.count == 6


def test_two_base_urls_are_both_used_and_concurrency_is_bounded(tmp_path, scripted_server):
    a, b = scripted_server(latency=0.1), scripted_server(latency=0.1)
    cfg = model_config(tmp_path, [a.base_url, b.base_url], concurrency=4)
    counts = go(tmp_path, cfg, data_file(tmp_path, n=40))
    assert counts["ok"] == 40
    assert a.count == 20 and b.count == 20
    assert a.max_in_flight == 4 and b.max_in_flight == 4


def test_one_dead_endpoint_does_not_lose_its_share(tmp_path, scripted_server):
    a, b = scripted_server(), scripted_server()
    b.down()
    counts = go(tmp_path, model_config(tmp_path, [a.base_url, b.base_url], max_retries=2), data_file(tmp_path, n=10))
    assert counts["ok"] == 10 and a.count == 10


def test_refill_scheduling_a_slow_answer_does_not_stall_the_rest(tmp_path, scripted_server):
    srv = scripted_server(latency=lambda body: 2.0 if "question 0" in body["messages"][0]["content"] else 0.05)
    start = time.monotonic()
    go(tmp_path, model_config(tmp_path, [srv.base_url], concurrency=2), data_file(tmp_path, n=21))
    # one slot holds the slow request for 2 s; the other slot serves the 20 fast ones meanwhile
    assert time.monotonic() - start < 3.5
    order = [x["id"] for x in lines(tmp_path)]
    assert order[-1] == "r0"


def test_latency_is_the_answer_time_not_the_wait_for_a_slot(tmp_path, scripted_server):
    """Four requests through one slot: each waits for the ones before it, but its latency is its own
    request, sent to last byte (the time the papers report per answer)."""
    srv = scripted_server(latency=0.2)
    go(tmp_path, model_config(tmp_path, [srv.base_url], concurrency=1), data_file(tmp_path, n=4))
    for x in lines(tmp_path):
        assert 0.2 * 0.9 <= x["latency_s"] < 0.35 and x["elapsed_s"] < 0.35


def test_the_manifest_says_which_setting_the_run_stands_for(tmp_path, scripted_server):
    srv = scripted_server()
    cfg = model_config(tmp_path, [srv.base_url])
    go(tmp_path, cfg, data_file(tmp_path, n=1), setting="cot_boxed")
    go(tmp_path, cfg, data_file(tmp_path, n=1), setting="cot_boxed+text", stands_for="cot_boxed")
    for setting in ("cot_boxed", "cot_boxed+text"):
        manifest = manifest_of(raw_path(tmp_path / "results", "omibench", cfg.name, setting))
        assert json.loads(manifest.read_text())["stands_for"] == "cot_boxed"


def test_reasoning_is_kept_apart_from_the_answer(tmp_path, scripted_server):
    usage = {"prompt_tokens": 5, "completion_tokens": 9, "completion_tokens_details": {"reasoning_tokens": 7}}
    srv = scripted_server(script=[Reply.ok("42", reasoning_content="think hard", usage=usage),
                                  Reply.ok("<think>inner\nsteps</think>\nThe answer is 7."),
                                  # the chat template opened <think> in the prompt: only the closing tag comes back
                                  Reply.ok("first try 3\nthen 8</think>\n\nThe answer is 8.")])
    go(tmp_path, model_config(tmp_path, [srv.base_url], concurrency=1), data_file(tmp_path, n=3))
    x0, x1, x2 = lines(tmp_path)
    assert (x0["response"], x0["reasoning"]) == ("42", "think hard")
    assert x0["usage"] == {"prompt_tokens": 5, "completion_tokens": 9, "reasoning_tokens": 7}
    assert (x1["response"], x1["reasoning"]) == ("The answer is 7.", "inner\nsteps")
    assert (x2["response"], x2["reasoning"]) == ("The answer is 8.", "first try 3\nthen 8")


def test_images_reach_the_server_and_text_only_models_are_refused(tmp_path, scripted_server):
    Image.new("RGB", (3, 3)).save(tmp_path / "a.png")
    data = data_file(tmp_path, n=1, images=["a.png"])
    srv = scripted_server()
    go(tmp_path, model_config(tmp_path, [srv.base_url]), data)
    parts = srv.requests[0]["messages"][0]["content"]
    assert [p["type"] for p in parts] == ["text", "image_url", "text"]
    assert parts[0]["text"].endswith("[Question]\n") and parts[2]["text"].startswith("question 0")
    assert parts[1]["image_url"]["url"].startswith("data:image/png;base64,")
    text_only = model_config(tmp_path, [srv.base_url], modalities=["text"])
    with pytest.raises(ConfigError, match="text-only.*cot_boxed\\+caption"):
        go(tmp_path, text_only, data)


def test_unrenderable_item_is_recorded_once_and_never_sent(tmp_path, scripted_server):
    srv = scripted_server()
    data = data_file(tmp_path, n=2, images=["missing.png"])
    cfg = model_config(tmp_path, [srv.base_url])
    assert go(tmp_path, cfg, data)["unrenderable"] == 2
    assert go(tmp_path, cfg, data)["unrenderable"] == 2
    xs = lines(tmp_path)
    assert len(xs) == 2 and all("missing.png" in x["error"] for x in xs) and srv.count == 0
