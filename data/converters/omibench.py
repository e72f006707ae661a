"""OMIBench (seed 001) official release -> unified records.

Release layouts (``--src`` is the folder, or a data file itself)::

    OMIBench/
      test.jsonl      one problem per line
      images/         every file named in an ``image_list``

the same under ``dataset/`` (the root of the GitHub repository LightChen233/OMIBench), or the Hub's
parquet / Arrow files (anywhere below ``--src``) whose columns are the fields below, with the pictures
in an ``images`` column: a list of ``datasets`` Image structs, in ``image_list`` order.

Fields of a ``test.jsonl`` line:

- ``id``             unique id (str or int)
- ``subject``        Biology / Chemistry / Mathematics / Physics
- ``answer_type``    ``mcq`` or ``open``
- ``question``       text; ``[IMAGEn]`` is the global 0-based index into ``image_list``. Tags may be out
                     of order and are kept verbatim (they are substituted by index at render time);
                     some MCQ questions have no tag at all (their images are the options).
- ``image_list``     file names under ``images/`` (2-11 of them); a name may repeat within a record and
                     every occurrence is kept, because the tags count positions, not files.
- ``images``         (Hub) the pictures themselves, one per ``image_list`` entry; when present they are
                     what the record shows (written to the media folder) and ``image_list`` is optional.
- ``choice_list``    absent, empty, or 2-7 unlettered options; an option may itself be ``[IMAGEn]``.
- ``answer``         list of strings. MCQ golds come as ``["CD"]`` or ``["C", "D"]``; both become the
                     sorted single letters ``["C", "D"]``.
- ``has_inline_choices``  open records whose options are printed in the question and whose golds are
                     letters; the flag is kept (they are scored as MCQ) and the letters normalised too.
- ``solution``       reference rationale -> ``solution``.
- ``captions``       optional, one per ``image_list`` entry -> ``captions``.
- anything else (``known_issue``, ``img_category``, ...) is kept verbatim under ``extra``.

Image files are referenced in place (``media.ref``), never copied: the real release has 1,322 records
pointing 3,845 times at 2,837 files. Embedded pictures are written once per content.
"""
from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import Any

from data.converters import values
from data.converters.fields import Item, with_extra
from data.converters.reader import TABLE_SUFFIXES, ImageError, Images, data_files, embeds, jsonable, read_rows
from data.converters.release import Release
from data.converters.values import beyond, is_caption_list
from data.jsonl import DataError, problem
from data.media import Media
from data.records import image_tags

log = logging.getLogger(__name__)

BENCHMARK = "omibench"
ANSWER_TYPES = {"mcq": "mcq", "open": "open"}

REQUIRED = ("id", "question", "image_list", "answer", "answer_type")  # image_list: unless the images are embedded
# Fields with a stable unified name; every other official field goes to `extra` untouched.
KNOWN = {"id", "subject", "answer_type", "question", "image_list", "choice_list", "answer",
         "has_inline_choices", "solution", "captions", "images"}

# "CD", "C,D", "C D", "(C)", and the Chinese separators "C、D", "C，D".
_SEPARATORS = re.compile(r"[\s,;/、，()\[\]]+")


def split_letters(golds: list[str]) -> list[str] | None:
    """Option letters from MCQ golds, sorted and unique (["D", "C"] and ["CD"] both give ["C", "D"]).

    None when some gold is not made of option letters (words such as "square" or "Boron" are not).
    """
    return values.split_letters(golds, _SEPARATORS)


class _Images:
    """Record paths of the files named in ``image_list``, looked up once per name (names repeat a lot),
    and of the pictures a Hub row embeds."""

    def __init__(self, media: Media):
        self.embedded = Images(media)
        self.found: dict[Path, str | None] = {}  # file -> record path, None when missing

    def ref(self, folder: Path, name: str) -> str | None:
        # Names are relative to images/; a name that already carries the folder is accepted too.
        candidates = (folder / "images" / name, folder / name)
        if candidates[0] not in self.found:
            target = next((c for c in candidates if c.is_file()), None)
            self.found[candidates[0]] = self.embedded.media.ref(target) if target is not None else None
        return self.found[candidates[0]]


