"""The files a table reads, and only through here: judged verdicts, their raw requests and manifests, and
the unified data.

results/raw/<bench>/<model>/<setting>.jsonl is append-only, so the last line of an id and sample is its
current outcome (read as the store reads it, infer.store.load_latest). Of
results/judged/<bench>/<model>/<setting>.<judge>.jsonl, a table reads for each current outcome its current
verdict by the one rule of judge/current.py (the verdict of that very outcome, judged against the record's line
in the data file now, by the judge last asked for), never simply the last verdict line; an outcome without one is
read as status `unjudged`, so it stays in every count and denominator. A run stands for the setting of the paper
its manifest names (`stands_for`: the demo's X+caption stands for X; infer/layout.py), else for its own.
Whatever is read is cached per version of the file (its mtime and size), so `analysis.run --all` reads each file
once and a rewritten file is read again.
"""
from __future__ import annotations

import itertools
import json
import logging
import math
from dataclasses import dataclass
from functools import lru_cache, wraps
from pathlib import Path
from typing import Any, Callable, Hashable, Iterator, TypeVar

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from analysis.columns import as_column, as_lists, read_table
from analysis.frame_cache import cached_frame
from analysis.table_experiments import experiment
from data.dataset import line_digest
from data.files import file_version
from data.jsonl import DataError, bulk_read, parse_line, problem
from infer import layout
from infer.layout import stand_in  # noqa: F401  (where table modules find it)
from infer.store import load_latest
from judge import current

log = logging.getLogger(__name__)
ROOT = Path(__file__).resolve().parent.parent
DEMO_DATA = ROOT / "data" / "demo" / "build"
# The experiment whose `data` is a benchmark's paper-profile data file (as pipeline.experiments reads it).
PAPER_DATA_OF = {"think360": "think360_T3", "omibench": "omibench_T2", "mira": "mira_levels",
                 "c2rbench": "c2rbench_main", "morphobench": "morphobench_main"}
RUN_COLUMNS = ["id", "sample_idx", "correct", "status", "flagged", "extracted", "latency_s", "completion_tokens",
               "reasoning_tokens", "finish_reason", "response_chars", "score", "judge_calls", "judge_tokens", "outcome",
               "labels", "subtypes"]
RECORD_FIELDS = ("subject", "category", "discipline", "task", "domain", "split", "level", "difficulty",
                 "skills", "question_type", "answer_type")
T = TypeVar("T")


class MissingInputs(Exception):
    """The table's inputs are not there (yet): the message says which and how to make them."""


class MissingDataFile(Exception):
    """The data file a run was judged against is not there: its tables are missing (analysis.run says so, with the
    path). Apart from MissingInputs, which tables catch to go on without a judge that has no runs: a table is never
    built without a run because that run's data file is gone."""


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


def _data_lines(path: Path) -> Iterator[tuple[str, dict[str, Any], bytes]]:
    """(id, record, line) of every record of a data file; a line that does not parse is an error naming it."""
    with open(path, "rb") as f:
        for lineno, raw in enumerate(f, start=1):
            if not raw.strip():
                continue
            rec, err = parse_line(raw)
            if err is not None:
                raise DataError([problem(path, lineno, "-", err)])
            yield str(rec["id"]), rec, raw


@per_version
def read_records(path: Path) -> dict[str, dict[str, Any]]:
    """The unified records of a data file by id (whole: read only for the tables that show more than
    `record_fields`)."""
    with bulk_read():
        return {rid: rec for rid, rec, _ in _data_lines(path)}


@per_version
def _data_index(path: Path) -> tuple[dict[str, str], pd.DataFrame]:
    """The digest of each record's line (data.dataset.line_digest), which a verdict names as the record it was
    judged against, and `record_fields`: one pass over the file, no record kept whole."""
    digests, rows = {}, []
    with bulk_read():
        for rid, rec, raw in _data_lines(path):
            digests[rid] = line_digest(raw)
            row = {f: rec[f] for f in RECORD_FIELDS if f in rec}
            row["id"], row["n_images"] = rid, len(rec["images"])
            rows.append(row)
    return digests, pd.DataFrame(rows).set_index("id")


def record_digests(path: Path) -> dict[str, str]:
    """id → the digest of the record's line in the data file."""
    return _data_index(path)[0]


