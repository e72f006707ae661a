"""The files a table reads, and only through here: judged verdicts, their raw requests and manifests, and
the unified data.

results/judged/<bench>/<model>/<setting>.<judge>.jsonl and results/raw/<bench>/<model>/<setting>.jsonl are
append-only, so the last line of a key is the current one: every such file is read with the store's own
reader (infer.store.load_latest). A run stands for the setting of the paper its manifest names
(`stands_for`: the demo's X+caption stands for X), else for its own. Whatever is read is cached per version
of the file (its mtime and size), so `analysis.run --all` reads each file once and a rewritten file is read
again.
"""
from __future__ import annotations

import json
import logging
import math
from dataclasses import dataclass
from functools import lru_cache, wraps
from pathlib import Path
from typing import Any, Callable, Hashable, Iterable, TypeVar

import pandas as pd
import pyarrow as pa

from analysis.columns import read_fields
from analysis.experiments import experiment
from data.files import file_version
from data.jsonl import bulk_read, iter_jsonl
from infer.store import load_latest

log = logging.getLogger(__name__)
ROOT = Path(__file__).resolve().parent.parent
DEMO_DATA = ROOT / "data" / "demo" / "build"
# The experiment whose `data` is a benchmark's paper-profile data file (as pipeline.experiments reads it).
PAPER_DATA_OF = {"think360": "think360_T3", "omibench": "omibench_T2", "mira": "mira_levels",
                 "c2rbench": "c2rbench_main", "morphobench": "morphobench_main"}
RUN_COLUMNS = ["id", "sample_idx", "correct", "status", "flagged", "extracted", "latency_s", "completion_tokens",
               "reasoning_tokens", "finish_reason", "response", "score", "judge_calls", "judge_tokens", "outcome",
               "labels", "subtypes"]
RECORD_FIELDS = ("subject", "category", "discipline", "task", "domain", "split", "level", "difficulty",
                 "skills", "question_type", "answer_type")
T = TypeVar("T")


class MissingInputs(Exception):
    """The table's inputs are not there (yet): the message says which and how to make them."""


def shown(path: Path) -> str:
    """A path as notes and provenance show it: relative to the checkout when inside it."""
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def per_version(read: Callable[[Path], T]) -> Callable[[Path], T]:
    """Cache `read(path)` per version of the file. The value is shared: callers must not change it."""
    cached = lru_cache(maxsize=256)(lambda path, _version: read(path))

    @wraps(read)
    def wrapper(path: Path) -> T:
        return cached(Path(path), file_version(path))
    return wrapper


def by_answer(line: dict[str, Any]) -> Hashable:
    """The key of a raw or verdict line: the item and the sample."""
    return line["id"], line["sample_idx"]


def latest(path: Path, key: Callable[[dict[str, Any]], Hashable] = by_answer) -> dict[Hashable, dict[str, Any]]:
    """The current line of each key of an append-only result file (infer.store.load_latest): a bad line is
    an error naming it; a half-written last line (a run still writing, or killed) is left out, with a warning."""
    if _ends_mid_line(path):
        log.warning("%s: half-written last line (a run still writing, or killed): left out unless complete", path)
    return load_latest(path, key)


def _ends_mid_line(path: Path) -> bool:
    if not path.exists() or path.stat().st_size == 0:
        return False
    with open(path, "rb") as f:
        f.seek(-1, 2)
        return f.read(1) != b"\n"


@per_version
def read_json(path: Path) -> dict[str, Any]:
    """A manifest; {} when there is none."""
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


@per_version
def read_records(path: Path) -> dict[str, dict[str, Any]]:
    """The unified records of a data file by id."""
    with bulk_read():
        return {str(rec["id"]): rec for _, rec in iter_jsonl(path)}


@per_version
def record_fields(path: Path) -> pd.DataFrame:
    """The fields tables group by (RECORD_FIELDS, and the number of images) of every record, indexed by id."""
    rows = [{"id": rid, "n_images": len(rec["images"]), **{f: rec[f] for f in RECORD_FIELDS if f in rec}}
            for rid, rec in read_records(path).items()]
    return pd.DataFrame(rows).set_index("id")


