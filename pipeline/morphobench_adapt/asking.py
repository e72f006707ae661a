"""The adaptation's model calls, through the one way to call a model (infer/calls.py).

Each item's adaptation is a generator, as a multi-stage judge is (judge/judges.py): it yields the
requests (`Ask`) of its next stage, receives their `Reply`s and finally returns its outcome. `drive` runs
all items together, so each round's requests go out as one batch with the model's concurrency.

A request is rendered from `prompts/morphobench/<template>.txt`, keyed by the hash of what the model
sees (`infer.calls.request_key`) and appended as a raw line to
results/adapt/morphobench/<model>/<family>.jsonl, which is the cache: a key with a successful line is
never sent again, so a rerun (or a run resumed after a kill) repeats no call. A failure left by an
earlier run is tried again; one of this run is final (the client already retried it). A regenerated
hint or question is a new request because its prompt carries the reasons the earlier reply was
rejected — the same prompt at temperature 0 would only give the same reply.
"""
from __future__ import annotations

import inspect
import logging
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generator

from tqdm import tqdm

from infer.calls import Request, request_key, send
from infer.config import ModelConfig
from infer.layout import adaptation_log_path
from infer.render import RenderError, render_spec
from infer.store import AppendLog, load_latest
from infer.templates import PROMPTS, Template, load_template
from judge.tot import _json  # the judges' lenient JSON reading (code fences, LaTeX backslashes, repair)

log = logging.getLogger(__name__)
BENCH = "morphobench"


@dataclass(frozen=True)
class Ask:
    """One request: its template, the values inserted verbatim, and how the record's images are shown
    (`image`, `caption` for a text-only model, `text` for none)."""

    template: str
    values: dict[str, str]
    mode: str = "text"


@dataclass(frozen=True)
class Reply:
    text: str | None      # the model's reply; None when the request failed or could not be rendered
    error: str | None
    key: str | None
    tokens: int = 0


Steps = Generator[list[Ask], list[Reply], dict[str, Any]]


def read_json(reply: str) -> Any:
    """The JSON object a reply holds, read as the judges read theirs; when the reply wraps it in prose
    ("Here is the graph: {...} I hope …"), the span from its first `{` to its last `}`. Raises
    ValueError when there is none."""
    found: Any = None
    try:
        found = _json(reply)
    except Exception:  # json-repair raises on hopeless input
        pass
    if not isinstance(found, (dict, list)) or not found:
        start, end = reply.find("{"), reply.rfind("}")
        if start < 0 or end <= start:
            raise ValueError("no JSON in the reply")
        try:
            found = _json(reply[start:end + 1])
        except Exception as e:
            raise ValueError(f"no JSON in the reply ({type(e).__name__})") from e
    if not isinstance(found, (dict, list)):
        raise ValueError("no JSON object in the reply")
    return found


def log_path(results: Path, cfg: ModelConfig, family: str) -> Path:
    return adaptation_log_path(results, BENCH, cfg.name, family)


class Caller:
    """Answers asks from the family's log or the model, and counts what each template cost."""

    def __init__(self, cfg: ModelConfig, family: str, base: Path, results: Path, prompts: Path = PROMPTS,
                 max_tokens: int | None = None):
        self.cfg, self.base, self.results, self.prompts = cfg, base, results, prompts
        self.params = cfg.generation_params(max_tokens=max_tokens)
        self.path = log_path(results, cfg, family)
        self.sent_now: set[str] = set()  # keys sent by this run: their outcome is final
        self.counts: dict[str, dict[str, int]] = defaultdict(lambda: {"asked": 0, "sent": 0, "failed": 0, "tokens": 0})
        self._templates: dict[str, Template] = {}

    def template(self, name: str) -> Template:
        if name not in self._templates:
            self._templates[name] = load_template(BENCH, name, self.prompts)
        return self._templates[name]

    def answer(self, asks: list[tuple[dict[str, Any], Ask]]) -> list[Reply]:
        keys: list[str | None] = []
        unrenderable: dict[int, str] = {}
        by_key: dict[str, Request] = {}
        for i, (rec, ask) in enumerate(asks):
            self.counts[ask.template]["asked"] += 1
            try:
                messages = render_spec(rec, self.template(ask.template), self.base, ask.mode, literal=ask.values)
            except RenderError as e:
                unrenderable[i] = f"RenderError: {e}"
                keys.append(None)
                continue
            key = request_key(messages, self.params, self.cfg.model)
            keys.append(key)
            by_key.setdefault(key, Request(rec["id"], 0, key, lambda m=messages: m, setting=f"adapt:{ask.template}"))
        template_of = {k: asks[i][1].template for i, k in enumerate(keys) if k}
        with AppendLog(self.path) as out:
            latest = load_latest(self.path, key=lambda r: r["request_key"])
            todo = [r for k, r in by_key.items()
                    if k not in self.sent_now and (k not in latest or latest[k].get("error") is not None)]

            def write(line: dict[str, Any]) -> None:
                out.write(line)
                latest[line["request_key"]] = line
                counts = self.counts[template_of[line["request_key"]]]
                counts["sent"] += 1
                counts["failed"] += line.get("error") is not None
                counts["tokens"] += (line.get("usage") or {}).get("completion_tokens") or 0

            if todo:
                send(todo, self.cfg, self.params, write, self.results, f"adapt {self.cfg.name}")
            self.sent_now.update(r.key for r in todo)
        return [Reply(None, unrenderable[i], None) if k is None else _reply(latest.get(k), k)
                for i, k in enumerate(keys)]


def _reply(line: dict[str, Any] | None, key: str) -> Reply:
    if line is None:
        return Reply(None, "no reply recorded", key)
    usage = line.get("usage") or {}
    tokens = (usage.get("prompt_tokens") or 0) + (usage.get("completion_tokens") or 0)
    if line.get("error"):
        return Reply(None, line["error"], key, tokens)
    return Reply(line.get("response") or "", None, key, tokens)


def drive(items: list[tuple[dict[str, Any], Steps | dict[str, Any]]], caller: Caller, label: str) -> list[dict[str, Any]]:
    """Run every item's steps to its outcome; each round sends the requests of all waiting items at once.
    Each outcome gets `calls` (requests its stages asked, cached or sent)."""
    out: list[dict[str, Any] | None] = [None] * len(items)
    waiting: dict[int, tuple[Steps, list[Ask]]] = {}
    calls = [0] * len(items)
    bar = tqdm(total=len(items), desc=label, unit="item", dynamic_ncols=True)

    def advance(i: int, steps: Steps, replies: list[Reply] | None) -> None:
        try:
            asks = steps.send(replies) if replies is not None else next(steps)
        except StopIteration as done:
            out[i] = {**done.value, "calls": calls[i]}
            waiting.pop(i, None)
            bar.update(1)
            return
        calls[i] += len(asks)
        waiting[i] = (steps, asks)

    try:
        for i, (_, steps) in enumerate(items):
            if inspect.isgenerator(steps):
                advance(i, steps, None)
            else:  # settled without a call (no trace, no image …)
                out[i] = {**steps, "calls": 0}
                bar.update(1)
        while waiting:
            pending = [(i, ask) for i, (_, asks) in waiting.items() for ask in asks]
            replies = caller.answer([(items[i][0], ask) for i, ask in pending])
            for i in list(waiting):
                advance(i, waiting[i][0], [r for (j, _), r in zip(pending, replies) if j == i])
    finally:
        bar.close()
    return out
