"""Caption every image once with a captioning model, and store the captions with the data.

    python -m pipeline.caption --bench think360 --data data/think360/testmini.jsonl \
        --model configs/models/paper/o4-mini.yaml --out data/think360/testmini.captioned.jsonl

Runs the benchmark's caption prompt (prompts/<bench>/caption.txt: Think360 Appendix D, which the
paper ran with o4-mini) on each single-image record through the ordinary inference path (so it is
resumable and recorded under results/raw/<bench>/<model>/caption.jsonl), then writes the data again
with `captions` filled. Records whose caption request failed keep no caption and are listed; the
caption settings then report them as unrenderable rather than guessing.
"""
from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from data.jsonl import DataError, read_jsonl, write_jsonl_atomic
from infer.config import ConfigError, load_model_config
from infer.layout import RESULTS, raw_path
from infer.request import answered
from infer.run import run
from infer.store import load_latest

log = logging.getLogger(__name__)


def caption(bench: str, data: Path, model: Path, out: Path, results: Path = RESULTS) -> dict[str, int]:
    records = read_jsonl(data)
    multi = [r["id"] for r in records if len(r["images"]) > 1]
    if multi:
        raise DataError([f"{data}: images: the caption prompt describes one image; {len(multi)} record(s) have "
                         f"several, e.g. {multi[0]!r}"])
    if out.resolve().parent != data.resolve().parent:
        raise ConfigError(f"--out must be in the same folder as --data ({data.parent}): image paths are relative")
    cfg = load_model_config(model)
    run(bench, data, cfg, "caption", results)
    raw = load_latest(raw_path(results, bench, cfg.name, "caption"), key=lambda r: r["id"])
    captioned, missing = [], 0
    for rec in records:
        line = raw.get(rec["id"])
        if rec["images"] and line and answered(line):
            rec = {**rec, "captions": [line["response"].strip()]}
        elif rec["images"]:
            missing += 1
        captioned.append(rec)
    write_jsonl_atomic(out, captioned)
    return {"records": len(records), "captioned": sum("captions" in r for r in captioned), "missing": missing}


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    ap = argparse.ArgumentParser(prog="python -m pipeline.caption", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bench", required=True)
    ap.add_argument("--data", required=True, type=Path)
    ap.add_argument("--model", required=True, type=Path, help="the captioning model's config")
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--results", type=Path, default=RESULTS)
    args = ap.parse_args(argv)
    try:
        counts = caption(args.bench, args.data, args.model, args.out, args.results)
    except (DataError, ConfigError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    print(f"{args.out}: {counts['captioned']} of {counts['records']} records captioned, "
          f"{counts['missing']} caption request(s) failed (no caption kept)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
