"""The files a table reads, and only through here: judged verdicts, their raw requests and manifests, and
the unified data (read in analysis/run_files.py), and each judged run as one frame (built in analysis/run_frame.py,
kept in the user's cache by analysis/frame_cache.py).

A table asks for runs by setting: a run stands for the setting of the paper its manifest names (`stands_for`: the
demo's X+caption stands for X; infer/layout.py), else for its own. Whatever is read is cached per version of the
file (its mtime and size), so `analysis.run --all` reads each file once and a rewritten file is read again.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import pandas as pd

from analysis import frame_cache, gaps, run_frame
from analysis.run_files import (ROOT, MissingDataFile, Run, every_line, latest, read_json, read_records,
                                record_digests, record_fields, shown)
from analysis.run_frame import UNJUDGED
from analysis.table_experiments import experiment
from data.benchmarks import get as benchmark
from data.checkout import DEMO_BUILD
from data.files import file_version
from infer import layout
from infer.layout import stand_in
from judge import current
from judge.extract import truncated

# The one reader table modules call: its own functions, and the file readers of analysis/run_files.py they use.
__all__ = ["DEMO_DATA", "ROOT", "DataFile", "MissingDataFile", "MissingInputs", "Run", "chosen_runs", "current_lines",
           "data_file", "every_line", "find_runs", "judges_asked", "keep_frame", "frame_kept", "latest", "load",
           "load_run", "read_json", "read_records", "read_run", "record_digests", "record_fields", "shown", "stand_in"]
log = logging.getLogger(__name__)
DEMO_DATA = DEMO_BUILD


class MissingInputs(Exception):
    """The table's inputs are not there (yet): the message says which and how to make them."""


def find_runs(results: Path, bench: str, judge: str | None = None) -> list[Run]:
    """Every judged file of a benchmark (optionally of one judge), in path order; a judged manifest whose verdict
    file is not there is a run with no verdicts (analysis/gaps.py), whose answers are counted `unjudged`."""
    runs = []
    for path in sorted([*layout.judged_files(results, bench), *gaps.verdictless(results, bench)]):
        parts = layout.parse_judged(path)
        if judge is None or parts.judge == judge:
            runs.append(Run(bench, parts.model, parts.setting, parts.judge, path))
    return runs


def chosen_runs(results: Path, bench: str, settings: list[str], judge: str) -> list[tuple[str, Run]]:
    """(setting, the run standing for it) for every model, in model then `settings` order."""
    runs = find_runs(results, bench, judge)
    out = []
    for model in sorted({r.model for r in runs}):
        mine = [r for r in runs if r.model == model]
        out += [(s, run) for s in settings if (run := stand_in(mine, s)) is not None]
    for _, run in out:
        gaps.check(run)
    return out


def load_run(run: Run) -> pd.DataFrame:
    """One row per current outcome of the run's raw file: its current verdict (judge/current.py; status
    `unjudged` when it has none), with the outcome judged and, from a labelling judge, its labels and subtypes,
    the raw request's timing, tokens and response length (`response_chars`), and the item's data fields.

    Cached per version of the files read. Callers get their own frame: pandas copies on write, so a table that
    changes it never changes another's input, and one that only reads it copies nothing."""
    return read_run(run).copy(deep=False)


def read_run(run: Run) -> pd.DataFrame:
    """The cached frame of `load_run` itself, for reading only: callers must not change it."""
    gaps.check(run)
    return _load_run(run, _stamp(run))


def keep_frame(run: Run) -> None:
    """Make the run's frame and keep it on disk (analysis/frame_cache.py) without holding it: for a process that
    reads runs ahead for another (analysis/read_ahead.py)."""
    frame_cache.keep(layout.frame_cache_path(run.path), _stamp(run), lambda: run_frame.frame(run))


def frame_kept(run: Run) -> bool:
    """Whether the run's frame is kept on disk for its files as they are (analysis/frame_cache.py)."""
    return frame_cache.kept(layout.frame_cache_path(run.path), _stamp(run))


