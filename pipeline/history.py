"""What earlier runs in results/ say about a model, for a cost estimate: how many tokens it generates per
request, and how long its reasoning trajectories are (which the process judges break into steps).

Files are read from their start and at most `LINES` lines each, so an estimate over large results stays quick.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import lru_cache
from itertools import islice
from pathlib import Path
from statistics import mean

from infer import layout
from infer.request import answered, answers
from judge.types import Item
from pipeline.tokens import text_tokens

LINES = 400         # lines read per file
STEP_TOKENS = 80    # a process judge's step: about this many tokens of trajectory
DEFAULT_STEPS = 15  # steps of a trajectory where no earlier run of the model shows one


@dataclass(frozen=True)
class Seen:
    """A mean from earlier lines and where it comes from ("" and None: nothing seen)."""

    value: float | None
    where: str = ""


def steps_of(trajectory_tokens: float) -> int:
    """The steps a process judge finds in a trajectory of this many tokens (one per STEP_TOKENS)."""
    return max(1, math.ceil(trajectory_tokens / STEP_TOKENS))


def _lines(path: Path) -> list[dict]:
    out = []
    with open(path, "rb") as f:
        for raw in islice(f, LINES):
            try:
                out.append(json.loads(raw))
            except ValueError:
                continue
    return out


def _model_files(results: Path, bench: str, model: str, setting: str) -> tuple[list[Path], str]:
    """This run's raw file if it exists, else the model's raw files of the benchmark, else of any benchmark."""
    same = layout.raw_path(results, bench, model, setting)
    if same.exists():
        return [same], f"{bench}/{model}/{setting}"
    for pattern, where in ((f"{bench}/{model}/*.jsonl", f"{bench}/{model}"), (f"*/{model}/*.jsonl", model)):
        files = sorted(layout.raw_dir(results).glob(pattern))
        if files:
            return files, where
    return [], ""


@lru_cache(maxsize=4096)
def output_tokens(results: Path, bench: str, model: str, setting: str) -> Seen:
    """The mean completion tokens (reasoning included) of the model's answered requests in earlier raw files."""
    files, where = _model_files(results, bench, model, setting)
    seen = [(r.get("usage") or {}).get("completion_tokens") for f in files for r in _lines(f) if answers(r)]
    seen = [x for x in seen if isinstance(x, (int, float))]
    return Seen(mean(seen), f"earlier runs ({where}, {len(seen)} answers)") if seen else Seen(None)


@lru_cache(maxsize=4096)
def trajectory_tokens(results: Path, bench: str, model: str, setting: str) -> Seen:
    """The mean length in tokens of the model's earlier trajectories (reasoning and response, as the process
    judges read them: judge/types.py), over a few dozen of them."""
    files, where = _model_files(results, bench, model, setting)
    seen = [Item({}, r.get("response") or "", r.get("reasoning")).trajectory for f in files for r in _lines(f)
            if answered(r)][:64]
    return Seen(mean(map(text_tokens, seen)), f"earlier trajectories ({where}, {len(seen)})") if seen else Seen(None)


@lru_cache(maxsize=1024)
def judge_output_tokens(results: Path, judge_model: str, prompts: tuple[str, ...]) -> Seen:
    """The mean completion tokens of the judge model's earlier calls with these judge prompts (its judge log)."""
    path = layout.judge_cache_path(results, judge_model)
    if not path.exists():
        return Seen(None)
    seen = [(r.get("usage") or {}).get("completion_tokens") for r in _lines(path)
            if r.get("setting") in prompts and answers(r)]
    seen = [x for x in seen if isinstance(x, (int, float))]
    return Seen(mean(seen), f"earlier judge calls ({judge_model}, {len(seen)})") if seen else Seen(None)
