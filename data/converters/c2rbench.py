"""C²RBench -> unified records.

The official release
--------------------
A JSON array (or JSONL) of tasks in the schema of the paper's Appendix A.2::

    {"task_id": "07100",                 category code + serial number
     "Question": "2019年诺贝尔物理学奖…",  the problem, in Chinese
     "Label": "General Knowledge",       one of the eight subsets
     "Level": "2",                       1–3 (Level 1: 3–6 steps, 2: 7–11, 3: ≥12), int or string
     "Final answer": "84",
     "File_name": "",                    attachment(s): images, PDF, XLSX/CSV; "" when none
     "Annotator Metadata": {"Steps": "1.…\\n2.…", "Number of steps": "8"}}

The paper's own example (Fig. 19) puts ``Steps`` and ``Number of steps`` at the top level, and
Fig. 18 spells ``Task_id``: keys are matched ignoring case, spaces and underscores, and both places
of the steps are read. Attachments are looked up relative to the data file, then under a ``files/``
folder next to it. `src` is the data file, or a folder whose top-level ``*.json``/``*.jsonl`` files
are all read (attachments may themselves be JSON, so sub-folders are not searched for those), with
every parquet or Arrow file below it: the same fields as table columns, as a Hub copy holds them. There
an image may be embedded as a ``datasets`` Image struct ``{bytes, path}`` (or bytes, a data URL), one or
a list, in ``File_name`` itself or in an ``image``/``images`` column; it is written to the media folder
once per picture and counts as an image attachment.

Mapping
-------
``id`` = task_id, ``question``, ``category`` = Label (spelled as the paper's eight subsets: Math,
Multimodal, Logical, General Knowledge, Graph Analysis, Reading, Science, File Processing; the
appendix's short forms "File" / "Reading Comprehension" are mapped to them), ``level`` (int),
``answer`` = [Final answer], ``steps`` (verbatim), ``num_steps`` (int), image attachments ->
``images`` (shown before the question), every attachment -> ``files``. ``answer_type``: ``mcq`` when
the answer is a letter A–D (or several) and the question lists those options (``choices`` stays
empty, ``has_inline_choices`` is set), ``numeric`` for a plain number, else ``text``. Every other
official field, and the rest of ``Annotator Metadata``, is kept in ``extra``.

Malformed tasks raise DataError naming the file, line and field; nothing is skipped.
"""
from __future__ import annotations

import json
import logging
import re
from pathlib import Path
from typing import Any, Iterator

from data.converters.fields import Item, with_extra
from data.converters.reader import TABLE_SUFFIXES, ImageError, Images, data_files, embeds, is_empty, jsonable, read_rows
from data.converters.release import Release
from data.jsonl import DataError, problem
from data.media import Media

log = logging.getLogger(__name__)

BENCHMARK = "c2rbench"

SUBSETS = ("Math", "Multimodal", "Logical", "General Knowledge", "Graph Analysis", "Reading", "Science",
           "File Processing")
# Appendix A.2.1 and A.4 use these shorter or longer names for two subsets.
_SUBSET_ALIASES = {"file": "File Processing", "reading comprehension": "Reading"}

IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".gif", ".bmp", ".webp", ".tif", ".tiff"}

_NUMBER = re.compile(r"^[+-]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?$|^[+-]?\.\d+$")
# "C", "(C)", "C.", "AC", "A,C", "A、C": letters A–D only.
_LETTERS = re.compile(r"^[（(]?[A-D][)）.．]?(?:\s*[,，、;；]?\s*[（(]?[A-D][)）.．]?)*$")
# Option markers in a question: "(A)" / "（A）" anywhere, or "A." "A、" "A：" "A)" at a line start or
# after a space or Chinese punctuation (not inside a word or "点A、B" in a geometry statement).
_OPT_PAREN = re.compile(r"[（(]\s*([A-D])\s*[)）]")
_OPT_MARK = re.compile(r"(?:^|(?<=[\s：:，,。；;？?！!]))([A-D])\s*[.．、:：)）]", re.M)


def _norm(key: str) -> str:
    return re.sub(r"[\s_\-]+", "", key).lower()


# ---------------------------------------------------------------- reading the release files

def _data_files(src: Path) -> list[Path]:
    if src.is_file():
        return [src]
    files = sorted(p for p in src.iterdir() if p.is_file() and p.suffix.lower() in (".json", ".jsonl"))
    files += data_files(src, TABLE_SUFFIXES)
    if not files:
        raise DataError([problem(src, None, "--src", "no .json, .jsonl, parquet or Arrow file in this folder")])
    return files