def _source_files(src: Path) -> list[Path]:
    """The data file(s): `src` itself, its test.jsonl, the repository's dataset/test.jsonl, or the Hub's
    parquet/Arrow files below it."""
    if not src.is_dir():
        return [src]
    for path in (src / "test.jsonl", src / "dataset" / "test.jsonl"):
        if path.is_file():
            return [path]
    tables = data_files(src, TABLE_SUFFIXES)
    if not tables:
        raise DataError([problem(src, None, "--src", "no test.jsonl, dataset/test.jsonl or parquet/Arrow "
                                                     "files in this folder")])
    return tables


def convert(src: Path, media: Media) -> list[dict[str, Any]]:
    """Read the release at `src` (a folder, test.jsonl or a parquet/Arrow file) and return unified records.

    Raises DataError listing every problem (file:line: field: message); nothing is skipped.
    """
    images = _Images(media)
    release = Release()
    for path in _source_files(src):
        # Unparseable lines are collected with the rest, so one run reports every problem of the file.
        for row in read_rows(path, errors=release.problems):
            item = Item(row.data, row.where, row.line, known=KNOWN)
            release.add(item, f"at {row.where}:{row.pos}" if row.line is None else f"on line {row.line}",
                        _convert_record, path.parent, images)
    records = release.finish(source=src)
    n_refs = sum(len(r["images"]) for r in records)
    n_files = sum(v is not None for v in images.found.values()) + len(images.embedded.saved)
    log.info("omibench: %d records, %d image references to %d files", len(records), n_refs, n_files)
    return records


def _convert_record(item: Item, folder: Path, images: _Images) -> dict[str, Any] | None:
    """One release line or row -> unified record, or None when it has problems (reported on `item`)."""
    embedded = embeds(item.value("images"))
    for field in item.missing(*(f for f in REQUIRED if not (embedded and f == "image_list"))):
        item.fail(field, "missing")
    if not item.ok:
        return None

    rid = item.identifier("id")
    question = item.text("question")
    answer_type = _answer_type(item)
    listed = item.value("image_list")
    names = _string_list(item, "image_list", listed) if listed is not None or not embedded else None
    if embedded:
        refs = _embedded_refs(item, names, folder, images.embedded)
        names = names if names is not None else [""] * len(refs)  # one position per picture
    else:
        refs = _image_refs(item, names or [], folder, images)
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
    return with_extra(rec, jsonable(item.extra()))


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


def _image_refs(item: Item, names: list[str], folder: Path, images: _Images) -> list[str]:
    """One record path per ``image_list`` entry, repeats kept: tags count positions, not files."""
    refs = []
    for i, name in enumerate(names):
        target = images.ref(folder, name)
        if target is None:
            item.fail(f"image_list[{i}]", f"image not found: {folder / 'images' / name}")
        refs.append(target or "")
    return refs


def _embedded_refs(item: Item, names: list[str] | None, folder: Path, images: Images) -> list[str]:
    """The pictures of a Hub row, written to the media folder (a struct holding only a path is looked up
    like an ``image_list`` name): one per ``image_list`` entry, when given."""
    value = item.value("images")
    listed = value if isinstance(value, list) else [value]

    def find(name: str) -> Path | None:
        return next((c for c in (folder / "images" / Path(name).name, folder / name) if c.is_file()), None)

    try:
        refs = [images.refs(v, find)[0] for v in listed]
    except (ImageError, IndexError) as e:
        item.fail("images", str(e) if isinstance(e, ImageError) else "an empty image")
        return []
    if names is not None and len(refs) != len(names):
        item.fail("images", f"{len(refs)} image(s) for {len(names)} name(s) in image_list")
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