def record_fields(path: Path) -> pd.DataFrame:
    """The fields tables group by (RECORD_FIELDS, and the number of images) of every record, indexed by id."""
    return _data_index(path)[1]


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
        return layout.parse_judged(self.path).raw

    @property
    def manifest(self) -> dict[str, Any]:
        return read_json(layout.manifest_of(self.path))

    @property
    def raw_manifest(self) -> dict[str, Any]:
        return read_json(layout.manifest_of(self.raw))

    @property
    def stands_for(self) -> str:
        """The experiment's setting this run stands for, as its manifests record it; else its own."""
        return layout.stands_for(self.setting, self.manifest, self.raw_manifest)

    @property
    def judge_asked(self) -> dict[str, Any] | None:
        """The judge identity whose verdicts are read (judge/current.py): the one the last completed judge.run of
        the file asked for, else that of its last line."""
        return current.judge_asked(self.manifest, lambda: _last_line(self.path))

    @property
    def data(self) -> Path | None:
        """The data file the run was judged against (its manifest's `data`), when it is there."""
        data = self.manifest.get("data")
        return Path(data) if data and Path(data).exists() else None

    def data_needed(self) -> Path | None:
        """`data`; MissingDataFile, naming it, when the manifest names a data file that is not there: a table reads
        the records' fields (subject, level…) and checks each verdict against its record."""
        named = self.manifest.get("data")
        if named and self.data is None:
            raise MissingDataFile(f"{shown(Path(named))} is missing: the data file {shown(self.path)} was judged against")
        return self.data


@per_version
def _last_line(path: Path) -> dict[str, Any] | None:
    """The last line of a result file as `latest` reads it (a half-written last line left out unless it parses),
    read from the end; None when there is none."""
    if not path.exists():
        return None
    with open(path, "rb") as f:
        f.seek(0, 2)
        pos, tail = f.tell(), b""
        while pos > 0 and tail.count(b"\n") < 3:  # the last line whole, and the one before it
            start = max(0, pos - 65536)
            f.seek(start)
            tail, pos = f.read(pos - start) + tail, start
    for line in reversed(tail.split(b"\n")):
        if line.strip():
            try:
                return json.loads(line)
            except ValueError:  # cut short by a crash
                continue
    return None


def find_runs(results: Path, bench: str, judge: str | None = None) -> list[Run]:
    """Every judged file of a benchmark (optionally of one judge), in path order."""
    runs = []
    for path in layout.judged_files(results, bench):
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
    return out


def load_run(run: Run) -> pd.DataFrame:
    """One row per current outcome of the run's raw file: its current verdict (judge/current.py; status
    `unjudged` when it has none), with the outcome judged and, from a labelling judge, its labels and subtypes,
    the raw request's timing, tokens and response length (`response_chars`), and the item's data fields.

    Cached per version of the files read (callers get a copy, so a table cannot change another's input)."""
    return read_run(run).copy()


def read_run(run: Run) -> pd.DataFrame:
    """The cached frame of `load_run` itself, for reading only: callers must not change it."""
    data = run.data_needed()
    return _load_run(run, (file_version(run.path), file_version(run.raw), file_version(data) if data else None,
                           file_version(layout.manifest_of(run.path))))


# The fields of raw and verdict lines a table may read, for analysis.columns (the other fields are skipped).
RAW_FIELDS = {"id": pa.string(), "sample_idx": pa.int64(), "request_key": pa.string(), "error": pa.string(),
              "latency_s": pa.float64(), "finish_reason": pa.string(), "response": pa.string(),
              "reasoning": pa.string(), "usage": pa.struct([("completion_tokens", pa.int64()),
                                                            ("reasoning_tokens", pa.int64())])}
JUDGE = pa.struct([("name", pa.string()), ("model", pa.string()), ("prompt_sha", pa.string())])
VERDICT_FIELDS = {"id": pa.string(), "sample_idx": pa.int64(), "correct": pa.bool_(), "status": pa.string(),
                  "flags": pa.list_(pa.string()), "extracted": pa.string(), "score": pa.float64(),
                  "judge_calls": pa.int64(), "judge_tokens": pa.int64(), "outcome": pa.string(),
                  "record": pa.string(), "judge": JUDGE, "labels": pa.list_(pa.string()),
                  "subtypes": pa.list_(pa.string())}
# What a row without a current verdict holds in the verdict's fields.
UNJUDGED = {"status": current.UNJUDGED, "correct": None, "extracted": None, "score": None, "judge_calls": 0,
            "judge_tokens": 0, "labels": None, "subtypes": None, "flags": None}


