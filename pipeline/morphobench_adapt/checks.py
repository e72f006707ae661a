"""Does a text state the gold answer? The rule judge's matcher decides, on every piece of the text.

A hint of R(Lite) or R(Complex) must not give the answer away (MorphoBench Appendix A.3: "mitigation of
spoiler-like expressions that would directly reveal the final result"), and a perturbed question of
P(Perturbed) must not state it either. Neither is left to the generating model's word. The text is read
as a response by the rule judge (`judge.rules.score`), and cut into pieces — sentences and their
clauses, what follows "=" or "is", formulas, numbers, and runs of words as long as a textual gold —
each compared with the gold by the judge's own matcher (`judge.match.match_answer`). Every piece the
matcher accepts is a *mention* of the gold: `1/2` where the gold is 0.5, `\\frac{1}{2}` for 1/2, "the
bridge was built" inside a longer sentence, the text of the right option of a multiple-choice item.
A piece the matcher cannot read (math-verify crashed) is an error, never a pass.
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from judge.extract import boxed_all, clean
from judge.errors import MatchError
from judge.match import is_textual, match_answer, match_one, normalize_text
from judge.mcq import gold_letters, is_mcq
from judge.parts import flat_parts, split_parts
from judge.rules import GRID, grid_cell, mcq_prediction, score

_SENTENCE = re.compile(r"(?<=[.!?。！？])\s+|\n+")
_MATH = re.compile(r"\$\$(.+?)\$\$|\$(.+?)\$|\\\((.+?)\\\)|\\\[(.+?)\\\]", re.S)
_RIGHT_SIDE = re.compile(r"(?:=|≈|\b(?:is|are|equals?|be|was|were|gives?|yields?)\b)\s*", re.I)
_NUMBER = re.compile(
    r"\\[dt]?frac\s*\{[^{}]*\}\s*\{[^{}]*\}"
    r"|(?<![\w.])[+-]?(?:\d+(?:[.,]\d+)*|\.\d+)(?:\s*/\s*\d+)?"
    r"(?:\s*(?:[eE][+-]?\d+|(?:×|\\times|\*)\s*10\s*\^\s*\{?[+-]?\d+\}?))?(?:\s*%)?", re.ASCII)
_OPTION_LINE = re.compile(r"^\s*\(?([A-Z])[.):]\s+(.+?)\s*$", re.M)
_WORD = re.compile(r"\S+")
WINDOW_SLACK = 2  # runs of words up to the gold's length + 2 ("the", "is" may stand between its words)


@dataclass
class Mentions:
    """Where a text states the gold: (kind, what was read) for each piece the matcher accepted, and the
    pieces it could not read."""

    found: Counter = field(default_factory=Counter)
    errors: list[str] = field(default_factory=list)

    def note(self, kind: str, what: str) -> None:
        self.found[(kind, normalize_text(what) or what)] += 1

    def describe(self) -> str:
        said = ", ".join(f"{what!r} ({kind})" for (kind, what) in sorted(self.found))
        return said or "; ".join(self.errors)


def _sentences(text: str) -> list[str]:
    out = []
    for sentence in _SENTENCE.split(text):
        sentence = sentence.strip()
        if sentence:
            out.append(sentence)
            parts = split_parts(sentence)
            out += parts if len(parts) > 1 else []
    return out


def _right_sides(pieces: list[str]) -> list[str]:
    out = []
    for piece in pieces:
        cuts = list(_RIGHT_SIDE.finditer(piece))
        if cuts and piece[cuts[-1].end():].strip():
            out.append(piece[cuts[-1].end():].strip(" .,;:"))
    return out


def _formulas(text: str) -> list[str]:
    found = [next(g for g in m.groups() if g is not None) for m in _MATH.finditer(text)]
    return [f.strip() for f in found + boxed_all(text) if f.strip()]


def _windows(text: str, sizes: range) -> list[tuple[int, int, str]]:
    """(first word, end word, text) of every run of words of the given sizes, shortest first."""
    words = [m.group().strip(".,;:!?()\"'“”") for m in _WORD.finditer(text)]
    return [(i, i + n, " ".join(words[i:i + n])) for n in sizes for i in range(len(words) - n + 1)]


def _options(rec: dict[str, Any]) -> dict[str, str]:
    """Option letter → option text: the record's choices, or the options printed in its question."""
    if rec["choices"]:
        return {chr(ord("A") + i): c for i, c in enumerate(rec["choices"])}
    return {m.group(1): m.group(2) for m in _OPTION_LINE.finditer(rec["question"])}


