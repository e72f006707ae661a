"""Find the final answer in a model's final text (never in its reasoning).

Candidates, latest first wins within each kind: the last `\\boxed{…}` (nested braces), the last
`<answer>…</answer>`, the last "Answer: …" / "the final answer is …" statement, the last line.
Option letters are read only where the text clearly states them ("C", "(C)", "C, D", "Option C"),
never picked out of ordinary words or sentences.
"""
from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

# A reasoning block, or the text before a lone </think> (a chat template that opened <think> itself).
THINK_BLOCK = re.compile(r"<think>.*?(?:</think>|$)|\A(?:(?!<think>).)*?</think>", re.S | re.I)
ANSWER_TAG = re.compile(r"<answer>(.*?)</answer>", re.S | re.I)
# "answer is" / "Answer:" / "答案：": the answer is what follows the last such phrase on a line.
ANSWER_KEY = re.compile(r"(?:answers?|最终答案|答案)\s*(?:(?:is|are|should\s+be|would\s+be|为|是)\s*[:：]?|[:：])\s*", re.I)
# "Option C", "options C and D", "the correct choice is (B)", "选C": the option words are matched in any
# case, the letters only in capitals, so the "s" of "options" is never an option.
OPTION_WORD = re.compile(
    r"(?:\b(?i:options?|choices?)\b|选项|选)\s*(?:(?i:is|are)\s+)?[:：]?\s*"
    r"(\(?[A-Z]\)?(?:\s*(?:,|，|、|&|\band\b|和|与)\s*\(?[A-Z]\)?)*)(?![A-Za-z])")
# "B is correct", "Only B is correct", "B and E are the correct options": letters a sentence states as right.
CORRECT_STATEMENT = re.compile(
    r"^(?i:only\s+)?(?:(?i:options?|choices?)\s+)?(\(?[A-Z]\)?(?:\s*(?:,|，|、|&|\band\b)\s*\(?[A-Z]\)?)*)\s+"
    r"(?i:is|are)\s+(?i:the\s+)?(?i:only\s+)?(?i:correct|right|true)\b")
LEADING_LETTER = re.compile(r"^\(?([A-Z])\)?\s*(?:[.:：)、,，;；]|$)")
LETTER_SET = re.compile(r"^\(?[A-Z]\)?(?:\s*(?:,|，|、|;|/|&|\band\b|和|与|\s)\s*\(?[A-Z]\)?)*$")
# Lower-case letters (OMIBench C.1 lower-cases every answer) only where the whole answer states them:
# "c", "(b)", "b)", "b, d", "(a) and (c)", "option c", "(b) 18" — never an article or a word ("a cat").
LOWER_SET = re.compile(r"^\(?[a-z]\)?(?:\s*(?:,|，|、|;|/|&|\band\b|和|与|\s)\s*\(?[a-z]\)?)*$")
LOWER_LEADING = re.compile(r"^(?:\(([a-z])\)|([a-z])\))(?:\s|$)|^([a-z])\.\s")
LOWER_OPTION = re.compile(r"\b(?i:options?|choices?)(?:\s+(?:(?i:is|are)\s+)?|\s*[:：]\s*)(?:\(([a-z])\)|([a-z]))\s*$")
LATEX_WRAPPERS = re.compile(r"\\(?:text|textbf|textrm|mathrm|mathbf|operatorname|boxed|fbox|ce)\s*\{((?:[^{}]|\{[^{}]*\})*)\}")


_BOX = re.compile(r"\\(?:boxed|fbox)\s*\{")
_SUPERSCRIPT = dict(zip("⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁿ", "0123456789+-=()n"))
_SUPERSCRIPT_RUN = re.compile(f"[{''.join(_SUPERSCRIPT)}]+")


