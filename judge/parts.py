"""Answers in several parts: labelled parts — (1) (2), a) b), (i) (ii) — and parts separated by , ; and →.

Gold and response are split the same way, so how the parts are separated does not matter ("3, 5",
"3; 5", "3 and 5", one part per line, "A → E → D" and "A, E, D"), nor how an official release happened
to cut its gold into a list (OMIBench splits some golds at commas inside their parts): the gold list is
joined and split again like a response. Brackets, braces and thousands separators ("1,000") never split.

Parts compare in order, unless the question asks for a set ("select all that apply", "which of the
following", "give the numbers of …") and nothing in it asks for an order (`order_free`).
"""
from __future__ import annotations

import re
from functools import lru_cache

# A label opens a part at the start of the text or after a space or separator: "(1)", "1)", "(a)",
# "a)", "(ii)". Not "f(1)" or "x(a)": a label never follows a letter or digit.
_LABEL = re.compile(r"(?:^|(?<=[\s,;:，；。.]))\(?(\d{1,2}|[a-h]|[ivx]{1,4})\)(?!\))", re.I)
_ROMAN = ["i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix", "x"]
_SEPARATORS = ",;，；\n→"
_MAY_SPLIT = re.compile(r"[,;，；\n→]| and | or ")


def split_parts(answer: str) -> list[str]:
    """Split "3, 5" / "3; 5" / "3 and 5" / "3 or 5" / lines / "A → E → D" into parts, at top level only
    (not inside brackets). Arrows are "→" here: judge.match.canonical writes ->, ⟶ and \\rightarrow so."""
    if not _MAY_SPLIT.search(answer):  # no separator anywhere: one part (most answers)
        return [answer.strip(" .。")] if answer.strip(" .。") else []
    return list(_split(answer))


@lru_cache(maxsize=100_000)  # a list's parts are asked for by every rule that reads lists
def _split(answer: str) -> tuple[str, ...]:
    parts, depth, start, i = [], 0, 0, 0
    while i < len(answer):
        ch = answer[i]
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth = max(0, depth - 1)
        elif depth == 0:
            # "1,000" is one number: a comma between a digit and exactly three digits
            thousands = (ch == "," and i > 0 and answer[i - 1].isdigit()
                         and re.match(r"\d{3}(?!\d)", answer[i + 1:i + 5]) is not None)
            word = next((w for w in (" and ", " or ") if answer.startswith(w, i)), None)
            width = len(word) if word else 1 if ch in _SEPARATORS and not thousands else 0
            if width:
                parts.append(answer[start:i])
                i += width
                start = i
                continue
        i += 1
    parts.append(answer[start:])
    return tuple(p.strip(" .。") for p in parts if p.strip(" .。"))


def _index(label: str, roman: bool) -> int:
    label = label.lower()
    if label.isdigit():
        return int(label)
    if roman:
        return _ROMAN.index(label) + 1
    return ord(label) - ord("a") + 1 if len(label) == 1 else 0  # "ii" among letters: no sequence


def _depth(text: str, end: int) -> int:
    """How many brackets are open before position `end` (a label's lone ")" closes none: "a) 6, b) 7")."""
    depth = 0
    for ch in text[:end]:
        depth = depth + 1 if ch in "([{" else max(0, depth - 1) if ch in ")]}" else depth
    return depth


@lru_cache(maxsize=100_000)
def labelled_parts(text: str, any_order: bool = False) -> tuple[tuple[int, str], ...] | None:
    """(part number, body) for a text whose parts carry labels numbered 1, 2, 3… (or a, b, c… or i, ii,
    iii…) in order — with `any_order`, in any order ("(2) 7; (1) 6") —; None when the text has fewer than
    two such labels. Text before the first label ("Answer:") is not part of any part."""
    found = [m for m in _LABEL.finditer(text) if _depth(text, m.start()) == 0]  # not the "4)" of "(2,4)"
    labels = [m.group(1).lower() for m in found]
    roman = len(found) >= 2 and all(label in _ROMAN for label in labels) and (
        "i" in labels if any_order else labels[0] == "i")
    kinds = {"digit" if m.group(1).isdigit() else "letter" for m in found}
    if len(found) < 2 or len(kinds) > 1:
        return None
    numbers = [_index(m.group(1), roman) for m in found]
    if (sorted(numbers) if any_order else numbers) != list(range(1, len(found) + 1)):
        return None
    bodies = [text[m.end():nxt.start()] for m, nxt in zip(found, found[1:])] + [text[found[-1].end():]]
    # a part ends where the next label starts, without the separator written before that label
    return tuple((n, re.sub(r"(?:[\s,;，；.:]|\band\b)+$", "", body).strip(" ,;，；.:\n")) for n, body in zip(numbers, bodies))


