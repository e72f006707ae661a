"""Run one (benchmark, data, model, setting): records × template × model config → raw outputs.

    python -m infer.run --bench omibench --data data/omibench/test.jsonl \
        --model configs/models/paper/qwen3-vl-8b-instruct.yaml --setting cot_boxed [--limit N] [--n K] [--max-tokens T]

Writes results/raw/<bench>/<model>/<setting>.jsonl (append-only, one line per request outcome) and
<setting>.manifest.json. A rerun sends only what is not done yet: new or changed prompts, new
samples, and requests that failed before.
"""
from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import logging
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tqdm import tqdm

from data.jsonl import DataError, iter_jsonl, write_json_atomic
from data.records import BENCHMARKS, check_record
from infer.client import ChatClient, RetryPolicy
from infer.config import ConfigError, ModelConfig, load_model_config
from infer.manifest import base_manifest, sha256_file
from infer.icl import DEFAULT_SHOTS, SEED as ICL_SEED
from infer.prompting import Prompter
from infer.render import RenderError, has_images, to_wire
from infer.settings import parse_setting
from infer.server import serve
from infer.store import AppendLog, LockedError, load_latest
from infer.templates import PROMPTS, TemplateError

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Request:
    id: str
    sample_idx: int
    key: str
    record: dict[str, Any]  # its messages are rendered again when sent: a large run never holds them all