@dataclass(frozen=True)
class Run:
    """One judged file: a model's run of a setting, judged by one judge."""

    bench: str
    model: str
    setting: str
    judge: str
    path: Path

    @property
    def raw(self) -> Path:
        return self.path.parents[3] / "raw" / self.bench / self.model / f"{self.setting}.jsonl"

    @property
    def manifest(self) -> dict[str, Any]:
        return read_json(self.path.with_suffix(".manifest.json"))

    @property
    def raw_manifest(self) -> dict[str, Any]:
        return read_json(self.raw.with_suffix(".manifest.json"))

    @property
    def stands_for(self) -> str:
        """The experiment's setting this run stands for, as its manifests record it; else its own."""
        return self.manifest.get("stands_for") or self.raw_manifest.get("stands_for") or self.setting

    @property
    def data(self) -> Path | None:
        """The data file the run was judged against (its manifest's `data`), when it is there."""
        data = self.manifest.get("data")
        return Path(data) if data and Path(data).exists() else None


def find_runs(results: Path, bench: str, judge: str | None = None) -> list[Run]:
    """Every judged file of a benchmark (optionally of one judge), in path order."""
    runs = []
    for path in sorted((results / "judged" / bench).glob("*/*.jsonl")):
        setting, _, judge_name = path.name[: -len(".jsonl")].rpartition(".")
        if judge is None or judge_name == judge:
            runs.append(Run(bench, path.parent.name, setting, judge_name, path))
    return runs


def stand_in(runs: Iterable[Run], setting: str) -> Run | None:
    """Of one model's runs under one judge, the run that stands for `setting`: the run of that name, else
    one whose manifest says it stands for it."""
    runs = list(runs)
    return (next((r for r in runs if r.setting == setting), None)
            or next((r for r in runs if r.stands_for == setting), None))


def chosen_runs(results: Path, bench: str, settings: list[str], judge: str) -> list[tuple[str, Run]]:
    """(setting, the run standing for it) for every model, in model then `settings` order."""
    runs = find_runs(results, bench, judge)
    out = []
    for model in sorted({r.model for r in runs}):
        mine = [r for r in runs if r.model == model]
        out += [(s, run) for s in settings if (run := stand_in(mine, s)) is not None]
    return out


def load_run(run: Run) -> pd.DataFrame:
    """Current verdicts of one file (with the raw outcome each judged and, from a labelling judge, its labels and
    subtypes), with the raw request's timing and tokens and the item's data fields.

    Cached per version of the files read (callers get a copy, so a table cannot change another's input)."""
    return _current_run(run).copy()


def _current_run(run: Run) -> pd.DataFrame:
    """The cached frame of `load_run` itself: callers must not change it."""
    return _load_run(run, (file_version(run.path), file_version(run.raw), file_version(run.data) if run.data else None))


# The fields of raw and verdict lines a table may read, for analysis.columns (the other fields are skipped).
RAW_FIELDS = {"id": pa.string(), "sample_idx": pa.int64(), "latency_s": pa.float64(), "finish_reason": pa.string(),
              "response": pa.string(), "usage": pa.struct([("completion_tokens", pa.int64()),
                                                          ("reasoning_tokens", pa.int64())])}
VERDICT_FIELDS = {"id": pa.string(), "sample_idx": pa.int64(), "correct": pa.bool_(), "status": pa.string(),
                  "flags": pa.list_(pa.string()), "extracted": pa.string(), "score": pa.float64(),
                  "judge_calls": pa.int64(), "judge_tokens": pa.int64(), "outcome": pa.string(),
                  "labels": pa.list_(pa.string()), "subtypes": pa.list_(pa.string())}


