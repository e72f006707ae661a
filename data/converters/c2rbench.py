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
are all read (attachments may themselves be JSON, so sub-folders are not searched).

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

from data.jsonl import DataError, iter_json_array, iter_jsonl, problem
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


class _Task:
    """One official task and where it came from, for error messages."""

    def __init__(self, path: Path, line: int, data: dict[str, Any]):
        self.path, self.line, self.data = path, line, data
        self.keys = {_norm(k): k for k in data}
        self.used: set[str] = set()

    def get(self, name: str) -> tuple[str, Any] | tuple[None, None]:
        key = self.keys.get(_norm(name))
        if key is None:
            return None, None
        self.used.add(key)
        return key, self.data[key]

    def err(self, field: str, msg: str) -> str:
        tid = self.data.get(self.keys.get("taskid", ""), "?")
        return problem(self.path, self.line, field, f"task {tid}: {msg}")


# ---------------------------------------------------------------- reading the release files

def _data_files(src: Path) -> list[Path]:
    if src.is_file():
        return [src]
    files = sorted(p for p in src.iterdir() if p.is_file() and p.suffix.lower() in (".json", ".jsonl"))
    if not files:
        raise DataError([problem(src, None, "--src", "no .json or .jsonl file in this folder")])
    return files


def _tasks(path: Path) -> Iterator[_Task]:
    items = iter_jsonl(path) if path.suffix.lower() == ".jsonl" else iter_json_array(path, "tasks")
    for line, obj in items:
        if not isinstance(obj, dict):
            raise DataError([problem(path, line, "-", f"expected a JSON object, got {type(obj).__name__}")])
        yield _Task(path, line, obj)


# ---------------------------------------------------------------- field conversions

def _text(task: _Task, name: str, required: bool = True) -> tuple[str | None, str | None]:
    key, value = task.get(name)
    if key is None or value is None or (isinstance(value, str) and not value.strip()):
        if required:
            raise DataError([task.err(key or name, "missing or empty")])
        return key, None
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise DataError([task.err(key, f"expected text, got {type(value).__name__}")])
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return key, str(value)


def _int(task: _Task, key: str, value: Any, low: int | None = None, high: int | None = None) -> int:
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
        raise DataError([task.err(key, f"expected an integer, got {value!r}")])
    if (low is not None and number < low) or (high is not None and number > high):
        raise DataError([task.err(key, f"{number} is outside {low}–{high}")])
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


def _attachment_names(task: _Task, key: str, value: Any, folder: Path) -> list[str]:
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
        raise DataError([task.err(key, f"expected a file name or a list of them, got {type(value).__name__}")])
    if not all(isinstance(n, str) for n in names):
        raise DataError([task.err(key, "expected file names (text)")])
    return [n.strip() for n in names if n.strip()]


def _find(folder: Path, name: str) -> Path | None:
    """The attachment relative to the data file, else under ``files/`` next to it."""
    for candidate in (folder / name, folder / "files" / name):
        if candidate.is_file():
            return candidate
    return None


def _steps(task: _Task) -> tuple[Any, Any, str | None, str | None, dict[str, Any]]:
    """(steps, number of steps, their keys, the rest of Annotator Metadata)."""
    mkey, meta = task.get("Annotator Metadata")
    if isinstance(meta, str) and meta.strip():
        try:
            meta = json.loads(meta)
        except json.JSONDecodeError:
            raise DataError([task.err(mkey, "expected an object (Steps, Number of steps)")]) from None
    if meta in (None, ""):
        meta = {}
    if not isinstance(meta, dict):
        raise DataError([task.err(mkey, f"expected an object, got {type(meta).__name__}")])
    inner = {_norm(k): k for k in meta}
    rest = dict(meta)
    steps_key = num_key = None
    steps = num = None
    if "steps" in inner:
        steps_key = f"{mkey}.{inner['steps']}"
        steps = rest.pop(inner["steps"])
    if "numberofsteps" in inner:
        num_key = f"{mkey}.{inner['numberofsteps']}"
        num = rest.pop(inner["numberofsteps"])
    # The paper's example has them at the top level; the nested value wins when both are present.
    if steps is None:
        steps_key, steps = task.get("Steps")
    if num is None:
        num_key, num = task.get("Number of steps")
    return steps, num, steps_key, num_key, rest


