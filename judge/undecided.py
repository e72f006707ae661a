"""When the careful rule judge cannot decide: an answer in words that no rule matches with the gold, and none
contradicts.

The rules accept an answer only when it is the gold written another way (judge/match.py). An answer they do
not accept is wrong when a rule says so — another number, another option, another formula or species, a
negation or an opposite of the gold (judge/opposites.py, judge/chem_names.py), a refusal to answer — and
otherwise only a reader of language can tell: "stays the same" for "unchanged", "ethyl alcohol" for "ethanol",
an option's text reworded. Such an answer is `undecided` (judge/status.py), with the reason given here.

Only answers in words can be undecided: where the gold is a number, a formula, a sequence or an option letter,
an answer the rules do not accept is wrong. A gold always decides against itself: every gold, answered exactly,
is accepted by the rules and never reaches this module (tests/test_undecided.py, over the OMIBench release).
"""
from __future__ import annotations

import re
from collections import Counter
from functools import lru_cache
from typing import Any

from judge import chem, lexicon
from judge.chem_names import different_species
from judge.match import canonical, is_textual, normalize_text
from judge.mcq import gold_letters, is_mcq
from judge.numbers import numbers_close
from judge.opposites import contradiction
from judge.parts import labelled_parts
from judge.text import FILLERS, folded, words

IN_WORDS = "an answer in words that no rule matches with the gold or contradicts: only a reader can tell"
OPTION_IN_WORDS = ("an option's content in other words (no option letter, no option's text, nothing that "
                   "contradicts the gold option's text): only a reader can tell")
NAMED_SPECIES = "a species the gold writes as a formula, answered by a name: only a reader can tell"

_REFUSAL = re.compile(
    r"can ?not be (?:determined|found|answered|known)|(?:not enough|insufficient) (?:information|data)|unable to"
    r"|\bi(?: am|'m) (?:sorry|not sure)|\bi can ?not\b|\bi can't\b|impossible to (?:determine|tell|say|know)"
    r"|\bno (?:valid |correct )?answer\b|\bnone of the (?:above|options|choices)\b|\bi (?:do not|don't) know\b")
