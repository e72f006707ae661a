"""How often the injection flags (judge/injection.py) fire: on honest answers (false flags) and on the injection
set (tests/data/injection_cases.jsonl), and how fast. A script to run by hand, not a test.

    .venv/bin/python perf/injection_check.py                        # the sets below
    .venv/bin/python perf/injection_check.py --raw results/raw      # and every response of these raw files

Honest answers:
- the 1,322 golds of the OMIBench release (tests/data/omibench_release_golds.jsonl), each answered three ways, as
  tests/test_judge_boundary.py does: boxed after the options restated, on an "Answer:" line, alone;
- the answers perf/omibench_rules.py judges: the release golds answered in several ways, right and wrong,
  and the hand-written answers of every shape;
- the realistic responses of the performance benchmark (perf/perf_data.py: reasoning, then a final answer);
- the honest neighbours of the injection set (answers that use the words of an injection honestly);
- with --raw, every response of the raw files under the folder (the demo's, or a real run's).
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from perf.omibench_rules import GOLDS, HAND, release_cases  # noqa: E402
from perf.perf_data import judging_set  # noqa: E402
from judge import injection  # noqa: E402

CASES = ROOT / "tests" / "data" / "injection_cases.jsonl"


def release_answers() -> list[str]:
    out = []
    for line in GOLDS.read_text(encoding="utf-8").splitlines():
        rec = json.loads(line)
        gold = ", ".join(rec["answer"])
        options = "".join(f"\n{chr(65 + i)}. {c}" for i, c in enumerate(rec.get("choices") or []))
        out += [f"Reading the options:{options}\nSo the answer is \\boxed{{{gold}}}.",
                f"Working through the question step by step.\nAnswer: {gold}", gold]
    return out


def cases() -> list[dict]:
    return [json.loads(line) for line in CASES.read_text(encoding="utf-8").splitlines()]


def raw_responses(folder: Path) -> list[str]:
    out = []
    for path in sorted(folder.rglob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            text = json.loads(line).get("response") if line.strip() else None
            if text:
                out.append(text)
    return out


def honest_sets(raw: Path | None) -> dict[str, list[str]]:
    records = [{**json.loads(line), "benchmark": "omibench", "question": "", "images": []}
               for line in GOLDS.read_text(encoding="utf-8").splitlines()]
    sets = {"release golds, three shapes": release_answers(),
            "omibench_rules.py answers (release, right and wrong)": [c[2] for c in release_cases(records)],
            "omibench_rules.py hand-written answers": [c[2] for c in HAND],
            "perf_data.py responses (20,000)": [r for _, r in judging_set(20_000)],
            "injection set: honest neighbours": [c["before"] for c in cases() if c.get("honest")]}
    if raw is not None:
        sets[f"raw responses under {raw}"] = raw_responses(raw)
    return sets


def false_flags(sets: dict[str, list[str]]) -> None:
    print("## Honest answers flagged (false flags)\n")
    total = flagged_total = 0
    for name, texts in sets.items():
        flagged = [(t, injection.flags(t)) for t in texts if injection.flags(t)]
        total, flagged_total = total + len(texts), flagged_total + len(flagged)
        print(f"- {name}: {len(flagged)} of {len(texts):,} ({100 * len(flagged) / max(1, len(texts)):.2f} %)")
        for text, kinds in flagged[:3]:
            print(f"    {kinds}: {text[:160]!r}")
    print(f"- all: {flagged_total} of {total:,} ({100 * flagged_total / max(1, total):.3f} %)\n")


def flag_rates() -> None:
    print("## The injection set: flagged, per language and per spelling\n")
    by_lang, by_spelling = Counter(), Counter()
    for c in cases():
        if c.get("honest"):
            continue
        hit = bool(injection.flags(c["before"] + c["injected"] + c["after"]))
        by_lang[(c["lang"], hit)] += 1
        by_spelling[(c["spelling"], hit)] += 1
    for name, counts in (("language", by_lang), ("spelling", by_spelling)):
        keys = sorted({k for k, _ in counts})
        print(f"by {name}: " + "; ".join(f"{k} {counts[(k, True)]}/{counts[(k, True)] + counts[(k, False)]}"
                                         for k in keys) + "\n")


def speed() -> None:
    texts = [r for _, r in judging_set(20_000, seed=7)]
    injection._flags.cache_clear()
    start = time.perf_counter()
    for t in texts:
        injection.flags(t)
    print(f"## Speed\n\nflags of {len(texts):,} responses, cold: {len(texts) / (time.perf_counter() - start):,.0f} / s")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--raw", type=Path, help="a folder of raw files whose responses are honest answers too")
    args = ap.parse_args(argv)
    false_flags(honest_sets(args.raw))
    flag_rates()
    speed()
    return 0


if __name__ == "__main__":
    sys.exit(main())
