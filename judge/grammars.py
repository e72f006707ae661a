"""The reply each judge prompt asks for, as a GBNF grammar (llama.cpp's `grammar` request field).

A judge model whose config sets `constrain_judge_replies` (the small embedded demo model) decodes only
replies of this form, so its verdicts can be read; whether they are right is another matter. Each
grammar produces only what the judge's parser (judge/parse.py, judge/reviewer.py, judge/taxonomy.py, judge/ratings.py)
reads, and every reply is still read and validated by that parser. Paper-profile judges are never
constrained unless their config says so.
"""
from __future__ import annotations

import json
from itertools import combinations
from typing import Any, Iterable

from judge import ratings, reviewer, taxonomy
from judge.taxonomy import Taxonomy

GPTSCORE = 'root ::= "ANSWER: " ("consistent" | "inconsistent")'
CORRECT_INCORRECT = 'root ::= "Correct" | "Incorrect"'
CORRECT_INCORRECT_LOWER = 'root ::= "correct" | "incorrect"'
JUDGEMENT_01 = 'root ::= "Judgement: " ("1" | "0")'
# An answer never starts with a blank or '<' (the prompts' own <<<RESPONSE_START>>> markers are not answers)
EXTRACTED_ANSWER = r'root ::= [^\n\[< ] [^\n\[]{0,59} | "[NO ANSWER]"'
TRUE_FALSE = 'root ::= "True" | "False"'
MORPHO_CORRECTNESS = r'''root ::= "{\"reasoning\": \"" [^"\\\n]{0,160} "\", \"is_correct\": " ("0" | "1") "}"'''
# A root and up to three children with fixed ids: a tree judge.tot can always read. (A grammar cannot make a
# small model's parents point at nodes that exist; this shape is the demo judge's, not the paper's.)
REASONING_TREE = r'''root ::= "[" node11 ("," node21 ("," node22 ("," node23)?)?)? "]"
node11 ::= "{\"id\": \"1.1\", \"parent\": null, " body
node21 ::= "{\"id\": \"2.1\", \"parent\": \"1.1\", " body
node22 ::= "{\"id\": \"2.2\", \"parent\": \"1.1\", " body
node23 ::= "{\"id\": \"2.3\", \"parent\": \"1.1\", " body
body ::= "\"type\": \"" [a-z]{1,14} "\", \"content\": \"" [^"\\\n]{1,120} "\"}"'''


# --------------------------------------------------------------------------------------------------
# The process and labelling judges (judge/reviewer.py, judge/taxonomy.py), built from their value sets
# and label tables. A token is at least one byte, so a grammar whose longest reply has at most BUDGET
# bytes always fits the embedded judge's reply budget (its judge_max_tokens) and is never cut mid-JSON:
# free text is printable ASCII (one byte a character) and every text and list is bounded.
# --------------------------------------------------------------------------------------------------
BUDGET = 256
CHAR = r"[ !#-\[\]-~]"   # printable ASCII but '"' and '\': valid in a JSON string as it stands
SOLID = r"[!#-\[\]-~]"   # the same without the blank: a text starting with it is never blank
PERCENT = '("100" | [1-9]? [0-9])'
LIKERT = "[1-5]"
STEPS, STEP_CHARS = 2, 36  # a breakdown: 1–2 steps of at most 36 characters
HINTS_NAMED = 3            # a hint check names at most three relevant hints


def _lit(text: str) -> str:
    """`text` as a GBNF string literal (for ASCII, JSON's escapes are GBNF's)."""
    return json.dumps(text)


def _value(value: Any) -> str:
    """A fixed JSON value (a word, null, true, []) as a GBNF literal."""
    return _lit(json.dumps(value))


def _one_of(values: Iterable[str]) -> str:
    return "(" + " | ".join(_lit(v) for v in values) + ")"


def _text(most: int, solid: bool = False) -> str:
    """Free text of at most `most` characters; `solid`: at least one, the first not blank."""
    return f"{SOLID} {CHAR}{{0,{most - 1}}}" if solid else f"{CHAR}{{0,{most}}}"


def _string(most: int, solid: bool = False) -> str:
    return f'"\\"" {_text(most, solid)} "\\""'


def _list(item: str, most: int, least: int = 0) -> str:
    """A JSON list of `least` (0 or 1) to `most` items."""
    items = f'{item} (", " {item}){{0,{most - 1}}}' if most > 1 else item
    return f'"[" {items} "]"' if least else f'"[" ({items})? "]"'


def _object(*fields: tuple[str, str]) -> str:
    """A JSON object with these keys in this order, each followed by its value (a GBNF expression)."""
    return " ".join(f"{_lit(('{' if i == 0 else ', ') + json.dumps(key) + ': ')} {value}"
                    for i, (key, value) in enumerate(fields)) + ' "}"'


def _grammar(root: str, **rules: str) -> str:
    return "\n".join(f"{name} ::= {body}" for name, body in {"root": root, **rules}.items())


