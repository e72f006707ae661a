"""OMIBench's matching accuracy as its Appendix C.1 publishes it: the rule behind the paper's ACC numbers.

C.1, quoted: "Both ŷ_i and y_i are lower-cased, whitespace is trimmed and collapsed to single spaces, and
common punctuation (periods, commas, question marks, trailing colons/semicolons) is stripped from English
segments when not part of alphanumeric tokens." "Textual or equation answers. Matches are determined by
longest common subsequence (LCS) ratio" — Eq. 6: Len(LCS(ŷ, y)) / max(Len(ŷ), Len(y)) ≥ α, α = 75 %.
"Numeric answers. For numeric references, we parse both ŷ_i and y_i into floating-point numbers after
removing units and non-numeric suffixes" — Eq. 7: |v̂ − v| ≤ ε, ε = 10⁻⁴. "Unparseable inputs default to
normalized string matching." "Multiple-choice questions. For predefined options, we extract predictions from
model outputs via regex matching of boxed notation (e.g., \boxed{A}). A prediction is deemed correct if the
extracted symbol matches either the gold label directly or, when unavailable, the corresponding option text."
So a multiple-choice answer is read from its \boxed{} only: an unboxed "Answer: C" or a last line "C" states no
prediction under C.1, and is wrong (the careful rule judge reads them).

The ratio is over characters of the normalised strings (rapidfuzz's LCSseq normalized similarity is
exactly Eq. 6). So this rule accepts "impossible" for "possible" (8/10) and "decreases" for "increases"
(7/9): the careful rule judge (judge/rules.py) rejects them, and the tables count where the two differ.

Where C.1 is silent (README, Protocol choices, "OMIBench rules"):
- for multiple choice, ŷ is the content of the last \\boxed{} (C.1 names boxed notation, not which box);
- for an open answer, ŷ is the final answer the project reads (judge/extract.py): the last \\boxed{}, else the
  last "Answer:" statement, else the last line; for a gold of several parts also the last boxes read together;
  the answer counts when one of these readings matches.
- a gold of several parts is compared whole: its parts joined by ", " (the release's original string).
- both sides get the same clean-up before C.1's normalisation (NFKC, outer $…$ and emphasis, a final full
  stop), so a gold written "$x^2$" and an answer boxed as x^2 are the same string.
- "units and suffixes removed" and the reading of numbers are judge.match.parse_number's.
- an option's text is matched with this same rule (LCS ratio, or numbers), against the gold option's
  text, only when ŷ states no option letter and the gold is a single option.
"""
from __future__ import annotations

import math
import re
from typing import Any

from rapidfuzz.distance import LCSseq

from data.records import letters
from judge.extract import answer_candidates, boxed_all, clean, option_letters, strip_decoration
from judge.match import parse_number
from judge.numbers import EPS
from judge.mcq import gold_letters, is_mcq
from judge.parts import flat_parts

ALPHA = 0.75  # Eq. 6: "In our experiments we set α = 75%"
# A period, comma or question mark is part of an alphanumeric token when it has a letter or digit on both
# sides (3.14, 1,000); anywhere else it is stripped. Colons and semicolons only where they trail a word.
_PUNCT = re.compile(r"(?<![^\W_])[.,?]|[.,?](?![^\W_])|[:;](?=\s|$)")


def normalize(s: str) -> str:
    """C.1's text normalisation (lower case, whitespace collapsed, common punctuation stripped), after the
    clean-up both sides share."""
    s = strip_decoration(clean(s)).lower()
    return " ".join(_PUNCT.sub("", s).split())


def lcs_ratio(pred: str, gold: str) -> float:
    """Eq. 6 on the normalised strings: Len(LCS) / max(Len), in characters."""
    return LCSseq.normalized_similarity(normalize(pred), normalize(gold))


def _same_number(pred: float, gold: float) -> bool:
    """|v̂ − v| ≤ ε (Eq. 7), the rounding of the two floats not held against them."""
    return abs(pred - gold) <= EPS + 4 * math.ulp(max(abs(pred), abs(gold)))


def match(pred: str, gold: str) -> dict[str, Any]:
    """C.1's match(ŷ, y) for a textual, equation or numeric gold: `correct`, the `rule` that decided and,
    for the LCS rule, its `ratio`."""
    p, g = normalize(pred), normalize(gold)
    if not p or not g:
        return {"correct": False, "rule": "empty"}
    gold_value = parse_number(gold)
    if gold_value is not None:  # a numeric reference
        pred_value = parse_number(pred)
        if pred_value is None:  # "Unparseable inputs default to normalized string matching"
            return {"correct": p == g, "rule": "string"}
        return {"correct": _same_number(pred_value, gold_value), "rule": "number"}
    ratio = LCSseq.normalized_similarity(p, g)
    return {"correct": ratio >= ALPHA, "rule": "lcs", "ratio": round(ratio, 4)}


def _mcq(rec: dict[str, Any], candidate: str | None) -> dict[str, Any]:
    choices = rec["choices"]
    stated = option_letters(candidate, len(choices) or 26)
    gold = gold_letters(rec["answer"])
    if stated is not None:
        return {"extracted": "".join(stated), "correct": stated == gold, "rule": "letter"}
    if candidate and len(gold) == 1 and choices and gold[0] in letters(len(choices)):
        option = choices[letters(len(choices)).index(gold[0])]
        found = match(candidate, option)
        return {"extracted": candidate, **found, "rule": f"option text ({found['rule']})"}
    return {"extracted": candidate, "correct": False, "rule": "letter"}


def score(rec: dict[str, Any], response: str | None) -> dict[str, Any]:
    """Verdict fields for one response under C.1: `extracted` (ŷ), `correct`, `status`, and the `rule`
    that decided (letter, option text, number, string, lcs, no boxed answer, no answer) with the LCS `ratio`
    where it was used."""
    text = clean(response or "")
    golds = rec["answer"]
    if is_mcq(rec):  # "regex matching of boxed notation": the last box, or no prediction
        boxes = boxed_all(text)
        if not boxes or not strip_decoration(boxes[-1]):
            return {"status": "ok", "extracted": None, "correct": False, "rule": "no boxed answer"}
        return {"status": "ok", **_mcq(rec, strip_decoration(boxes[-1]))}
    gold = ", ".join(golds)
    readings = answer_candidates(text, max_parts=len(flat_parts(gold)))
    if not readings:
        return {"status": "ok", "extracted": None, "correct": False, "rule": "no answer"}
    found = [(r, match(r, gold)) for r in readings]
    extracted, verdict = next(((r, v) for r, v in found if v["correct"]), found[0])
    return {"status": "ok", "extracted": extracted, **verdict}


def score_prediction(rec: dict[str, Any], prediction: str) -> dict[str, Any]:
    """C.1's match of a prediction given as it is, not read from a model's output (a person's answer, OMIBench
    Table 8): a letter or an option's text for multiple choice, else the answer compared whole."""
    text = strip_decoration(clean(prediction or ""))
    if not text:
        return {"status": "ok", "extracted": None, "correct": False, "rule": "no answer"}
    if is_mcq(rec):
        return {"status": "ok", **_mcq(rec, text)}
    return {"status": "ok", "extracted": text, **match(text, ", ".join(rec["answer"]))}
