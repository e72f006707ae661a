"""MIRA (seed 002) release -> unified records.

The paper (supplementary material only) pins no file format, so this module defines the one it reads.
It is a superset of the layout the authors' evaluation code reads (one folder per task holding a
``.jsonl`` file, an ``image/`` folder and a ``cot/`` folder), so the public release converts as is.

Layout A, one folder per task (``--src`` is the root)::

    MIRA/
      rolling_dice_top/              folder name = task (any spelling listed below)
        rolling_dice_top.jsonl       every *.jsonl / *.json (array) file in the folder is read
        image/3.png                  input images
        cot/3_1.png  cot/3_2.png     visual-CoT images of the item whose input image is 3.png
      gear_rotation/ ...

Layout B, one file (``--src`` is the file, or a folder holding ``data.jsonl`` or ``data.json``)
whose records name their task in a ``task`` field.

The Hub dataset ``YiyangAiLab/MIRA`` is layout A; its tasks may also come as parquet or Arrow files
anywhere inside a task folder (one Hub configuration per task), whose columns are the fields below and
whose image columns hold ``datasets`` Image structs ``{bytes, path}`` (or bytes, data URLs), one or a
list: those pictures are written to the media folder once each.

Record fields (key variants accepted in brackets):

- ``uid`` [id, pid, qid]: in layout A the record id becomes ``<task folder>/<uid>`` (the release
  numbers items per task); in layout B it is ``uid`` itself. The original value is also kept in
  ``extra`` (Gear Rotation pairs questions by uids ``1.1``/``1.2``; the scorer needs them).
- ``task`` [task_name, subtask]: one of the 20 tasks of Tables 4-10 -> ``task`` (the paper's name) and
  ``domain`` (EG, PBR, ASLP or CT, from the task). Optional in layout A. A ``domain`` field, if given,
  must agree.
- ``image_path`` [image, input_image, img, img_path, images]: the input image, relative to the data
  file; when it is not there, ``image/<name>`` and then ``image/<stem>.png|.jpg|.jpeg`` are tried, as
  the authors' code does. An embedded image (Image struct) is written out; its ``path`` names it for
  the ``cot/`` rule below.
- ``question`` [prompt, query]; ``answer`` [ground_truth, gt, gt_answer, label] (number, string or
  list; an ``<answer>…</answer>`` wrapper is removed); ``choices`` [options] (list or {letter: text}).
- ``answer1`` and ``answer2`` instead of ``answer``: Rolling Dice: Two's two-part gold, as in the
  release (red / black / same, and an integer) -> ``answer`` [answer1, answer2], answer_type
  ``multi-part``; the authors' acc.py scores the item right only when both parts match.
- ``cot_images`` [intermediate_images, visual_cot, visual_cot_images, cot_image, cot]: the ordered
  visual-CoT images -> ``cot_images``. Without the field, ``cot/<stem>.*`` and ``cot/<stem>_*`` images
  are used, in natural order (``_2`` before ``_10``).
- ``caption`` / ``captions``: text for the input image(s) -> ``captions``. ``cot_captions`` (one per
  CoT image, under that key only) is checked for length -> ``cot_captions``.
- ``answer_type`` if given; else ``mcq`` when choices exist and the golds are option letters,
  ``numeric`` when every gold is a number, ``text`` otherwise.

Everything else is kept verbatim under ``extra``.
"""
from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import Any, Iterator

from data.converters.fields import Item
from data.converters.reader import (TABLE_SUFFIXES, Images, Row, data_files, image_names, item_images, jsonable,
                                    read_rows)
from data.converters.release import Release
from data.converters.values import beyond, norm_key, scalar_strings, spellings, split_letters, squash
from data.jsonl import DataError, problem
from data.media import Media
from data.benchmarks.mira import DOMAINS, TASKS, TWO_PART_LABELS, TWO_PART_TASK
from data.records import ANSWER_TYPES

log = logging.getLogger(__name__)

BENCHMARK = "mira"

TASK_DOMAIN = {name: domain for name, domain, _ in TASKS}

