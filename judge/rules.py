"""Rule-based scoring of each benchmark's answers, the judges that ask no model, and a command to score
predictions made elsewhere with one of them.

    python -m judge.rules --data FILE.jsonl --pred PRED.jsonl --out OUT.jsonl [--judge omibench_c1]

PRED lines carry `id` and `response` (or `prediction`); OUT lines carry `id`, `correct`, `extracted`.
`--judge` names any judge that asks no model (default `rules`, this module's careful rule judge).
"""
from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, Callable

from data.benchmarks import BENCHMARKS, get as benchmark
from data.dataset import missing_data
from data.jsonl import DataError, iter_jsonl, write_jsonl_atomic
from data.records import letters
from judge import omibench_c1, parallel, path_and_total, quantities, undecided
from judge.extract import answer_candidates, clean, extract_answer, option_letters, strip_decoration
from judge.errors import MatchError
from judge.match import match_answer, match_one, normalize_text
from judge.mcq import gold_letters, is_mcq
from judge.parts import flat_parts, order_free, split_parts
from judge.status import JUDGE_ERROR, UNDECIDED
from judge.types import Item, Steps

Scorer = Callable[[dict[str, Any], str | None], dict[str, Any]]  # (record, response) → verdict fields
GRID = re.compile(r"row\s*[=:]?\s*(\d+)\s*[,;]?\s*(?:and\s*)?col(?:umn)?\s*[=:]?\s*(\d+)", re.I)


def mcq_prediction(rec: dict[str, Any], candidate: str | None) -> list[str] | None:
    """The letters a candidate states, or the letters of the options whose text it gives."""
    return mcq_reading(rec, candidate)[0]


def mcq_reading(rec: dict[str, Any], candidate: str | None) -> tuple[list[str] | None, list[str]]:
    """`mcq_prediction`, and the reasons math-verify failed while an option's text was compared (a
    judge error when no option was found)."""
    choices = rec["choices"]
    found = option_letters(candidate, len(choices) or 26)  # inline options: any letter the text states
    if found and choices and re.fullmatch(r"\(?[a-z]\)?", strip_decoration(candidate or "")):
        # a lower-case letter that is also an option's own text ("e" among 1, e, π, 2) is that option
        by_text, _ = _options_named(choices, candidate)
        found = by_text or found
    if found or not candidate or not choices:
        return found, []
    found, errors = _options_named(choices, candidate)
    if found is None and len(parts := split_parts(candidate)) > 1:  # "More protein was used; The pH changed"
        named = [_options_named(choices, part) for part in parts]
        errors += [e for _, errs in named for e in errs]
        if all(letters for letters, _ in named):
            found = sorted({letter for letters, _ in named for letter in letters})
    return found, errors


def _options_named(choices: list[str], candidate: str) -> tuple[list[str] | None, list[str]]:
    """The option whose text the candidate gives: the same text, else the one option that is the same
    answer by the rules that compare an answer with a gold (the same number, formula or phrase; never a
    fuzzy match, which could pick a neighbouring option); None when no option or more than one is named."""
    named, errors = [], []
    pairs = list(zip(letters(len(choices)), choices))
    for letter, option in pairs:  # the very text of an option (the first, if two are printed alike)
        if normalize_text(option) and normalize_text(option) == normalize_text(candidate):
            return [letter], []
    for letter, option in pairs:
        try:
            if option.strip() and match_one(candidate, option):
                named.append(letter)
        except MatchError as e:
            errors.append(str(e))
    return (named if len(named) == 1 else None), errors


def grid_cell(text: str | None) -> tuple[int, int] | None:
    m = GRID.search(text or "")
    return (int(m.group(1)), int(m.group(2))) if m else None


def answer_tag(rec: dict[str, Any]) -> bool:
    """Whether the record's benchmark asks for <answer></answer> (MIRA), so the tag is read before a box."""
    return rec.get("benchmark") in BENCHMARKS and benchmark(rec["benchmark"]).answer_tag


