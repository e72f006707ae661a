"""Words with one fixed meaning, however they are written: true/false verdicts and amino acids.

- A verdict on a statement is T, True or TRUE (F, False, FALSE). A lone "T" or "F" may be a letter (an
  option, a point), so letters count as verdicts only where every item of the gold is a verdict.
- An amino acid is named by its one-letter code, its three-letter code or its name: L = Leu = leucine.
  A three-letter code or a name says what it is; a one-letter code is read as an amino acid only against
  one of those.
"""
from __future__ import annotations

import re

_TRUTH = {"true": True, "false": False}
_TRUTH_LETTERS = {"t": True, "f": False}

# one-letter code: (three-letter code, names separated by "/")
_AMINO_ACIDS = {
    "A": ("Ala", "alanine"), "R": ("Arg", "arginine"), "N": ("Asn", "asparagine"),
    "D": ("Asp", "aspartate/aspartic acid"), "C": ("Cys", "cysteine"), "Q": ("Gln", "glutamine"),
    "E": ("Glu", "glutamate/glutamic acid"), "G": ("Gly", "glycine"), "H": ("His", "histidine"),
    "I": ("Ile", "isoleucine"), "L": ("Leu", "leucine"), "K": ("Lys", "lysine"), "M": ("Met", "methionine"),
    "F": ("Phe", "phenylalanine"), "P": ("Pro", "proline"), "S": ("Ser", "serine"), "T": ("Thr", "threonine"),
    "W": ("Trp", "tryptophan"), "Y": ("Tyr", "tyrosine"), "V": ("Val", "valine"), "U": ("Sec", "selenocysteine"),
    "O": ("Pyl", "pyrrolysine"),
}
# Codes are capitalised as written ("His", "Met" and "Pro" are words otherwise); names in any case.
_BY_CODE = {code: letter for letter, (code, _) in _AMINO_ACIDS.items()}
_BY_NAME = {name: letter for letter, (_, names) in _AMINO_ACIDS.items() for name in names.split("/")}
_L_FORM = re.compile(r"^(?:[LD]-|\(?[LDSR]\)-)")


# "1. True", "(b) F", "ii) False", "Statement 3: True": the statement's number before its verdict
_NUMBERED = re.compile(r"^(?:statement\s*)?\(?(?:\d{1,2}|[a-h]|[ivx]{1,4})[).:]\s+(?=\S)", re.I)


def truth(text: str, letters: bool = False) -> bool | None:
    """The verdict a word gives (True, FALSE; with `letters` also T, F), or None; a statement's number
    before it is read through ("1. True")."""
    word = _NUMBERED.sub("", text.strip()).strip(".").lower()
    return _TRUTH.get(word, _TRUTH_LETTERS.get(word) if letters else None)


def truths(items: list[str] | tuple[str, ...]) -> list[bool] | None:
    """The verdicts of a list whose every item is one (T / F letters included), else None."""
    read = [truth(item, letters=True) for item in items]
    return None if not read or None in read else read  # type: ignore[return-value]


def amino_acid(text: str) -> tuple[str, bool] | None:
    """(one-letter code, whether the text names it unambiguously) for an amino acid written as a code or
    a name ("Leu", "leucine", "L-leucine", "L"), else None."""
    text = text.strip()
    if not text[:1].isalpha() and text[:1] != "(" or len(text) > 20:  # most answers: numbers, formulas, sentences
        return None
    text = _L_FORM.sub("", text)
    if text in _BY_CODE:
        return _BY_CODE[text], True
    if text.lower() in _BY_NAME:
        return _BY_NAME[text.lower()], True
    if len(text) == 1 and text in _AMINO_ACIDS:
        return text, False
    return None


def same_amino_acid(pred: str, gold: str) -> bool | None:
    """Whether two answers name the same amino acid; None unless both read as one and at least one of them
    names it unambiguously (a three-letter code or a name)."""
    g = amino_acid(gold)
    p = amino_acid(pred) if g is not None else None
    if p is None or g is None or not (p[1] or g[1]):
        return None
    return p[0] == g[0]