_TASK_BY_KEY = {squash(k): name for name, _, folder in TASKS for k in (name, folder)}
_TASK_BY_KEY.update({"defusebomb": "Defuse A Bomb", "multipiecespuzzle": "Multi-piece Puzzle",
                     "cubecount": "Cubes Count", "cubemissing": "Cubes Missing",
                     "trailercubecount": "Trailer Cubes Count", "trailercubemissing": "Trailer Cubes Missing",
                     "unfoldcube": "Unfolded Cube", "mirrorpatterns": "Mirror Pattern"})
_DOMAIN_BY_KEY = {squash(k): abbr for abbr, full in DOMAINS.items() for k in (abbr, full)}
_DOMAIN_BY_KEY.update({"abstractspatialandlogicalpuzzles": "ASLP", "abstractpuzzles": "ASLP",
                       "physicsbasedreasoning": "PBR", "causaltransformation": "CT"})

ALIASES = spellings({
    "id": ["uid", "id", "pid", "qid"],
    "task": ["task", "task_name", "subtask"],
    "domain": ["domain"],
    "image": ["image_path", "image", "input_image", "img", "img_path", "images"],
    "question": ["question", "prompt", "query"],
    "answer": ["answer", "ground_truth", "gt", "gt_answer", "label"],
    "answer1": ["answer1"],
    "answer2": ["answer2"],
    "choices": ["choices", "options"],
    "cot": ["cot_images", "intermediate_images", "visual_cot", "visual_cot_images", "cot_image", "cot"],
    "captions": ["caption", "captions"],
    "answer_type": ["answer_type"],
})

# Required fields, and the key a missing one is reported under.
REQUIRED = {"id": "uid", "question": "question", "answer": "answer", "image": "image_path"}

IMAGE_EXTS = (".png", ".jpg", ".jpeg")
_NUMBER = re.compile(r"[-+]?(\d+(\.\d*)?|\.\d+)")
_ANSWER_TAG = re.compile(r"^\s*<answer>(.*)</answer>\s*$", re.S)


def canonical_task(name: str) -> str | None:
    return _TASK_BY_KEY.get(squash(name))


def _natural(path: Path) -> list:
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", path.name)]


def _load_records(path: Path, errors: list[str]) -> Iterator[Row]:
    """The records of a .jsonl (bad lines go to `errors`), .json array, parquet or Arrow file."""
    yield from read_rows(path, errors=errors)


def _data_files(src: Path) -> list[tuple[Path, str | None]]:
    """(data file, task folder name or None) for layout A or B."""
    if src.is_file():
        return [(src, None)]
    single = [p for p in (src / "data.jsonl", src / "data.json") if p.is_file()]
    if len(single) == 2:
        raise DataError([problem(src, None, "--src", "both data.jsonl and data.json: keep one")])
    if single:
        return [(single[0], None)]
    files = []
    # Hidden folders hold tool state (huggingface_hub leaves .cache/ in a downloaded copy).
    for folder in sorted(p for p in src.iterdir() if p.is_dir() and not p.name.startswith(".")):
        tables = data_files(folder, TABLE_SUFFIXES)  # a Hub configuration's shards, at any depth
        for f in sorted(folder.glob("*.jsonl")) + sorted(folder.glob("*.json")) + tables:
            files.append((f, folder.name))
    if not files:
        raise DataError([problem(src, None, "--src", "no data.jsonl/data.json and no <task>/ folder with a "
                                                     ".jsonl, .json, parquet or Arrow file")])
    return files


class _CotIndex:
    """Images in each ``cot/`` folder, listed once, looked up by the input image's stem."""

    def __init__(self) -> None:
        self.listing: dict[Path, list[Path]] = {}

    def find(self, folder: Path, stem: str) -> list[Path]:
        if folder not in self.listing:
            self.listing[folder] = sorted((p for p in folder.iterdir() if p.suffix.lower() in IMAGE_EXTS),
                                          key=_natural) if folder.is_dir() else []
        return [p for p in self.listing[folder] if p.stem == stem or p.stem.startswith(stem + "_")]


