"""Think360° (seed 000) release -> unified records.

The paper publishes no file format ("Code will be available"), so this reads the obvious one:
``--src`` is a ``.json`` file, or a folder holding exactly one ``.json`` file next to its images. The
file is a JSON array of objects ``{id, question, answer, image_path, ...}``; image paths are relative
to the JSON file. Accepted variants: ``id`` [pid, qid, question_id, uid] (string or integer),
``question`` [query, problem], ``answer`` [answers, gt_answer, ground_truth, final_answer] (string,
number or list), ``image_path`` [image, img_path, image_file, img, images] (a path or a list). Problems
are reported as ``file:line: [record index].key: message``.

The paper's taxonomy (Table 1, Sec. 3.3, Appendix) is kept under stable names. Key spellings are
matched case- and punctuation-insensitively (``"Answer Type"`` = ``answer_type``) against the names the
paper uses for each axis:

================  =====================================================  ==========================
unified field     accepted keys                                          values
================  =====================================================  ==========================
``difficulty``    difficulty, difficulty_tier, difficulty_level, tier    Easy, Basic, Medium, Hard,
                                                                         Olympiad (any case)
``answer_type``   answer_type, answer_format, answer_kind                multiple-choice -> mcq,
                                                                         numerical -> numeric,
                                                                         structural -> structured,
                                                                         formula/expression ->
                                                                         expression, other -> text,
                                                                         free-form -> open
``skills``        skills, cognitive_skills, cognitive_capability(ies),   list, or one string split
                  capabilities, main_category                            on , ; |
``question_type`` question_type(s), subcategory, subject                 list or string, as above
``choices``       choices, options, choice_list                          list, or {letter: text}
``captions``      caption, image_caption (one string), captions (list)   one per image
``solution``      solution, rationale, explanation                       string
``split``         split                                                  e.g. testmini
================  =====================================================  ==========================

Skill and question-type names are spelled as in the paper when recognised (``trial and error`` ->
``Trial-and-Error``), otherwise kept verbatim. Without an answer type, a record with options is MCQ
and one without is ``open``. MCQ golds become option letters (an option's text is accepted as well).
Every other field is kept verbatim under ``extra``.
"""
from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import Any, Callable

from data.jsonl import DataError, iter_json_array, problem
from data.media import Media
from data.records import letters

log = logging.getLogger(__name__)

BENCHMARK = "think360"

# normalised key -> unified field
ALIASES: dict[str, str] = {}
for _field, _keys in {
    "id": ["id", "pid", "qid", "question_id", "uid"],
    "question": ["question", "query", "problem"],
    "answer": ["answer", "answers", "gt_answer", "ground_truth", "final_answer"],
    "images": ["image_path", "image", "img_path", "image_file", "img", "image_paths", "images"],
    "difficulty": ["difficulty", "difficulty_tier", "difficulty_level", "tier"],
    "answer_type": ["answer_type", "answer_format", "answer_kind"],
    "skills": ["skills", "skill", "cognitive_skills", "cognitive_skill", "cognitive_capability",
               "cognitive_capabilities", "capability", "capabilities", "main_category"],
    "question_type": ["question_type", "question_types", "subcategory", "sub_category", "subject"],
    "choices": ["choices", "options", "choice_list", "option_list"],
    "captions": ["caption", "image_caption", "captions"],
    "solution": ["solution", "rationale", "explanation"],
    "split": ["split"],
}.items():
    for _key in _keys:
        ALIASES[_key] = _field

TIERS = ["Easy", "Basic", "Medium", "Hard", "Olympiad"]

# Paper's answer kinds (Table 1) and common spellings -> unified answer_type; keys are squashed.
ANSWER_KINDS = {
    "multiplechoice": "mcq", "multiplechoicequestion": "mcq", "multiplechoicequestions": "mcq",
    "mcq": "mcq", "mc": "mcq", "choice": "mcq", "singlechoice": "mcq",
    "numerical": "numeric", "numeric": "numeric", "number": "numeric", "integer": "numeric",
    "structural": "structured", "structure": "structured", "structured": "structured",
    "formula": "expression", "expression": "expression", "formulaexpression": "expression",
    "other": "text", "others": "text", "text": "text",
    "freeform": "open", "open": "open", "openended": "open",
}

SKILLS = ["Perceive-and-Comprehend", "Trial-and-Error", "Divide-and-Conquer", "Branch-and-Bound",
          "Hypothesize-and-Test"]