_ALL_OPTIONS = re.compile(r"\ball (?:of )?(?:the )?(?:above|options|choices|of them)\b")
_IMAGE = re.compile(r"\[IMAGE\d+\]")
_CAPITALS = re.compile(r"[A-Z\d\s,;:→()\-]+")
_NUMBER = re.compile(r"(?:(?<=^)|(?<=[\s(=:]))-?\d{1,3}(?:,\d{3})+(?:\.\d+)?|-?\d+(?:\.\d+)?")
_NUMBER_WORDS = {w: float(i) for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve".split())}


def reason(rec: dict[str, Any], candidate: str | None, unordered: bool = False) -> str | None:
    """Why only a reader can tell whether `candidate`, the final answer read from a response, answers the record's
    gold, which the rules did not accept; None when a rule decides that it does not. `unordered`: the question asks
    for a set (judge.parts.order_free)."""
    if not candidate or not candidate.strip():
        return None
    if is_mcq(rec):
        return _option_reason(rec, candidate)
    gold = ", ".join(rec["answer"])
    if _in_words(gold):
        return _words_reason(candidate, gold, unordered)
    if _species(gold) and is_textual(candidate) and not _species(candidate):
        return None if _refuses(normalize_text(candidate)) else NAMED_SPECIES
    return None


def _option_reason(rec: dict[str, Any], candidate: str) -> str | None:
    """An answer that names no option: undecided when the gold options have text, and the answer, in words,
    contradicts none of it."""
    choices, gold = rec["choices"], gold_letters(rec["answer"])
    texts = [choices[ord(x) - ord("A")] for x in gold if ord(x) - ord("A") < len(choices)]
    if not texts or len(texts) < len(gold) or any(_IMAGE.search(t) or not _in_words(t) for t in texts):
        return None  # an option that is a picture, a number or a formula is named by its letter or its text only
    if _ALL_OPTIONS.search(normalize_text(candidate)) and len(gold) < len(choices):
        return None  # "all of the above" where the gold is not every option
    said = frozenset(_content(candidate))
    others = [c for i, c in enumerate(choices) if chr(ord("A") + i) not in gold]
    if any(_content(c) and set(_content(c)) <= said for c in others) and \
            not all(set(_content(t)) <= said for t in texts):
        return None  # it gives another option's words, and not the gold's
    return OPTION_IN_WORDS if _words_reason(candidate, "; ".join(texts), len(texts) > 1) else None


def _content(text: str) -> tuple[str, ...]:
    return tuple(w for w in folded(normalize_text(text)) if w not in FILLERS)


def _in_words(text: str) -> bool:
    """An answer made of words (not a number, a formula or a letter), in a script compared word by word
    (Chinese is compared character by character, and decided, judge/text.py)."""
    return is_textual(text) or normalize_text(text) == "no"


@lru_cache(maxsize=100_000)
def _words_reason(pred: str, gold: str, unordered: bool) -> str | None:
    """IN_WORDS when no rule contradicts the gold in a predicted answer (both as written), else None."""
    p, g = normalize_text(pred), normalize_text(gold)
    if not p or not _in_words(pred):
        return None  # a number or a formula does not answer a question whose answer is in words
    if _word_counts(p) == _word_counts(g):
        return None  # the gold's very words, reordered or with other signs between them: the rules read those
    if _a_part_differs_outside_words(pred, gold):
        return None
    if _CAPITALS.fullmatch(canonical(pred)) and _CAPITALS.fullmatch(canonical(gold)):
        return None  # letter strings (ABDC, ATP, A → E → D) are names or orders, compared exactly
    if _refuses(p) and not _refuses(g):
        return None
    if _numbers_differ(canonical(pred), canonical(gold), unordered):
        return None
    if re.search(r"[A-Z]", gold) and chem.same(canonical(pred), canonical(gold)) is False:
        return None  # both read as chemistry (NaCl, KCl), and not the same
    if contradiction(p, g, unordered) or different_species(p, g):
        return None
    if lexicon.same_amino_acid(canonical(pred), canonical(gold)) is False or \
            None not in (lexicon.truth(pred), lexicon.truth(gold)):
        return None  # words of one fixed meaning (Leu, isoleucine; True, False) decide by the lexicon
    return IN_WORDS


def _word_counts(text: str) -> Counter:
    return Counter(w for w in words(text) if w.isalpha())


def _a_part_differs_outside_words(pred: str, gold: str) -> bool:
    """Whether, part by part under the same labels, a part that is no text in words (a letter, a number, a
    formula) differs from the gold's: that part is decided, whatever a reader makes of the others."""
    p, g = labelled_parts(pred, any_order=True), labelled_parts(gold, any_order=True)
    if p is None or g is None or sorted(n for n, _ in p) != sorted(n for n, _ in g):
        return False
    gold_of = dict(g)
    return any(canonical(body) != canonical(gold_of[n]) and not (_in_words(body) and _in_words(gold_of[n]))
               for n, body in p)


def _refuses(text: str) -> bool:
    return bool(_REFUSAL.search(text))


def _species(text: str) -> bool:
    return bool(re.search(r"[A-Z]", text)) and chem.species(canonical(text)) is not None


def _numbers(text: str) -> tuple[list[float], bool]:
    """The numbers a text states, in order (labels of parts numbered in order left out, number words read), and
    whether one stands alone: not a locant joined to a word ("propan-2-ol", "1,2-dichloroethane")."""
    labelled = labelled_parts(text)
    if labelled is not None:  # "(1) 6, (2) 7": the labels are no numbers of the answer
        text = " ; ".join(body for _, body in labelled)
    values, alone = [], False
    for m in _NUMBER.finditer(text):
        values.append(float(m.group().replace(",", "")))
        before, after = text[m.start() - 1:m.start()] if m.start() else "", text[m.end():m.end() + 2]
        alone |= not (re.match(r"[^\W\d_]|-", before) or re.match(r"-[^\W\d_]|,\d", after))
    spelled = [_NUMBER_WORDS[w] for w in words(text.lower()) if w in _NUMBER_WORDS]
    return values + spelled, alone or bool(spelled)


def _numbers_differ(pred: str, gold: str, unordered: bool) -> bool:
    """Another number than the gold's, or none where the gold states one that stands alone."""
    (a, _), (b, gold_alone) = _numbers(pred), _numbers(gold)
    if not a:
        return gold_alone
    if not b:
        return False  # a number the gold does not state may be the answer's working: a reader decides
    if unordered:
        a, b = sorted(a), sorted(b)
    return len(a) != len(b) or not all(numbers_close(x, y) for x, y in zip(a, b))
