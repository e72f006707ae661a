"""Do two textual answers say the same thing? What OMIBench's LCS rule is meant to accept, and no more.

OMIBench C.1 accepts a textual answer whose normalised LCS ratio with the gold is at least 0.75. The
rule is meant for the same phrase written with small variations — case, punctuation, hyphens, an
article, a plural — but it also accepts "impossible" for "possible", "decreases" for "increases", a
colour assignment with one colour changed or the parts of an answer in another order, and it rejects
"the octahedron" for "octahedron". We decide what the ratio approximates: after each word is
normalised (case, British/American spelling, inflection), the two answers must have the same words in
the same order, up to articles and copulas. So a negation or qualifier added or dropped, a word swapped
for its opposite or for any other word, a part left out and a number changed all make another answer.
Chinese, Japanese and Korean text is compared character by character.
"""
from __future__ import annotations

import re
from difflib import SequenceMatcher
from functools import lru_cache

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af"
# A number keeps its minus sign ("-7" is not "7"); a hyphen after a word or digit ("x-7", "3-4") is no sign.
# Signs of order are words too: "a ≤ b" is not "a < b", and an answer read as text keeps them.
_TOKEN = re.compile(rf"(?<![\w.])-?\d+(?:\.\d+)?|\d+(?:\.\d+)?|[{_CJK}]|[^\W\d_{_CJK}]+|[<>≤≥≠]")
_CONTRACTIONS = [(re.compile(p), r) for p, r in (
    (r"\bcan't\b|\bcannot\b", "can not"), (r"\bwon't\b", "will not"), (r"\bshan't\b", "shall not"),
    (r"n't\b", " not"))]
# The only words an answer may add or drop: "the octahedron", "it is a cube".
FILLERS = frozenset("a an the is are was were be it its this that".split())


def _spelling(word: str) -> str:
    """British and American spelling, and inflection (-s, -es, -ies, -ed, -ing), folded to one form."""
    if len(word) < 4 or not word.isascii() or not word.isalpha():
        return word
    w = re.sub(r"(?<=[^aeiou])our(?=$|s$|ed$|ing$)", "or", word) if len(word) >= 5 else word  # colour
    w = re.sub(r"(?<=[^aeiou])tre(?=$|s$)", "ter", w)                                          # centre
    w = re.sub(r"is(?=ation|e$|es$|ed$|ing$)", "iz", w) if len(w) >= 6 else w                   # ionise
    w = re.sub(r"ys(?=e$|es$|ed$|ing$)", "yz", w)                                               # analyse
    w = w.replace("sulph", "sulf").replace("aluminium", "aluminum")
    w = re.sub(r"(?<=[a-z])(?:ae|oe)(?=[a-z])", "e", w)                                         # haem, oestrogen
    if w.endswith("ies") and len(w) >= 5:
        w = w[:-3] + "y"
    elif re.search(r"(?:x|z|ch|sh|ss)es$", w):
        w = w[:-2]
    elif w.endswith("s") and not w.endswith(("ss", "us", "is")) and len(w) >= 4:
        w = w[:-1]
    if w.endswith("ing") and len(w) >= 6:
        w = w[:-3]
    elif w.endswith("ed") and len(w) >= 5:
        w = w[:-2]
    return w[:-1] if w.endswith("e") and len(w) >= 4 else w


@lru_cache(maxsize=100_000)
def words(text: str) -> tuple[str, ...]:
    """The words, numbers and signs of order of a normalised text, contractions expanded ("cannot" →
    "can not")."""
    for pattern, repl in _CONTRACTIONS:
        text = pattern.sub(repl, text)
    return tuple(_TOKEN.findall(text))


fold = _spelling  # one word's spelling and inflection folded: "colours" → "color", "increased" → "increas"


@lru_cache(maxsize=100_000)
def folded(text: str) -> tuple[str, ...]:
    """The words and numbers of a normalised text (`words`), each folded (`fold`)."""
    return tuple(fold(w) for w in words(text))


def same_phrase(pred: str, gold: str) -> bool:
    """Whether two normalised texts (lower case, see judge.match.normalize_text) say the same thing."""
    if pred == gold:
        return True
    a, b = words(pred), words(gold)
    if "".join(a) == "".join(b):  # the same letters: only spaces, hyphens or punctuation differ
        return True
    na, nb = [_spelling(t) for t in a], [_spelling(t) for t in b]
    for op, i1, i2, j1, j2 in SequenceMatcher(None, na, nb, autojunk=False).get_opcodes():
        if op == "equal":
            continue
        if op == "replace" and "".join(na[i1:i2]) == "".join(nb[j1:j2]):
            continue  # "non polar" written "nonpolar"
        if op == "replace" or not all(t in FILLERS for t in a[i1:i2] + b[j1:j2]):
            return False
    return True
