"""OMIBench (seed 001) official release -> unified records.

Release layout (``--src`` is the folder, or the ``test.jsonl`` file itself)::

    OMIBench/
      test.jsonl      one problem per line
      images/         every file named in an ``image_list``

Fields of a ``test.jsonl`` line:

- ``id``             unique id (str or int)
- ``subject``        Biology / Chemistry / Mathematics / Physics
- ``answer_type``    ``mcq`` or ``open``
- ``question``       text; ``[IMAGEn]`` is the global 0-based index into ``image_list``. Tags may be out
                     of order and are kept verbatim (they are substituted by index at render time);
                     some MCQ questions have no tag at all (their images are the options).
- ``image_list``     file names under ``images/`` (2-11 of them); a name may repeat within a record and
                     every occurrence is kept, because the tags count positions, not files.
- ``choice_list``    absent, empty, or 2-7 unlettered options; an option may itself be ``[IMAGEn]``.
- ``answer``         list of strings. MCQ golds come as ``["CD"]`` or ``["C", "D"]``; both become the
                     sorted single letters ``["C", "D"]``.
- ``has_inline_choices``  open records whose options are printed in the question and whose golds are
                     letters; the flag is kept (they are scored as MCQ) and the letters normalised too.
- ``solution``       reference rationale -> ``solution``.
- ``captions``       optional, one per ``image_list`` entry -> ``captions``.
- anything else (``known_issue``, ``img_category``, ...) is kept verbatim under ``extra``.

Images are referenced in place (``media.ref``), never copied: the real release has 1,322 records
pointing 3,845 times at 2,837 files.
"""
from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import Any, Callable

from data.jsonl import DataError, iter_jsonl, problem
from data.media import Media
from data.records import image_tags, letters

log = logging.getLogger(__name__)

BENCHMARK = "omibench"
ANSWER_TYPES = {"mcq": "mcq", "open": "open"}

# Fields with a stable unified name; every other official field goes to `extra` untouched.
KNOWN = {"id", "subject", "answer_type", "question", "image_list", "choice_list", "answer",
         "has_inline_choices", "solution", "captions"}

# "CD", "C,D", "C D", "(C)" -> letters. A token is one letter (any case) or a run of distinct
# capitals ("CD"); words such as "square" or "Boron" are not option letters.
_SEPARATORS = re.compile(r"[\s,;/、，()\[\]]+")


def is_letter_token(token: str) -> bool:
    if not (token.isascii() and token.isalpha()):
        return False
    return len(token) == 1 or (token.isupper() and len(set(token)) == len(token))


def split_letters(values: list[str]) -> list[str] | None:
    """Option letters from MCQ golds, sorted and unique (["D", "C"] and ["CD"] both give ["C", "D"]).

    None when some gold is not made of option letters.
    """
    found: set[str] = set()
    for value in values:
        tokens = [t for t in _SEPARATORS.split(value.strip()) if t]
        if not tokens:
            return None
        for token in tokens:
            if not is_letter_token(token):
                return None
            found.update(token.upper())
    return sorted(found) or None


def _source_file(src: Path) -> Path:
    if src.is_dir():
        path = src / "test.jsonl"
        if not path.is_file():
            raise DataError([problem(src, None, "--src", "no test.jsonl in this folder")])
        return path
    return src


def convert(src: Path, media: Media) -> list[dict[str, Any]]:
    """Read the release at `src` (folder or test.jsonl) and return unified records.

    Raises DataError listing every problem (file:line: field: message); nothing is skipped.
    """
    path = _source_file(src)
    image_dir = path.parent / "images"
    problems: list[str] = []
    records: list[dict[str, Any]] = []
    first_line: dict[str, int] = {}
    refs: dict[str, str | None] = {}  # image name -> record path (None: missing); names repeat a lot

    def ref(name: str) -> str | None:
        if name not in refs:
            # Names are relative to images/; a name that already carries the folder is accepted too.
            for candidate in (image_dir / name, path.parent / name):
                if candidate.is_file():
                    refs[name] = media.ref(candidate)
                    break
            else:
                refs[name] = None
        return refs[name]

    # Unparseable lines are collected with the rest, so one run reports every problem of the file.
    for lineno, raw in iter_jsonl(path, errors=problems):
        def bad(field: str, message: str) -> None:
            problems.append(problem(path, lineno, field, message))

        rec = _convert_record(raw, bad, ref, image_dir)
        if rec is None:
            continue  # its problems are recorded; the whole conversion fails below
        if rec["id"] in first_line:
            bad("id", f"duplicate id {rec['id']!r} (first on line {first_line[rec['id']]})")
        first_line.setdefault(rec["id"], lineno)
        records.append(rec)

    if problems:
        raise DataError(problems)
    if not records:
        raise DataError([problem(path, None, "-", "no records")])
    n_refs = sum(len(r["images"]) for r in records)
    log.info("omibench: %d records, %d image references to %d files", len(records), n_refs, len(refs))
    return records


