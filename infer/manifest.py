"""Provenance of a run: what data, prompt, model config, code and packages produced a result file."""
from __future__ import annotations

import hashlib
import json
import os
import platform
import subprocess
import time
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import Any

from data.jsonl import write_json_atomic
from infer import layout

ROOT = layout.ROOT
PACKAGES = ("openai", "aiohttp", "pandas", "numpy", "pillow", "math-verify", "rapidfuzz",
            "llama-cpp-python", "vllm", "lmdeploy")


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


@lru_cache(maxsize=1)
def git_state() -> dict[str, Any]:
    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=10).stdout.strip()

    try:
        return {"commit": git("rev-parse", "HEAD") or None, "dirty": bool(git("status", "--porcelain", "--untracked-files=no"))}
    except (OSError, subprocess.SubprocessError):
        return {"commit": None, "dirty": None}


def package_versions() -> dict[str, str]:
    out = {"python": platform.python_version()}
    for name in PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            pass
    return out


def base_manifest(**fields: Any) -> dict[str, Any]:
    """A manifest: the fields given, with every absolute path inside the checkout among them (values, keys of
    mappings such as the templates' hashes) recorded relative to it (layout.recorded), and the code's state."""
    return {**in_checkout(fields), "git": git_state(), "packages": package_versions(),
            "written": time.strftime("%Y-%m-%dT%H:%M:%S%z")}


def write_manifest(path: Path, manifest: dict[str, Any], idle: bool, volatile: tuple[str, ...] = ("written",)) -> None:
    """Write a run's manifest. A run that did nothing (`idle`: nothing sent, judged or written) keeps the
    `volatile` fields of the manifest there (when its answers were written, the counts of the call that wrote
    them) and leaves the file as it is when nothing else changed: a rerun that changes nothing leaves its files
    as they were, so what reads them (the report, analysis/up_to_date.py) need not start again."""
    if idle and path.exists():
        try:
            old = json.loads(path.read_text(encoding="utf-8"))
        except ValueError:
            old = None
        if isinstance(old, dict):
            manifest = {**manifest, **{k: old[k] for k in volatile if k in old}}
            if manifest == old:
                return
    write_json_atomic(path, manifest)


def in_checkout(value: Any) -> Any:
    """`value` with each string that is an absolute path inside the checkout made relative to it; anything else
    as it is."""
    if isinstance(value, dict):
        return {in_checkout(k): in_checkout(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [in_checkout(v) for v in value]
    if isinstance(value, str) and (value == str(layout.ROOT) or value.startswith(f"{layout.ROOT}{os.sep}")):
        return layout.recorded(value)
    return value