def _stamp(run: Run) -> tuple:
    """The versions of the files a run's frame is made from."""
    data = run.data_needed()
    return (file_version(run.path), file_version(run.raw), file_version(data) if data else None,
            file_version(layout.manifest_of(run.path)))


@lru_cache(maxsize=256)
def _load_run(run: Run, stamp: tuple) -> pd.DataFrame:
    """A run's frame, kept in this process and on disk (analysis/frame_cache.py) per version of its files."""
    return frame_cache.cached_frame(layout.frame_cache_path(run.path), stamp, lambda: run_frame.frame(run))


def current_lines(run: Run, judge: dict[str, Any] | None = None) -> dict[tuple[str, int], dict[str, Any]]:
    """(id, sample_idx) → the whole current verdict line of each current outcome of the run's raw file (by the
    rule of judge/current.py, for `judge`, else the judge last asked for), or, without one, a line of status
    `unjudged`: for the tables that read whole verdict lines. Each also says whether its outcome was `truncated`
    (judge.extract.truncated), as a run's frame does."""
    gaps.check(run)
    data = run.data_needed()
    raws = list(latest(run.raw).values())
    lines = every_line(run.path)
    judge = judge or run.judge_asked
    digests = record_digests(data) if data else None
    found = current.current(lines, raws, digests, judge)
    return {(r["id"], r["sample_idx"]): {
        **(found.get((r["id"], r["sample_idx"]))
           or {"id": r["id"], "sample_idx": r["sample_idx"], "outcome": current.outcome_sha(r), **UNJUDGED}),
        "truncated": truncated(r.get("finish_reason"), r.get("response"))} for r in raws}


def judges_asked(run: Run) -> list[dict[str, Any]]:
    """Every judge identity asked for on the run's judged file, one per judge model (judge/current.py)."""
    return current.judges_asked(run.manifest, lambda: every_line(run.path))


def load(results: Path, bench: str, settings: list[str], judge: str) -> pd.DataFrame:
    """Every model's verdicts of the given settings under one judge: column `setting` holds the setting
    asked for, `run_setting` the run that stands for it."""
    chosen = tuple((s, run, _stamp(run)) for s, run in chosen_runs(results, bench, settings, judge))
    if not chosen:
        return pd.DataFrame(columns=["model", "setting", "judge", "id", "sample_idx", "correct", "status"])
    return _joined(chosen).copy(deep=False)  # the caller's own frame, as load_run's


# Tables ask for the same runs again and again (over a hundred times in `analysis.run --all`), and joining a
# million rows each time was a large share of their time. Kept for the last few sets of runs asked for: the
# tables of one benchmark are built one after another.
@lru_cache(maxsize=4)
def _joined(chosen: tuple[tuple[str, Run, tuple], ...]) -> pd.DataFrame:
    return pd.concat([_load_run(run, stamp).assign(setting=s, run_setting=run.setting) for s, run, stamp in chosen],
                     ignore_index=True)


@dataclass(frozen=True)
class DataFile:
    """The unified data file a table reads directly, and the paper profile's file it stands in for."""

    path: Path
    paper: Path

    @property
    def demo(self) -> bool:
        return self.path != self.paper

    def note(self) -> str:
        if not self.demo:
            return f"{shown(self.path)} (the paper profile's data)"
        return (f"{shown(self.path)} (the demo set: {shown(self.paper)} is not converted, so its numbers say "
                "nothing about the paper)")


def data_file(bench: str) -> DataFile:
    """The paper profile's data file (its experiment's `data`, else data/<bench>/<its release file>), else the demo
    set's."""
    b = benchmark(bench)
    paper = ROOT / ((experiment(b.paper_data).data if b.paper_data else None) or f"data/{bench}/{b.release_file}")
    demo = DEMO_DATA / f"{bench}.jsonl"
    for path in (paper, demo):
        if path.exists():
            return DataFile(path, paper)
    raise MissingInputs(f"no {bench} data: neither {shown(paper)} (convert the release: python -m data.convert "
                        f"{bench}) nor {shown(demo)} (python -m data.demo)")