def flat_parts(text: str) -> list[str]:
    """Every part of an answer in order, labelled or not: "(1) 6, 12 (2) 7" → ["6", "12", "7"]."""
    labelled = labelled_parts(text)
    if labelled is None:
        return split_parts(text)
    return [p for _, body in labelled for p in split_parts(body)]


# A question asking for a set of items: "Select all that apply", "Which of the following …", "Give the
# numbers of the correct statements", "in any order".
_SET_WORDING = re.compile(
    r"\b(?:select|choose|check|tick|mark|circle|identify|list|pick)\b[^.?!\n]{0,40}?\ball\b"
    r"|\ball (?:the )?(?:possible |real )?(?:solutions|roots)\b"
    r"|\ball (?:that|which) (?:apply|applies|are|is)\b|\bas many as (?:apply|appropriate|needed)\b"
    r"|\bwhich (?:of the following|of these|of them|ones|two|three|four|statements?|options?|numbers?)\b"
    # "Which compounds are achiral?": a plural asked for with a plural verb names the members of a set
    r"|\bwhich (?:[a-z-]+ ){0,2}?[a-z-]+s (?:are|were|have|can|could|will|would|do|may|might|must|should|show|"
    r"contain|undergo|react|form|give|exhibit|belong|possess|lack)\b"
    r"|\b(?:numbers|letters|labels) of (?:all )?(?:the )?(?:correct|true|false|incorrect|right|wrong)\b"
    r"|\bgive the (?:numbers|letters|labels)\b"
    r"|\bmore than one (?:answer|option|choice)\b|\bin any order\b|\border (?:does not|doesn't) matter\b"
    r"|哪些|所有正确|多选", re.I)
# Anything asking for an order makes the answer a sequence: "arrange", "in order", "rank", "the
# correct sequence", ordered pairs and coordinates, "respectively", "from smallest to largest".
_ORDER_WORDING = re.compile(
    r"\barrang|\border|\brank|\bsequen(?:ce (?:of|in which)|tial)|\b(?:correct|right|following|proper) "
    r"sequence|\bin (?:a |the )?sequence\b|\brespectively\b|\bcoordinates?\b|\bpairs?\b|\btuple"
    r"|\bascending|\bdescending|\bincreasing|\bdecreasing|\bfrom (?:the )?(?:smallest|largest|highest|lowest"
    r"|least|most|first|fastest|slowest|strongest|weakest)\b|\bfirst\b[^.?!]{0,60}\bthen\b|\bchronolog"
    # "from left to right", "from top to bottom", "from the most to the least stable", "from N- to C-terminus"
    r"|\bfrom (?:the )?(?:left|right|top|bottom|start|beginning|end|inside|outside|[a-z]+est|most|least|more|less"
    r"|high|low|[nc]-?terminus|[35]['′]?)\b[^.?!]{0,40}?\bto\b"
    r"|\bstep by step\b|排序|顺序|依次|先后", re.I)
_ANY_ORDER = re.compile(r"\bin any order\b|\border (?:does not|doesn't) matter\b", re.I)


@lru_cache(maxsize=4096)
def order_free(question: str) -> bool:
    """Whether a question asks for a set, so that its answer's parts may come in any order."""
    if _ANY_ORDER.search(question):
        return True
    return bool(_SET_WORDING.search(question)) and not _ORDER_WORDING.search(question)


_LETTER_RUN = re.compile(r"\(?[A-Za-z]\)?(?:\s+\(?[A-Za-z]\)?)+")


def set_items(parts: list[str]) -> list[str]:
    """The items of a set answer: its parts, and single letters written side by side ("a b c d") one
    by one, brackets around a single letter dropped."""
    items = [item for part in parts for item in (part.split() if _LETTER_RUN.fullmatch(part) else [part])]
    return [re.sub(r"^\(([A-Za-z])\)$", r"\1", item) for item in items]  # "(a)" is the item a
