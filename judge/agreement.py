"""How far two judges agree, and how stable one judge is over repeats (OMIBench C.3–C.4, Fig. 16, Table 5).

    python -m judge.agreement pair A.jsonl B.jsonl --out DIR [--data D.jsonl --raw R.jsonl] [--sample 100]
    python -m judge.agreement repeats RUN1.jsonl RUN2.jsonl RUN3.jsonl

`pair` compares two verdict files on the items both scored: the four quadrants, Cohen's κ, Spearman ρ,
and a seeded random sample of disagreements written out for review (with question, gold and response
when --data and --raw are given). `repeats` gives the mean and standard deviation of accuracy.

A verdict counts only for the outcome it judged (judge/current.py): where a verdict file's raw file is known
(--raw, or the one `judge.run` read, under results/raw/), each raw line's current verdict is read, an outcome
without one is `unjudged`; a verdict file from elsewhere, with no raw file, is read by its last line per item.
"""
from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
from pathlib import Path
from typing import Any

from data.dataset import line_digest
from data.jsonl import iter_jsonl, write_json_atomic, write_jsonl_atomic
from infer.layout import manifest_of, parse_judged
from infer.store import load_latest
from judge import current as currency


def raw_beside(path: Path, judge: str | None) -> Path | None:
    """The raw file `judge.run` judged into `path` with `judge` (infer/layout.py: the judged file of a setting
    and judge → the setting's raw file), if that is where `path` lies and the raw file exists."""
    try:
        parts = parse_judged(path)
    except ValueError:  # a verdict file from elsewhere
        return None
    return parts.raw if judge is not None and parts.judge == judge and parts.raw.is_file() else None


def digests_of(data: Path) -> dict[str, str]:
    """id → the digest of the record's line in a data file, as verdicts name the record they judged."""
    with open(data, "rb") as f:
        return {str(json.loads(line)["id"]): line_digest(line) for line in f if line.strip()}


def current(path: Path, raw: Path | None = None, data: Path | None = None) -> dict[tuple, dict[str, Any]]:
    """The current verdict of every (item, sample) of a judged file, whatever its status: by judge/current.py's
    rule when the raw file is known (`raw`, else the one beside it), an outcome without one `unjudged`; else the
    last line of each item (a verdict file from elsewhere)."""
    manifest_path = manifest_of(path)
    manifest = json.loads(manifest_path.read_text(encoding="utf-8")) if manifest_path.is_file() else {}
    lines = [v for _, v in iter_jsonl(path)]
    judge = currency.judge_asked(manifest, lambda: lines[-1] if lines else None)
    raw = raw or raw_beside(path, (judge or {}).get("name"))
    if raw is None:
        return load_latest(path, key=lambda v: (v["id"], v["sample_idx"]))
    raws = list(load_latest(raw, key=lambda r: (r["id"], r["sample_idx"])).values())
    found = currency.current(lines, raws, digests_of(data) if data else None, judge)
    return {(r["id"], r["sample_idx"]): found.get((r["id"], r["sample_idx"]))
            or {"id": r["id"], "sample_idx": r["sample_idx"], "status": currency.UNJUDGED} for r in raws}


def scored(path: Path, raw: Path | None = None, data: Path | None = None) -> dict[tuple, dict[str, Any]]:
    """The current verdict of each (id, sample_idx), judge and request failures and unjudged outcomes left out."""
    return {k: v for k, v in current(path, raw, data).items() if v["status"] == "ok"}


def cohen_kappa(a: list[bool], b: list[bool]) -> float | None:
    n = len(a)
    if n == 0:
        return None
    observed = sum(x == y for x, y in zip(a, b)) / n
    pa, pb = sum(a) / n, sum(b) / n
    expected = pa * pb + (1 - pa) * (1 - pb)
    return 1.0 if expected == 1 else (observed - expected) / (1 - expected)


