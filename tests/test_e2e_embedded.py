"""End to end with the real embedded model: SmolLM2-135M behind llama.cpp's OpenAI-compatible server."""
import json
import socket

import pytest

from data.jsonl import write_jsonl_atomic
from infer.config import load_model_config
from infer.layout import manifest_of, raw_path
from infer.run import run
from infer.server import serve

pytestmark = pytest.mark.e2e
CONFIG = "configs/models/smollm2-135m.yaml"


def items():
    return [
        {"id": "q1", "benchmark": "omibench", "question": "What is 2 + 3?", "images": [], "choices": [],
         "answer": ["5"], "answer_type": "numeric"},
        {"id": "q2", "benchmark": "omibench", "question": "Which number is larger?", "images": [],
         "choices": ["7", "9"], "answer": ["B"], "answer_type": "mcq"},
        {"id": "q3", "benchmark": "omibench", "question": "Name the colour of the sky on a clear day.",
         "images": [], "choices": [], "answer": ["blue"], "answer_type": "text"},
    ]


def test_real_model_writes_raw_outputs_and_resumes_with_zero_requests(tmp_path):
    data = tmp_path / "d.jsonl"
    write_jsonl_atomic(data, items())
    cfg = load_model_config(CONFIG)
    counts = run("omibench", data, cfg, "cot_boxed", tmp_path / "results", overrides={"max_tokens": 24})
    assert counts["sent"] == 3 and counts["ok"] == 3 and counts["failed"] == 0

    path = raw_path(tmp_path / "results", "omibench", cfg.name, "cot_boxed")
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    assert sorted(x["id"] for x in lines) == ["q1", "q2", "q3"]
    for x in lines:
        assert x["error"] is None and x["response"].strip()
        assert x["usage"]["completion_tokens"] > 0 and x["usage"]["prompt_tokens"] > 0
        assert x["finish_reason"] in ("stop", "length") and x["latency_s"] > 0
        assert x["params"] == {"max_tokens": 24, "temperature": 0.0}
    manifest = json.loads(manifest_of(path).read_text())
    assert manifest["counts"]["ok"] == 3 and len(manifest["data"]["sha256"]) == 64
    assert [p for p in manifest["templates"]] == ["prompts/omibench/cot_boxed.txt"]  # relative to the checkout

    again = run("omibench", data, cfg, "cot_boxed", tmp_path / "results", overrides={"max_tokens": 24})
    assert again["sent"] == 0 and again["requests"] == 3
    assert len(path.read_text().splitlines()) == 3


def test_server_is_stopped_even_when_the_run_fails(tmp_path):
    cfg = load_model_config(CONFIG)
    with pytest.raises(RuntimeError, match="boom"):
        with serve(cfg, tmp_path) as urls:
            port = int(urls[0].rsplit(":", 1)[1].split("/")[0])
            raise RuntimeError("boom")
    with socket.socket() as s:
        assert s.connect_ex(("127.0.0.1", port)) != 0, "server still listening after the run ended"


MAIN_SETTINGS = {"think360": "direct", "omibench": "cot_boxed", "mira": "direct", "c2rbench": "zero_shot",
                 "morphobench": "with_hints"}


def test_demo_sets_of_all_five_benchmarks_through_the_real_model(tmp_path):
    from data.demo.__main__ import build

    built = build(tmp_path / "demo", list(MAIN_SETTINGS))
    cfg = load_model_config(CONFIG)
    for bench, setting in MAIN_SETTINGS.items():
        counts = run(bench, built[bench], cfg, setting + "+caption", tmp_path / "results", limit=2,
                     overrides={"max_tokens": 12})
        assert (counts["sent"], counts["ok"], counts["unrenderable"]) == (2, 2, 0), bench
        path = raw_path(tmp_path / "results", bench, cfg.name, setting + "+caption")
        sent = [json.loads(x) for x in path.read_text().splitlines()]
        assert all(x["response"] and x["error"] is None for x in sent), bench