Report = Callable[[str, str], None]  # (field, message) -> records a problem for the current line


def _string_list(value: Any, field: str, bad: Report) -> list[str] | None:
    """A list of strings (numbers are turned into strings); None after reporting a problem."""
    if not isinstance(value, list):
        bad(field, f"expected a list, got {type(value).__name__}")
        return None
    out = []
    for i, item in enumerate(value):
        if isinstance(item, str):
            out.append(item)
        elif isinstance(item, (int, float)) and not isinstance(item, bool):
            out.append(str(item))
        else:
            bad(f"{field}[{i}]", f"expected a string, got {type(item).__name__}")
            return None
    return out


def _convert_record(raw: dict[str, Any], bad: Report, ref: Callable[[str], str | None],
                    image_dir: Path) -> dict[str, Any] | None:
    """One release line -> unified record, or None when it has problems (reported through `bad`)."""
    ok = True  # fail() clears it; the problems are collected and the whole conversion fails

    def fail(field: str, message: str) -> None:
        nonlocal ok
        ok = False
        bad(field, message)

    for field in ("id", "question", "image_list", "answer", "answer_type"):
        if raw.get(field) is None:
            fail(field, "missing")
    if not ok:
        return None

    rid = raw["id"]
    if isinstance(rid, bool) or not isinstance(rid, (str, int)) or not str(rid).strip():
        fail("id", f"expected a non-empty string or integer, got {rid!r}")
    question = raw["question"]
    if not isinstance(question, str):
        fail("question", f"expected a string, got {type(question).__name__}")
    kind = raw["answer_type"]
    answer_type = ANSWER_TYPES.get(kind.strip().lower()) if isinstance(kind, str) else None
    if answer_type is None:
        fail("answer_type", f"expected 'mcq' or 'open', got {kind!r}")

    names = _string_list(raw["image_list"], "image_list", fail)
    images: list[str] = []
    for i, name in enumerate(names or []):
        target = ref(name)
        if target is None:
            fail(f"image_list[{i}]", f"image not found: {image_dir / name}")
        images.append(target or "")

    choices = raw.get("choice_list")
    choices = [] if choices is None else _string_list(choices, "choice_list", fail)

    answer = raw["answer"]
    if isinstance(answer, str):
        answer = [answer]  # the release always uses a list; a bare string is unambiguous
    answer = _string_list(answer, "answer", fail)
    if answer is not None and not any(a.strip() for a in answer):
        fail("answer", "no gold answer")
        answer = None

    inline = raw.get("has_inline_choices")
    if inline is not None and not isinstance(inline, bool):
        fail("has_inline_choices", f"expected true/false, got {inline!r}")

    if answer is not None and answer_type is not None:
        if answer_type == "mcq" or inline:
            picked = split_letters(answer)
            if picked is not None:
                if choices and any(x not in letters(len(choices)) for x in picked):
                    fail("answer", f"{answer!r} names an option beyond the {len(choices)} in choice_list")
                answer = picked
            elif answer_type == "mcq":
                fail("answer", f"MCQ gold {answer!r} is not option letters")

    # Tags must point inside image_list; check here so the error names the release line.
    if names is not None and isinstance(question, str):
        texts = [("question", question)] + [(f"choice_list[{i}]", c) for i, c in enumerate(choices or [])]
        for field, text in texts:
            for k in image_tags(text):
                if k >= len(names):
                    fail(field, f"[IMAGE{k}] but image_list has {len(names)} image(s)")

    rec: dict[str, Any] = {"id": str(rid), "benchmark": BENCHMARK}
    subject = raw.get("subject")
    if subject is not None:
        if isinstance(subject, str):
            rec["subject"] = subject
        else:
            fail("subject", f"expected a string, got {type(subject).__name__}")
    rec.update(question=question, images=images, choices=choices or [], answer=answer or [],
               answer_type=answer_type or "")
    if inline is not None:
        rec["has_inline_choices"] = inline

    captions = raw.get("captions")
    if captions is not None:
        if not isinstance(captions, list) or any(c is not None and not isinstance(c, str) for c in captions):
            fail("captions", "expected a list of strings (or nulls)")
        elif names is not None and len(captions) != len(names):
            fail("captions", f"{len(captions)} captions for {len(names)} images in image_list")
        else:
            rec["captions"] = captions

    solution = raw.get("solution")
    if solution is not None:
        if isinstance(solution, str):
            rec["solution"] = solution
        else:
            fail("solution", f"expected a string, got {type(solution).__name__}")

    extra = {k: v for k, v in raw.items() if k not in KNOWN}
    if extra:
        rec["extra"] = extra
    return rec if ok else None
