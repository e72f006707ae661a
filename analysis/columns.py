"""Some fields of every line of a result file, parsed by pyarrow's JSON reader in C++ (no Python object per
JSON value), given back as json would give them.

Reading a run's raw and verdict files line by line with json is most of the time of `analysis.run --all` on a
large run: a raw line is mostly its response, parsed whole. pyarrow parses only the fields asked for; they
come back as the same Python values whenever each field has one JSON type throughout the file. When that
cannot be told for sure, `read_table` returns None and the caller reads the file line by line as before:
- pyarrow refuses the file (a field with two types, a corrupt line, a lone surrogate, a repeated key);
- the last line has no newline (half-written: the caller's reader says so), or a line is blank or holds two
  objects (lines and rows would not match);
- a float field holds only whole numbers (json keeps `1` an int where pyarrow gives 1.0);
- a required field is missing, or a field with a default is null somewhere (json tells null from missing).
"""
from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.json as pj

log = logging.getLogger(__name__)


def read_table(path: Path, fields: dict[str, pa.DataType], required: tuple[str, ...] = (),
               defaulted: tuple[str, ...] = ()) -> pa.Table | None:
    """The values of `fields` on every line of `path`, one column per field in line order: a missing field is
    null, except that a field of `defaulted` missing from every line is left out (the caller fills in its
    default). None when the file cannot be read exactly this way (module doc)."""
    lines, named = _lines_and_names(path, [name for name in fields if name in defaulted])
    if lines is None:
        return None
    schema = pa.schema([(name, t) for name, t in fields.items() if name not in defaulted or name in named])
    if not lines:
        return schema.empty_table()
    try:
        # one thread: on two shared cores, pyarrow's threads double the CPU time for little gain
        table = pj.read_json(str(path), read_options=pj.ReadOptions(use_threads=False),
                             parse_options=pj.ParseOptions(explicit_schema=schema, unexpected_field_behavior="ignore"))
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as e:
        log.debug("%s: read line by line (%s)", path, e)
        return None
    if table.num_rows != lines:
        return None
    for name in table.column_names:
        column = table.column(name)
        if (name in required or name in defaulted) and column.null_count:
            return None
        if pa.types.is_floating(column.type) and column.null_count < len(column) and pc.all(
                pc.equal(column, pc.floor(column)), skip_nulls=True).as_py():
            return None
    return table


def read_fields(path: Path, names: tuple[str, ...]) -> pa.Table | None:
    """The fields of `names` that the first line of a data file holds, on every line, each typed as that line has
    it (text, a whole number, a list of texts). None unless that is what json gives on every line: a field of
    another type or null somewhere, a field of `names` missing from the first line but found on another, or a
    first line that cannot be told; the caller then reads the file line by line. (A field of `names` that is
    null where the first line lacks it is read as missing: no valid record holds a null, data/records.py.)"""
    with open(path, "rb") as f:
        first = next((line for line in f if line.strip()), b"")
    try:
        record = json.loads(first) if first else None
    except ValueError:
        return None
    if not isinstance(record, dict):
        return None
    # a name the first line lacks is read as text: on any line that has it, it is either text or refused
    schema = [(name, _type(record[name]) if name in record else pa.string()) for name in names]
    if any(t is None for _, t in schema):
        return None
    try:
        table = pj.read_json(str(path), read_options=pj.ReadOptions(use_threads=False), parse_options=pj.ParseOptions(
            explicit_schema=pa.schema(schema), unexpected_field_behavior="ignore"))
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as e:
        log.debug("%s: read line by line (%s)", path, e)
        return None
    if any(table[n].null_count != (0 if n in record else table.num_rows) for n in names):
        return None
    return table.select([n for n in names if n in record])


def _type(value: Any) -> pa.DataType | None:
    """The arrow type that gives `value`'s kind of Python value back exactly (None: no such type here)."""
    if isinstance(value, str):
        return pa.string()
    if isinstance(value, int) and not isinstance(value, bool):
        return pa.int64()
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return pa.list_(pa.string())
    return None


def as_lists(table: pa.Table, flat: tuple[str, ...] = ()) -> dict[str, list[Any]]:
    """A table read by `read_table` as one list per column; a struct column named in `flat` as one list per
    member, "<field>.<member>" (None where the field or the member is missing), instead of one dict per line."""
    out = {name: table.column(name).to_pylist() for name in table.column_names if name not in flat}
    for name in flat:  # a member is null wherever its struct is (ChunkedArray.flatten)
        column = table.column(name)
        out.update((f"{name}.{m.name}", values.to_pylist()) for m, values in zip(column.type, column.flatten()))
    return out


def _lines_and_names(path: Path, names: list[str]) -> tuple[int | None, set[str]]:
    """The number of lines of a file, read a block at a time (never whole: a raw file may be hundreds of MB), and
    which of `names` it holds as a key; (None, …) when its last line has no newline (half-written: the caller's
    reader says so). A name's quotes inside a JSON string would be escaped, so the quoted name appears only where it
    is a key or a whole value."""
    quoted = {name: f'"{name}"'.encode() for name in names}
    overlap = max((len(q) for q in quoted.values()), default=1) - 1
    lines, found, tail, last = 0, set(), b"", b"\n"
    with open(path, "rb") as f:
        while block := f.read(1 << 22):
            lines += block.count(b"\n")
            window = tail + block
            found.update(name for name, q in quoted.items() if name not in found and q in window)
            tail, last = window[-overlap:] if overlap else b"", block[-1:]
    return (lines if last == b"\n" else None), found


def as_column(values: pa.ChunkedArray) -> Any:
    """A column for pd.DataFrame, as pandas makes it of the list json would give, without a Python object per value:
    a text column with some text as pandas' str array (NaN where missing); a number column with some number as
    numpy's (a whole-number one with a value missing as floats, NaN where missing, as pandas makes such a list), a
    true/false one with none missing likewise; any other (an empty one, one all missing, true/false with some
    missing: Python objects there) as that list."""
    some = values.null_count < len(values)
    if pa.types.is_string(values.type) and some:
        return pd.array(values.combine_chunks(), dtype="str")
    if pa.types.is_integer(values.type) and some:
        return values.cast(pa.int64()).to_numpy()
    if (pa.types.is_floating(values.type) and some) or (pa.types.is_boolean(values.type) and len(values)
                                                         and not values.null_count):
        return values.to_numpy()
    return values.to_pylist()
