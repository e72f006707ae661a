"""Section judging: the rule judge over realistic responses, as a judge run and in one process."""
from __future__ import annotations

import os
import time
from collections import defaultdict
from pathlib import Path

from perf.perf_common import Figure, Mode, profile
from perf.perf_data import judging_set


def clear_judge_caches() -> None:
    """Forget every verdict and reading the rule judge has cached, so a measurement starts cold."""
    from judge import (alternatives, chem, extract, formula, intervals, match, matchings, mathverify, nuclear, parts,
                       ratios, relations, sequences, text, units)

    for cached in (mathverify.read, match.math_equal, match.canonical, match.parse_number, formula.read, extract.clean,
                   extract._extract_answer, extract.strip_decoration, match.normalize_text, match.squash,
                   match.is_textual, parts.labelled_parts, parts.order_free, text.words, units.split, chem.species,
                   chem.equation, chem.configuration, intervals.read, sequences.items, matchings.read, relations.chain,
                   alternatives.read, nuclear.term, nuclear.equation, ratios.read):
        cached.cache_clear()


def judge_types(pairs: list[tuple[dict, str]]) -> dict[str, float]:
    """Responses/s per answer type, one process (one pass, caches cleared first)."""
    from judge.rules import score

    clear_judge_caches()
    spent: dict[str, list[float]] = defaultdict(lambda: [0, 0.0])
    for rec, response in pairs:
        start = time.perf_counter()
        score(rec, response)
        spent[rec["answer_type"]][0] += 1
        spent[rec["answer_type"]][1] += time.perf_counter() - start
    return {k: round(n / s) for k, (n, s) in sorted(spent.items())}


def judging(mode: Mode) -> list[Figure]:
    """The rule judge over realistic responses, chunk by chunk as separate judge runs: through
    judge.run.judge_all (every core for a long run), and `judge.rules.score` in one process."""
    from judge import parallel
    from judge.rules import RuleJudge
    from judge.types import Item
    from judge.rules import score
    from judge.run import judge_all

    pairs = judging_set(mode.judge_responses)
    os.sync()  # the earlier sections' files are flushed before, not during, the timing
    score(*pairs[0])  # imports and compiled patterns, not part of the figures
    chunks = max(mode.runs, mode.judge_responses // 20_000)
    size = len(pairs) // chunks
    parts = [pairs[k * size:(k + 1) * size] for k in range(chunks)]
    run_rates, one_rates, idle, correct = [], [], [], 0
    for k, part in enumerate(parts):
        items = [Item(rec, response) for rec, response in part]
        for pooled in ((True, False) if k % 2 == 0 else (False, True)):  # alternate which goes first
            clear_judge_caches()
            if pooled:
                idle.append(parallel.idle_cores())  # what judge_all will find; not timed
            start = time.perf_counter()
            if pooled:
                verdicts = judge_all(RuleJudge(), items, None, Path("."), Path("."), Path("."))
                run_rates.append(len(part) / (time.perf_counter() - start))
                correct += sum(bool(v["correct"]) for v in verdicts)
            else:
                [score(rec, response) for rec, response in part]
                one_rates.append(len(part) / (time.perf_counter() - start))
    total = chunks * size
    sample = pairs[:min(3000, len(pairs) // 3)]
    by_type = judge_types(sample)
    mode.details["judging_by_type"] = by_type
    run_fig = Figure("judging", f"rule judge run, judge_all ({total:,} responses)", run_rates, "resp/s", 10_000.0,
                     note=f"{chunks} runs of {size:,}, caches cold; a process per idle core from "
                          f"{parallel.POOL_MIN:,} answers (judge/parallel.py), idle cores before each run: "
                          + ", ".join(f"{x:.1f}" for x in idle) + f"; {correct / total:.0%} correct")
    one_fig = Figure("judging", "rule judge, judge.rules.score in one process", one_rates, "resp/s",
                     note="the same runs; per type (one process): " + ", ".join(f"{k} {v}" for k, v in by_type.items()))
    flag_fig = flagging(parts)
    if not run_fig.met:
        clear_judge_caches()
        run = lambda: [score(rec, response) for rec, response in sample]  # noqa: E731
        mode.details["judging_profile"] = profile(run, cumulative=[
            "judge/match.py|match_one", "judge/match.py|math_equal", "judge/mathverify.py|verdict",
            "judge/formula.py|math_verdict", "judge/mathverify.py|prose_cannot_equal", "math_verify/grader.py|verify",
            "math_verify/parser.py|parse", "judge/match.py|parse_number", "judge/extract.py|extract_answer",
            "judge/rules.py|mcq_prediction"])
    return [run_fig, one_fig, flag_fig]


def flagging(parts: list[list[tuple[dict, str]]]) -> Figure:
    """The injection flags (judge/injection.py), which judge.run asks of every response beside any judge: the same
    runs, in one process, cold."""
    from judge import injection

    rates = []
    for part in parts:
        injection._flags.cache_clear()
        start = time.perf_counter()
        for _, response in part:
            injection.flags(response)
        rates.append(len(part) / (time.perf_counter() - start))
    return Figure("judging", "injection flags of every response, one process", rates, "resp/s",
                  note="the same runs, cold (judge/injection.py: the text folded, the acts of five languages)")