def final_answer(rec: dict[str, Any], response: str | None) -> str | None:
    """The final answer a response states (the last \\boxed{}, the answer tag MIRA asks for, an "Answer:"
    line, else the last line), read from its final text only: what the papers' judges compare with
    the gold (C²RBench Fig. 6, MorphoBench Eq. 16)."""
    return extract_answer(clean(response or ""), prefer_tag=answer_tag(rec))


def score(rec: dict[str, Any], response: str | None, strict: bool = False) -> dict[str, Any]:
    """Verdict fields for one response: `extracted` (what was read as the answer) and `correct`.

    An answer in words that no rule accepts and none contradicts is `status: undecided`, `correct` null,
    with its `reason` (judge/undecided.py): only a reader can tell. `strict`: textual answers must be the
    very same words, as in the exact-match stage of Think360's cascade, and an answer they are not is not
    correct (never undecided). If answer checking itself fails (a crash inside math-verify), the verdict is
    `status: judge_error` with the reason, never a wrong answer.
    Units are read in the light of the question: the unit it asks for, a proportion it asks for
    (judge/quantities.py).
    """
    with quantities.Question(rec.get("question")):
        return _score(rec, response, strict)


def _score(rec: dict[str, Any], response: str | None, strict: bool) -> dict[str, Any]:
    final = clean(response or "")
    prefer_tag = answer_tag(rec)
    candidate = final_answer(rec, response)
    golds = rec["answer"]
    if is_mcq(rec):
        predicted, errors = mcq_reading(rec, candidate)
        if predicted is None and errors:
            return {"extracted": candidate, "correct": None, "status": "judge_error", "error": errors[0]}
        if predicted is None and not strict and (why := undecided.reason(rec, candidate)):
            return undecided_verdict(candidate, why)
        return {"extracted": "".join(predicted) if predicted else candidate,
                "correct": predicted is not None and predicted == gold_letters(golds)}
    if len(golds) == 1 and grid_cell(golds[0]):
        cell = grid_cell(candidate) or grid_cell(final.splitlines()[-1] if final else "")
        return {"extracted": candidate, "correct": cell is not None and cell == grid_cell(golds[0])}
    errors = []
    n_parts = len(flat_parts(", ".join(golds)))
    unordered = order_free(rec.get("question") or "")  # "select all that apply": a set, not a sequence
    path_and_number = path_and_total.applies(rec)  # MIRA Rolling Dice: Two: both parts, in any wording
    for option in answer_candidates(final, prefer_tag, max_parts=n_parts):
        try:
            if match_answer(option, golds, strict, unordered) or (
                    path_and_number and not strict and path_and_total.same_path_and_total(option, golds)):
                return {"extracted": option, "correct": True}
        except MatchError as e:  # another reading of the answer may still settle it
            errors.append(str(e))
    if errors:
        return {"extracted": candidate, "correct": None, "status": "judge_error", "error": errors[0]}
    as_set = unordered and not re.search(r"[:=]", ", ".join(golds))  # as match_answer reads a set
    if not strict and not path_and_number and (why := undecided.reason(rec, candidate, as_set)):
        return undecided_verdict(candidate, why)
    return {"extracted": candidate, "correct": False}


def undecided_verdict(extracted: str | None, why: str) -> dict[str, Any]:
    """No rule decides: neither correct nor a failure (judge/status.py), with the reason."""
    return {"extracted": extracted, "correct": None, "status": UNDECIDED, "reason": why}


@dataclass(frozen=True)
class RuleJudge:
    """A judge that asks no model: each benchmark's careful rule judge (this module), or a paper's published
    rule (judge/omibench_c1.py). `score(record, response)` gives the verdict fields."""

    name: str = "rules"
    version: str = "rules-5"  # bump when rule scoring changes meaning, so earlier verdicts are redone
    score: Scorer = score
    prompts: tuple[str, ...] = ()

    def steps(self, item: Item) -> Steps:
        return self.score(item.rec, item.response)


RULES, OMIBENCH_C1 = "rules", "omibench_c1"
# The judges that ask no model (judge/judges.py registers them with the others; `main` offers them).
RULE_JUDGES = (RuleJudge(),
               RuleJudge(OMIBENCH_C1, "omibench_c1-2", omibench_c1.score))  # OMIBench's ACC as C.1 publishes it


