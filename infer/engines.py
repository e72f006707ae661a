"""Offline engines: vLLM's `LLM.chat` and LMDeploy's `pipeline` in this process, for pure batch throughput
on a GPU node (a model config's `engine: vllm` / `engine: lmdeploy`).

This is another implementation of `infer.calls.send`: the run's pending requests are handed to the engine
at once and each outcome is written as the same raw line the HTTP path writes (same keys, so resume,
judging and manifests do not know the difference). Two differences, both recorded: `latency_s` is null
(a batch has no per-request latency; `elapsed_s` is the batch's wall time), and `attempts` is 1. A batch
the engine refuses is retried one request at a time, so one bad request fails alone, with its reason.
The engines are imported here only, and only when a config asks for one.
"""
from __future__ import annotations

import logging
import os
import time
from typing import Any, Callable

from infer.client import split_reasoning
from infer.config import THINK_MARKERS, ConfigError, ModelConfig
from infer.launch import Node, max_model_len, needs_of, tensor_parallel
from infer.render import to_wire
from infer.request import Request, count_outcome, new_stats, raw_line, request_fields, sent_messages

log = logging.getLogger(__name__)

_loaded: dict[str, Any] = {}  # the one engine kept loaded between runs of a sweep: {"key": ..., "engine": ...}


