"""Find the final answer in a model's final text (never in its reasoning).

Candidates, latest first wins within each kind: the last `\\boxed{…}` (nested braces), the last
`<answer>…</answer>`, the last "Answer: …" / "the final answer is …" statement, the last line.
Option letters are read only where the text clearly states them ("C", "(C)", "C, D", "Option C"),
never picked out of ordinary words or sentences.
"""
from __future__ import annotations

import re
import unicodedata

THINK_BLOCK = re.compile(r"<think>.*?(?:</think>|$)", re.S | re.I)
ANSWER_TAG = re.compile(r"<answer>(.*?)</answer>", re.S | re.I)
# "answer is" / "Answer:" / "答案：": the answer is what follows the last such phrase on a line.
ANSWER_KEY = re.compile(r"(?:answer|最终答案|答案)\s*(?:(?:is|should\s+be|would\s+be|为|是)\s*[:：]?|[:：])\s*", re.I)
# "Option C", "options C and D", "the correct choice is (B)", "选C": the option words are matched in any
# case, the letters only in capitals, so the "s" of "options" is never an option.
OPTION_WORD = re.compile(
    r"(?:\b(?i:options?|choices?)\b|选项|选)\s*(?:(?i:is|are)\s+)?[:：]?\s*"
    r"(\(?[A-Z]\)?(?:\s*(?:,|，|、|&|\band\b|和|与)\s*\(?[A-Z]\)?)*)(?![A-Za-z])")
LEADING_LETTER = re.compile(r"^\(?([A-Z])\)?\s*(?:[.:：)、,，;；]|$)")
LETTER_SET = re.compile(r"^\(?[A-Z]\)?(?:\s*(?:,|，|、|;|/|&|\band\b|和|与|\s)\s*\(?[A-Z]\)?)*$")
LATEX_WRAPPERS = re.compile(r"\\(?:text|textbf|mathrm|mathbf|boxed|fbox)\s*\{([^{}]*)\}")


def clean(text: str) -> str:
    """NFKC (full-width letters and digits become ASCII), reasoning blocks removed, outer space cut.

    Look-alike letters from other scripts (Cyrillic С, Greek Α) are not changed by NFKC, so they are
    never read as option letters or digits.
    """
    return THINK_BLOCK.sub("", unicodedata.normalize("NFKC", text or "")).strip()


def boxed_all(text: str) -> list[str]:
    """The contents of every `\\boxed{…}` / `\\fbox{…}`, in order, with nested braces kept whole."""
    out = []
    for m in re.finditer(r"\\(?:boxed|fbox)\s*\{", text):
        depth, i = 1, m.end()
        while i < len(text) and depth:
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        if depth == 0:
            out.append(text[m.end():i - 1].strip())
    return out


def answer_tags(text: str) -> list[str]:
    return [m.strip() for m in ANSWER_TAG.findall(text)]


def answer_statement(text: str) -> str | None:
    """The rest of the last line that says what the answer is."""
    found = None
    for line in text.splitlines():
        keys = list(ANSWER_KEY.finditer(line))
        if keys and line[keys[-1].end():].strip():
            found = line[keys[-1].end():]
    return strip_decoration(found) if found else None


def last_line(text: str) -> str | None:
    lines = [ln for ln in text.splitlines() if ln.strip()]
    return strip_decoration(lines[-1]) if lines else None


def strip_decoration(s: str) -> str:
    """Markdown emphasis, math delimiters and a closing full stop around an answer."""
    prev = None
    while prev != s:  # peel in any order: "**$\frac{3}{4}$**." → \frac{3}{4}
        prev = s
        s = s.strip().strip("*_`").strip()
        s = re.sub(r"[.。]+$", "", s).rstrip()  # a sentence's full stop is never part of an answer
        s = re.sub(r"^\$+|\$+$", "", s).strip()
        s = re.sub(r"^\\\(|\\\)$|^\\\[|\\\]$", "", s).strip()
    return s


def extract_answer(text: str, prefer_tag: bool = False) -> str | None:
    """The final answer as a string, or None if the text states none.

    `prefer_tag`: MIRA asks for `<answer>…</answer>`, so the tag is read before `\\boxed{}`.
    """
    text = clean(text)
    if not text:
        return None
    tags, boxes = answer_tags(text), boxed_all(text)
    order = [tags, boxes] if prefer_tag else [boxes, tags]
    for found in order:
        if found and found[-1]:
            return strip_decoration(found[-1])
    return answer_statement(text) or last_line(text)


def unwrap_latex(s: str) -> str:
    prev = None
    while prev != s:
        prev, s = s, LATEX_WRAPPERS.sub(r"\1", s)
    return s


def option_letters(candidate: str | None, n_options: int) -> list[str] | None:
    """Letters a candidate answer states, sorted: "C" / "(C)" / "C. text" / "C, D" / "CD" / "Option C".

    Letters beyond the question's options are rejected; so is any letter inside running text.
    """
    if not candidate or n_options <= 0:
        return None
    valid = {chr(ord("A") + i) for i in range(min(n_options, 26))}
    s = strip_decoration(unwrap_latex(clean(candidate)))
    found: set[str] | None = None
    if LETTER_SET.match(s):
        found = set(re.findall(r"[A-Z]", s))
    elif re.fullmatch(r"[A-Z]{2,}", s) and len(set(s)) == len(s):  # "CD" for a multi-select
        found = set(s)
    elif m := LEADING_LETTER.match(s):
        found = {m.group(1)}
    elif ms := OPTION_WORD.findall(s):
        found = set(re.findall(r"[A-Z]", ms[-1]))
    if not found or not found <= valid:
        return None
    return sorted(found)