def _score_pair(pair: tuple[dict[str, Any], str], scorer: Scorer = score) -> dict[str, Any]:
    return scorer(*pair)


def judge_predictions(records: list[dict[str, Any]], preds: dict[str, str | None],
                      scorer: Scorer = score) -> tuple[list[dict[str, Any]], dict[str, int]]:
    out, counts = [], {"scored": 0, "correct": 0, "undecided": 0, "missing": 0, "no_response": 0, "judge_error": 0}
    answered = [(rec, preds[rec["id"]]) for rec in records if preds.get(rec["id"]) is not None]
    scores = iter(parallel.map_ordered(partial(_score_pair, scorer=scorer), answered))  # every core for a long file
    for rec in records:
        if rec["id"] not in preds:
            counts["missing"] += 1
            continue
        response = preds[rec["id"]]
        if response is None:
            out.append({"id": rec["id"], "correct": None, "extracted": None, "status": "no_response"})
            counts["no_response"] += 1
            continue
        verdict = {"status": "ok", **next(scores)}
        out.append({"id": rec["id"], **verdict})
        if verdict["status"] in (JUDGE_ERROR, UNDECIDED):  # neither is scored
            counts[verdict["status"]] += 1
            continue
        counts["scored"] += 1
        counts["correct"] += bool(verdict["correct"])
    return out, counts


def read_predictions(path: Path) -> dict[str, str | None]:
    preds: dict[str, str | None] = {}
    problems: list[str] = []
    for lineno, obj in iter_jsonl(path, errors=problems):
        if "id" not in obj:
            problems.append(f"{path}:{lineno}: id: missing")
            continue
        text = obj.get("response", obj.get("prediction"))
        if text is not None and not isinstance(text, str):
            problems.append(f"{path}:{lineno}: response: expected a string, got {type(text).__name__}")
            continue
        preds[str(obj["id"])] = text
    if problems:
        raise DataError(problems)
    return preds


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m judge.rules", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, required=True, help="unified JSONL the predictions answer")
    ap.add_argument("--pred", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    rule_judges = {j.name: j for j in RULE_JUDGES}
    ap.add_argument("--judge", choices=list(rule_judges), default=RULES,
                    help="a judge that asks no model: rules (careful) or omibench_c1 (OMIBench C.1 as published)")
    args = ap.parse_args(argv)
    try:
        if not args.data.is_file():
            raise DataError([missing_data(args.data)])
        if not args.pred.is_file():
            raise DataError([f"{args.pred}: no such predictions file (lines with id and response)"])
        records = [rec for _, rec in iter_jsonl(args.data)]
        preds = read_predictions(args.pred)
    except (DataError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    verdicts, counts = judge_predictions(records, preds, rule_judges[args.judge].score)
    known = {r["id"] for r in records}
    unmatched = [i for i in preds if i not in known]
    without = [r["id"] for r in records if r["id"] not in preds]
    write_jsonl_atomic(args.out, verdicts)
    n, c, u = len(records), counts["correct"], counts["undecided"]
    acc = c / n if n else float("nan")
    scored = c / counts["scored"] if counts["scored"] else float("nan")
    upper = f" to {(c + u) / n:.2%} with the {u} undecided answer(s) right" if u and n else ""
    print(f"accuracy {acc:.2%}{upper} ({c}/{n} records; a record without a verdict counts as wrong); "
          f"over scored predictions {scored:.2%} ({c}/{counts['scored']}); {u} undecided (only a reader can tell); "
          f"{counts['missing']} record(s) without a prediction, {counts['no_response']} prediction(s) without a "
          f"response, {counts['judge_error']} judge error(s), {len(unmatched)} prediction(s) matching no record")
    if unmatched:
        print(f"predictions matching no record of {args.data}: {some(unmatched)}")
    if without:
        print(f"records without a prediction in {args.pred}: {some(without)}")
    print(f"verdicts: {args.out}")
    return 0


def some(ids: list[str], shown: int = 5) -> str:
    """The first ids and how many there are."""
    return ", ".join(map(repr, ids[:shown])) + (f", … ({len(ids)} in all)" if len(ids) > shown else f" ({len(ids)})")


if __name__ == "__main__":
    sys.exit(main())
