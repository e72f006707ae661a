"""Read a unified data file for a run: every record checked, ids unique, all of one benchmark."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from data.jsonl import DataError, iter_jsonl
from data.records import check_record


def load_records(path: Path, bench: str, limit: int | None = None) -> list[dict[str, Any]]:
    """The records of `path` (the first `limit`), or a DataError listing every problem as file:line: field."""
    problems, records, first = [], [], {}
    for lineno, rec in iter_jsonl(path, errors=problems):
        probs = check_record(rec)
        problems += [f"{path}:{lineno}: {f}: {m}" for f, m in probs]
        if not probs and rec["benchmark"] != bench:
            problems.append(f"{path}:{lineno}: benchmark: {rec['benchmark']!r}, but --bench is {bench!r}")
        if not probs and rec["id"] in first:
            problems.append(f"{path}:{lineno}: id: duplicate id {rec['id']!r} (first on line {first[rec['id']]})")
        elif not probs:
            first[rec["id"]] = lineno
        records.append(rec)
    if problems:
        raise DataError(problems)
    return records[:limit] if limit is not None else records