def convert_task(task: _Task, media: Media) -> dict[str, Any]:
    _, task_id = _text(task, "task_id")
    _, question = _text(task, "Question")
    lkey, label = _text(task, "Label")
    category = canonical_label(label)
    if category is None:
        # Kept as given (the tables then show it as its own subset) rather than failing the release.
        log.warning("%s:%d: task %s: Label %r is none of the paper's subsets (%s)",
                    task.path, task.line, task_id, label, ", ".join(SUBSETS))
        category = label.strip()
    vkey, level = task.get("Level")
    if vkey is None:
        raise DataError([task.err("Level", "missing")])
    level = _int(task, vkey, level, 1, 3)
    _, final = _text(task, "Final answer")
    answer, atype = answer_type(final, question)

    rec: dict[str, Any] = {"id": task_id, "benchmark": BENCHMARK, "question": question,
                           "images": [], "choices": [], "answer": answer, "answer_type": atype}
    if atype == "mcq":
        rec["has_inline_choices"] = True
    rec["category"] = category
    rec["level"] = level

    fkey, fvalue = task.get("File_name")
    files: list[str] = []
    if fkey is not None and fvalue not in (None, ""):
        for name in _attachment_names(task, fkey, fvalue, task.path.parent):
            found = _find(task.path.parent, name)
            if found is None:
                tried = f"{task.path.parent / name}, {task.path.parent / 'files' / name}"
                raise DataError([task.err(fkey, f"attachment {name!r} not found (tried {tried})")])
            ref = media.ref(found)
            files.append(ref)
            if found.suffix.lower() in IMAGE_SUFFIXES:
                rec["images"].append(ref)
    if files:
        rec["files"] = files
    ckey, caption = task.get("caption")
    if caption not in (None, ""):
        # Optional, outside the official schema: a description of the image attachment, for the
        # caption-instead-of-image settings.
        if len(rec["images"]) != 1 or not isinstance(caption, str):
            raise DataError([task.err(ckey, "a caption needs exactly one image attachment and must be text")])
        rec["captions"] = [caption]

    steps, num, steps_key, num_key, meta_rest = _steps(task)
    if steps not in (None, ""):
        as_list = steps if isinstance(steps, list) else [steps]
        if not all(isinstance(s, str) for s in as_list):
            raise DataError([task.err(steps_key, "expected text or a list of texts")])
        rec["steps"] = steps
    if num not in (None, ""):
        rec["num_steps"] = _int(task, num_key, num, 0)

    extra = {k: v for k, v in task.data.items() if k not in task.used}
    if meta_rest:
        extra[task.get("Annotator Metadata")[0]] = meta_rest
    if category != label:
        extra[lkey] = label  # the spelling of the release, when it differs from the paper's
    if extra:
        rec["extra"] = extra
    return rec


def convert(src: Path, media: Media) -> list[dict[str, Any]]:
    """Read the C²RBench data file(s) at `src` and return unified records, in file order."""
    records: list[dict[str, Any]] = []
    problems: list[str] = []
    where: dict[str, str] = {}
    for path in _data_files(Path(src)):
        n = 0
        for task in _tasks(path):
            try:
                rec = convert_task(task, media)
            except DataError as e:  # report every bad task, then fail once
                problems += e.problems
                continue
            if rec["id"] in where:
                problems.append(task.err("task_id", f"duplicate id {rec['id']!r} (first at {where[rec['id']]})"))
                continue
            where[rec["id"]] = f"{path}:{task.line}"
            records.append(rec)
            n += 1
        log.info("%s: %d tasks", path, n)
    if problems:
        raise DataError(problems)
    return records
