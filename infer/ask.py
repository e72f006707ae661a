"""Asking a model for replies: what a step asks, the reply it gets, the keyed log that answers before the model
does, and the driver that runs the steps of many items together.

The judges (judge/llm.py, judge/run.py) and MorphoBench's adaptation (pipeline/morphobench_adapt/asking.py) ask this way.
An item's work is a generator of steps: it yields the `Ask`s of its next stage, receives their `Reply`s and
returns its result; `drive` sends the asks of every waiting item together. `answer` renders each ask from its
record (the caller's `render`: its own template folder and values), keys it by the hash of what the model
sees (infer.request.request_key) and takes its reply from the model's log when the key has a line there;
only the rest is sent, through the one client (infer/calls.py), and appended to the log. The log is the
cache, under one rule (`answers`):
- a successful line of the key answers it, whatever item asked; it is never sent again;
- a failure left by an earlier run is sent again; one of this run is final (the client already retried it);
- a reply its ask's `parse` cannot read is asked again as the `Reask` policy says (a sampling judge may
  answer differently; a deterministic one would only repeat itself);
- a line of the judge log's earlier form ({"key", "reply"}) is read as the line it stands for (`upgrade`).
"""
from __future__ import annotations

import inspect
import logging
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Generator, Iterable, Sequence, TypeVar, Union

from infer.config import ModelConfig
from infer.render import RenderError
from infer.request import Request, answers, request_key
from infer.log_index import latest_lines
from infer.progress import bar as progress_bar
from infer.store import AppendLog

logger = logging.getLogger(__name__)  # `log` names the replies' Log here
R = TypeVar("R")
Line = dict[str, Any]
Messages = list[dict[str, Any]]


@dataclass(frozen=True)
class Ask:
    """One request a step makes: its prompt (a template's name), the values inserted verbatim, how its reply is
    read (None: the text is all), how the record's images are shown (`image`; `caption`: their captions;
    `text`: not at all) and the form its reply must take (a GBNF grammar, sent only to a model whose config
    constrains its replies)."""

    prompt: str
    values: dict[str, str]
    parse: Callable[[str], Any] | None = None
    mode: str = "text"
    grammar: str | None = None

    def mode_for(self, cfg: ModelConfig) -> str:
        """How the images are shown to this model: one that takes no images reads the text alone."""
        return "text" if self.mode == "image" and not cfg.accepts_images else self.mode


@dataclass(frozen=True)
class Reply:
    text: str | None                    # the model's reply; None when the request failed or could not be rendered
    parsed: Any = None                  # the reply as its ask's `parse` read it; None when it failed or was not read
    error: str | None = None
    tokens: int = 0                     # tokens of the call (prompt + completion)
    call: dict[str, Any] | None = None  # a call that failed: its attempts, the cause of each, elapsed_s


Steps = Generator[list[Ask], list[Reply], R]


@dataclass(frozen=True)
class Reask:
    """When a successful reply that its ask's `parse` cannot read is asked again: while its request has been
    sent fewer than `up_to` times in this run (0: never) and the last asking did not give the same reply.
    `unreadable` is the error such a reply is given when it stays unread."""

    up_to: int = 0
    unreadable: str = "reply could not be parsed"


class Log:
    """One model's log of replies as one run sees it: its path, the stage whose requests it holds (`judge`,
    `adapt`: their raw lines' setting is `<stage>:<prompt>`), the results folder (where a server started for
    the sends keeps its log), and how often this run has sent each key. `on_line` sees each line written."""

    def __init__(self, path: Path, stage: str, results: Path, on_line: Callable[[Line], None] | None = None):
        self.path, self.stage, self.results, self.on_line = path, stage, results, on_line
        self.sends: Counter[str] = Counter()


def upgrade(line: Line) -> Line:
    """A judge log line of the earlier form ({"key", "judge", "reply", "usage"}) as the raw line it stands for:
    its key as `request_key`, its reply as a successful `response`. Any other line as it is."""
    if "reply" not in line:
        return line
    return {**line, "request_key": line.get("request_key") or line.get("key"), "response": line["reply"], "error": None}


# The start of a raw line as infer.request.raw_line writes it: its request key, read without parsing the line.
_KEYED = re.compile(rb'\{"id":"(?:[^"\\]|\\.)*","sample_idx":\d+,"request_key":"([^"\\]*)"')


def _key_of_bytes(raw: bytes) -> str | None:
    m = _KEYED.match(raw)
    return (m.group(1).decode() or None) if m else None  # an empty key: the parsed line says which it has


def _key_of(line: Line) -> str | None:
    return line.get("request_key") or line.get("key")


def read_log(path: Path, keys: Iterable[str]) -> dict[str, Line]:
    """The last line of each of `keys` that the log holds, read through its index (infer/log_index.py): a run
    asking a few keys of a log of millions of calls reads those lines only."""
    return {key: upgrade(line) for key, line in latest_lines(path, keys, _key_of_bytes, _key_of).items()}