def current_columns(path: Path, fields: dict[str, pa.DataType], required: tuple[str, ...] = ("id", "sample_idx"),
                    defaults: dict[str, Any] | None = None) -> dict[str, list]:
    """The given fields of the current line of each (id, sample_idx) of a result file (as `latest`: the last
    line of a key, at the place of its first), as one list per field; a missing field is its default, else
    None. Read by pyarrow when it can give exactly what json gives (analysis.columns), several times faster
    on a large run, else line by line."""
    defaults = defaults or {}
    cols = read_fields(path, fields, required, tuple(defaults)) if path.exists() else None
    if cols is None:
        lines = list(latest(path).values())
        return {name: [line[name] if name in required else line.get(name, defaults.get(name)) for line in lines]
                for name in fields}
    at = {key: i for i, key in enumerate(zip(cols["id"], cols["sample_idx"]))}  # a key's last line
    rows = None if len(at) == len(cols["id"]) else list(at.values())  # None: every line is current
    return {name: _pick(cols[name], rows) if name in cols else [defaults[name]] * len(at) for name in fields}


def _pick(values: list, places: list[int] | None) -> list:
    """values[i] for each i of `places` (all of them, when None)."""
    return values if places is None else [values[i] for i in places]


@lru_cache(maxsize=256)
def _load_run(run: Run, _stamp: tuple) -> pd.DataFrame:
    with bulk_read():
        raw = current_columns(run.raw, RAW_FIELDS)
        ver = current_columns(run.path, VERDICT_FIELDS, required=("id", "sample_idx", "status"),
                              defaults={"judge_calls": 0, "judge_tokens": 0})
        # every verdict of an outcome, with the raw line it judged: their places in `ver` and `raw` (None: all of
        # them, in the same order, as when the judge wrote a verdict for every raw line in turn)
        at_ver = at_raw = None
        if (ver["id"], ver["sample_idx"]) != (raw["id"], raw["sample_idx"]) or None in ver["outcome"]:
            raw_at = {key: j for j, key in enumerate(zip(raw["id"], raw["sample_idx"]))}
            pairs = [(i, j) for i, key in enumerate(zip(ver["id"], ver["sample_idx"]))
                     if (j := raw_at.get(key)) is not None and ver["outcome"][i] is not None]
            at_ver, at_raw = [i for i, _ in pairs], [j for _, j in pairs]
        # the response texts as plain Python objects (NaN when missing): they are large and only carried along,
        # and pandas' arrow-backed strings would convert them in, and every filter would copy them
        responses = pd.Series([math.nan if r is None else r for r in _pick(raw["response"], at_raw)], dtype=object)
        columns = {**{name: _pick(ver[name], at_ver) for name in ver if name != "flags"},
                   **{name: _pick(raw[name], at_raw) for name in ("latency_s", "finish_reason")},
                   "response": responses, "flagged": [bool(f) for f in _pick(ver["flags"], at_ver)]}
        usage = [u or {} for u in _pick(raw["usage"], at_raw)]
        for name in ("completion_tokens", "reasoning_tokens"):
            columns[name] = [u.get(name) for u in usage]
    df = pd.DataFrame(columns, columns=RUN_COLUMNS)
    df.insert(0, "judge", run.judge)
    df.insert(0, "setting", run.setting)
    df.insert(0, "model", run.model)
    return df.join(record_fields(run.data), on="id") if run.data else df


def load(results: Path, bench: str, settings: list[str], judge: str) -> pd.DataFrame:
    """Every model's verdicts of the given settings under one judge: column `setting` holds the setting
    asked for, `run_setting` the run that stands for it."""
    frames = [_current_run(run).assign(setting=s, run_setting=run.setting)  # assign copies: the cache is kept
              for s, run in chosen_runs(results, bench, settings, judge)]
    if not frames:
        return pd.DataFrame(columns=["model", "setting", "judge", "id", "sample_idx", "correct", "status"])
    return pd.concat(frames, ignore_index=True)


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
    """The paper profile's data file (its experiment's `data`, else data/<bench>/test.jsonl), else the demo
    set's."""
    paper = ROOT / (experiment(PAPER_DATA_OF[bench]).data or f"data/{bench}/test.jsonl")
    demo = DEMO_DATA / f"{bench}.jsonl"
    for path in (paper, demo):
        if path.exists():
            return DataFile(path, paper)
    raise MissingInputs(f"no {bench} data: neither {shown(paper)} (convert the release: python -m data.convert "
                        f"{bench}) nor {shown(demo)} (python -m data.demo)")