def compare(a: dict[tuple, dict], b: dict[tuple, dict]) -> dict[str, Any]:
    common = sorted(a.keys() & b.keys())
    xa, xb = [bool(a[k]["correct"]) for k in common], [bool(b[k]["correct"]) for k in common]
    from scipy.stats import spearmanr  # imported when used: scipy.stats takes a second to import

    rho = spearmanr(xa, xb) if len(set(xa)) > 1 and len(set(xb)) > 1 else None
    return {
        "items": len(common),
        "only_in_a": len(a.keys() - b.keys()), "only_in_b": len(b.keys() - a.keys()),
        "both_correct": sum(x and y for x, y in zip(xa, xb)),
        "both_incorrect": sum(not x and not y for x, y in zip(xa, xb)),
        "a_correct_b_incorrect": sum(x and not y for x, y in zip(xa, xb)),
        "a_incorrect_b_correct": sum(y and not x for x, y in zip(xa, xb)),
        "agreement": sum(x == y for x, y in zip(xa, xb)) / len(common) if common else None,
        "cohen_kappa": cohen_kappa(xa, xb),
        "spearman_rho": None if rho is None else float(rho.statistic),
        "spearman_p": None if rho is None else float(rho.pvalue),
    }


def disagreements(a: dict[tuple, dict], b: dict[tuple, dict], n: int, seed: int,
                  records: dict[str, dict] | None, raw: dict[tuple, dict] | None) -> list[dict[str, Any]]:
    keys = sorted(k for k in a.keys() & b.keys() if bool(a[k]["correct"]) != bool(b[k]["correct"]))
    picked = random.Random(seed).sample(keys, min(n, len(keys)))
    out = []
    for k in sorted(picked):
        row = {"id": k[0], "sample_idx": k[1],
               "a": {f: a[k].get(f) for f in ("judge", "correct", "extracted", "raw_judge_reply")},
               "b": {f: b[k].get(f) for f in ("judge", "correct", "extracted", "raw_judge_reply")}}
        if records and k[0] in records:
            row.update(question=records[k[0]]["question"], gold=records[k[0]]["answer"])
        if raw and k in raw:
            row["response"] = raw[k].get("response")
        out.append(row)
    return out


def repeat_stats(paths: list[Path]) -> dict[str, Any]:
    """Accuracy of each repeated run, over all its items (a failure is not correct, as in the papers)
    and over its scored items, with the mean and standard deviation of each."""
    accs, scored_accs = [], []
    for p in paths:
        every = current(p)
        right = sum(1 for x in every.values() if x["status"] == "ok" and x["correct"])
        ok = sum(1 for x in every.values() if x["status"] == "ok")
        accs.append(right / len(every) if every else float("nan"))
        scored_accs.append(right / ok if ok else float("nan"))
    spread = (lambda xs: statistics.stdev(xs) if len(xs) > 1 else 0.0)
    return {"runs": [str(p) for p in paths], "accuracy": accs, "mean": statistics.fmean(accs), "std": spread(accs),
            "accuracy_scored": scored_accs, "mean_scored": statistics.fmean(scored_accs),
            "std_scored": spread(scored_accs)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m judge.agreement", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    pair = sub.add_parser("pair")
    pair.add_argument("a", type=Path)
    pair.add_argument("b", type=Path)
    pair.add_argument("--out", type=Path, required=True)
    pair.add_argument("--data", type=Path)
    pair.add_argument("--raw", type=Path)
    pair.add_argument("--sample", type=int, default=100)
    pair.add_argument("--seed", type=int, default=0)
    rep = sub.add_parser("repeats")
    rep.add_argument("runs", type=Path, nargs="+")
    args = ap.parse_args(argv)
    given = args.runs if args.cmd == "repeats" else [args.a, args.b, *(p for p in (args.data, args.raw) if p)]
    if missing := [p for p in given if not p.is_file()]:  # an absent file would read as one with no verdicts
        print(f"error: no such file: {', '.join(map(str, missing))} (verdict files come from python -m judge.run: "
              "results/judged/<bench>/<model>/<setting>.<judge>.jsonl)", file=sys.stderr)
        return 1
    if args.cmd == "repeats":
        print(json.dumps(repeat_stats(args.runs), indent=2))
        return 0
    a, b = scored(args.a, args.raw, args.data), scored(args.b, args.raw, args.data)
    records = {r["id"]: r for _, r in iter_jsonl(args.data)} if args.data else None
    raw = load_latest(args.raw, key=lambda r: (r["id"], r["sample_idx"])) if args.raw else None
    summary = {"a": str(args.a), "b": str(args.b), **compare(a, b)}
    sample = disagreements(a, b, args.sample, args.seed, records, raw)
    write_json_atomic(args.out / "agreement.json", summary)
    write_jsonl_atomic(args.out / "disagreements.jsonl", sample)
    print(json.dumps(summary, indent=2))
    print(f"{len(sample)} disagreement(s) for review: {args.out / 'disagreements.jsonl'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