def answer(asks: Sequence[tuple[dict[str, Any], Ask]], render: Callable[[dict[str, Any], Ask], Messages],
           cfg: ModelConfig, params: dict[str, Any], log: Log, reask: Reask = Reask()) -> list[Reply]:
    """A reply to every (record, ask), in order, from the log or from the model. An ask that cannot be rendered
    gets its RenderError as a failed reply."""
    keys: list[str | None] = []
    failures: dict[int, Reply] = {}
    by_key: dict[str, Request] = {}
    for i, (rec, ask) in enumerate(asks):
        try:
            messages = render(rec, ask)
        except RenderError as e:
            failures[i] = Reply(None, None, f"RenderError: {e}")
            keys.append(None)
            continue
        extra = {"grammar": ask.grammar} if cfg.constrain_judge_replies and ask.grammar else {}
        key = request_key(messages, {**params, **extra}, cfg.model)
        keys.append(key)
        by_key.setdefault(key, Request(rec["id"], 0, key, lambda m=messages: m, setting=f"{log.stage}:{ask.prompt}",
                                       extra=extra))
    parse_of = {k: asks[i][1].parse for i, k in enumerate(keys) if k is not None}
    with AppendLog(log.path, shared=True) as out:  # runs judging other settings append beside this one
        latest = read_log(log.path, by_key)
        settled = _settle(by_key, parse_of, latest, cfg, params, log, reask, out.write)
    return [failures[i] if k is None else _reply(settled[k], asks[i][1], reask) for i, k in enumerate(keys)]


def _settle(by_key: dict[str, Request], parse_of: dict[str, Callable[[str], Any] | None], latest: dict[str, Line],
            cfg: ModelConfig, params: dict[str, Any], log: Log, reask: Reask,
            append: Callable[[Line], None]) -> dict[str, Line]:
    """The line each key ends with: sent until it has one this run keeps, as the module's rule says."""
    settled: dict[str, Line] = {}
    before: dict[str, str | None] = {}  # the reply a key had when it was asked again
    urls: list[str] | None = None  # the model's endpoints that answer, checked before its first call
    open_keys = list(by_key)
    while open_keys:
        again = []
        for key in open_keys:
            sent = log.sends[key]
            line = latest.get(key) or ({"error": "no reply recorded"} if sent else None)
            if line is not None and (sent or answers(line)):
                parse = parse_of[key]
                unreadable = parse is not None and answers(line) and parse(line.get("response") or "") is None
                if not (unreadable and sent < reask.up_to and before.get(key, object()) != line.get("response")):
                    settled[key] = line
                    continue
                before[key] = line.get("response")
            again.append(key)
        if not again:
            break
        if any(log.sends[k] for k in again):
            logger.warning("%d %s replies unusable, asking again", len(again), log.stage)
        log.sends.update(again)

        def write(line: Line) -> None:
            append(line)
            latest[line["request_key"]] = line
            if log.on_line:
                log.on_line(line)

        from infer.calls import checked_endpoints, send  # here: what only reads judges (analysis) never loads a client

        urls = urls or checked_endpoints(cfg)
        send([by_key[k] for k in again], cfg, params, write, log.results, f"{log.stage} {cfg.name}", urls=urls)
        open_keys = again
    return settled


def _reply(line: Line, ask: Ask, reask: Reask) -> Reply:
    usage = line.get("usage") or {}
    tokens = (usage.get("prompt_tokens") or 0) + (usage.get("completion_tokens") or 0)
    if line.get("error"):
        call = {"attempts": line.get("attempts"), "attempt_errors": line.get("attempt_errors"),
                "elapsed_s": line.get("elapsed_s")}
        return Reply(None, None, line["error"], tokens, call)
    text = line.get("response") or ""
    if ask.parse is None:
        return Reply(text, None, None, tokens)
    parsed = ask.parse(text)
    return Reply(text, parsed, None if parsed is not None else reask.unreadable, tokens)


@dataclass
class Cost:
    """What an item's steps asked: the replies they received (from the log or the model), their tokens, and
    what each failed call went through."""

    calls: int = 0
    tokens: int = 0
    failed: list[dict[str, Any]] = field(default_factory=list)


def drive(steps: Sequence[Union[Steps[R], R]], answer: Callable[[list[tuple[int, Ask]]], list[Reply]],
          label: str | None = None) -> list[tuple[R, Cost | None]]:
    """Every item's result and what its steps cost (None: reached without steps). Each round, the asks of all
    waiting items go out together — `answer` gets (item index, ask) pairs and returns their replies in order —
    and each item gets its own replies back. `label`: a progress bar over the items."""
    out: list[tuple[Any, Cost | None] | None] = [None] * len(steps)
    waiting: dict[int, tuple[Steps[R], list[Ask]]] = {}
    costs = [Cost() for _ in steps]
    bar = progress_bar(total=len(steps), desc=label, unit="item", dynamic_ncols=True) if label else None

    def advance(i: int, gen: Steps[R], replies: list[Reply] | None) -> None:
        if replies:
            costs[i].calls += len(replies)
            costs[i].tokens += sum(r.tokens for r in replies)
            costs[i].failed.extend(r.call for r in replies if r.call)
        try:
            waiting[i] = (gen, gen.send(replies) if replies is not None else next(gen))
        except StopIteration as done:
            settle(i, done.value, costs[i])
            waiting.pop(i, None)

    def settle(i: int, result: Any, cost: Cost | None) -> None:
        out[i] = (result, cost)
        if bar:
            bar.update(1)

    try:
        for i, gen in enumerate(steps):
            if inspect.isgenerator(gen):
                advance(i, gen, None)
            else:
                settle(i, gen, None)
        while waiting:
            pending = [(i, ask) for i, (_, asks) in waiting.items() for ask in asks]
            replies = answer(pending)
            for i in list(waiting):
                advance(i, waiting[i][0], [r for (j, _), r in zip(pending, replies) if j == i])
    finally:
        if bar:
            bar.close()
    return out  # type: ignore[return-value]  (every item is settled when no item waits)
