"""A judged run as the tables read it: one row per current outcome of its raw file, with its current verdict.

Of results/raw/<bench>/<model>/<setting>.jsonl the last line of an id and sample is its current outcome (as
infer.store.load_latest reads it). Of the verdict file, each current outcome has its current verdict by the one rule
of judge/current.py (the verdict of that very outcome, judged against the record's line in the data file now, by the
judge last asked for), never simply the last verdict line; an outcome without one is read as status `unjudged`, so
it stays in every count and denominator. The files are read by pyarrow where it gives exactly what json gives
(analysis.columns), else line by line.
"""
from __future__ import annotations

import itertools
import logging
import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from analysis.columns import as_column, as_lists, read_table
from analysis.run_files import Run, every_line, latest, record_digests, record_fields, shown
from data.jsonl import bulk_read
from judge import current
from judge.extract import truncated

log = logging.getLogger(__name__)
RUN_COLUMNS = ["id", "sample_idx", "correct", "status", "flagged", "extracted", "latency_s", "completion_tokens",
               "reasoning_tokens", "finish_reason", "truncated", "response_chars", "score", "judge_calls", "judge_tokens", "outcome",
               "labels", "subtypes"]

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
    memory, and no table reads them; browse.py and F16 read the raw file), latency_s, finish_reason, `truncated`
    (judge.extract.truncated: cut at the token limit with no final answer) and usage's completion_tokens and
    reasoning_tokens. Read by pyarrow when it can give exactly what json gives
    (analysis.columns), several times faster on a large run, else line by line."""
    table = _raw_table(path)
    if table is not None:
        return _raw_lists(table)
    cols = _from_lines(list(latest(path).values()), RAW_FIELDS, ("id", "sample_idx"), None, flat=("usage",))
    return {"id": cols["id"], "sample_idx": cols["sample_idx"],
            "outcome": current.outcome_shas(cols["request_key"], cols["response"], cols["error"], cols["reasoning"]),
            "response_chars": [math.nan if r is None else len(r) for r in cols["response"]],
            "latency_s": cols["latency_s"], "finish_reason": cols["finish_reason"],
            "truncated": list(map(truncated, cols["finish_reason"], cols["response"])),
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
                     "finish_reason": table["finish_reason"], "truncated": _truncated(table), **usage})


def _truncated(raw: pa.Table) -> pa.Array:
    """judge.extract.truncated of every line, the texts read only of the lines cut at their token limit."""
    cut = pc.fill_null(pc.equal(raw["finish_reason"], "length"), False)
    out = np.zeros(raw.num_rows, dtype=bool)
    rows = np.flatnonzero(cut.to_numpy(zero_copy_only=False))
    out[rows] = [truncated("length", text) for text in raw["response"].take(pa.array(rows)).to_pylist()]
    return pa.array(out)


def _raw_lists(table: pa.Table, text: bool = False) -> dict[str, Any]:
    """`raw_columns` of a table read by `_raw_table` (`text`: its text columns as pandas makes them, `as_column`)."""
    cols = {name: as_column(table[name]) if text else table[name].to_pylist() for name in table.column_names}
    chars = table["response_chars"]
    cols["response_chars"] = as_column(chars) if text and chars.null_count < len(chars) else \
        [math.nan if n is None else n for n in chars.to_pylist()]
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


VERDICT_REQUIRED = ("id", "sample_idx", "status")
VERDICT_DEFAULTS = {"judge_calls": 0, "judge_tokens": 0}
# the verdict's fields a run's frame holds, as `UNJUDGED` fills them in for an outcome without one
PICKED = ("correct", "status", "extracted", "score", "judge_calls", "judge_tokens", "labels", "subtypes", "flags")


def frame(run: Run) -> pd.DataFrame:
    """The run's frame (analysis.inputs.load_run says what it holds)."""
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