def _tasks(path: Path) -> Iterator[Item]:
    """Each task of a data file; its problems name the file, the line (or row) and the task id."""
    for row in read_rows(path):
        if not isinstance(row.data, dict):
            raise DataError([problem(path, row.pos, "-", f"expected a JSON object, got {type(row.data).__name__}")])
        task = Item(row.data, row.where, row.line, norm=_norm)
        task.label = f"task {row.data.get(task.key('task_id') or '', '?')}"
        yield task


# ---------------------------------------------------------------- field conversions

def _text(task: Item, name: str, required: bool = True) -> tuple[str | None, str | None]:
    key, value = task.get(name)
    if key is None or value is None or (isinstance(value, str) and not value.strip()):
        if required:
            raise task.error(key or name, "missing or empty")
        return key, None
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise task.error(key, f"expected text, got {type(value).__name__}")
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return key, str(value)


def _int(task: Item, key: str, value: Any, low: int | None = None, high: int | None = None) -> int:
    """An integer given as a number or a numeric string ("2", " 8 ")."""
    if isinstance(value, bool):
        number = None
    elif isinstance(value, int):
        number = value
    elif isinstance(value, float) and value.is_integer():
        number = int(value)
    elif isinstance(value, str) and re.fullmatch(r"\s*\d+\s*", value):
        number = int(value)
    else:
        number = None
    if number is None:
        raise task.error(key, f"expected an integer, got {value!r}")
    if (low is not None and number < low) or (high is not None and number > high):
        raise task.error(key, f"{number} is outside {low}–{high}")
    return number


def canonical_label(label: str) -> str | None:
    """The paper's name of a subset, or None when `label` names none of the eight."""
    low = re.sub(r"\s+", " ", label.strip()).lower()
    for name in SUBSETS:
        if low == name.lower():
            return name
    return _SUBSET_ALIASES.get(low)


def listed_options(question: str) -> set[str]:
    """Letters A–D printed as options in the question."""
    return {m.group(1) for m in _OPT_PAREN.finditer(question)} | {m.group(1) for m in _OPT_MARK.finditer(question)}


def answer_type(answer: str, question: str) -> tuple[list[str], str]:
    """(answer list, answer_type) for a C²RBench final answer."""
    text = answer.strip()
    if _LETTERS.match(text):
        letters = re.findall(r"[A-D]", text)
        listed = listed_options(question)
        if {"A", "B"} <= listed and set(letters) <= listed and len(set(letters)) == len(letters):
            return letters, "mcq"
    if _NUMBER.match(text):
        return [text], "numeric"
    return [answer], "text"


def _category(task: Item, task_id: str) -> tuple[str, str | None, str]:
    """(the paper's subset, the Label key, the Label as given)."""
    key, label = _text(task, "Label")
    category = canonical_label(label)
    if category is None:
        # Kept as given (the tables then show it as its own subset) rather than failing the release.
        log.warning("%s:%d: task %s: Label %r is none of the paper's subsets (%s)",
                    task.path, task.line, task_id, label, ", ".join(SUBSETS))
        category = label.strip()
    return category, key, label


def _level(task: Item) -> int:
    key, value = task.get("Level")
    if key is None:
        raise task.error("Level", "missing")
    return _int(task, key, value, 1, 3)


def _attachment_names(task: Item, key: str, value: Any, folder: Path) -> list[str]:
    if isinstance(value, list):
        names = value
    elif isinstance(value, str):
        one = value.strip()
        # Several names may share the field; split only when the whole string is not itself a file.
        if _find(folder, one) is None and re.search(r"[;,\n]", one):
            names = re.split(r"\s*[;,\n]\s*", one)
        else:
            names = [one]
    else:
        raise task.error(key, f"expected a file name or a list of them, got {type(value).__name__}")
    if not all(isinstance(n, str) for n in names):
        raise task.error(key, "expected file names (text)")
    return [n.strip() for n in names if n.strip()]


def _find(folder: Path, name: str) -> Path | None:
    """The attachment relative to the data file, else under ``files/`` next to it."""
    for candidate in (folder / name, folder / "files" / name):
        if candidate.is_file():
            return candidate
    return None


def _embedded(task: Item, folder: Path, images: Images, rec: dict[str, Any]) -> None:
    """Images embedded in ``File_name`` or an ``image``/``images`` column -> ``images`` and ``files``."""
    for name in ("File_name", "image", "images"):
        key, value = task.get(name)
        if key is None or is_empty(value) or (name == "File_name" and not embeds(value)):
            continue
        try:
            refs = images.refs(value, lambda rel: _find(folder, rel))
        except ImageError as e:
            raise task.error(key, str(e)) from None
        rec["images"] += refs
        rec.setdefault("files", []).extend(refs)