def raw_columns(path: Path) -> dict[str, list]:
    """Of the current line of each (id, sample_idx) of a raw file (as `latest`: the last line of a key, at the
    place of its first), one list per field: id, sample_idx, its `outcome` (judge.current.outcome_sha),
    `response_chars` (the length of its response, NaN when there is none: the texts are most of a large run's
    memory, and no table reads them; browse.py and F16 read the raw file), latency_s, finish_reason and usage's
    completion_tokens and reasoning_tokens. Read by pyarrow when it can give exactly what json gives
    (analysis.columns), several times faster on a large run, else line by line."""
    table = _raw_table(path)
    if table is not None:
        return _raw_lists(table)
    cols = _from_lines(list(latest(path).values()), RAW_FIELDS, ("id", "sample_idx"), None, flat=("usage",))
    return {"id": cols["id"], "sample_idx": cols["sample_idx"],
            "outcome": current.outcome_shas(cols["request_key"], cols["response"], cols["error"], cols["reasoning"]),
            "response_chars": [math.nan if r is None else len(r) for r in cols["response"]],
            "latency_s": cols["latency_s"], "finish_reason": cols["finish_reason"],
            "completion_tokens": cols["usage.completion_tokens"], "reasoning_tokens": cols["usage.reasoning_tokens"]}


def _raw_table(path: Path) -> pa.Table | None:
    """`raw_columns` as a table, read by pyarrow (`response_chars` null where there is no response); None when
    pyarrow cannot read the file exactly."""
    table = read_table(path, RAW_FIELDS, ("id", "sample_idx")) if path.exists() else None
    if table is None:
        return None
    lines = pa.table({"id": table["id"], "sample_idx": table["sample_idx"],
                      "line": pa.array(np.arange(table.num_rows, dtype=np.int64))})
    keys = lines.group_by(["id", "sample_idx"], use_threads=False).aggregate([("line", "min"), ("line", "max")])
    if keys.num_rows < table.num_rows:  # a key's last line, at the place of its first
        table = table.take(keys.sort_by("line_min")["line_max"])
    usage = dict(zip(("completion_tokens", "reasoning_tokens"), table["usage"].flatten()))  # RAW_FIELDS' order
    return pa.table({"id": table["id"], "sample_idx": table["sample_idx"],
                     "outcome": pa.array(_outcome_shas(table), pa.string()),
                     "response_chars": pc.utf8_length(table["response"]), "latency_s": table["latency_s"],
                     "finish_reason": table["finish_reason"], **usage})


def _raw_lists(table: pa.Table, text: bool = False) -> dict[str, Any]:
    """`raw_columns` of a table read by `_raw_table` (`text`: its text columns as pandas makes them, `as_column`)."""
    cols = {name: as_column(table[name]) if text else table[name].to_pylist() for name in table.column_names}
    cols["response_chars"] = [math.nan if n is None else n for n in table["response_chars"].to_pylist()]
    return cols


def _outcome_shas(raw: pa.Table) -> list[str]:
    """judge.current.outcome_sha of every line of a raw table, its text joined by pyarrow as outcome_sha joins it
    (a missing field written None, the reasoning only when there is some), so that no reply becomes a Python
    string; a block of lines at a time, so that the joined texts are never all held at once."""
    shas: list[str] = []
    for block in raw.select(["request_key", "response", "error", "reasoning"]).to_batches(max_chunksize=4096):
        key, response, error, reasoning = (block.column(i) for i in range(4))
        text = pc.binary_join_element_wise(*(pc.fill_null(c, "None") for c in (key, response, error)), "\x00")
        given = pc.fill_null(pc.greater(pc.utf8_length(reasoning), 0), False)
        text = pc.if_else(given, pc.binary_join_element_wise(text, reasoning, "\x00"), text)
        shas += map(current.outcome_digest, text.cast(pa.binary()).to_pylist())
    return shas


def every_line_columns(path: Path, fields: dict[str, pa.DataType], required: tuple[str, ...] = ("id", "sample_idx"),
                       defaults: dict[str, Any] | None = None, flat: tuple[str, ...] = (),
                       table: pa.Table | None = None) -> dict[str, list]:
    """The given fields of every line of a result file, in file order, one list per field; a missing field is its
    default, else None; a struct field of `flat` as one list per member, "<field>.<member>". Read as
    `raw_columns` reads them (`table`: the file already read by read_table)."""
    defaults = defaults or {}
    if table is None:
        table = read_table(path, fields, required, tuple(defaults)) if path.exists() else None
    if table is None:
        return _from_lines(every_line(path), fields, required, defaults, flat)
    cols = as_lists(table, flat)
    return {**cols, **{name: [defaults[name]] * table.num_rows for name in fields
                       if name not in cols and name not in flat}}