def request_key(messages: list[dict[str, Any]], params: dict[str, Any], model: str) -> str:
    """Hash of what the model sees: messages (images by content hash), generation params, model."""
    def strip(m: dict[str, Any]) -> dict[str, Any]:
        if isinstance(m["content"], list):
            return {**m, "content": [{"type": "image", "sha": p["sha"]} if p["type"] == "image_ref" else p for p in m["content"]]}
        return m

    blob = json.dumps({"model": model, "params": params, "messages": [strip(m) for m in messages]},
                      sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(blob.encode()).hexdigest()[:24]


def load_records(path: Path, bench: str, limit: int | None) -> list[dict[str, Any]]:
    problems, records, first = [], [], {}
    for lineno, rec in iter_jsonl(path, errors=problems):
        probs = check_record(rec)
        problems += [f"{path}:{lineno}: {f}: {m}" for f, m in probs]
        if not probs and rec["benchmark"] != bench:
            problems.append(f"{path}:{lineno}: benchmark: {rec['benchmark']!r}, but --bench is {bench!r}")
        if not probs and rec["id"] in first:
            problems.append(f"{path}:{lineno}: id: duplicate id {rec['id']!r} (first on line {first[rec['id']]})")
        elif not probs:
            first[rec["id"]] = lineno
        records.append(rec)
    if problems:
        raise DataError(problems)
    return records[:limit] if limit is not None else records


def raw_path(results: Path, bench: str, model: str, setting: str) -> Path:
    return results / "raw" / bench / model / f"{setting}.jsonl"


def plan(records: list[dict[str, Any]], base: Path, prompter: Prompter, cfg: ModelConfig, params: dict[str, Any],
         n: int, done: dict[tuple[str, int], str]) -> tuple[list[Request], int, list[tuple[str, int, str]]]:
    """The requests still to send, the number of requests of the run, and the (id, sample_idx, reason)
    of records that cannot be rendered. `done` maps finished (id, sample_idx) to their request key.
    Messages are rendered here for their keys and dropped; they are rendered again when sent."""
    pending, total, failures = [], 0, []
    excluded = prompter.excluded_ids
    for rec in records:
        if rec["id"] in excluded:
            continue
        try:
            messages = prompter.messages(rec, base)
        except (RenderError, TemplateError) as e:
            failures += [(rec["id"], i, f"{type(e).__name__}: {e}") for i in range(n)]
            continue
        if has_images(messages) and not cfg.accepts_images:
            name = prompter.setting.template
            raise ConfigError(
                f"{cfg.path}: model {cfg.name} is text-only (modalities: {cfg.modalities}) but setting "
                f"{prompter.setting.name!r} sends images (record {rec['id']}); use {name}+caption or {name}+text")
        # the resize policy changes what an image request sends, so it is part of the key
        key = request_key(messages, {**params, "_max_image_pixels": cfg.max_image_pixels} if has_images(messages)
                          else params, cfg.model)
        total += n
        pending += [Request(rec["id"], i, key, rec) for i in range(n) if done.get((rec["id"], i)) != key]
    return pending, total, failures


def finished(latest: dict[tuple, dict[str, Any]]) -> dict[tuple[str, int], str]:
    return {k: r["request_key"] for k, r in latest.items() if r.get("error") is None}


def wire_body(cfg: ModelConfig, messages: list[dict[str, Any]], params: dict[str, Any]) -> dict[str, Any]:
    """The request as the endpoint expects it: images encoded, the token limit under its field name."""
    body = {"model": cfg.model, "messages": to_wire(messages, cfg.max_image_pixels), **params}
    if cfg.token_limit_field != "max_tokens" and "max_tokens" in body:
        body[cfg.token_limit_field] = body.pop("max_tokens")
    return body


def raw_line(req_id: str, sample_idx: int, key: str, cfg: ModelConfig, setting: str,
             params: dict[str, Any], result: dict[str, Any]) -> dict[str, Any]:
    return {"id": req_id, "sample_idx": sample_idx, "request_key": key, "model": cfg.name,
            "setting": setting, "params": params, **result,
            "created": time.strftime("%Y-%m-%dT%H:%M:%S%z")}


async def send(pending: list[Request], cfg: ModelConfig, urls: list[str], out: AppendLog,
               setting: str, params: dict[str, Any], prompter: Prompter, base: Path) -> dict[str, int]:
    client = ChatClient(urls, cfg.api_key(), cfg.concurrency, cfg.connect_timeout, cfg.read_timeout,
                        RetryPolicy(max_retries=cfg.max_retries, backoff_base=cfg.backoff_base))
    stats = {"ok": 0, "failed": 0, "tokens": 0}
    start = time.monotonic()
    bar = tqdm(total=len(pending), desc=f"{cfg.name}/{setting}", unit="req", dynamic_ncols=True)

    def on_result(req: Request, result: dict[str, Any]) -> None:
        out.write(raw_line(req.id, req.sample_idx, req.key, cfg, setting, params, result))
        stats["failed" if result["error"] else "ok"] += 1
        stats["tokens"] += ((result.get("usage") or {}).get("completion_tokens") or 0)
        bar.update(1)
        bar.set_postfix(done=stats["ok"], failed=stats["failed"],
                        tok_s=f"{stats['tokens'] / max(time.monotonic() - start, 1e-9):.1f}")

    def make_body(req: Request) -> dict[str, Any]:
        return wire_body(cfg, prompter.messages(req.record, base), params)

    try:
        await client.run(pending, make_body, on_result)
    finally:
        bar.close()
    return stats


def run(bench: str, data: Path, cfg: ModelConfig, setting: str, results: Path = Path("results"),
        limit: int | None = None, n: int = 1, overrides: dict[str, Any] | None = None,
        prompts: Path = PROMPTS, stands_for: str | None = None) -> dict[str, Any]:
    """Do what is not done yet; return the run's counts (also written to the manifest).

    `stands_for`: the setting of the paper this run stands for, recorded in the manifest for the
    tables (a text-only model runs X+caption for the image setting X); by default the setting itself."""
    if bench not in BENCHMARKS:
        raise ConfigError(f"--bench: unknown benchmark {bench!r} (known: {', '.join(BENCHMARKS)})")
    spec = parse_setting(setting)
    records = load_records(data, bench, limit)
    prompter = Prompter(bench, spec, records, prompts)
    params = cfg.generation_params(spec.thinking, **{**spec.overrides, **(overrides or {})})
    path = raw_path(results, bench, cfg.name, setting)

    def index() -> dict[tuple, dict[str, Any]]:
        return load_latest(path, key=lambda r: (r["id"], r["sample_idx"]), keep=("request_key", "error"))

    def version() -> tuple[int, int] | None:
        return (path.stat().st_size, path.stat().st_mtime_ns) if path.exists() else None

    # Planned before taking the lock, so a refused setting leaves no file behind; read again under the
    # lock only if another run wrote to the file in between.
    seen, latest = version(), index()
    pending, total, failures = plan(records, data.parent, prompter, cfg, params, n, finished(latest))
    with AppendLog(path) as out:
        if version() != seen:
            latest = index()
            done = finished(latest)
            pending = [r for r in pending if done.get((r.id, r.sample_idx)) != r.key]
        for rid, i, reason in failures:  # recorded once, not again on every rerun
            prev = latest.get((rid, i))
            if not prev or prev.get("error") != reason:
                out.write(raw_line(rid, i, "", cfg, setting, params, {"response": None, "reasoning": None,
                          "finish_reason": None, "usage": None, "error": reason, "latency_s": 0.0, "elapsed_s": 0.0,
                          "attempts": 0}))
        stats = {"ok": 0, "failed": 0, "tokens": 0}
        log.info("%s/%s/%s: %d requests, %d already done, %d to send, %d unrenderable",
                 bench, cfg.name, setting, total, total - len(pending), len(pending), len(failures))
        if pending:
            with serve(cfg, results / "logs") as urls:
                stats = asyncio.run(send(pending, cfg, urls, out, setting, params, prompter, data.parent))

    counts = {"records": len(records), "requests": total, "sent": len(pending),
              "ok": stats["ok"], "failed": stats["failed"], "unrenderable": len(failures),
              "excluded": len(prompter.excluded_ids)}
    write_json_atomic(path.with_suffix(".manifest.json"), base_manifest(
        benchmark=bench, setting=setting, stands_for=stands_for or setting,
        data={"path": str(data), "sha256": sha256_file(data)},
        templates=prompter.shas(), model=cfg.public_dict(), params=params, n=n, limit=limit, counts=counts,
        image_policy={"max_pixels": cfg.max_image_pixels, "larger": "scaled down (aspect kept), sent as PNG"},
        excluded_ids=sorted(prompter.excluded_ids), raw=str(path),
        icl={"seed": ICL_SEED, "pool_size": len(prompter.pool), "shots": spec.shots or DEFAULT_SHOTS,
             "demo_images": spec.demo_images or "all"} if prompter.pool else None))
    return counts


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bench", required=True, choices=BENCHMARKS)
    ap.add_argument("--data", required=True, type=Path, help="unified JSONL (data/README.md)")
    ap.add_argument("--model", required=True, type=Path, help="configs/models/<name>.yaml")
    ap.add_argument("--setting", required=True, help="prompt name and modifiers, e.g. cot_boxed+caption (infer/settings.py)")
    ap.add_argument("--limit", type=int, help="only the first N records")
    ap.add_argument("--n", type=int, default=1, help="samples per record")
    ap.add_argument("--max-tokens", type=int)
    ap.add_argument("--temperature", type=float)
    ap.add_argument("--results", type=Path, default=Path("results"))
    args = ap.parse_args(argv)
    try:
        cfg = load_model_config(args.model)
        counts = run(args.bench, args.data, cfg, args.setting, args.results, args.limit, args.n,
                     {"max_tokens": args.max_tokens, "temperature": args.temperature})
    except (DataError, ConfigError, TemplateError, LockedError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    path = raw_path(args.results, args.bench, cfg.name, args.setting)
    print(f"{path}: sent {counts['sent']} ({counts['ok']} ok, {counts['failed']} failed), "
          f"{counts['unrenderable']} unrenderable, {counts['requests'] - counts['sent']} already done")
    return 0


if __name__ == "__main__":
    sys.exit(main())
