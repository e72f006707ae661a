"""Start a model's own server (from its config), wait until it answers, and always stop it."""
from __future__ import annotations

import contextlib
import ctypes
import importlib.util
import logging
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Iterator

from infer.config import ModelConfig, ServerSpec

log = logging.getLogger(__name__)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _package_dir(name: str) -> str:
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError(f"server command needs the package {name!r}, which is not installed")
    return spec.submodule_search_locations[0]


def expand(arg: str, port: int) -> str:
    """Fill {port}, {python} and {pkg:NAME} in one command argument."""
    out = arg.replace("{port}", str(port)).replace("{python}", sys.executable)
    while "{pkg:" in out:
        start = out.index("{pkg:")
        end = out.index("}", start)
        out = out[:start] + _package_dir(out[start + 5:end]) + out[end + 1:]
    return out


def _die_with_parent() -> None:
    # Linux: the server gets SIGTERM if this process dies, even by SIGKILL, so none is left behind.
    with contextlib.suppress(Exception):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def _wait_healthy(proc: subprocess.Popen, url: str, spec: ServerSpec, log_path: Path) -> None:
    deadline = time.monotonic() + spec.startup_timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            tail = log_path.read_text(errors="replace")[-2000:]
            raise RuntimeError(f"model server exited with code {proc.returncode} before answering; log {log_path}:\n{tail}")
        try:
            with urllib.request.urlopen(url, timeout=2) as resp:
                if resp.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
            pass
        time.sleep(0.5)
    raise RuntimeError(f"model server did not answer {url} within {spec.startup_timeout:.0f}s; log {log_path}")


# While a kept() block is open: the servers started in it (by command), reused by every serve() call.
_kept: dict[tuple[str, ...], list[str]] | None = None
_kept_stack: contextlib.ExitStack | None = None


@contextlib.contextmanager
def kept() -> Iterator[None]:
    """Within this block a model server, once started, stays up for every later run of the same command
    (a whole experiment sweep starts it once, not once per run); all are stopped when the block ends."""
    global _kept, _kept_stack
    if _kept is not None:  # nested: the outer block owns the servers
        yield
        return
    with contextlib.ExitStack() as stack:
        _kept, _kept_stack = {}, stack
        try:
            yield
        finally:
            _kept, _kept_stack = None, None


@contextlib.contextmanager
def serve(cfg: ModelConfig, log_dir: Path) -> Iterator[list[str]]:
    """Yield base URLs: the config's own, or those of a server started here and stopped on exit (at the end
    of the enclosing kept() block, if there is one)."""
    if cfg.server is None:
        yield cfg.base_urls
        return
    if _kept is not None and _kept_stack is not None:
        command = tuple(cfg.server.command)
        if command not in _kept:
            _kept[command] = _kept_stack.enter_context(_started(cfg, log_dir))
        yield _kept[command]
        return
    with _started(cfg, log_dir) as urls:
        yield urls


@contextlib.contextmanager
def _started(cfg: ModelConfig, log_dir: Path) -> Iterator[list[str]]:
    assert cfg.server is not None
    port = free_port()
    cmd = [expand(a, port) for a in cfg.server.command]
    log_dir.mkdir(parents=True, exist_ok=True)
    log_path = log_dir / f"server-{cfg.name}.log"
    log.info("starting model server for %s on port %d (log: %s)", cfg.name, port, log_path)
    with open(log_path, "w") as log_file:
        proc = subprocess.Popen(cmd, stdout=log_file, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                preexec_fn=_die_with_parent, start_new_session=True)
    # SIGTERM to us (a scheduler, `kill`) must still reach the `finally` below.
    previous = signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))
    try:
        base = f"http://127.0.0.1:{port}"
        _wait_healthy(proc, base + cfg.server.health, cfg.server, log_path)
        yield [base + "/v1"]
    finally:
        signal.signal(signal.SIGTERM, previous)
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        log.info("model server for %s stopped", cfg.name)
