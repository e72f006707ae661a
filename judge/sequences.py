"""Sequences: answers whose items come in an order, and the ways a sequence is written.

A list is a set only where the question asks for one (judge/parts.py, `order_free`), and not even then
when the gold itself orders its items with arrows or dashes ("A → E → D", "Leu–Ser–Gly"): such a gold
is a sequence whatever the question says. A sequence may be answered with any separator — arrows,
commas, semicolons, new lines, "then", "followed by", dashes — but its items must come in the gold's
order. Texts are canonical (judge.match.canonical): every arrow is "→", every dash "-".
"""
from __future__ import annotations

import re
from functools import lru_cache

# Between two items: an arrow, a comma (not the thousands separator of "1,000"), a semicolon, a new
# line, "then" / "followed by" (also after a comma), an em dash, or a dash with spaces around it between
# names ("A - E - D", "prophase - metaphase"; never "x - y" or "3 - 1", which are differences).
_SEPARATOR = re.compile(
    r"\s*(?:→|(?:(?<!\d),|,(?!\d{3}(?!\d))|[;\n])(?:\s*(?:and\s+)?then\b)?|\s(?:and\s+)?then\s|\sfollowed\s+by\s"
    r"|\s—\s|(?:(?<=[A-Za-z][A-Za-z])|(?<=\b[A-Z]))\s-\s(?=[A-Z]|[a-z]{2}))\s*")
_MAY_SEPARATE = re.compile(r"[→,;\n—]|\sthen\s|\sfollowed|\s-\s|[A-Za-z]-[A-Z]")
# Codes joined by hyphens: "A-E-D", "Leu-Ser-Gly" (a name such as "4-methoxyphenol" is not a sequence).
_CODE_CHAIN = re.compile(r"[A-Z][a-z]{0,2}(?:[-—][A-Z][a-z]{0,2})+")
_LEADING_WORD = re.compile(r"^(?:first(?:ly)?|then|next|finally|lastly|and)\s+(?=\S)", re.I)
# The gold orders its items: an arrow or a dash between two of them.
_ORDERING = re.compile(r"→|\s[-—]\s|then|followed")


def _top_level(text: str) -> tuple[list[str], list[str]]:
    """`text` cut at every separator outside brackets: the pieces, and the separators between them."""
    pieces, separators, start, depth, pos = [], [], 0, 0, 0
    for m in _SEPARATOR.finditer(text):
        for ch in text[pos:m.start()]:
            depth += 1 if ch in "([{" else -1 if ch in ")]}" else 0
        pos = m.end()
        if depth <= 0:
            pieces.append(text[start:m.start()])
            separators.append(m.group())
            start = m.end()
    pieces.append(text[start:])
    return pieces, separators


@lru_cache(maxsize=100_000)
def items(text: str) -> tuple[str, ...]:
    """The items of a list written with any separator, in their order (one item when there is none)."""
    text = text.strip()
    if not _MAY_SEPARATE.search(text):
        return (text,) if text else ()
    out: list[str] = []
    for piece in _top_level(text)[0]:
        piece = _LEADING_WORD.sub("", piece.strip(" .。"))
        out += re.split("[-—]", piece) if _CODE_CHAIN.fullmatch(piece) else [piece] if piece else []
    return tuple(out)


def ordered(gold: str) -> bool:
    """Whether a gold orders its items itself: arrows or dashes between them, or codes joined by hyphens."""
    if not _MAY_SEPARATE.search(gold):
        return False
    pieces, separators = _top_level(gold)
    return any(_ORDERING.search(sep) for sep in separators) or any(_CODE_CHAIN.fullmatch(p.strip()) for p in pieces)
