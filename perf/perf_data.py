"""Procedural, realistic inputs: unified records, model responses with their golds, raw and judged files."""
from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any, Iterator

SUBJECTS = ["Physics", "Chemistry", "Biology", "Mathematics", "Geography", "Astronomy"]
WORDS = ("the of a block mass angle force field cell reaction circle triangle velocity energy orbit planet "
         "enzyme molecule current charge area volume pressure temperature ratio probability graph figure").split()
TEXT_GOLDS = ["photosynthesis", "mitochondria", "blue", "evaporation", "isosceles triangle", "red giant",
              "covalent bond", "northern hemisphere", "kinetic energy", "refraction", "osmosis", "parallel"]
UNITS = ["", "", " cm", " m/s", " kg", " J", "^\\circ", "%", " km"]
REASONING = ["First, identify the quantities given in the figure.", "We set up the equation from the diagram.",
             "Using the relation between the sides, we substitute the known values.",
             "Simplifying step by step gives the expression below.", "Check the units and the sign of the result.",
             "Comparing each option against our computation eliminates the others."]


def sentence(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n)).capitalize() + "."


def make_records(n: int, seed: int = 0) -> list[dict[str, Any]]:
    """n OMIBench-style unified records: 200-400 character questions, a third MCQ, no images."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        rec = {"id": f"q{i:06d}", "benchmark": "omibench", "subject": SUBJECTS[i % len(SUBJECTS)],
               "question": " ".join(sentence(rng, rng.randint(8, 14)) for _ in range(rng.randint(3, 5))),
               "images": [], "choices": [], "answer": [str(rng.randint(1, 999))], "answer_type": "numeric"}
        if i % 3 == 0:
            rec.update(choices=[str(rng.randint(1, 99)) for _ in range(4)], answer=["ABCD"[i % 4]], answer_type="mcq")
        out.append(rec)
    return out


def reasoning(rng: random.Random, chars: int) -> str:
    parts: list[str] = []
    while sum(len(p) + 1 for p in parts) < chars:
        parts.append(rng.choice(REASONING) if rng.random() < 0.5 else sentence(rng, rng.randint(6, 12)))
    return " ".join(parts)


def _fraction(rng: random.Random) -> tuple[int, int]:
    q = rng.randint(2, 40)
    return rng.randint(1, 3 * q), q


def judged_case(i: int, rng: random.Random) -> tuple[dict[str, Any], list[str]]:
    """One record and the variety of final answers a model writes for it (right and wrong, many formats).

    Mix: 30% MCQ, 30% numeric (units, thousands separators, decimals), 20% LaTeX (fractions, roots, pi,
    polynomials), 15% text, 5% two-part answers.
    """
    kind = rng.choices(["mcq", "numeric", "expression", "text", "multi-part"], [30, 30, 20, 15, 5])[0]
    rec: dict[str, Any] = {"id": f"j{i:06d}", "benchmark": "omibench", "question": "q", "images": [],
                           "choices": [], "answer_type": kind}
    if kind == "mcq":
        opts = [str(rng.randint(1, 500)) for _ in range(4)]
        gold = rng.choice("ABCD")
        rec.update(choices=opts, answer=[gold])
        letter = lambda: gold if rng.random() < 0.6 else rng.choice("ABCD")  # noqa: E731
        finals = [f"\\boxed{{{letter()}}}", f"The answer is ({letter()}).", f"**Answer: {letter()}**",
                  f"Therefore the correct option is {letter()}.", f"\\boxed{{{opts['ABCD'.index(gold)]}}}",
                  f"\\boxed{{\\text{{{letter()}}}}}"]
    elif kind == "numeric":
        v = rng.choice([rng.randint(1, 5000), round(rng.uniform(0, 100), 2), rng.randint(1000, 99999)])
        unit = rng.choice(UNITS)
        rec.update(answer=[f"{v}{unit}"])
        w = v if rng.random() < 0.6 else round(v * rng.uniform(0.5, 1.5), 2)
        finals = [f"\\boxed{{{w}}}", f"The answer is {w}{unit}.", f"Answer: ${w}$", f"\\boxed{{{w}{unit}}}",
                  f"So the result is approximately {w:,}." if isinstance(w, int) else f"\\boxed{{{w:.3f}}}"]
    elif kind == "expression":
        p, q = _fraction(rng)
        k = rng.randint(2, 30)
        gold, right, alt = rng.choice([(f"\\frac{{{p}}}{{{q}}}", f"\\dfrac{{{2 * p}}}{{{2 * q}}}", f"{p}/{q}"),
                                       (f"{k}\\sqrt{{3}}", f"{k}\\sqrt{{3}}", f"\\sqrt{{{3 * k * k}}}"),
                                       (f"\\frac{{\\pi}}{{{k}}}", f"\\pi/{k}", f"\\frac{{{p}\\pi}}{{{q}}}"),
                                       (f"x^2+{k}x+{p}", f"x^{{2}} + {k}x + {p}", f"(x+{k})^2")])
        rec.update(answer=[gold])
        finals = [f"\\boxed{{{right}}}", f"\\boxed{{{alt}}}", f"The answer is ${right}$.",
                  f"\\boxed{{{p + 1}/{q}}}"]
    elif kind == "text":
        gold = rng.choice(TEXT_GOLDS)
        other = rng.choice(TEXT_GOLDS)
        rec.update(answer=[gold])
        finals = [f"The answer is {gold.title()}.", f"\\boxed{{\\text{{{other}}}}}", f"Answer: {gold}",
                  f"Final answer: **{other}**"]
    else:
        a, b = rng.randint(1, 99), rng.randint(1, 99)
        rec.update(answer=[str(a), str(b)])
        finals = [f"\\boxed{{{a}}} and \\boxed{{{b}}}", f"The answers are {a}, {b + 1}.", f"\\boxed{{{a}, {b}}}"]
    return rec, finals


def judging_set(n_responses: int, per_record: int = 5, seed: int = 1) -> list[tuple[dict[str, Any], str]]:
    """(record, response) pairs: n_responses / per_record records, each answered per_record times (as by
    several models), every response a few hundred characters of reasoning and then a final answer."""
    rng = random.Random(seed)
    pairs = []
    for i in range((n_responses + per_record - 1) // per_record):
        rec, finals = judged_case(i, rng)
        for _ in range(per_record):
            pairs.append((rec, f"{reasoning(rng, rng.randint(150, 600))}\n\n{rng.choice(finals)}"))
    return pairs[:n_responses]


def raw_result(rng: random.Random, rec: dict[str, Any]) -> dict[str, Any]:
    """The outcome fields of a raw line as infer.client returns them, with a realistic response."""
    final = f"\\boxed{{{rec['answer'][0] if rng.random() < 0.6 else rng.randint(1, 999)}}}"
    text = f"{reasoning(rng, rng.randint(200, 600))}\n\nThe answer is {final}."
    return {"response": text, "reasoning": None, "finish_reason": "stop", "error": None,
            "usage": {"prompt_tokens": rng.randint(80, 200), "completion_tokens": len(text) // 4, "reasoning_tokens": None},
            "latency_s": round(rng.uniform(0.5, 20), 4), "attempts": 1}


def write_lines(path: Path, lines: Iterator[dict[str, Any]]) -> int:
    path.parent.mkdir(parents=True, exist_ok=True)
    n = 0
    with open(path, "w", encoding="utf-8") as f:
        for obj in lines:
            f.write(json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n")
            n += 1
    return n


def analysis_tree(results: Path, data: Path, records: list[dict[str, Any]], models: list[str], seed: int = 2) -> int:
    """Judged + raw + manifest files of omibench cot_boxed (rule judge) for each model, as the pipeline
    writes them (each verdict names the raw outcome and the record line it judged, so it is current); returns
    the number of judged lines."""
    from data.dataset import line_digest
    from infer.layout import judged_path, manifest_of, raw_path
    from judge.current import outcome_sha

    rng = random.Random(seed)
    digests = {rec["id"]: line_digest(json.dumps(rec, ensure_ascii=False, separators=(",", ":")).encode())
               for rec in records}
    total = 0
    for model in models:
        raw = raw_path(results, "omibench", model, "cot_boxed")
        judged = judged_path(results, "omibench", model, "cot_boxed", "rules")
        results_raw, verdicts = [], []
        for rec in records:
            key = f"k{rng.getrandbits(64):016x}"
            out = raw_result(rng, rec)
            if rng.random() < 0.01:
                out.update(response=None, error="RetryableError: HTTP 503: overloaded")
            results_raw.append({"id": rec["id"], "sample_idx": 0, "request_key": key, "model": model,
                                "setting": "cot_boxed", "params": {"max_tokens": 4096, "temperature": 0.0}, **out,
                                "created": "2025-01-01T00:00:00+0000"})
            ok = out["error"] is None
            verdicts.append({"id": rec["id"], "sample_idx": 0, "request_key": key,
                             "outcome": outcome_sha(results_raw[-1]), "record": digests[rec["id"]],
                             "judge": {"name": "rules", "model": None, "prompt_sha": None},
                             "extracted": str(rng.randint(1, 999)) if ok else None,
                             "status": "ok" if ok else "no_response", "correct": (rng.random() < 0.55) if ok else None})
        write_lines(raw, iter(results_raw))
        total += write_lines(judged, iter(verdicts))
        manifest_of(judged).write_text(json.dumps({"data": str(data), "judge": {"name": "rules"}}))
    return total


def write_data(path: Path, n: int) -> Path:
    """A data file of `n` generated records."""
    write_lines(path, iter(make_records(n)))
    return path


def judge_cache_lines(n: int, seed: int = 4) -> Iterator[dict[str, Any]]:
    """n judge calls as a judge's log holds them (infer.request.raw_line of a `judge:<prompt>` request), about
    1 KB each: the judge's reply, its usage and timing. Keys are `c<16 hex digits>`; a fifth of the keys appear
    twice (a judge error, then its answer), so the last line of a key is not its first."""
    rng = random.Random(seed)
    key = ""
    for i in range(n):
        key = f"c{rng.getrandbits(64):016x}" if i % 5 or not key else key
        yield {"id": f"q{i % 200_000:06d}", "sample_idx": 0, "request_key": key, "error": None, "model": "judge",
               "setting": "judge:omibench_gptscore", "params": {"max_tokens": 1024, "temperature": 0.0},
               "response": f"{reasoning(rng, rng.randint(500, 800))}\nScore: {rng.randint(0, 1)}", "reasoning": None,
               "finish_reason": "stop", "usage": {"prompt_tokens": rng.randint(300, 900), "completion_tokens": 200},
               "latency_s": round(rng.uniform(0.5, 5), 4), "elapsed_s": round(rng.uniform(0.5, 5), 4),
               "attempts": 1, "attempt_errors": [], "created": "2025-01-01T00:00:00+0000"}
