"""The offline engines (`engine: vllm` / `engine: lmdeploy`): parameters mapped to the pinned packages'
real names, and raw lines identical in shape (and keys) to the HTTP path's.

vLLM and LMDeploy cannot import here (CUDA), so the full-path tests put stand-in modules under their
names whose constructors and methods accept exactly the names the real wheels define (read by
tests/gpu_interfaces.py), and fail on any other.
"""
from __future__ import annotations

import dataclasses
import json
import sys
import types
from pathlib import Path

import pytest

from infer import engines
from infer.config import ConfigError, ModelConfig, load_model_config
from infer.launch import Node
from infer.layout import manifest_of, raw_path
from infer.run import run
from tests import gpu_interfaces as real
from tests.scripted_server import scripted_server  # noqa: F401  (fixture)

ROOT = Path(__file__).resolve().parent.parent
PAPER = ROOT / "configs" / "models" / "paper"
SERVED = [p for p in sorted(PAPER.glob("*.yaml")) if load_model_config(p).server is not None]

VLLM_SAMPLING = ("vllm", "vllm/sampling_params.py", "SamplingParams")
VLLM_ENGINE = ("vllm", "vllm/engine/arg_utils.py", "EngineArgs")
LMDEPLOY_GEN = ("lmdeploy", "lmdeploy/messages.py", "GenerationConfig")
LMDEPLOY_TURBOMIND = ("lmdeploy", "lmdeploy/messages.py", "TurbomindEngineConfig")


def switches(cfg: ModelConfig) -> list[str | None]:
    return [None] + sorted(cfg.thinking)


@pytest.mark.parametrize("path", SERVED, ids=lambda p: p.stem)
def test_generation_parameters_map_to_the_engines_real_names_or_are_refused(path):
    cfg = load_model_config(path)
    for thinking in switches(cfg):
        params = cfg.generation_params(thinking, temperature=0.7)
        for engine in ("vllm", "lmdeploy"):
            try:
                sample, call = engines.sampling(engine, params)
            except ConfigError as e:  # refused, with the field named: never dropped silently
                assert "cannot take" in str(e) or "takes no" in str(e)
                continue
            if engine == "vllm":
                assert set(sample) <= real.fields(*VLLM_SAMPLING)
                assert set(call) <= real.params("vllm", "vllm/entrypoints/llm.py", "chat", "LLM")
                assert sample["max_tokens"] == cfg.max_tokens and sample["temperature"] == 0.7
            else:
                assert set(sample) <= real.fields(*LMDEPLOY_GEN)
                assert set(call) <= real.params("lmdeploy", "lmdeploy/serve/async_engine.py", "generate", "AsyncEngine")
                assert sample["max_new_tokens"] == cfg.max_tokens and sample["do_sample"] is True


def test_thinking_switches_reach_the_chat_template():
    params = {"max_tokens": 10, "temperature": 0.0, "chat_template_kwargs": {"enable_thinking": False}}
    assert engines.sampling("vllm", params)[1] == {"chat_template_kwargs": {"enable_thinking": False}}
    assert engines.sampling("lmdeploy", params) == ({"max_new_tokens": 10, "temperature": 0.0, "do_sample": False},
                                                    {"enable_thinking": False})
    with pytest.raises(ConfigError, match="reasoning_effort"):
        engines.sampling("vllm", {"max_tokens": 10, "reasoning_effort": "high"})


@pytest.mark.parametrize("engine", ["vllm", "lmdeploy"])
def test_engine_settings_use_the_constructors_real_names(engine):
    cfg = dataclasses.replace(load_model_config(PAPER / "qwen2.5-vl-72b.yaml"), engine=engine)
    settings = engines.engine_settings(cfg, max_images=11, model_len=16384, node=Node(tuple(range(8))))
    if engine == "vllm":
        assert set(settings) <= real.fields(*VLLM_ENGINE)
        assert settings["tensor_parallel_size"] == 4 and settings["limit_mm_per_prompt"] == {"image": 11}
    else:
        assert {"model_path", "backend_config"} <= real.params("lmdeploy", "lmdeploy/api.py", "pipeline")
        assert set(settings) - {"model_path", "backend"} <= real.fields(*LMDEPLOY_TURBOMIND)
        assert settings["tp"] == 4 and settings["session_len"] == 16384


