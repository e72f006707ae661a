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
from typing import Any

from data.converters import values
from data.converters.fields import Item, with_extra
from data.converters.release import Release
from data.converters.values import beyond, is_caption_list
from data.jsonl import DataError, iter_jsonl, problem
from data.media import Media
from data.records import image_tags

log = logging.getLogger(__name__)

BENCHMARK = "omibench"
ANSWER_TYPES = {"mcq": "mcq", "open": "open"}

REQUIRED = ("id", "question", "image_list", "answer", "answer_type")
# Fields with a stable unified name; every other official field goes to `extra` untouched.
KNOWN = {"id", "subject", "answer_type", "question", "image_list", "choice_list", "answer",
         "has_inline_choices", "solution", "captions"}

# "CD", "C,D", "C D", "(C)", and the Chinese separators "C、D", "C，D".
_SEPARATORS = re.compile(r"[\s,;/、，()\[\]]+")


def split_letters(golds: list[str]) -> list[str] | None:
    """Option letters from MCQ golds, sorted and unique (["D", "C"] and ["CD"] both give ["C", "D"]).

    None when some gold is not made of option letters (words such as "square" or "Boron" are not).
    """
    return values.split_letters(golds, _SEPARATORS)


class _Images:
    """Record paths of the files named in ``image_list``, looked up once per name (names repeat a lot)."""

    def __init__(self, folder: Path, media: Media):
        self.folder, self.media = folder, media
        self.found: dict[str, str | None] = {}  # name -> record path, None when missing

    def ref(self, name: str) -> str | None:
        if name not in self.found:
            # Names are relative to images/; a name that already carries the folder is accepted too.
            candidates = (self.folder / "images" / name, self.folder / name)
            target = next((c for c in candidates if c.is_file()), None)
            self.found[name] = self.media.ref(target) if target is not None else None
        return self.found[name]


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
    images = _Images(path.parent, media)
    release = Release()
    # Unparseable lines are collected with the rest, so one run reports every problem of the file.
    for lineno, raw in iter_jsonl(path, errors=release.problems):
        release.add(Item(raw, path, lineno, known=KNOWN), f"on line {lineno}", _convert_record, images)
    records = release.finish(source=path)
    n_refs = sum(len(r["images"]) for r in records)
    log.info("omibench: %d records, %d image references to %d files", len(records), n_refs, len(images.found))
    return records


def _convert_record(item: Item, images: _Images) -> dict[str, Any] | None:
    """One release line -> unified record, or None when it has problems (reported on `item`)."""
    for field in item.missing(*REQUIRED):
        item.fail(field, "missing")
    if not item.ok:
        return None

    rid = item.identifier("id")
    question = item.string("question")
    answer_type = _answer_type(item)
    names = _string_list(item, "image_list", item.value("image_list"))
    refs = _image_refs(item, names or [], images)
    choices = item.value("choice_list")
    choices = [] if choices is None else _string_list(item, "choice_list", choices)
    answer = _answer(item, answer_type, choices)
    if names is not None and question is not None:
        _check_tags(item, question, choices or [], len(names))

    rec: dict[str, Any] = {"id": rid, "benchmark": BENCHMARK}
    subject = item.string("subject")
    if subject is not None:
        rec["subject"] = subject
    rec.update(question=question, images=refs, choices=choices or [], answer=answer or [],
               answer_type=answer_type or "")
    if item.value("has_inline_choices") is not None:
        rec["has_inline_choices"] = item.value("has_inline_choices")
    captions = _captions(item, names)
    if captions is not None:
        rec["captions"] = captions
    solution = item.string("solution")
    if solution is not None:
        rec["solution"] = solution
    return with_extra(rec, item.extra())


def _answer_type(item: Item) -> str | None:
    kind = item.value("answer_type")
    answer_type = ANSWER_TYPES.get(kind.strip().lower()) if isinstance(kind, str) else None
    if answer_type is None:
        item.fail("answer_type", f"expected 'mcq' or 'open', got {kind!r}")
    return answer_type


def _string_list(item: Item, field: str, value: Any) -> list[str] | None:
    """A list of strings (numbers are turned into strings); None after reporting a problem."""
    if not isinstance(value, list):
        item.fail(field, f"expected a list, got {type(value).__name__}")
        return None
    out = []
    for i, entry in enumerate(value):
        if isinstance(entry, str):
            out.append(entry)
        elif isinstance(entry, (int, float)) and not isinstance(entry, bool):
            out.append(str(entry))
        else:
            item.fail(f"{field}[{i}]", f"expected a string, got {type(entry).__name__}")
            return None
    return out


def _image_refs(item: Item, names: list[str], images: _Images) -> list[str]:
    """One record path per ``image_list`` entry, repeats kept: tags count positions, not files."""
    refs = []
    for i, name in enumerate(names):
        target = images.ref(name)
        if target is None:
            item.fail(f"image_list[{i}]", f"image not found: {images.folder / 'images' / name}")
        refs.append(target or "")
    return refs


def _answer(item: Item, answer_type: str | None, choices: list[str] | None) -> list[str] | None:
    """Gold strings; option letters for MCQ and for open records whose options are in the question."""
    answer = item.value("answer")
    if isinstance(answer, str):
        answer = [answer]  # the release always uses a list; a bare string is unambiguous
    answer = _string_list(item, "answer", answer)
    if answer is not None and not any(a.strip() for a in answer):
        item.fail("answer", "no gold answer")
        answer = None
    inline = item.value("has_inline_choices")
    if inline is not None and not isinstance(inline, bool):
        item.fail("has_inline_choices", f"expected true/false, got {inline!r}")
    if answer is None or answer_type is None or not (answer_type == "mcq" or inline):
        return answer
    picked = split_letters(answer)
    if picked is not None:
        if choices and beyond(picked, len(choices)):
            item.fail("answer", f"{answer!r} names an option beyond the {len(choices)} in choice_list")
        return picked
    if answer_type == "mcq":
        item.fail("answer", f"MCQ gold {answer!r} is not option letters")
    return answer


def _check_tags(item: Item, question: str, choices: list[str], n_images: int) -> None:
    """Tags must point inside image_list; checked here so the problem names the release line."""
    texts = [("question", question)] + [(f"choice_list[{i}]", c) for i, c in enumerate(choices)]
    for field, text in texts:
        for k in image_tags(text):
            if k >= n_images:
                item.fail(field, f"[IMAGE{k}] but image_list has {n_images} image(s)")


def _captions(item: Item, names: list[str] | None) -> list[str | None] | None:
    """One caption (or null) per ``image_list`` entry; None when absent or wrong."""
    captions = item.value("captions")
    if captions is None:
        return None
    if not is_caption_list(captions):
        item.fail("captions", "expected a list of strings (or nulls)")
    elif names is not None and len(captions) != len(names):
        item.fail("captions", f"{len(captions)} captions for {len(names)} images in image_list")
    else:
        return captions
    return None