def superscripts(text: str) -> str:
    """Unicode superscripts as exponents: "5×10⁵" → "5×10^{5}", "s⁻¹" → "s^{-1}" (NFKC alone would
    flatten them to "5×105")."""
    return _SUPERSCRIPT_RUN.sub(lambda m: "^{" + "".join(_SUPERSCRIPT[c] for c in m.group()) + "}", text)


@lru_cache(maxsize=1024)  # a response is cleaned again by each reading of it (final answer, candidates)
def clean(text: str) -> str:
    """NFKC (full-width letters and digits become ASCII), superscripts as exponents, reasoning blocks
    removed, outer space cut.

    Look-alike letters from other scripts (Cyrillic С, Greek Α) are not changed by NFKC, so they are
    never read as option letters or digits.
    """
    return THINK_BLOCK.sub("", unicodedata.normalize("NFKC", superscripts(text or ""))).strip()


def boxed_spans(text: str) -> list[tuple[int, int, str]]:
    """(start, end, content) of every `\\boxed{…}` / `\\fbox{…}`, in order, nested braces kept whole."""
    out = []
    for m in _BOX.finditer(text):
        depth, i = 1, m.end()
        while i < len(text) and depth:
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        if depth == 0:
            out.append((m.start(), i, text[m.end():i - 1].strip()))
    return out


def boxed_all(text: str) -> list[str]:
    """The contents of every `\\boxed{…}` / `\\fbox{…}`, in order, with nested braces kept whole."""
    return [content for _, _, content in boxed_spans(text)]


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


def states_answer(text: str | None) -> bool:
    """Whether a text marks a final answer (a \\boxed{}, an answer tag, an "Answer: …" line), not merely ends
    with a line: a response cut at its token limit before any of them states none, whatever its last line says."""
    text = clean(text or "")
    return bool(boxed_spans(text) or any(answer_tags(text)) or answer_statement(text))


def truncated(finish_reason: str | None, response: str | None) -> bool:
    """A response cut at its token limit (finish reason `length`) without a final answer: counted beside every
    accuracy, since a budget that stops a model before it answers is not the model's wrong answer."""
    return finish_reason == "length" and not states_answer(response)


def last_line(text: str) -> str | None:
    lines = [ln for ln in text.splitlines() if ln.strip()]
    return strip_decoration(lines[-1]) if lines else None


_FULL_STOP = re.compile(r"[.。]+$")
_DOLLARS = re.compile(r"^\$+|\$+$")
_MATH_DELIMITERS = re.compile(r"^\\\(|\\\)$|^\\\[|\\\]$")


@lru_cache(maxsize=16_384)  # the same short answers come back in every response
def strip_decoration(s: str) -> str:
    """Markdown emphasis, math delimiters and a closing full stop around an answer."""
    prev = None
    while prev != s:  # peel in any order: "**$\frac{3}{4}$**." → \frac{3}{4}
        prev = s
        s = s.strip().strip("*_`").strip()
        s = _FULL_STOP.sub("", s).rstrip()  # a sentence's full stop is never part of an answer
        s = _DOLLARS.sub("", s).strip()
        s = _MATH_DELIMITERS.sub("", s).strip()
    return s


def extract_answer(text: str, prefer_tag: bool = False) -> str | None:
    """The final answer as a string, or None if the text states none.

    `prefer_tag`: MIRA asks for `<answer>…</answer>`, so the tag is read before `\\boxed{}`.
    """
    return _extract_answer(text, bool(prefer_tag))


@lru_cache(maxsize=1024)  # score() and answer_candidates() both read the same final text
def _extract_answer(text: str, prefer_tag: bool) -> str | None:
    text = clean(text)
    if not text:
        return None
    tags, boxes = answer_tags(text), boxed_all(text)
    order = [tags, boxes] if prefer_tag else [boxes, tags]
    for found in order:
        if found and found[-1]:
            return strip_decoration(found[-1])
    return answer_statement(text) or last_line(text)