def convert(src: Path, media: Media) -> list[dict[str, Any]]:
    """Read the release at `src` (layout A or B above) and return unified records."""
    release = Release()
    cot_index = _CotIndex()
    images = Images(media)
    for path, folder in _data_files(src):
        for row in _load_records(path, release.problems):
            item = Item(row.data, row.where, row.line, norm=norm_key, aliases=ALIASES)
            release.add(item, f"at {row.where}:{row.pos}" if row.line is None else f"at {path}:{row.line}",
                        _convert_record, path.parent, folder, images, cot_index)
    records = release.finish(source=src)
    no_cot = [r["id"] for r in records if not r.get("cot_images")]
    if no_cot:
        log.warning("mira: %d record(s) have no visual-CoT image (Level 3 cannot run on them): %s",
                    len(no_cot), ", ".join(no_cot[:10]) + (" ..." if len(no_cot) > 10 else ""))
    log.info("mira: %d records, %d tasks", len(records), len({r["task"] for r in records}))
    return records


def _convert_record(item: Item, base: Path, folder: str | None, images: Images,
                    cot_index: _CotIndex) -> dict[str, Any] | None:
    """One release record -> unified record, or None when it has problems (reported on `item`)."""
    for first, key, _ in item.conflicts:
        item.fail(key, f"both {first!r} and {key!r} given")
    two_part = len(item.missing("answer1", "answer2")) < 2
    for field in item.missing(*REQUIRED):
        if not (field == "answer" and two_part):  # then _answer_and_type reads answer1 and answer2
            item.fail(REQUIRED[field], "missing")
    if not item.ok:
        return None

    task, domain = _task_and_domain(item, folder)
    rid = item.identifier("id", numbers="number")
    question = item.text("question")
    inputs, _ = item_images(item, "image", images, base, lambda rel: _find_image(base, "image", rel))
    if item.value("cot") is not None:
        cot, _ = item_images(item, "cot", images, base, lambda rel: _find_image(base, "cot", rel), required=False)
    else:  # not listed: the release's naming rule, cot/<stem>.* and cot/<stem>_*
        names = image_names(item.value("image")) if inputs else []
        cot = [images.media.ref(p) for p in cot_index.find(base / "cot", Path(names[0]).stem)] if names else []
    choices = item.options("choices")
    answer, answer_type = _answer_and_type(item, choices, task)

    rec: dict[str, Any] = {
        "id": f"{folder}/{rid}" if folder is not None else rid,
        "benchmark": BENCHMARK, "task": task or "", "domain": domain or "",
        "question": question, "images": inputs,
        "choices": choices, "answer": answer, "answer_type": answer_type,
    }
    if cot:
        rec["cot_images"] = cot
    captions = item.captions("captions", len(inputs), "input image(s)")
    if captions is not None:
        rec["captions"] = captions
    if "cot_captions" in item.data and item.ok:  # (when a CoT image is missing, that is the problem to report)
        caps = item.claim("cot_captions")
        if not isinstance(caps, list) or len(caps) != len(cot):
            item.fail("cot_captions", f"expected one caption per visual-CoT image ({len(cot)} found)")
        else:
            rec["cot_captions"] = caps
    # The release id, verbatim (uids like 1.1 pair Gear Rotation items).
    id_key, release_id = item.get("id")
    rec["extra"] = jsonable({id_key: release_id, **item.extra()})
    return rec


def _task_and_domain(item: Item, folder: str | None) -> tuple[str | None, str | None]:
    """The paper's task name (from the record, else from its folder) and the task's domain."""
    folder_task = canonical_task(folder) if folder is not None else None
    key, given = item.get("task")
    task = None
    if given is not None:
        if not isinstance(given, str):
            item.fail(key, f"expected a string, got {type(given).__name__}")
        else:
            task = canonical_task(given)
            if task is None:
                item.fail(key, f"unknown MIRA task {given!r}")
            elif folder_task and task != folder_task:
                item.fail(key, f"{given!r} but the record is in folder {folder!r} ({folder_task})")
    elif folder is not None:
        task = folder_task
        if task is None:
            item.fail("task", f"folder {folder!r} is not one of the 20 MIRA tasks and the record names none")
    else:
        item.fail("task", "missing (a single-file release must name each record's task)")
    domain = TASK_DOMAIN.get(task) if task else None
    key, given = item.get("domain")
    if given is not None:
        abbr = _DOMAIN_BY_KEY.get(squash(str(given)))
        if abbr is None:
            item.fail(key, f"unknown domain {given!r} (known: {', '.join(DOMAINS)})")
        elif domain and abbr != domain:
            item.fail(key, f"{given!r} but task {task!r} belongs to {domain}")
    return task, domain