def every_line(path: Path) -> list[dict[str, Any]]:
    """Every line of a result file, in order, read as `latest` reads them (a half-written last line left out)."""
    n = itertools.count()  # each line its own key
    return list(latest(path, lambda _: next(n)).values())


def _from_lines(lines: list[dict[str, Any]], fields: dict[str, pa.DataType], required: tuple[str, ...],
                defaults: dict[str, Any] | None, flat: tuple[str, ...] = ()) -> dict[str, list]:
    defaults = defaults or {}
    out = {name: [line[name] if name in required else line.get(name, defaults.get(name)) for line in lines]
           for name in fields if name not in flat}
    for name in flat:
        values = [line.get(name) or {} for line in lines]
        out.update((f"{name}.{m.name}", [v.get(m.name) for v in values]) for m in fields[name])
    return out


def _current_places(run: Run, raw: dict[str, list], ver: dict[str, list]) -> list[int | None]:
    """The place in `ver` of the current verdict of each current raw line (None: unjudged), by the rule of
    judge/current.py. Without the run's data file the record cannot be checked, and is not."""
    digests = _digests_checked(run)
    name, model, prompt_sha = current.judge_key(run.judge_asked)
    records = map(digests.get, raw["id"]) if digests is not None else itertools.repeat(None)
    wanted = current.keys(raw["id"], raw["sample_idx"], raw["outcome"], records, itertools.repeat(name),
                          itertools.repeat(model), itertools.repeat(prompt_sha))
    have = current.keys(ver["id"], ver["sample_idx"], ver["outcome"],
                        ver["record"] if digests is not None else itertools.repeat(None),
                        ver["judge.name"], ver["judge.model"], ver["judge.prompt_sha"])
    return current.current_places(have, wanted)


def _digests_checked(run: Run) -> dict[str, str] | None:
    if run.data is None:
        log.warning("%s: its data file is not there: verdicts are not checked against their records", shown(run.path))
        return None
    return record_digests(run.data)


def _places_by_arrow(run: Run, raw: pa.Table, ver: pa.Table) -> pa.ChunkedArray | None:
    """`_current_places` by pyarrow's hash join, as an array (null: unjudged), for tables read by pyarrow. A key
    field that may be missing is joined as (missing?, value), so that a missing one matches only a missing one as
    in judge/current.py; None when the judge asked for is not given as text (compared there as Python values)."""
    judge = current.judge_key(run.judge_asked)
    if any(v is not None and not isinstance(v, str) for v in judge):
        return None
    digests = _digests_checked(run)
    member = dict(zip(("name", "model", "prompt_sha"), ver["judge"].flatten()))  # JUDGE's order
    asked = [pc.is_null(member[m]) if v is None else pc.fill_null(pc.equal(member[m], v), False)
             for m, v in zip(("name", "model", "prompt_sha"), judge)]
    have = {"id": ver["id"], "sample_idx": ver["sample_idx"], "outcome": ver["outcome"],
            "place": pa.array(np.arange(ver.num_rows, dtype=np.int64))}
    wanted = {"id": raw["id"], "sample_idx": raw["sample_idx"], "outcome": raw["outcome"],
              "row": pa.array(np.arange(raw.num_rows, dtype=np.int64))}
    if digests is not None:
        have["record"] = ver["record"]
        wanted["record"] = pa.array(map(digests.get, raw["id"].to_pylist()), pa.string(), size=raw.num_rows)
    have, wanted = _nulls_as_keys(pa.table(have)), _nulls_as_keys(pa.table(wanted))
    keys = [c for c in have.column_names if c != "place"]
    last = have.filter(pc.and_(pc.and_(asked[0], asked[1]), asked[2])).group_by(keys, use_threads=False) \
        .aggregate([("place", "max")])  # the last line of a key wins
    found = wanted.join(last, keys, join_type="left outer", use_threads=False).sort_by("row")
    return found["place_max"]


def _nulls_as_keys(table: pa.Table) -> pa.Table:
    """The outcome and record columns as (missing?, value) pairs: a join matches no null."""
    for name in ("outcome", "record"):
        if name in table.column_names:
            column = table[name]
            table = table.set_column(table.column_names.index(name), name, pc.fill_null(column, ""))
            table = table.append_column(f"{name} missing", pc.is_null(column))
    return table


