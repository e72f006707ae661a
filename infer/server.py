"""Start a model's own server (from its config), wait until it answers, and always stop it."""
from __future__ import annotations

import contextlib
import ctypes
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
from typing import Any, Iterator

from infer.config import ModelConfig, ServerSpec
from infer.launch import Launch, Needs, fill, plan
from infer.layout import server_log_path

log = logging.getLogger(__name__)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


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


# While a kept() block is open: the one set of servers it keeps (by commands and GPUs) and what stops them.
_kept: dict[str, Any] | None = None


@contextlib.contextmanager
def kept() -> Iterator[None]:
    """Within this block a model's servers, once started, stay up for every later run of the same
    command (a whole experiment sweep starts them once, not once per run). One set at a time: a run that
    needs other servers stops these first (on a GPU node both would not fit), and the block's end stops
    the last."""
    global _kept
    if _kept is not None:  # nested: the outer block owns the servers
        yield
        return
    _kept = {}
    try:
        yield
    finally:
        if _kept.get("stack"):
            _kept["stack"].close()
        _kept = None


@contextlib.contextmanager
def serve(cfg: ModelConfig, log_dir: Path, launches: list[Launch] | None = None) -> Iterator[list[str]]:
    """Yield base URLs: the config's own, or those of the servers started here (`launches`, by default
    one as the config says) and stopped on exit — or kept for later runs inside a kept() block."""
    if not cfg.launches_server:
        yield cfg.base_urls
        return
    launches = launches or plan(cfg, Needs(), None)
    if _kept is not None:
        key = tuple((tuple(x.command), x.gpus) for x in launches)
        if _kept.get("key") != key:
            if _kept.get("stack"):
                _kept["stack"].close()
            _kept.clear()
            stack = contextlib.ExitStack()
            _kept.update(key=key, stack=stack, urls=stack.enter_context(_started(cfg, launches, log_dir)))
        yield _kept["urls"]
        return
    with _started(cfg, launches, log_dir) as urls:
        yield urls


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


@contextlib.contextmanager
def _started(cfg: ModelConfig, launches: list[Launch], log_dir: Path) -> Iterator[list[str]]:
    """Start every server at once (they load in parallel), wait until each answers, stop all on exit —
    also on Ctrl-C, SIGTERM or an error in any of them."""
    assert cfg.server is not None
    log_dir.mkdir(parents=True, exist_ok=True)
    procs: list[tuple[subprocess.Popen, str, Path]] = []
    # SIGTERM to us (a scheduler, `kill`) must still reach the `finally` below: a command's main turns it
    # into an interruption (infer/interrupt.py); code that installed no handler exits here.
    previous = signal.getsignal(signal.SIGTERM)
    if previous == signal.SIG_DFL:
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))
    try:
        for i, launch in enumerate(launches):
            port = free_port()
            cmd = [fill(a, {"port": str(port)}) for a in launch.command]
            log_path = server_log_path(log_dir, cfg.name, i if len(launches) > 1 else None)
            log.info("starting model server for %s on port %d%s (log: %s)", cfg.name, port,
                     f", GPUs {','.join(map(str, launch.gpus))}" if launch.gpus else "", log_path)
            with open(log_path, "w") as log_file:
                proc = subprocess.Popen(cmd, stdout=log_file, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                        env={**os.environ, **launch.env()}, preexec_fn=_die_with_parent,
                                        start_new_session=True)
            procs.append((proc, f"http://127.0.0.1:{port}", log_path))
        for proc, base, log_path in procs:
            _wait_healthy(proc, base + cfg.server.health, cfg.server, log_path)
        yield [base + "/v1" for _, base, _ in procs]
    finally:
        if previous == signal.SIG_DFL:
            signal.signal(signal.SIGTERM, previous)
        for proc, _, _ in procs:
            _stop(proc)
        if procs:
            log.info("model server%s for %s stopped", "s" if len(procs) > 1 else "", cfg.name)
