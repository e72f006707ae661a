"""Think360° (seed 000) release -> unified records.

The paper publishes no file format ("Code will be available"), so this reads the obvious one:
``--src`` is a ``.json`` file, or a folder holding exactly one ``.json`` file next to its images. The
file is a JSON array of objects ``{id, question, answer, image_path, ...}``; image paths are relative
to the JSON file. The Hub's form (``Walnutes/Think360``) is read too: a folder with no ``.json`` file at
its top is searched for parquet, Arrow, JSONL and JSON files, every one read, whose rows have the same
fields; an image field may then hold ``datasets`` Image structs (``{bytes, path}``), bytes or data URLs,
one or a list, written to the media folder once per picture.

Accepted variants: ``id`` [pid, qid, question_id, uid] (string or integer),
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
from collections import Counter
from pathlib import Path
from typing import Any

from data.converters.fields import Item, with_extra
from data.converters.reader import HF_METADATA, Images, data_files, item_images, jsonable, read_rows
from data.converters.release import Release
from data.converters.values import beyond, norm_key, scalar_strings, spellings, split_letters, squash
from data.jsonl import DataError, problem
from data.media import Media
from data.benchmarks.think360 import QUESTION_TYPES, SKILLS, TIERS
from data.records import letters

log = logging.getLogger(__name__)

BENCHMARK = "think360"

# normalised key -> unified field
ALIASES = spellings({
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
})

REQUIRED = ("id", "question", "answer", "images")


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

_CANONICAL = {squash(n): n for n in SKILLS + QUESTION_TYPES}
_CANONICAL.update({"hypothesiseandtest": "Hypothesize-and-Test", "probability": "Probability & Statistics",
                   "probabilitystatistics": "Probability & Statistics"})


def _source_files(src: Path) -> list[Path]:
    """`src` itself; the one .json file at the top of the folder; else the data files below it (the Hub)."""
    if src.is_file():
        return [src]
    found = sorted(p for p in src.glob("*.json") if p.name not in HF_METADATA)
    if len(found) == 1:
        return found
    below = data_files(src, (".parquet", ".arrow", ".jsonl", ".json")) if not found else []
    if not below:
        what = "no .json file" if not found else f"{len(found)} .json files ({', '.join(p.name for p in found)})"
        raise DataError([problem(src, None, "--src", f"expected one .json file in the folder, found {what}"
                                 + (" (and no parquet, Arrow or JSONL file below it)" if not found else ""))])
    return below


def convert(src: Path, media: Media) -> list[dict[str, Any]]:
    """Read the release at `src` and return unified records; DataError lists every problem."""
    release = Release()
    images = Images(media)
    index = 0
    for path in _source_files(src):
        for row in read_rows(path, errors=release.problems):
            item = Item(row.data, row.where, row.line, norm=norm_key, aliases=ALIASES, field_prefix=f"[{index}].")
            release.add(item, f"at record {index}", _convert_record, path.parent, images)
            index += 1
    records = release.finish(source=src)
    unknown_tiers = Counter(r["difficulty"] for r in records if r.get("difficulty") not in (None, *TIERS))
    if unknown_tiers:
        log.warning("think360: difficulty values outside the paper's five tiers, kept verbatim: %s",
                    dict(unknown_tiers))
    log.info("think360: %d records from %s", len(records), src)
    return records


def _convert_record(item: Item, base: Path, images: Images) -> dict[str, Any] | None:
    """One array element -> unified record, or None when it has problems (reported on `item`)."""
    for first, key, field in item.conflicts:
        item.fail(key, f"both {first!r} and {key!r} given for {field}")
    for field in item.missing(*REQUIRED):
        item.fail(field, "missing" if field != "images" else "missing (image_path)")
    if not item.ok:
        return None

    rid = item.identifier("id")
    question = item.text("question")
    refs, _ = item_images(item, "images", images, base, lambda rel: base / rel if (base / rel).is_file() else None,
                          index_one=False)
    choices = item.options("choices")
    answer_type = _answer_type(item, choices)
    rec: dict[str, Any] = {"id": rid, "benchmark": BENCHMARK, "question": question,
                           "images": refs, "choices": choices,
                           "answer": _answer(item, answer_type, choices), "answer_type": answer_type or ""}
    _taxonomy(item, rec)
    captions = item.captions("captions", len(refs))
    if captions is not None:
        rec["captions"] = captions
    for field in ("solution", "split"):
        text = item.string(field)
        if text is not None:
            rec[field] = text
    return with_extra(rec, jsonable(item.extra()))


def _answer_type(item: Item, choices: list[str]) -> str | None:
    """The paper's answer kind, or MCQ when options are given and open otherwise; None if unknown."""
    key, kind = item.get("answer_type")
    if kind is None:
        return "mcq" if choices else "open"
    answer_type = ANSWER_KINDS.get(squash(kind)) if isinstance(kind, str) else None
    if answer_type is None:
        item.fail(key, f"unknown answer type {kind!r} (the paper's kinds: multiple-choice, "
                       "numerical, structural, formula, other)")
    return answer_type


def _answer(item: Item, answer_type: str | None, choices: list[str]) -> list[str]:
    """Gold strings; for MCQ, option letters (from letters, or from an option's text)."""
    key, value = item.get("answer")
    answer = scalar_strings(value)
    if answer is None or not any(a.strip() for a in answer):
        item.fail(key, f"expected a non-empty string, number or list, got {value!r}")
        return []
    if answer_type != "mcq":
        return answer
    picked = split_letters(answer)
    if picked is None and choices and all(a.strip() in choices for a in answer):
        picked = sorted(letters(len(choices))[choices.index(a.strip())] for a in answer)
    if picked is None:
        item.fail(key, f"multiple-choice gold {value!r} is neither option letters nor an option")
    elif choices and beyond(picked, len(choices)):
        item.fail(key, f"{value!r} names an option beyond the {len(choices)} given")
    else:
        return picked
    return answer


def _taxonomy(item: Item, rec: dict[str, Any]) -> None:
    """Difficulty tier, skills and question types, spelled as in the paper when recognised."""
    tier = item.string("difficulty")
    if tier is not None:
        rec["difficulty"] = next((t for t in TIERS if t.lower() == tier.strip().lower()), tier)
    for field in ("skills", "question_type"):
        key, value = item.get(field)
        if value is None:
            continue
        names = _as_list(value)
        if names is None:
            item.fail(key, "expected a list of strings or a string")
        else:
            rec[field] = [_CANONICAL.get(squash(n), n) for n in names]


def _as_list(value: Any) -> list[str] | None:
    """A list of strings from a list, or from one string split on , ; | ; None if neither."""
    if isinstance(value, str):
        return [p.strip() for p in re.split(r"[,;|]", value) if p.strip()]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return list(value)
    return None
