"""One request: what it answers, its key, what is sent, the raw line of its outcome, and the counts of a run's
outcomes.

The key is the hash of what the model sees, so a request whose rendered prompt is unchanged keeps its key and
its logged answer (infer/calls.py sends, infer/engines.py generates offline; both write `raw_line`s).
"""
from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass
from typing import Any, Callable, Mapping

from infer.config import ModelConfig
from infer.image_placeholder import PARAM as PLACEHOLDER, place_images, without_placeholder
from infer.render import to_wire
from infer.system_prompt import without_sha


@dataclass(frozen=True, slots=True)  # slots, and no dict of its own unless `extra`: a large run holds 100,000s
class Request:
    """One request: the item and sample it answers, its key, and how to render its messages (rendered
    again when sent, so a large run never holds every prompt at once)."""

    id: str
    sample_idx: int
    key: str
    messages: Callable[[], list[dict[str, Any]]]
    setting: str = ""  # the raw line's `setting` (a judge call: the judge stage's prompt)
    extra: dict[str, Any] | None = None  # body fields of this request alone (a reply grammar)
    inputs: str | None = None  # what the request was made from (infer/resume.py), for the raw line


def request_key(messages: list[dict[str, Any]], params: dict[str, Any], model: str) -> str:
    """Hash of what the model sees: messages (images by content hash) as they are sent, placed for the
    config's image placeholder (infer/image_placeholder.py), generation params, model. The placeholder is
    hashed only as the messages hold it: a request its placement leaves as it was keeps its key."""
    messages = place_images(messages, params.get(PLACEHOLDER))
    params = without_placeholder(params)

    def strip(m: dict[str, Any]) -> dict[str, Any]:
        if isinstance(m["content"], list):
            return {**m, "content": [{"type": "image", "sha": p["sha"]} if p["type"] == "image_ref" else p for p in m["content"]]}
        return m

    blob = json.dumps({"model": model, "params": params, "messages": [strip(m) for m in messages]},
                      sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(blob.encode()).hexdigest()[:24]


def sent_messages(cfg: ModelConfig, messages: list[dict[str, Any]], params: dict[str, Any]) -> list[dict[str, Any]]:
    """The messages a request sends, images still as references: the model's system prompt first, and the
    images placed as the parameters' image placeholder asks (the form its key hashes)."""
    return cfg.with_system(place_images(messages, params.get(PLACEHOLDER)))


def request_fields(params: dict[str, Any]) -> dict[str, Any]:
    """The parameters sent as request fields: all but those the key alone carries (the system prompt's
    hash, the image placeholder)."""
    return without_placeholder(without_sha(params))


def wire_body(cfg: ModelConfig, messages: list[dict[str, Any]], params: dict[str, Any]) -> dict[str, Any]:
    """The request as the endpoint expects it: `sent_messages`, images encoded (or as file URLs, for a
    server the harness started here that reads them itself), the token limit under its field name."""
    as_files = cfg.images_as_files and cfg.launches_server
    body = {"model": cfg.model, "messages": to_wire(sent_messages(cfg, messages, params), cfg.max_image_pixels, as_files),
            **request_fields(params)}
    if cfg.token_limit_field != "max_tokens" and "max_tokens" in body:
        body[cfg.token_limit_field] = body.pop("max_tokens")
    return body


def raw_line(req_id: str, sample_idx: int, key: str, cfg: ModelConfig, setting: str,
             params: dict[str, Any], result: dict[str, Any], inputs: str | None = None) -> dict[str, Any]:
    """One request's outcome. The fields a rerun reads come first, `error` included, so that reading which
    requests are done needs only the start of each line (infer/resume.py); `inputs` only when known."""
    head = {"id": req_id, "sample_idx": sample_idx, "request_key": key}
    if inputs is not None:
        head["inputs"] = inputs
    return {**head, "error": result.get("error"), "model": cfg.name, "setting": setting, "params": params,
            **result, "created": time.strftime("%Y-%m-%dT%H:%M:%S%z")}


def answers(line: Mapping[str, Any]) -> bool:
    """Whether a logged line answers its request: it holds a reply, not an error (the rule of every keyed log)."""
    return line.get("error") is None


def answered(line: Mapping[str, Any]) -> bool:
    """Whether a line answers its request with some text: what a judge, a caption or a trace can read. An empty
    reply with no error (e.g. every token spent on reasoning) is no response, never a wrong answer."""
    return answers(line) and bool((line.get("response") or "").strip())


def failure(reason: str) -> dict[str, Any]:
    """The result of a request that could not be made (an item that cannot be rendered)."""
    return {"response": None, "reasoning": None, "finish_reason": None, "usage": None, "error": reason,
            "latency_s": 0.0, "elapsed_s": 0.0, "attempts": 0, "attempt_errors": []}


def failure_cause(result: dict[str, Any]) -> str:
    """A failed request's cause in a few words, with its attempts: "HTTP 500 after 7 attempts"."""
    causes = result.get("attempt_errors") or [str(result.get("error")).split(":")[0]]
    attempts = result.get("attempts") or 0
    return f"{causes[-1]} after {attempts} attempts" if attempts > 1 else causes[-1]


def count_outcome(stats: dict[str, Any], result: dict[str, Any]) -> None:
    """Count one request's outcome into a run's `stats` (ok, failed, tokens and failures by cause)."""
    if result["error"]:
        stats["failed"] += 1
        cause = failure_cause(result)
        stats["causes"][cause] = stats["causes"].get(cause, 0) + 1
    else:
        stats["ok"] += 1
    stats["tokens"] += ((result.get("usage") or {}).get("completion_tokens") or 0)


def new_stats() -> dict[str, Any]:
    return {"ok": 0, "failed": 0, "tokens": 0, "causes": {}}


def describe_causes(causes: dict[str, int]) -> str:
    """Failures by cause, the most frequent first: "2 × HTTP 500 after 7 attempts, 1 × read timeout"."""
    return ", ".join(f"{n} × {cause}" for cause, n in sorted(causes.items(), key=lambda kv: (-kv[1], kv[0])))