def sampling(engine: str, params: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The run's generation parameters as the engine takes them: (sampling arguments, call arguments).
    A parameter the engine cannot take is an error, never dropped (the system prompt's hash and the image
    placeholder are no parameters of the engine: they shape the conversation, infer.request.sent_messages)."""
    params = request_fields(params)
    template_kwargs = params.pop("chat_template_kwargs", None)
    sample: dict[str, Any] = {}
    if engine == "vllm":  # vllm.SamplingParams
        for name in ("max_tokens", "temperature", "top_p"):
            if name in params:
                sample[name] = params.pop(name)
        call = {"chat_template_kwargs": template_kwargs} if template_kwargs else {}
    else:  # lmdeploy.GenerationConfig: greedy unless do_sample
        if "max_tokens" in params:
            sample["max_new_tokens"] = params.pop("max_tokens")
        for name in ("temperature", "top_p"):
            if name in params:
                sample[name] = params.pop(name)
        sample["do_sample"] = sample.get("temperature") is None or sample["temperature"] > 0
        call = {}
        if template_kwargs:
            unknown = set(template_kwargs) - {"enable_thinking"}
            if unknown:
                raise ConfigError(f"lmdeploy's pipeline takes no chat_template_kwargs {sorted(unknown)}; "
                                  "use the server path (engine: http)")
            call["enable_thinking"] = template_kwargs["enable_thinking"]
    if params:
        raise ConfigError(f"the offline {engine} engine cannot take the request fields {sorted(params)}; "
                          "use the server path (engine: http)")
    return sample, call


def engine_settings(cfg: ModelConfig, max_images: int, model_len: int, node: Node) -> dict[str, Any]:
    """The engine's constructor arguments: tensor parallelism, context length, image limit, then the
    config's own `engine_args` (which win)."""
    tp = tensor_parallel(cfg, node.gpu_memory_gb)
    if cfg.engine == "vllm":  # vllm.LLM(**kwargs) -> EngineArgs
        args: dict[str, Any] = {"model": cfg.model, "tensor_parallel_size": tp, "max_model_len": model_len}
        if max_images:
            args["limit_mm_per_prompt"] = {"image": max_images}
    else:  # lmdeploy.pipeline(model_path, backend_config=TurbomindEngineConfig(...))
        args = {"model_path": cfg.model, "tp": tp, "session_len": model_len}
    return {**args, **cfg.engine_args}


def _load(cfg: ModelConfig, settings: dict[str, Any]) -> Any:
    key = repr((cfg.engine, sorted(settings.items(), key=str)))
    if _loaded.get("key") == key:
        return _loaded["engine"]
    _loaded.clear()  # at most one engine holds the GPUs
    log.info("loading %s in %s: %s", cfg.model, cfg.engine, settings)
    if cfg.engine == "vllm":
        from vllm import LLM
        engine = LLM(**settings)
    else:
        from lmdeploy import PytorchEngineConfig, TurbomindEngineConfig, pipeline
        args = dict(settings)
        model_path = args.pop("model_path")
        backend = args.pop("backend", "turbomind")
        config = (TurbomindEngineConfig if backend == "turbomind" else PytorchEngineConfig)(**args)
        engine = pipeline(model_path, backend_config=config)
    _loaded.update(key=key, engine=engine)
    return engine


def _generate(cfg: ModelConfig, engine: Any, conversations: list[list[dict[str, Any]]], sample: dict[str, Any],
              call: dict[str, Any]) -> list[dict[str, Any]]:
    """One result per conversation: text, finish reason and token counts."""
    if cfg.engine == "vllm":
        from vllm import SamplingParams
        outputs = engine.chat(conversations, SamplingParams(**sample), use_tqdm=True, **call)
        return [{"text": o.outputs[0].text, "finish_reason": o.outputs[0].finish_reason,
                 "prompt_tokens": len(o.prompt_token_ids or []), "completion_tokens": len(o.outputs[0].token_ids)}
                for o in outputs]
    from lmdeploy import GenerationConfig
    outputs = engine.batch_infer(conversations, gen_config=GenerationConfig(**sample), use_tqdm=True, **call)
    return [{"text": o.text, "finish_reason": o.finish_reason, "prompt_tokens": o.input_token_len,
             "completion_tokens": o.generate_token_len} for o in outputs]


def _result(out: dict[str, Any] | None, error: str | None, elapsed: float,
            markers: tuple[str, str] = THINK_MARKERS) -> dict[str, Any]:
    if out is None:
        return {"response": None, "reasoning": None, "finish_reason": None, "usage": None, "error": error,
                "latency_s": None, "elapsed_s": round(elapsed, 4), "attempts": 1,
                "attempt_errors": [(error or "").split(":")[0]]}  # the exception's type
    text, reasoning = split_reasoning({"content": out["text"]}, markers)
    return {"response": text, "reasoning": reasoning, "finish_reason": out["finish_reason"],
            "usage": {"prompt_tokens": out["prompt_tokens"], "completion_tokens": out["completion_tokens"],
                      "reasoning_tokens": None},
            "error": None, "latency_s": None, "elapsed_s": round(elapsed, 4), "attempts": 1, "attempt_errors": []}


def send_offline(pending: list[Request], cfg: ModelConfig, params: dict[str, Any],
                 write: Callable[[dict[str, Any]], None], node: Node | None = None) -> dict[str, int]:
    """Generate every pending request with the config's offline engine and `write` one raw line each."""
    node = node or Node()
    if any(r.extra for r in pending):
        raise ConfigError(f"{cfg.name}: the offline {cfg.engine} engine takes no per-request fields "
                          "(reply grammars); use the server path")
    sample, call = sampling(cfg.engine, params)
    rendered = [sent_messages(cfg, r.messages(), params) for r in pending]
    needs = needs_of(rendered, params.get("max_tokens", cfg.max_tokens), cfg.server.image_tokens if cfg.server else 1280)
    conversations = [to_wire(m, cfg.max_image_pixels) for m in rendered]
    del rendered
    if node.gpus:
        os.environ["CUDA_VISIBLE_DEVICES"] = ",".join(map(str, node.gpus))
    engine = _load(cfg, engine_settings(cfg, needs.max_images, max_model_len(cfg, needs), node))
    stats = new_stats()

    def record(req: Request, result: dict[str, Any]) -> None:
        write(raw_line(req.id, req.sample_idx, req.key, cfg, req.setting, params, result, req.inputs))
        count_outcome(stats, result)

    start = time.monotonic()
    try:
        outputs = _generate(cfg, engine, conversations, sample, call)
    except Exception as e:  # the whole batch refused: find the request(s) at fault one by one
        log.warning("%s: the batch failed (%s: %s); retrying one request at a time", cfg.name, type(e).__name__, e)
        for req, conv in zip(pending, conversations):
            t0 = time.monotonic()
            try:
                (out,) = _generate(cfg, engine, [conv], sample, call)
                record(req, _result(out, None, time.monotonic() - t0, cfg.reasoning_markers))
            except Exception as one:
                record(req, _result(None, f"{type(one).__name__}: {one}", time.monotonic() - t0))
        return stats
    elapsed = time.monotonic() - start
    if len(outputs) != len(pending):
        raise RuntimeError(f"{cfg.engine} returned {len(outputs)} outputs for {len(pending)} requests")
    for req, out in zip(pending, outputs):
        record(req, _result(out, None, elapsed, cfg.reasoning_markers))
    return stats
