"""Generate every demo set in its official format, then convert it with the real converter.

    python -m data.demo [--out data/demo/build] [--only BENCH ...]

Writes ``OUT/official/<bench>/`` (the release-format files) and ``OUT/<bench>.jsonl`` (unified).
Generation is deterministic: the same command always produces the same items.
"""
from __future__ import annotations

import argparse
import importlib
import logging
import shutil
import sys
from pathlib import Path

from data.convert import convert
from data.jsonl import DataError
from data.benchmarks import BENCHMARKS, get as benchmark
from data.checkout import DEMO_BUILD

log = logging.getLogger(__name__)


def build(out: Path, benchmarks: list[str]) -> dict[str, Path]:
    """Generate and convert the demo sets; return the unified file of each benchmark."""
    built = {}
    for bench in benchmarks:
        official = out / "official" / bench
        shutil.rmtree(official, ignore_errors=True)
        official.mkdir(parents=True)
        src = importlib.import_module(benchmark(bench).module_of("demo")).generate(official)
        target = out / f"{bench}.jsonl"
        records = convert(bench, src, target)
        log.info("%s: %d demo items -> %s", bench, len(records), target)
        built[bench] = target
    return built


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    ap = argparse.ArgumentParser(prog="python -m data.demo", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=DEMO_BUILD)
    ap.add_argument("--only", nargs="+", choices=BENCHMARKS, default=list(BENCHMARKS))
    args = ap.parse_args(argv)
    try:
        build(args.out, args.only)
    except DataError as e:
        print("\n".join(e.problems), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
