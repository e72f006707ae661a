"""A judged run and the files it reads: its verdicts, its raw requests and their manifests, and the unified data,
each read whole and cached per version of the file (its mtime and size), so `analysis.run --all` reads each file
once and a rewritten file is read again. Tables read them through analysis.inputs.
"""
from __future__ import annotations

import itertools
import json
import logging
from dataclasses import dataclass
from functools import lru_cache, wraps
from pathlib import Path
from typing import Any, Callable, Hashable, Iterator, TypeVar

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from analysis.columns import read_fields
from analysis.unreadable import Unreadable
from analysis.data_location import NamedData, locate, named_data, shown_data

from data.dataset import line_digest
from data.files import file_version
from data.jsonl import bulk_read, iter_jsonl_lines
from data.checkout import ROOT
from infer import layout
from infer.store import load_latest
from judge import current

log = logging.getLogger(__name__)
RECORD_FIELDS = ("subject", "category", "discipline", "task", "domain", "split", "level", "difficulty",
                 "skills", "question_type", "answer_type")
T = TypeVar("T")


class MissingDataFile(Exception):
    """The data file a run was judged against is not there, nor any file of its checksum (analysis/data_location.py):
    its tables are missing, and analysis.run says which file is gone and fails, since the runs are there. Apart
    from MissingInputs, which tables catch to go on without a judge that has no runs: a table is never
    built without a run because that run's data file is gone."""


def shown(path: Path) -> str:
    """A path as notes and provenance show it: relative to the checkout when inside it (layout.recorded)."""
    return layout.recorded(path) if Path(path).is_absolute() else str(path)


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
    try:
        return load_latest(path, key)
    except ValueError as e:  # a corrupt line inside the file: its message names file:line
        raise Unreadable(str(e)) from None
    except OSError as e:
        raise Unreadable(f"{path}: cannot be read ({e.strerror})") from None


def _ends_mid_line(path: Path) -> bool:
    if not path.exists() or path.stat().st_size == 0:
        return False
    with open(path, "rb") as f:
        f.seek(-1, 2)
        return f.read(1) != b"\n"


@per_version
def read_json(path: Path) -> dict[str, Any]:
    """A manifest; {} when there is none."""
    if not path.exists():
        return {}
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise Unreadable(f"{path}:{e.lineno}: -: not JSON ({e.msg}, column {e.colno})") from None
    except (OSError, UnicodeDecodeError) as e:
        raise Unreadable(f"{path}: cannot be read ({e})") from None


def _data_lines(path: Path) -> Iterator[tuple[str, dict[str, Any], bytes]]:
    """(id, record, line) of every record of a data file; a line that does not parse is an error naming it."""
    for _, rec, raw in iter_jsonl_lines(path):
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
    judged against, and `record_fields`: no record kept whole. The fields are read by pyarrow when it gives
    exactly what json gives (analysis.columns.read_fields: a converted file, whose every record has the same
    fields, of one type each), several times faster, else line by line."""
    with bulk_read():
        return _data_index_by_arrow(path) or _data_index_by_lines(path)


def _data_index_by_lines(path: Path) -> tuple[dict[str, str], pd.DataFrame]:
    digests, rows = {}, []
    for rid, rec, raw in _data_lines(path):
        digests[rid] = line_digest(raw)
        row = {f: rec[f] for f in RECORD_FIELDS if f in rec}
        row["id"], row["n_images"] = rid, len(rec["images"])
        rows.append(row)
    return digests, pd.DataFrame(rows).set_index("id")


def _data_index_by_arrow(path: Path) -> tuple[dict[str, str], pd.DataFrame] | None:
    table = read_fields(path, ("id", "images", *RECORD_FIELDS))
    if table is None or not {"id", "images"} <= set(table.column_names) or table["id"].type != pa.string():
        return None
    with open(path, "rb") as f:  # the lines json would read, one per row (else the file is read line by line)
        digests = [line_digest(raw) for raw in f if raw.strip()]
    if len(digests) != table.num_rows:
        return None
    ids = table["id"].to_pylist()
    # the columns as the rows of _data_index_by_lines make them: the fields in RECORD_FIELDS' order, then these
    fields = {f: table[f].to_pylist() for f in RECORD_FIELDS if f in table.column_names}
    fields.update(id=ids, n_images=pc.list_value_length(table["images"]).to_pylist())
    return dict(zip(ids, digests)), pd.DataFrame(fields).set_index("id")


def record_digests(path: Path) -> dict[str, str]:
    """id → the digest of the record's line in the data file."""
    return _data_index(path)[0]


def record_fields(path: Path) -> pd.DataFrame:
    """The fields tables group by (RECORD_FIELDS, and the number of images) of every record, indexed by id."""
    return _data_index(path)[1]


def every_line(path: Path) -> list[dict[str, Any]]:
    """Every line of a result file, in order, read as `latest` reads them (a half-written last line left out)."""
    n = itertools.count()  # each line its own key
    return list(latest(path, lambda _: next(n)).values())



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
    def named_data(self) -> NamedData | None:
        """The data file the run was judged against as its manifests record it (path and sha256)."""
        return named_data(self.manifest, self.raw_manifest)

    @property
    def data(self) -> Path | None:
        """The data file the run was judged against, found in this checkout (data_location.locate), when it is."""
        named = self.named_data
        return locate(named) if named else None

    def data_needed(self) -> Path | None:
        """`data`; MissingDataFile, naming it, when the manifest names a data file that is not found: a table reads
        the records' fields (subject, level…) and checks each verdict against its record."""
        named = self.named_data
        if named and self.data is None:
            sha = f"sha256 {named.sha256[:12]}…" if named.sha256 else "sha256 (not recorded)"
            raise MissingDataFile(f"the data file {shown_data(named.path)} is gone: no file at that path in this "
                                  f"checkout, nor of its {sha} under data/; {shown(self.path)} was judged against it")
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
