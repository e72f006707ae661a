"""Judged results as one table: a row per (model, setting, judge, item, sample), with the item's data
fields and the request's latency and tokens.

Only the files a table asks for are read: results/judged/<bench>/<model>/<setting>.<judge>.jsonl, its
raw file, and the data file named in the verdict file's manifest.
"""
from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Iterable

import pandas as pd

from data.jsonl import iter_jsonl

log = logging.getLogger(__name__)
RECORD_FIELDS = ("subject", "category", "discipline", "task", "domain", "split", "level", "difficulty",
                 "skills", "question_type", "answer_type")


@dataclass(frozen=True)
class Run:
    """One judged file."""

    bench: str
    model: str
    setting: str
    judge: str
    path: Path

    @property
    def raw(self) -> Path:
        return self.path.parents[3] / "raw" / self.bench / self.model / f"{self.setting}.jsonl"

    @property
    def manifest(self) -> dict:
        p = self.path.with_suffix(".manifest.json")
        return json.loads(p.read_text()) if p.exists() else {}


def find_runs(results: Path, bench: str, judge: str | None = None) -> list[Run]:
    """Every judged file of a benchmark (optionally of one judge)."""
    runs = []
    for path in sorted((results / "judged" / bench).glob("*/*.jsonl")):
        setting, _, judge_name = path.name[: -len(".jsonl")].rpartition(".")
        if judge is None or judge_name == judge:
            runs.append(Run(bench, path.parent.name, setting, judge_name, path))
    return runs


def pick_setting(runs: Iterable[Run], wanted: str) -> str | None:
    """The setting as run: itself, or its caption variant (how a text-only model takes it in the demo)."""
    have = {r.setting for r in runs}
    for s in (wanted, wanted + "+caption"):
        if s in have:
            return s
    return None


def _latest(path: Path, key: tuple[str, ...]) -> dict[tuple, dict]:
    """The last line of each key. A half-written last line (a run still writing, or killed) is left
    out with a warning; a bad line anywhere else is an error naming it."""
    out: dict[tuple, dict] = {}
    if not path.exists():
        return out
    with open(path, "rb") as f:
        lines = f.read().split(b"\n")
    for lineno, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw)
        except ValueError as e:
            if lineno == len(lines):  # no newline after it: still being written, or cut by a crash
                log.warning("%s:%d: ignoring a half-written last line", path, lineno)
                continue
            raise ValueError(f"{path}:{lineno}: -: corrupt result line ({e})") from e
        out[tuple(obj[k] for k in key)] = obj
    return out


@lru_cache(maxsize=32)
def load_records(path: Path) -> pd.DataFrame:
    rows = []
    for _, rec in iter_jsonl(path):
        row = {"id": rec["id"], "n_images": len(rec["images"])}
        row.update({f: rec[f] for f in RECORD_FIELDS if f in rec})
        rows.append(row)
    return pd.DataFrame(rows).set_index("id")


def load_run(run: Run) -> pd.DataFrame:
    """Current verdicts of one file, with the raw request's timing and tokens and the item's fields.

    Cached per file version within a process: `analysis.run --all` reads each judged file once, however
    many tables use it (callers get a copy, so a table cannot change another's input)."""
    stamp = tuple(p.stat().st_mtime_ns if p.exists() else 0 for p in (run.path, run.raw))
    return _load_run(run, stamp).copy()


@lru_cache(maxsize=256)
def _load_run(run: Run, stamp: tuple[int, ...]) -> pd.DataFrame:
    verdicts = _latest(run.path, ("id", "sample_idx"))
    raw = _latest(run.raw, ("id", "sample_idx"))
    rows = []
    for (rid, idx), v in verdicts.items():
        r = raw.get((rid, idx))
        if r is None or v.get("outcome") is None:
            continue
        usage = r.get("usage") or {}
        rows.append({"id": rid, "sample_idx": idx, "correct": v.get("correct"), "status": v["status"],
                     "flagged": bool(v.get("flags")),
                     "extracted": v.get("extracted"), "latency_s": r.get("latency_s"),
                     "completion_tokens": usage.get("completion_tokens"),
                     "reasoning_tokens": usage.get("reasoning_tokens"),
                     "finish_reason": r.get("finish_reason"), "response": r.get("response")})
    df = pd.DataFrame(rows, columns=["id", "sample_idx", "correct", "status", "flagged", "extracted", "latency_s",
                                     "completion_tokens", "reasoning_tokens", "finish_reason", "response"])
    df.insert(0, "judge", run.judge)
    df.insert(0, "setting", run.setting)
    df.insert(0, "model", run.model)
    data = run.manifest.get("data")
    if data and Path(data).exists():
        df = df.join(load_records(Path(data)), on="id")
    return df


def load(results: Path, bench: str, settings: list[str], judge: str) -> pd.DataFrame:
    """Every model's verdicts for the given settings (each as run, see `pick_setting`) and judge.

    The `setting` column holds the paper's setting name, whatever variant was run.
    """
    runs = find_runs(results, bench, judge)
    frames = []
    for model in sorted({r.model for r in runs}):
        mine = [r for r in runs if r.model == model]
        for wanted in settings:
            got = pick_setting(mine, wanted)
            if got:
                df = load_run(next(r for r in mine if r.setting == got))
                df["setting"] = wanted
                df["run_setting"] = got
                frames.append(df)
    if not frames:
        return pd.DataFrame(columns=["model", "setting", "judge", "id", "sample_idx", "correct", "status"])
    return pd.concat(frames, ignore_index=True)