def test_the_outputs_read_are_the_engines_real_attributes():
    assert {"text", "token_ids", "finish_reason"} <= real.fields("vllm", "vllm/outputs.py", "CompletionOutput")
    assert {"prompt_token_ids", "outputs"} <= real.params("vllm", "vllm/outputs.py", "__init__", "RequestOutput")
    assert {"text", "finish_reason", "input_token_len", "generate_token_len"} <= real.fields(
        "lmdeploy", "lmdeploy/messages.py", "Response")
    assert real.accepts_kwargs("lmdeploy", "lmdeploy/serve/async_engine.py", "batch_infer", "AsyncEngine")


# --------------------------------------------------------------------------------------------------
# The whole path, with stand-ins that accept only the real names
# --------------------------------------------------------------------------------------------------
def _strict(names: set[str], what: str):
    def check(kwargs: dict) -> None:
        unknown = set(kwargs) - names
        assert not unknown, f"{what} has no {sorted(unknown)}"
    return check


def _answer(conversation: list[dict]) -> str:
    text = conversation[-1]["content"] if isinstance(conversation[-1]["content"], str) else \
        " ".join(p.get("text", "") for p in conversation[-1]["content"])
    return f"<think>reading</think>ECHO {text[-20:]}"


class Calls:
    def __init__(self) -> None:
        self.batches: list[int] = []
        self.loaded: list[dict] = []


def fake_vllm(calls: Calls, fail_on: str | None = None) -> types.ModuleType:
    sampling_ok = _strict(real.fields(*VLLM_SAMPLING), "SamplingParams")
    engine_ok = _strict(real.fields(*VLLM_ENGINE), "EngineArgs")
    chat_ok = _strict(real.params("vllm", "vllm/entrypoints/llm.py", "chat", "LLM") - {"messages", "sampling_params"},
                      "LLM.chat")

    class SamplingParams:
        def __init__(self, **kw):
            sampling_ok(kw)
            self.kw = kw

    class LLM:
        def __init__(self, **kw):
            engine_ok(kw)
            calls.loaded.append(kw)

        def chat(self, messages, sampling_params=None, **kw):
            chat_ok(kw)
            calls.batches.append(len(messages))
            if fail_on and any(fail_on in json.dumps(m) for m in messages):
                raise ValueError("prompt too long for max_model_len")
            return [types.SimpleNamespace(prompt_token_ids=[1] * 7, outputs=[types.SimpleNamespace(
                text=_answer(m), token_ids=[2] * 3, finish_reason="stop")]) for m in messages]

    return types.SimpleNamespace(LLM=LLM, SamplingParams=SamplingParams)


def fake_lmdeploy(calls: Calls) -> types.ModuleType:
    gen_ok = _strict(real.fields(*LMDEPLOY_GEN), "GenerationConfig")
    tm_ok = _strict(real.fields(*LMDEPLOY_TURBOMIND), "TurbomindEngineConfig")
    infer_ok = _strict(real.params("lmdeploy", "lmdeploy/serve/async_engine.py", "batch_infer", "AsyncEngine") |
                       real.params("lmdeploy", "lmdeploy/serve/async_engine.py", "generate", "AsyncEngine"),
                       "batch_infer / generate")

    def config(check):
        def make(**kw):
            check(kw)
            return kw
        return make

    class Pipe:
        def batch_infer(self, prompts, **kw):
            infer_ok(kw)
            calls.batches.append(len(prompts))
            return [types.SimpleNamespace(text=_answer(p), finish_reason="length", input_token_len=7,
                                          generate_token_len=3) for p in prompts]

    def pipeline(model_path, backend_config=None, **kw):
        calls.loaded.append({"model_path": model_path, **backend_config})
        return Pipe()

    return types.SimpleNamespace(pipeline=pipeline, GenerationConfig=config(gen_ok),
                                 TurbomindEngineConfig=config(tm_ok), PytorchEngineConfig=config(lambda kw: None))


