"""MorphoBench's adaptation families as generators whose every output is checked.

    python -m pipeline.morphobench_adapt reasoning --data UNIFIED.jsonl --model configs/models/<m>.yaml --out DIR \\
        [--source responses:<raw.jsonl> | solution] [--limit N]
    python -m pipeline.morphobench_adapt recognition --data UNIFIED.jsonl --model configs/models/<m>.yaml --out DIR [--limit N]
    python -m data.convert morphobench --src DIR --out adapted.jsonl

`reasoning` derives R(Lite) and R(Complex) from the R(v0) items (two each per source item), `recognition`
derives P(Perturbed) from the P(v0) items (one each). DIR gets the official split folders, the source
items beside the derived ones, and a report of what was dropped and why (DIR/adapt_<family>.md). Every
model call is keyed and logged in results/adapt/morphobench/<model>/<family>.jsonl: a rerun repeats none.
"""
from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from data.dataset import missing_data
from data.jsonl import DataError
from infer import server
from infer.layout import RESULTS
from infer.config import ConfigError
from infer.store import LockedError
from infer.templates import TemplateError
from pipeline.morphobench_adapt.run import ATTEMPTS, reasoning, recognition


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    ap = argparse.ArgumentParser(prog="python -m pipeline.morphobench_adapt", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="family", required=True)
    for family in ("reasoning", "recognition"):
        p = sub.add_parser(family)
        p.add_argument("--data", required=True, type=Path, help="unified MorphoBench records (data.convert)")
        p.add_argument("--model", required=True, type=Path, help="the model config that adapts the items")
        p.add_argument("--out", required=True, type=Path, help="release folder to write the split folders into")
        p.add_argument("--limit", type=int, default=None, help="only the first N source items")
        p.add_argument("--results", type=Path, default=RESULTS, help="where the call log goes")
        p.add_argument("--attempts", type=int, default=ATTEMPTS, help="requests per stage (first + regenerations)")
        p.add_argument("--max-tokens", type=int, default=None, help="override the config's max_tokens")
        if family == "reasoning":
            p.add_argument("--source", default="solution",
                           help="reference traces: 'responses:<raw.jsonl>' (a model's raw lines) or 'solution'")
            p.add_argument("--correct-only", action="store_true",
                           help="drop items whose reference response's final answer the rule judge rejects")
    args = ap.parse_args(argv)
    if args.attempts < 1:
        ap.error("--attempts must be at least 1")
    common = dict(limit=args.limit, results=args.results, attempts=args.attempts, max_tokens=args.max_tokens)
    try:
        if not args.data.is_file():
            raise DataError([missing_data(args.data, "morphobench")])
        with server.kept():  # the stages' many calls share one model server
            if args.family == "reasoning":
                report = reasoning(args.data, args.model, args.out, source=args.source,
                                   correct_only=args.correct_only, **common)
            else:
                report = recognition(args.data, args.model, args.out, **common)
    except (DataError, ConfigError, TemplateError, LockedError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    for split, expected in report["expected"].items():
        dropped = sum(report["dropped"].get(split, {}).values())
        print(f"{split}: {report['written'].get(split, 0)} of {expected} written, {dropped} dropped")
    if "graph_source" in report:
        print("proof graphs: " + (", ".join(f"{k} {v}" for k, v in report["graph_source"].items()) or "none"))
    print(f"report: {args.out / f'adapt_{args.family}.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
