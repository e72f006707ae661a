"""Check a unified JSONL file: schema, image tags, files that open, unique ids.

    python -m data.validate FILE.jsonl [FILE.jsonl ...]

Prints one ``file:line: field: problem`` line per problem and exits 1; writes nothing.
"""
from __future__ import annotations

import argparse
import sys
from functools import lru_cache
from pathlib import Path

from PIL import Image

from data.dataset import missing_data
from data.jsonl import iter_jsonl, problem
from data.records import check_record


@lru_cache(maxsize=None)
def image_problem(path: Path) -> str | None:
    """Why an image cannot be used, or None. Cached: releases repeat the same file across items."""
    if not path.is_file():
        return f"file not found: {path}"
    try:
        with Image.open(path) as im:
            im.verify()
    except Exception as e:  # PIL raises many types for corrupt or unsupported files
        return f"cannot open image {path}: {type(e).__name__}: {e}"
    return None


def validate_file(path: str | Path) -> tuple[int, list[str]]:
    """Return (number of records, problems)."""
    path = Path(path)
    if not path.is_file():
        return 0, [missing_data(path)]
    base = path.parent
    problems: list[str] = []
    seen: dict[str, int] = {}
    n = 0
    for lineno, rec in iter_jsonl(path, errors=problems):
        n += 1
        probs = check_record(rec)
        problems += [problem(path, lineno, field, msg) for field, msg in probs]
        if probs:
            continue
        if rec["id"] in seen:
            problems.append(problem(path, lineno, "id", f"duplicate id {rec['id']!r} (first on line {seen[rec['id']]})"))
        else:
            seen[rec["id"]] = lineno
        for field in ("images", "cot_images"):
            for i, rel in enumerate(rec.get(field) or []):
                why = image_problem((base / rel).resolve())
                if why:
                    problems.append(problem(path, lineno, f"{field}[{i}]", why))
        for i, rel in enumerate(rec.get("files") or []):
            if not (base / rel).is_file():
                problems.append(problem(path, lineno, f"files[{i}]", f"file not found: {base / rel}"))
    if n == 0 and not problems:
        problems.append(problem(path, None, "-", "no records"))
    return n, problems


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m data.validate", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="+", type=Path)
    args = ap.parse_args(argv)
    status = 0
    for f in args.files:
        n, problems = validate_file(f)
        for p in problems:
            print(p, file=sys.stderr)
        if problems:
            status = 1
            print(f"{f}: {len(problems)} problem(s) in {n} record(s)", file=sys.stderr)
        else:
            print(f"{f}: OK, {n} records")
    return status


if __name__ == "__main__":
    sys.exit(main())