def write_data(path: Path, n: int, bad: int | None = None) -> Path:
    rows = [{"id": f"q{i}", "benchmark": "omibench", "question": f"What is {i} + 1?" + (" BAD" if i == bad else ""),
             "images": [], "choices": [], "answer": [str(i + 1)], "answer_type": "numeric"} for i in range(n)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def lines(results: Path, model: str) -> list[dict]:
    return [json.loads(x) for x in raw_path(results, "omibench", model, "cot_boxed").read_text().splitlines()]


@pytest.fixture(autouse=True)
def _no_loaded_engine():
    engines._loaded.clear()
    yield
    engines._loaded.clear()


@pytest.mark.parametrize("engine", ["vllm", "lmdeploy"])
def test_offline_records_match_the_http_path_in_shape_and_keys(engine, tmp_path, monkeypatch, scripted_server):
    data = write_data(tmp_path / "d.jsonl", 5)
    srv = scripted_server()
    http_cfg = ModelConfig(name="m", model="org/m", base_urls=[srv.base_url], max_tokens=64, params_total_b=7)
    run("omibench", data, http_cfg, "cot_boxed", tmp_path / "http")

    calls = Calls()
    monkeypatch.setitem(sys.modules, engine, fake_vllm(calls) if engine == "vllm" else fake_lmdeploy(calls))
    offline_cfg = dataclasses.replace(http_cfg, base_urls=[], engine=engine)
    counts = run("omibench", data, offline_cfg, "cot_boxed", tmp_path / "offline", node=Node((0,)))
    assert counts["ok"] == 5 and calls.batches == [5], "every pending request handed over at once"

    http, offline = lines(tmp_path / "http", "m"), lines(tmp_path / "offline", "m")
    assert [set(x) for x in offline] == [set(x) for x in http]
    assert [x["request_key"] for x in offline] == [x["request_key"] for x in http], "same keys: one cache, one resume"
    for h, o in zip(http, offline):
        assert (o["params"], o["error"], o["attempts"]) == (h["params"], None, 1)
        assert o["response"].startswith("ECHO") and o["reasoning"] == "reading"
        assert o["usage"] == {"prompt_tokens": 7, "completion_tokens": 3, "reasoning_tokens": None}
        assert o["latency_s"] is None and o["elapsed_s"] >= 0  # a batch has no per-request latency
    manifest = json.loads(manifest_of(raw_path(tmp_path / "offline", "omibench", "m", "cot_boxed")).read_text())
    assert manifest["model"]["engine"] == engine and manifest["counts"]["ok"] == 5

    again = run("omibench", data, offline_cfg, "cot_boxed", tmp_path / "offline")
    assert again["sent"] == 0 and calls.batches == [5], "a finished run resumes with nothing to do"


def test_a_refused_batch_is_retried_one_by_one_so_only_the_bad_request_fails(tmp_path, monkeypatch):
    data = write_data(tmp_path / "d.jsonl", 4, bad=2)
    calls = Calls()
    monkeypatch.setitem(sys.modules, "vllm", fake_vllm(calls, fail_on="BAD"))
    cfg = ModelConfig(name="m", model="org/m", engine="vllm", max_tokens=64, params_total_b=7)
    counts = run("omibench", data, cfg, "cot_boxed", tmp_path / "r")
    assert (counts["ok"], counts["failed"]) == (3, 1)
    by_id = {x["id"]: x for x in lines(tmp_path / "r", "m")}
    assert by_id["q2"]["error"] == "ValueError: prompt too long for max_model_len" and by_id["q2"]["response"] is None
    assert all(by_id[f"q{i}"]["error"] is None for i in (0, 1, 3))
    assert calls.batches == [4, 1, 1, 1, 1]
    calls.batches.clear()
    monkeypatch.setitem(sys.modules, "vllm", fake_vllm(calls))  # fixed: the rerun sends the failed one only
    engines._loaded.clear()
    assert run("omibench", data, cfg, "cot_boxed", tmp_path / "r")["sent"] == 1 and calls.batches == [1]


def test_an_offline_engine_not_installed_is_not_configured(monkeypatch):
    monkeypatch.delitem(sys.modules, "lmdeploy", raising=False)
    cfg = ModelConfig(name="m", model="org/m", engine="lmdeploy")
    assert not cfg.configured and "requirements-gpu.txt" in cfg.why_unconfigured()