# MorphoBench B.4–B.5, the reviewer's stages (judge/reviewer.py: check_breakdown, check_step,
# check_reasoning_summary, check_hint, check_hint_summary)
BREAKDOWN = _grammar(_object(("steps", _list(_string(STEP_CHARS, solid=True), STEPS, least=1))))
STEP_CHECK = _grammar(_object(*[(flag, _one_of("01")) for flag in reviewer.FLAGS],
                              ("rating", _one_of(str(r) for r in reviewer.RATINGS)),
                              ("issues", _list(_string(24, solid=True), 2)), ("comment", _string(60))))
REASONING_SUMMARY = _grammar(_object(("completeness", PERCENT), ("logical_coherence", PERCENT),
                                     ("comment", _string(160))))
HINT_SUMMARY = _grammar(_object(("hint_alignment", PERCENT), ("comment", _string(200))))
REVIEW = {reviewer.BREAKDOWN: BREAKDOWN, reviewer.STEP_CHECK: STEP_CHECK,  # by prompt; hint checks: hint_check
          reviewer.REASONING_SUMMARY: REASONING_SUMMARY, reviewer.HINT_SUMMARY: HINT_SUMMARY}


def hint_check(hints: int) -> str:
    """The review of one step against an item's `hints` (K ≥ 1) numbered hints, held to the prompt's own
    rules: a neutral step names no hint and leaves both justification fields null; an aligned one names
    1–3 hints; a deviated one names 1–3 hints and is justified (strongly or weakly) or not (quality none)."""
    if hints < 1:
        raise ValueError("a hint check needs at least one hint")
    aligned, deviated, neutral = reviewer.ALIGNMENTS
    strong, weak, none = reviewer.QUALITIES

    def review(alignment: str, named: str, justified: str, quality: str) -> str:
        return _object(("alignment", _value(alignment)), ("relevant_hints", named), ("deviation_justified", justified),
                       ("justification_quality", quality), ("comment", "comment"))

    named, null = _list("hint", min(HINTS_NAMED, hints), least=1), _value(None)
    return _grammar("neutral | aligned | deviated",
                    neutral=review(neutral, _value([]), null, null),
                    aligned=review(aligned, named, null, null),
                    deviated=review(deviated, named, _value(True), _one_of(json.dumps(q) for q in (strong, weak)))
                    + " | " + review(deviated, named, _value(False), _value(none)),
                    hint=_one_of(str(k) for k in range(1, hints + 1)),
                    comment=_string(100))


# the error taxonomies (judge/taxonomy.py) and rationale ratings (judge/ratings.py)
def one_label(tax: Taxonomy, numbered: bool = False) -> str:
    """`CATEGORY: <class>` or `CATEGORY: none` (taxonomy.omibench_error, think360_error): a class by its
    name, or as `<n>. <name>` where the prompt numbers them; where the taxonomy has subtypes, a class is
    followed by `SUBTYPE: <one of its subtypes, or none>`."""
    classes, subline = [], _lit("\nSUBTYPE: ")
    for n, c in enumerate(tax.classes, start=1):
        name = _lit(f"{n}. {c.name}" if numbered else c.name)
        if tax.subtypes:
            name += f" {subline} {_one_of([s.name for s in tax.subtypes if s.parent == c.slug] + ['none'])}"
        classes.append(name)
    return _grammar(f'"CATEGORY: " ({" | ".join(classes)} | "none")')


def error_types(tax: Taxonomy, analysis: int = 80) -> str:
    """C²RBench A.3's reply (taxonomy.c2rbench_error): `- Analysis: …`, then one or two error types on
    the `- Error Type:` line and on the `- Error Subtype:` line a subtype of each (one or two of a single
    type), every name the taxonomy's."""
    n = len(tax.classes)
    then, typeline, subline = _lit("; "), _lit("\n- Error Type: "), _lit("\n- Error Subtype: ")
    kinds = {f"type{i}": _lit(c.name) for i, c in enumerate(tax.classes)}
    subs = {f"sub{i}": _one_of(s.name for s in tax.subtypes if s.parent == c.slug) for i, c in enumerate(tax.classes)}
    one = [f"type{i} {subline} sub{i} ({then} sub{i})?" for i in range(n)]
    two = [f"type{i} {then} type{j} {subline} sub{i} {then} sub{j}" for i, j in combinations(range(n), 2)]
    return _grammar(f'"- Analysis: " {_text(analysis, solid=True)} {typeline} (one | two)',
                    one=" | ".join(one), two=" | ".join(two), **kinds, **subs)


OMIBENCH_ERROR = one_label(taxonomy.OMIBENCH, numbered=True)  # F.2's prompt asks "<number>. <category name>"
THINK360_ERROR = one_label(taxonomy.THINK360)
C2RBENCH_ERROR = error_types(taxonomy.C2RBENCH)
RATIONALE_QUALITY = _grammar(_object(*[(key, LIKERT) for key in ratings.QUALITY]))
RATIONALE_ALIGNMENT = _grammar(_object(("justification", _string(200)), ("score", LIKERT)))
