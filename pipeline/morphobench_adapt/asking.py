"""The adaptation's model calls, asked the one way a model is asked (infer/ask.py).

Each item's adaptation is a generator of steps, as a multi-stage judge is: it yields the requests (`Ask`) of
its next stage, receives their `Reply`s and finally returns its outcome; `infer.ask.drive` runs all items
together, so each round's requests go out as one batch with the model's concurrency.

A request is rendered from `prompts/morphobench/<template>.txt`, keyed by the hash of what the model sees
and appended as a raw line to results/adapt/morphobench/<model>/<family>.jsonl, which is the cache: a key
with a successful line is never sent again, so a rerun (or a run resumed after a kill) repeats no call. A
failure left by an earlier run is tried again; one of this run (a `Caller`'s life) is final (the client
already retried it). A regenerated hint or question is a new request because its prompt carries the reasons
the earlier reply was rejected — the same prompt at temperature 0 would only give the same reply.
"""
from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

from infer.ask import Ask, Log, Reply, Steps, answer, drive as drive_steps
from infer.config import ModelConfig
from infer.layout import adaptation_log_path
from infer.render import render_spec
from infer.templates import PROMPTS, Template, load_template
from judge.tot import read_json as read_judge_json  # the judges' lenient JSON reading (code fences, LaTeX, repair)

BENCH = "morphobench"
Outcome = dict[str, Any]


def read_json(reply: str) -> Any:
    """The JSON object a reply holds, read as the judges read theirs; when the reply wraps it in prose
    ("Here is the graph: {...} I hope …"), the span from its first `{` to its last `}`. Raises
    ValueError when there is none."""
    found: Any = None
    try:
        found = read_judge_json(reply)
    except Exception:  # json-repair raises on hopeless input
        pass
    if not isinstance(found, (dict, list)) or not found:
        start, end = reply.find("{"), reply.rfind("}")
        if start < 0 or end <= start:
            raise ValueError("no JSON in the reply")
        try:
            found = read_judge_json(reply[start:end + 1])
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
        self.cfg, self.base, self.prompts = cfg, base, prompts
        self.params = cfg.generation_params(max_tokens=max_tokens)
        self.log = Log(log_path(results, cfg, family), "adapt", results, on_line=self._count)
        self.counts: dict[str, dict[str, int]] = defaultdict(lambda: {"asked": 0, "sent": 0, "failed": 0, "tokens": 0})
        self._templates: dict[str, Template] = {}

    def template(self, name: str) -> Template:
        if name not in self._templates:
            self._templates[name] = load_template(BENCH, name, self.prompts)
        return self._templates[name]

    def render(self, rec: dict[str, Any], ask: Ask) -> list[dict[str, Any]]:
        return render_spec(rec, self.template(ask.prompt), self.base, ask.mode_for(self.cfg), literal=ask.values)

    def _count(self, line: dict[str, Any]) -> None:
        counts = self.counts[line["setting"].removeprefix("adapt:")]
        counts["sent"] += 1
        counts["failed"] += line.get("error") is not None
        counts["tokens"] += (line.get("usage") or {}).get("completion_tokens") or 0

    def answer(self, asks: list[tuple[dict[str, Any], Ask]]) -> list[Reply]:
        for _, ask in asks:
            self.counts[ask.prompt]["asked"] += 1
        return answer(asks, self.render, self.cfg, self.params, self.log)


def drive(items: list[tuple[dict[str, Any], Steps[Outcome] | Outcome]], caller: Caller, label: str) -> list[Outcome]:
    """Run every item's steps to its outcome; each round sends the requests of all waiting items at once.
    Each outcome gets `calls` (requests its stages asked, cached or sent)."""
    done = drive_steps([steps for _, steps in items],
                       lambda pending: caller.answer([(items[i][0], ask) for i, ask in pending]), label)
    return [{**outcome, "calls": cost.calls if cost else 0} for outcome, cost in done]