def _find_image(base: Path, sub: str, rel: str) -> Path | None:
    """`rel` relative to the data file, else in `sub`/ by name, else by stem with another extension."""
    given = Path(rel)
    candidates = [given if given.is_absolute() else base / given, base / sub / given.name]
    candidates += [base / sub / (given.stem + ext) for ext in IMAGE_EXTS]
    return next((c for c in candidates if c.is_file()), None)


def _mcq_letters(answer: list[str], n_choices: int) -> list[str] | None:
    """Sorted option letters when every gold is made of letters among the first n_choices."""
    picked = split_letters(answer)
    return picked if picked is not None and not beyond(picked, n_choices) else None


def _answer_and_type(item: Item, choices: list[str], task: str | None) -> tuple[list[str], str]:
    """Gold strings and answer type: Rolling Dice: Two's two parts, else `answer` as given, else mcq
    (letters among choices), numeric or text."""
    if len(item.missing("answer1", "answer2")) < 2:
        return _two_part_gold(item, task)
    key, value = item.get("answer")
    answer = _golds(value)
    if answer is None or not any(a.strip() for a in answer):
        item.fail(key, f"expected a non-empty string, number or list, got {value!r}")
        return [], "text"
    type_key, answer_type = item.get("answer_type")
    if answer_type is not None:
        if answer_type not in ANSWER_TYPES:
            item.fail(type_key, f"unknown answer type {answer_type!r} (known: {', '.join(ANSWER_TYPES)})")
        elif answer_type == "mcq":
            # Options may live in the image only; then any letters are accepted.
            picked = _mcq_letters(answer, len(choices) if choices else 26)
            if picked is None:
                item.fail(key, f"mcq gold {value!r} is not option letters"
                               + (f" among the {len(choices)} choices" if choices else ""))
            return picked or answer, answer_type
        return answer, str(answer_type)
    picked = _mcq_letters(answer, len(choices)) if choices else None
    if picked is not None:
        return picked, "mcq"
    if all(_NUMBER.fullmatch(a.strip()) for a in answer):
        return answer, "numeric"
    return answer, "text"


def _two_part_gold(item: Item, task: str | None) -> tuple[list[str], str]:
    """[path, total] from `answer1` and `answer2`, checked as acc.py compares them: the path
    case-insensitively among red / black / same, the total as an integer."""
    key1, label = item.get("answer1")
    key2, total = item.get("answer2")
    if not item.missing("answer"):
        answer_key = item.key("answer")
        item.fail(answer_key, f"both {answer_key!r} and {key1 or key2!r} given: a gold is one or the other")
    if task is not None and task != TWO_PART_TASK:
        item.fail(key1 or key2, f"a two-part gold (answer1, answer2) belongs to {TWO_PART_TASK}, not {task}")
    for key, value in ((key1 or "answer1", label), (key2 or "answer2", total)):
        if value is None:
            item.fail(key, "missing (the gold of Rolling Dice: Two is answer1 and answer2)")
    type_key, answer_type = item.get("answer_type")
    if answer_type is not None and answer_type != "multi-part":
        item.fail(type_key, f"{answer_type!r}, but a two-part gold is multi-part")
    if label is not None and (not isinstance(label, str) or label.strip().lower() not in TWO_PART_LABELS):
        item.fail(key1, f"expected one of {', '.join(TWO_PART_LABELS)}, got {label!r}")
    if total is not None and _integer(total) is None:
        item.fail(key2, f"expected an integer, got {total!r}")
    if not item.ok:
        return [], "multi-part"
    return [label.strip().lower(), str(_integer(total))], "multi-part"


def _integer(value: Any) -> int | None:
    """An integer given as a number or as digits ("7", 7, 7.0); None for anything else."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value) if value.is_integer() else None
    if isinstance(value, str) and re.fullmatch(r"\s*[-+]?\d+\s*", value):
        return int(value)
    return None


def _golds(value: Any) -> list[str] | None:
    """Gold strings from a string, a number or a list of those, without an ``<answer>…</answer>`` wrapper."""
    answer = scalar_strings(value)
    if answer is None:
        return None
    return [m.group(1).strip() if (m := _ANSWER_TAG.match(a)) else a for a in answer]