@lru_cache(maxsize=256)
def _load_run(run: Run, stamp: tuple) -> pd.DataFrame:
    """A run's frame, kept in this process and on disk (analysis/frame_cache.py) per version of its files."""
    return cached_frame(layout.frame_cache_path(run.path), stamp, lambda: _frame(run))


VERDICT_REQUIRED = ("id", "sample_idx", "status")
VERDICT_DEFAULTS = {"judge_calls": 0, "judge_tokens": 0}
# the verdict's fields a run's frame holds, as `UNJUDGED` fills them in for an outcome without one
PICKED = ("correct", "status", "extracted", "score", "judge_calls", "judge_tokens", "labels", "subtypes", "flags")


def _frame(run: Run) -> pd.DataFrame:
    with bulk_read():
        raw = _raw_table(run.raw)
        ver = read_table(run.path, VERDICT_FIELDS, VERDICT_REQUIRED, tuple(VERDICT_DEFAULTS)) \
            if run.path.exists() else None
        places = _places_by_arrow(run, raw, ver) if raw is not None and ver is not None else None
        columns: dict[str, Any] = _raw_lists(raw, text=places is not None) if raw is not None \
            else raw_columns(run.raw)
        del raw
        if places is not None:
            columns.update(_picked(ver, places))
        else:
            columns.update(_picked_by_lines(run, columns, every_line_columns(
                run.path, VERDICT_FIELDS, VERDICT_REQUIRED, VERDICT_DEFAULTS, ("judge",), ver)))
        del ver
        columns["flagged"] = [bool(f) for f in columns.pop("flags")]
    df = pd.DataFrame(columns, columns=RUN_COLUMNS)
    df.insert(0, "judge", run.judge)
    df.insert(0, "setting", run.setting)
    df.insert(0, "model", run.model)
    return df.join(record_fields(run.data), on="id") if run.data else df


def _picked(ver: pa.Table, places: pa.ChunkedArray) -> dict[str, Any]:
    """The verdict fields of `PICKED` at `places` (null: `UNJUDGED`'s), one column per field (`as_column`)."""
    unjudged = pc.is_null(places)
    picked = ver.take(places)
    out = {}
    for name in PICKED:
        if name not in picked.column_names:  # a defaulted field missing from every line
            out[name] = [UNJUDGED[name] if u else VERDICT_DEFAULTS[name] for u in unjudged.to_pylist()]
        elif UNJUDGED[name] is not None:  # a verdict's own is never null here (read_table)
            out[name] = as_column(picked[name].fill_null(UNJUDGED[name]))
        else:
            out[name] = as_column(picked[name])
    return out


def _picked_by_lines(run: Run, raw: dict[str, list], ver: dict[str, list]) -> dict[str, list]:
    """`_picked` for columns read line by line."""
    places = _current_places(run, raw, ver)
    every = len(places) == len(ver["id"]) and places == list(range(len(places)))  # each line judged in turn
    return {name: ver[name] if every else [UNJUDGED[name] if i is None else ver[name][i] for i in places]
            for name in PICKED}


def current_lines(run: Run, judge: dict[str, Any] | None = None) -> dict[tuple[str, int], dict[str, Any]]:
    """(id, sample_idx) → the whole current verdict line of each current outcome of the run's raw file (by the
    rule of judge/current.py, for `judge`, else the judge last asked for), or, without one, a line of status
    `unjudged`: for the tables that read whole verdict lines."""
    data = run.data_needed()
    raws = list(latest(run.raw).values())
    lines = every_line(run.path)
    judge = judge or run.judge_asked
    digests = record_digests(data) if data else None
    found = current.current(lines, raws, digests, judge)
    return {(r["id"], r["sample_idx"]): found.get((r["id"], r["sample_idx"]))
            or {"id": r["id"], "sample_idx": r["sample_idx"], "outcome": current.outcome_sha(r), **UNJUDGED}
            for r in raws}


def judges_asked(run: Run) -> list[dict[str, Any]]:
    """Every judge identity asked for on the run's judged file, one per judge model (judge/current.py)."""
    return current.judges_asked(run.manifest, lambda: every_line(run.path))


def load(results: Path, bench: str, settings: list[str], judge: str) -> pd.DataFrame:
    """Every model's verdicts of the given settings under one judge: column `setting` holds the setting
    asked for, `run_setting` the run that stands for it."""
    frames = [read_run(run).assign(setting=s, run_setting=run.setting)  # assign copies: the cache is kept
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