def _attachments(task: Item, folder: Path, media: Media, rec: dict[str, Any]) -> None:
    """Every attachment -> ``files``; image attachments -> ``images`` as well."""
    key, value = task.get("File_name")
    if key is None or value in (None, "") or embeds(value):
        return
    files: list[str] = []
    for name in _attachment_names(task, key, value, folder):
        found = _find(folder, name)
        if found is None:
            tried = f"{folder / name}, {folder / 'files' / name}"
            raise task.error(key, f"attachment {name!r} not found (tried {tried})")
        ref = media.ref(found)
        files.append(ref)
        if found.suffix.lower() in IMAGE_SUFFIXES:
            rec["images"].append(ref)
    if files:
        rec["files"] = files


def _caption(task: Item, rec: dict[str, Any]) -> None:
    # Optional, outside the official schema: a description of the image attachment, for the
    # caption-instead-of-image settings.
    key, caption = task.get("caption")
    if caption in (None, ""):
        return
    if len(rec["images"]) != 1 or not isinstance(caption, str):
        raise task.error(key, "a caption needs exactly one image attachment and must be text")
    rec["captions"] = [caption]


def _metadata(task: Item) -> tuple[str | None, dict[str, Any]]:
    """(key, object) of ``Annotator Metadata``, which may be given as JSON text; {} when absent."""
    key, meta = task.get("Annotator Metadata")
    if isinstance(meta, str) and meta.strip():
        try:
            meta = json.loads(meta)
        except json.JSONDecodeError:
            raise task.error(key, "expected an object (Steps, Number of steps)") from None
    if meta in (None, ""):
        meta = {}
    if not isinstance(meta, dict):
        raise task.error(key, f"expected an object, got {type(meta).__name__}")
    return key, meta


def _steps(task: Item, rec: dict[str, Any]) -> dict[str, Any]:
    """Fill ``steps`` and ``num_steps``; return the rest of ``Annotator Metadata``."""
    mkey, rest = _metadata(task)
    rest = dict(rest)
    inner = {_norm(k): k for k in rest}
    steps_key = num_key = steps = num = None
    if "steps" in inner:
        steps_key, steps = f"{mkey}.{inner['steps']}", rest.pop(inner["steps"])
    if "numberofsteps" in inner:
        num_key, num = f"{mkey}.{inner['numberofsteps']}", rest.pop(inner["numberofsteps"])
    # The paper's example has them at the top level; the nested value wins when both are present.
    if steps is None:
        steps_key, steps = task.get("Steps")
    if num is None:
        num_key, num = task.get("Number of steps")
    if steps not in (None, ""):
        if not all(isinstance(s, str) for s in (steps if isinstance(steps, list) else [steps])):
            raise task.error(steps_key, "expected text or a list of texts")
        rec["steps"] = steps
    if num not in (None, ""):
        rec["num_steps"] = _int(task, num_key, num, 0)
    return rest


def convert_task(task: Item, folder: Path, images: Images) -> dict[str, Any]:
    _, task_id = _text(task, "task_id")
    _, question = _text(task, "Question")
    category, label_key, label = _category(task, task_id)
    level = _level(task)
    _, final = _text(task, "Final answer")
    answer, atype = answer_type(final, question)

    rec: dict[str, Any] = {"id": task_id, "benchmark": BENCHMARK, "question": question,
                           "images": [], "choices": [], "answer": answer, "answer_type": atype}
    if atype == "mcq":
        rec["has_inline_choices"] = True
    rec["category"] = category
    rec["level"] = level
    _attachments(task, folder, images.media, rec)
    _embedded(task, folder, images, rec)
    _caption(task, rec)
    meta_rest = _steps(task, rec)

    extra = task.extra()
    if meta_rest:
        extra[task.key("Annotator Metadata")] = meta_rest
    if category != label:
        extra[label_key] = label  # the spelling of the release, when it differs from the paper's
    return with_extra(rec, jsonable(extra))


def convert(src: Path, media: Media) -> list[dict[str, Any]]:
    """Read the C²RBench data file(s) at `src` and return unified records, in file order."""
    release = Release()
    images = Images(media)
    for path in _data_files(Path(src)):
        before = len(release.records)
        for task in _tasks(path):
            release.add(task, f"at {task.path}" + (f":{task.line}" if task.line else ""), convert_task,
                        path.parent, images, id_field="task_id")
        log.info("%s: %d tasks", path, len(release.records) - before)
    return release.finish()
