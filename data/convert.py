"""Convert a benchmark's official release into unified JSONL (data/README.md).

    python -m data.convert BENCHMARK --src RELEASE --out FILE.jsonl

Every record is checked before anything is written; on any problem nothing is written.
"""
from __future__ import annotations

import argparse
import importlib
import logging
import shutil
import sys
from pathlib import Path
from typing import Any

from data.jsonl import DataError, problem, write_jsonl_atomic
from data.media import Media
from data.benchmarks import BENCHMARKS, get as benchmark_of
from data.records import check_record
from data.validate import validate_file

log = logging.getLogger(__name__)


def convert(benchmark: str, src: Path, out: Path, open_images: bool = True) -> list[dict[str, Any]]:
    """Run the benchmark's converter, check its records, write `out` (and its media).

    With `open_images`, the written file is validated in full (every image opened) and removed
    again, media included, if anything is wrong: a failed conversion leaves no output.
    """
    if benchmark not in BENCHMARKS:
        raise DataError([problem(src, None, "benchmark", f"unknown benchmark {benchmark!r} (known: {', '.join(BENCHMARKS)})")])
    if not src.exists():
        raise DataError([problem(src, None, "--src", "not found")])
    module = importlib.import_module(benchmark_of(benchmark).module_of("converter"))
    out.parent.mkdir(parents=True, exist_ok=True)
    media = Media(out)
    try:
        records = module.convert(src, media)
        problems = []
        seen: set[str] = set()
        for i, rec in enumerate(records, start=1):
            problems += [problem(out, i, f, m) for f, m in check_record(rec)]
            if rec.get("id") in seen:
                problems.append(problem(out, i, "id", f"duplicate id {rec['id']!r}"))
            seen.add(rec.get("id"))
        if problems:
            raise DataError(problems)
        media.commit()
    except BaseException:
        media.discard()
        raise
    write_jsonl_atomic(out, records)
    if open_images:
        _, problems = validate_file(out)
        if problems:
            out.unlink()
            shutil.rmtree(media.final, ignore_errors=True)
            raise DataError(problems)
    return records


def print_problems(e: DataError, out: Path) -> None:
    """Every problem of a failed conversion on stderr, one a line, then that `out` was not written."""
    for p in e.problems:
        print(p, file=sys.stderr)
    print(f"{out}: not written ({len(e.problems)} problem(s))", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    ap = argparse.ArgumentParser(prog="python -m data.convert", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("benchmark", choices=BENCHMARKS)
    ap.add_argument("--src", type=Path, required=True, help="the official release (folder or file)")
    ap.add_argument("--out", type=Path, required=True, help="unified JSONL to write")
    ap.add_argument("--no-validate", action="store_true", help="skip opening every image after writing")
    args = ap.parse_args(argv)
    try:
        records = convert(args.benchmark, args.src, args.out, open_images=not args.no_validate)
    except DataError as e:
        print_problems(e, args.out)
        return 1
    print(f"{args.out}: {len(records)} records")
    return 0


if __name__ == "__main__":
    sys.exit(main())
