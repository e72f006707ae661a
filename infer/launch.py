"""How a model's own servers are laid out on a GPU node: tensor-parallel groups, one server per group.

A config's `server.command` names what to start (`vllm serve …`, `lmdeploy serve api_server …`) with
placeholders filled here for the run at hand:

    {port}           a free port (per server)
    {tp}             GPUs per server: the config's `server.tensor_parallel`, else the fewest that hold the
                     weights (bf16) with room for the KV cache, as a power of two
    {max_images}     the most images one pending request carries (vLLM's --limit-mm-per-prompt)
    {max_model_len}  the longest pending prompt (estimated) plus the run's max_tokens, in whole kilotokens,
                     capped at `server.max_context`
    {media_dir}      the folder holding every image of the pending requests, for servers that read them
                     as local files (`images_as_files: true`)
    {python}, {pkg:NAME}   this interpreter; an installed package's folder

`--gpus 0-7` (or CUDA_VISIBLE_DEVICES) is split into groups of {tp} GPUs; each group gets a server with
CUDA_VISIBLE_DEVICES set to its GPUs, and the client spreads requests over all of them.
"""
from __future__ import annotations

import importlib.util
import logging
import math
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

from infer.config import ConfigError, ModelConfig

log = logging.getLogger(__name__)
GPU_MEMORY_GB = 80.0  # the papers' A800 80 GB; --gpu-memory-gb changes it
WEIGHT_BYTES = 2      # bf16
HEADROOM = 0.6        # the share of a GPU's memory the weights may take (the rest: KV cache, activations)

_PLACEHOLDER = re.compile(r"\{(port|tp|max_images|max_model_len|media_dir|python|pkg:[\w.]+)\}")


@dataclass(frozen=True)
class Needs:
    """What the pending requests of a run ask of a server."""

    max_images: int = 0
    prompt_tokens: int = 0   # the longest prompt, estimated (text and images)
    max_tokens: int = 0      # the longest answer the run allows
    media_dir: str = ""


@dataclass(frozen=True)
class Node:
    """The GPUs a run may use (none named: one server, which sees what CUDA_VISIBLE_DEVICES shows it)."""

    gpus: tuple[int, ...] = ()
    gpu_memory_gb: float = GPU_MEMORY_GB


@dataclass(frozen=True)
class Launch:
    """One server to start: its command (with {port} still open) and the GPUs it gets."""

    command: list[str]
    gpus: tuple[int, ...] = ()

    def env(self) -> dict[str, str]:
        return {"CUDA_VISIBLE_DEVICES": ",".join(map(str, self.gpus))} if self.gpus else {}

    def describe(self) -> str:
        where = f"CUDA_VISIBLE_DEVICES={','.join(map(str, self.gpus))} " if self.gpus else ""
        return where + " ".join(_quote(a) for a in self.command)


def _quote(arg: str) -> str:
    return arg if re.fullmatch(r"[\w./:=,@+-]+", arg) else "'" + arg.replace("'", "'\\''") + "'"


def parse_gpus(text: str | None) -> list[int]:
    """'0-3,6' -> [0, 1, 2, 3, 6]; '' or None -> []. (GPU UUIDs in CUDA_VISIBLE_DEVICES are not supported.)"""
    gpus: list[int] = []
    for part in (text or "").split(","):
        part = part.strip()
        if not part:
            continue
        m = re.fullmatch(r"(\d+)(?:-(\d+))?", part)
        if not m:
            raise ConfigError(f"--gpus: {part!r} is not a GPU number or range (e.g. 0-7 or 0,1,4,5)")
        lo, hi = int(m.group(1)), int(m.group(2) or m.group(1))
        if hi < lo:
            raise ConfigError(f"--gpus: range {part!r} runs backwards")
        gpus += [g for g in range(lo, hi + 1) if g not in gpus]
    return gpus


def visible_gpus(flag: str | None) -> list[int]:
    """The GPUs to use: --gpus, else CUDA_VISIBLE_DEVICES, else none named (one server, all it sees)."""
    return parse_gpus(flag if flag is not None else os.environ.get("CUDA_VISIBLE_DEVICES"))


def tensor_parallel(cfg: ModelConfig, gpu_memory_gb: float = GPU_MEMORY_GB) -> int:
    """GPUs per server: the config's choice, else the fewest (a power of two, as attention heads divide)
    whose memory holds the weights with room to spare."""
    if cfg.server is not None and cfg.server.tensor_parallel:
        return cfg.server.tensor_parallel
    if not cfg.params_total_b:
        return 1
    need = cfg.params_total_b * WEIGHT_BYTES / (gpu_memory_gb * HEADROOM)
    return 2 ** max(0, math.ceil(math.log2(need))) if need > 1 else 1