def answer_candidates(text: str, prefer_tag: bool = False, max_parts: int = 1) -> list[str]:
    """Ways the final answer may be written, first the one `extract_answer` reads.

    An answer in several parts may be spread over the last boxes ("(1) \\boxed{90} (2) \\boxed{45}") or
    over the lines after the last "Answer:"; each reading starts from the end of the text, so an earlier
    abandoned answer is never read. `max_parts` bounds how many trailing boxes are tried together.
    """
    text = clean(text)
    first = extract_answer(text, prefer_tag)
    if first is None:
        return []
    out = [first]
    tags, spans = answer_tags(text), boxed_spans(text)
    if spans and not (prefer_tag and tags):
        for m in range(2, min(len(spans), max_parts) + 1):
            tail = spans[-m:]
            out.append("; ".join(content for _, _, content in tail))
            start = text.rfind("\n", 0, tail[0][0]) + 1  # from the line of the first box on, boxes unwrapped
            pieces, pos = [], start
            for b_start, b_end, content in tail:
                pieces += [text[pos:b_start], content]
                pos = b_end
            out.append("".join(pieces))
    elif not spans and not tags and max_parts > 1:
        keys = list(ANSWER_KEY.finditer(text))
        if keys:
            out.append(text[keys[-1].end():])  # "Final answers:\n(1) …\n(2) …"
        out.append(re.split(r"\n\s*\n", text.strip())[-1])  # the last paragraph
        lines = answer_lines(text)  # "Answer (1): 6" … reasoning … "Answer (2): 7"
        out += ["; ".join(lines[-m:]) for m in range(2, min(len(lines), max_parts) + 1)]
    return list(dict.fromkeys(strip_decoration(c) for c in out if c and c.strip()))


# A line that states the answer to one part: "Answer: 6", "(1) Answer: 6", "**Answer (b):** 7", "Part 2
# answer: 7", "Final answer to part (ii): 8".
_LABEL = r"(?:part\s+\(?(\w{1,4})\)?|\((\w{1,4})\)|(\w{1,4})\))"
_ANSWER_LINE = re.compile(
    rf"^[\s#>-]*(?:{_LABEL}[.:]?\s*)?(?:final\s+)?answers?(?:\s+(?:to\s+|for\s+)?{_LABEL})?\s*[:：]\s*(\S.*)$", re.I)


def answer_lines(text: str) -> list[str]:
    """The answer every answer line states, in order, with its part's label when the line names one
    ("(1) 6"): the parts of an answer given on lines of their own with reasoning between them."""
    out = []
    for line in text.replace("**", "").splitlines():
        m = _ANSWER_LINE.match(line)
        if m:
            label = next((g for g in m.groups()[:6] if g), None)
            value = strip_decoration(m.group(7))
            out.append(f"({label}) {value}" if label else value)
    return out


def unwrap_latex(s: str) -> str:
    prev = None
    while prev != s:
        prev, s = s, LATEX_WRAPPERS.sub(r"\1", s)
    return s


def option_letters(candidate: str | None, n_options: int) -> list[str] | None:
    """Letters a candidate answer states, sorted: "C" / "(C)" / "C. text" / "C, D" / "CD" / "Option C",
    and in lower case (OMIBench C.1 lower-cases answers) "c" / "(c)" / "c) text" / "c, d" / "option c".

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
    elif m := CORRECT_STATEMENT.match(s):
        found = set(re.findall(r"[A-Z]", m.group(1)))
    elif m := LEADING_LETTER.match(s):
        found = {m.group(1)}
    elif ms := OPTION_WORD.findall(s):
        found = set(re.findall(r"[A-Z]", ms[-1]))
    elif LOWER_SET.match(s):
        found = {c.upper() for c in re.findall(r"(?<![a-z])[a-z](?![a-z])", s)}  # not the letters of "and"
    elif m := LOWER_LEADING.match(s) or LOWER_OPTION.search(s):
        found = {next(g for g in m.groups() if g).upper()}
    if not found or not found <= valid:
        return None
    return sorted(found)