QUESTION_TYPES = ["Algebra", "Number Theory", "Combinatorics", "Geometry", "Probability & Statistics",
                  "Logic"]


def squash(text: str) -> str:
    """Lower-case letters and digits only: 'Trial and error' == 'trial-and-error'."""
    return re.sub(r"[^a-z0-9]", "", text.lower())


_CANONICAL = {squash(n): n for n in SKILLS + QUESTION_TYPES}
_CANONICAL.update({"hypothesiseandtest": "Hypothesize-and-Test", "probability": "Probability & Statistics",
                   "probabilitystatistics": "Probability & Statistics"})


def norm_key(key: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", key.lower()).strip("_")


def _is_letter_token(token: str) -> bool:
    """One letter (any case) or a run of distinct capitals ("AC"); not a word such as "square"."""
    if not (token.isascii() and token.isalpha()):
        return False
    return len(token) == 1 or (token.isupper() and len(set(token)) == len(token))


def split_letters(values: list[str]) -> list[str] | None:
    """Sorted unique option letters from golds like "B", "(B)", "AC", "A, C"; None if not letters."""
    found: set[str] = set()
    for value in values:
        tokens = [t for t in re.split(r"[\s,;/()\[\]]+", value.strip()) if t]
        if not tokens or not all(_is_letter_token(t) for t in tokens):
            return None
        for t in tokens:
            found.update(t.upper())
    return sorted(found) or None


def _source_file(src: Path) -> Path:
    if src.is_file():
        return src
    found = sorted(src.glob("*.json"))
    if len(found) != 1:
        what = "no .json file" if not found else f"{len(found)} .json files ({', '.join(p.name for p in found)})"
        raise DataError([problem(src, None, "--src", f"expected one .json file in the folder, found {what}")])
    return found[0]


def convert(src: Path, media: Media) -> list[dict[str, Any]]:
    """Read the release at `src` and return unified records; DataError lists every problem."""
    path = _source_file(src)
    problems: list[str] = []
    records: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    unknown_tiers: dict[str, int] = {}
    for index, (line, raw) in enumerate(iter_json_array(path)):
        def bad(field: str, message: str, _line: int = line, _i: int = index) -> None:
            problems.append(problem(path, _line, f"[{_i}].{field}", message))

        if not isinstance(raw, dict):
            bad("-", f"expected an object, got {type(raw).__name__}")
            continue
        rec = _convert_record(raw, path.parent, media, bad)
        if rec is None:
            continue
        if rec["id"] in seen:
            bad("id", f"duplicate id {rec['id']!r} (first at record {seen[rec['id']]})")
        seen.setdefault(rec["id"], index)
        if rec.get("difficulty") not in (None, *TIERS):
            unknown_tiers[rec["difficulty"]] = unknown_tiers.get(rec["difficulty"], 0) + 1
        records.append(rec)
    if problems:
        raise DataError(problems)
    if not records:
        raise DataError([problem(path, None, "-", "no records")])
    if unknown_tiers:
        log.warning("think360: difficulty values outside the paper's five tiers, kept verbatim: %s", unknown_tiers)
    log.info("think360: %d records from %s", len(records), path)
    return records


def _as_list(value: Any) -> list[str] | None:
    """A list of strings from a list, or from one string split on , ; | ; None if neither."""
    if isinstance(value, str):
        return [p.strip() for p in re.split(r"[,;|]", value) if p.strip()]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return list(value)
    return None


def _scalar_strings(value: Any) -> list[str] | None:
    """Answer values as strings: a string, a number, or a list of those."""
    items = value if isinstance(value, list) else [value]
    if not items or any(isinstance(v, bool) or not isinstance(v, (str, int, float)) for v in items):
        return None
    return [str(v) for v in items]


def _convert_record(raw: dict[str, Any], base: Path, media: Media,
                    bad: Callable[[str, str], None]) -> dict[str, Any] | None:
    """One array element -> unified record, or None when it has problems (reported through `bad`)."""
    ok = True  # fail() clears it; the problems are collected and the whole conversion fails

    def fail(field: str, message: str) -> None:
        nonlocal ok
        ok = False
        bad(field, message)

    # Sort the official keys into unified fields and leftovers.
    found: dict[str, tuple[str, Any]] = {}
    extra: dict[str, Any] = {}
    for key, value in raw.items():
        field = ALIASES.get(norm_key(key))
        if field is None:
            extra[key] = value
        elif field in found:
            fail(key, f"both {found[field][0]!r} and {key!r} given for {field}")
        else:
            found[field] = (key, value)
    for field in ("id", "question", "answer", "images"):
        if found.get(field, (None, None))[1] is None:
            fail(field, "missing" if field != "images" else "missing (image_path)")
    if not ok:
        return None
    get = {f: v for f, (_, v) in found.items()}
    key_of = {f: k for f, (k, _) in found.items()}

    rid = get["id"]
    if isinstance(rid, bool) or not isinstance(rid, (str, int)) or not str(rid).strip():
        fail(key_of["id"], f"expected a non-empty string or integer, got {rid!r}")
    if not isinstance(get["question"], str):
        fail(key_of["question"], f"expected a string, got {type(get['question']).__name__}")

    # Images: one path, or a list of them, relative to the JSON file.
    paths = [get["images"]] if isinstance(get["images"], str) else get["images"]
    images = []
    if not isinstance(paths, list) or not paths or not all(isinstance(p, str) and p for p in paths):
        fail(key_of["images"], f"expected a path or a list of paths, got {get['images']!r}")
        paths = []
    for i, rel in enumerate(paths):
        target = base / rel
        if not target.is_file():
            fail(key_of["images"] if len(paths) == 1 else f"{key_of['images']}[{i}]", f"image not found: {target}")
        else:
            images.append(media.ref(target))

    choices: list[str] = []
    if get.get("choices") is not None:
        value = get["choices"]
        if isinstance(value, dict):  # {"A": "...", "B": "..."}: order by letter
            value = [value[k] for k in sorted(value)]
        if not isinstance(value, list) or any(isinstance(v, bool) or not isinstance(v, (str, int, float)) for v in value):
            fail(key_of["choices"], "expected a list of options (or {letter: option})")
        else:
            choices = [str(v) for v in value]

    answer_type = "mcq" if choices else "open"
    if get.get("answer_type") is not None:
        kind = get["answer_type"]
        answer_type = ANSWER_KINDS.get(squash(kind)) if isinstance(kind, str) else None
        if answer_type is None:
            fail(key_of["answer_type"], f"unknown answer type {kind!r} (the paper's kinds: multiple-choice, "
                                        "numerical, structural, formula, other)")

    answer = _scalar_strings(get["answer"])
    if answer is None or not any(a.strip() for a in answer):
        fail(key_of["answer"], f"expected a non-empty string, number or list, got {get['answer']!r}")
    elif answer_type == "mcq":
        picked = split_letters(answer)
        if picked is None and choices and all(a.strip() in choices for a in answer):
            picked = sorted(letters(len(choices))[choices.index(a.strip())] for a in answer)
        if picked is None:
            fail(key_of["answer"], f"multiple-choice gold {get['answer']!r} is neither option letters nor an option")
        elif choices and any(p not in letters(len(choices)) for p in picked):
            fail(key_of["answer"], f"{get['answer']!r} names an option beyond the {len(choices)} given")
        else:
            answer = picked

    rec: dict[str, Any] = {"id": str(rid), "benchmark": BENCHMARK, "question": get["question"],
                           "images": images, "choices": choices, "answer": answer or [],
                           "answer_type": answer_type or ""}

    if get.get("difficulty") is not None:
        tier = get["difficulty"]
        if not isinstance(tier, str):
            fail(key_of["difficulty"], f"expected a string, got {type(tier).__name__}")
        else:
            rec["difficulty"] = next((t for t in TIERS if t.lower() == tier.strip().lower()), tier)
    for field in ("skills", "question_type"):
        if get.get(field) is not None:
            names = _as_list(get[field])
            if names is None:
                fail(key_of[field], "expected a list of strings or a string")
            else:
                rec[field] = [_CANONICAL.get(squash(n), n) for n in names]

    if get.get("captions") is not None:
        caps = get["captions"]
        caps = [caps] if isinstance(caps, str) else caps
        if not isinstance(caps, list) or any(c is not None and not isinstance(c, str) for c in caps):
            fail(key_of["captions"], "expected a string or a list of strings")
        elif ok and len(caps) != len(images):
            fail(key_of["captions"], f"{len(caps)} caption(s) for {len(images)} image(s)")
        else:
            rec["captions"] = caps
    for field in ("solution", "split"):
        if get.get(field) is not None:
            if isinstance(get[field], str):
                rec[field] = get[field]
            else:
                fail(key_of[field], f"expected a string, got {type(get[field]).__name__}")
    if extra:
        rec["extra"] = extra
    return rec if ok else None