def estimate_tokens(text: str) -> int:
    """A generous token count without the model's tokenizer: ~3 ASCII characters a token, one token for
    any other character (CJK)."""
    ascii_chars = sum(1 for c in text if ord(c) < 128)
    return math.ceil(ascii_chars / 3) + (len(text) - ascii_chars)


def needs_of(messages: Iterable[list[dict[str, Any]]], max_tokens: int, image_tokens: int) -> Needs:
    """The most images, the longest prompt (text estimate + `image_tokens` per image) and the folder
    holding every image, among rendered message lists (images as image_ref parts)."""
    most_images, longest, folders = 0, 0, set()
    for msgs in messages:
        images, tokens = 0, 0
        for m in msgs:
            parts = m["content"] if isinstance(m["content"], list) else [{"type": "text", "text": m["content"]}]
            for p in parts:
                if p["type"] == "text":
                    tokens += estimate_tokens(p["text"])
                else:
                    images += 1
                    folders.add(str(Path(p["path"]).resolve().parent))
        most_images = max(most_images, images)
        longest = max(longest, tokens + images * image_tokens + 8 * len(msgs))  # + chat-template tokens
    return Needs(most_images, longest, max_tokens, os.path.commonpath(sorted(folders)) if folders else "")


def max_model_len(cfg: ModelConfig, needs: Needs) -> int:
    """The longest prompt plus the longest answer, in whole kilotokens, capped at the model's context."""
    want = 1024 * math.ceil((needs.prompt_tokens + needs.max_tokens) / 1024) or 1024
    cap = cfg.server.max_context if cfg.server else None
    return min(want, cap) if cap else want


def _package_dir(name: str) -> str:
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise ConfigError(f"server command needs the package {name!r}, which is not installed")
    return spec.submodule_search_locations[0]


def fill(arg: str, values: dict[str, str]) -> str:
    """Fill the placeholders of one argument; other braces (a JSON value) stay as they are."""
    def one(m: re.Match) -> str:
        name = m.group(1)
        if name.startswith("pkg:"):
            return _package_dir(name[4:])
        return values[name] if name in values else m.group(0)
    return _PLACEHOLDER.sub(one, arg)


def plan(cfg: ModelConfig, needs: Needs, node: Node | None = None) -> list[Launch]:
    """The servers to start for `cfg`: one per tensor-parallel group of the node's GPUs (one in all if no
    GPU is named), each command filled but for {port}."""
    assert cfg.server is not None
    node = node or Node()
    gpus = list(node.gpus)
    tp = tensor_parallel(cfg, node.gpu_memory_gb)
    values = {"tp": str(tp), "max_images": str(max(needs.max_images, 1)), "media_dir": needs.media_dir or ".",
              "max_model_len": str(max_model_len(cfg, needs)), "python": sys.executable}
    command = [fill(a, values) for a in cfg.server.command]
    uses_tp = any("{tp}" in a for a in cfg.server.command)
    if not gpus or not uses_tp:  # no GPU named, or a server that takes no GPU count (a CPU model)
        return [Launch(command, tuple(gpus))] * cfg.server.replicas
    if tp > len(gpus):
        raise ConfigError(f"{cfg.name}: needs {tp} GPUs per server (tensor parallel), but --gpus gives "
                          f"{len(gpus)}: give more GPUs, set server.tensor_parallel, or span nodes with "
                          "vLLM's Ray backend (README, GPU nodes)")
    groups = [tuple(gpus[i:i + tp]) for i in range(0, len(gpus) - tp + 1, tp)]
    if left := gpus[len(groups) * tp:]:
        log.warning("%s: GPUs %s left unused: %d servers of %d GPUs each fill %d of the %d given", cfg.name,
                    ",".join(map(str, left)), len(groups), tp, len(groups) * tp, len(gpus))
    return [Launch(command, g) for g in groups]


def plan_for(cfg: ModelConfig, messages: Iterable[list[dict[str, Any]]], max_tokens: int,
             node: Node | None = None) -> list[Launch]:
    """The servers for a run's pending requests (their rendered messages). The messages are read only
    if the command asks for what they determine."""
    assert cfg.server is not None
    wanted = " ".join(cfg.server.command)
    if any(f"{{{k}}}" in wanted for k in ("max_images", "max_model_len", "media_dir")):
        needs = needs_of(messages, max_tokens, cfg.server.image_tokens)
    else:
        needs = Needs(max_tokens=max_tokens)
    return plan(cfg, needs, node)