def _matches(piece: str, golds: list[list[str]]) -> bool:
    """The piece is the gold, or one part of a gold in several parts."""
    return any(match_answer(piece, g) for g in golds)


def mentions(rec: dict[str, Any], text: str) -> Mentions:
    """Every place where `text` states the record's gold answer, as the rule judge's matcher reads it."""
    out = Mentions()
    text = clean(text or "")
    if not text:
        return out
    pieces = [text] + _sentences(text)
    for piece in dict.fromkeys(pieces):  # the text and each sentence and clause, read as an answer
        verdict = score(rec, piece)
        if verdict.get("status") == "judge_error":
            out.errors.append(f"the matcher could not read {piece[:60]!r}: {verdict['error']}")
        elif verdict["correct"]:
            out.note("answer", verdict["extracted"] or piece)
    if is_mcq(rec):
        _option_mentions(rec, text, pieces, out)
    elif len(rec["answer"]) == 1 and grid_cell(rec["answer"][0]):
        gold_cell = grid_cell(rec["answer"][0])
        for m in GRID.finditer(text):
            if (int(m.group(1)), int(m.group(2))) == gold_cell:
                out.note("cell", m.group())
    else:
        _part_mentions(rec, text, pieces, out)
    return out


def _option_mentions(rec: dict[str, Any], text: str, pieces: list[str], out: Mentions) -> None:
    """The right option's text anywhere, and a clause naming the right letters."""
    wanted = gold_letters(rec["answer"])
    for letter in wanted:
        option = _options(rec).get(letter)
        if not option or not normalize_text(option):
            continue
        n = len(normalize_text(option).split())
        for _, _, window in _windows(text, range(n, n + 1)):
            if normalize_text(window) == normalize_text(option):
                out.note("option", letter)
    for piece in _right_sides(pieces):
        if mcq_prediction(rec, piece) == wanted:
            out.note("answer", piece)


def _part_mentions(rec: dict[str, Any], text: str, pieces: list[str], out: Mentions) -> None:
    """The gold, or one of its parts, as a clause's right side, a formula, a number or a run of words."""
    whole = ", ".join(rec["answer"])
    parts = flat_parts(whole)
    golds = [rec["answer"]] + ([[p] for p in parts] if len(parts) > 1 else [])
    candidates = _right_sides(pieces) + _formulas(text) + [m.group().strip() for m in _NUMBER.finditer(text)]
    for candidate in dict.fromkeys(c for c in candidates if c):
        try:
            if _matches(candidate, golds):
                out.note("part", candidate)
        except MatchError as e:
            out.errors.append(f"the matcher could not read {candidate[:60]!r}: {e}")
    textual = [g for g in [whole] + parts if is_textual(g)]
    if not textual:
        return
    # runs of words, shortest first; a run containing one that already matched adds nothing new
    longest = max(len(g.split()) for g in textual) + WINDOW_SLACK
    taken: list[tuple[int, int]] = []
    for start, end, window in _windows(text, range(1, longest + 1)):
        if any(s >= start and e <= end for s, e in taken):
            continue
        try:
            if any(match_one(window, g) for g in textual):
                taken.append((start, end))
                out.note("part", window)
        except MatchError as e:
            out.errors.append(f"the matcher could not read {window[:60]!r}: {e}")


def spoiler(rec: dict[str, Any], hint: str) -> str | None:
    """Why a hint gives the answer away, or None: it states the gold, an equivalent form of it, or one
    of its parts anywhere; a piece the matcher cannot read fails too (the hint cannot be cleared)."""
    found = mentions(rec, hint)
    if found.found:
        return f"states the answer: {found.describe()}"
    if found.errors:
        return f"cannot be checked: {found.errors[0]}"
    return None


def new_mentions(rec: dict[str, Any], original: str, rewritten: str) -> str | None:
    """Why a rewritten question states the answer where the original did not, or None. A mention the
    original already had (the options of a multiple-choice question) is not a leak; one more is."""
    before, after = mentions(rec, original), mentions(rec, rewritten)
    added = after.found - before.found
    if added:
        return f"states the answer: {Mentions(added).describe()}"
    if after.errors:
        return f"cannot be checked: {after.errors[0]}"
    return None
