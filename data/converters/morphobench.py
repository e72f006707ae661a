"""MorphoBench (OpenDCAI/MorphoBench) -> unified records.

The official release
--------------------
The Hugging Face dataset ``OpenDCAI/MorphoBench`` holds one dataset per split, in folders named
after the paper's splits: ``Morpho_R_v0``, ``Morpho_R_Lite``, ``Morpho_R_Complex`` (the agent-
reasoning family, Sec. 4.1), ``Morpho_P_v0``, ``Morpho_P_Perturbed`` (the agent-recognition family).
A split is stored as any of

* a ``datasets`` ``save_to_disk`` folder: ``data-0000x-of-0000n.arrow`` (Arrow IPC stream) next to
  ``dataset_info.json`` / ``state.json`` (a DatasetDict adds one sub-folder per HF split);
* parquet files (``data/*.parquet``, ``<split>/train-*.parquet`` as on the Hub);
* a JSON array or a JSONL file (and the TSV the authors' adaption scripts read).

`src` may be one file, one split's folder or the whole release (every data file below it is read).
Each row has

``index``         the item's number; the official scripts key predictions by ``str(index)``
``question``      the question text (options, when any, are printed inside it)
``hint``          hints, one per ``- `` bullet line (R-Lite / R-Complex); empty or absent in v0.
                  Some files call it ``Hints``; a JSON list of strings is accepted too
``answer``        the gold answer: a number, option letter(s), free text, or ``row=r, col=c`` for
                  the generated "spot the different one" grids
``image_base64``  ``data:image/png;base64,...`` (or bare base64); empty for text-only items.
                  Instead, ``image_path`` / ``image`` may name a file relative to the data file, and
                  ``image`` may be a HF Image struct ``{"bytes", "path"}``
``caption``       (our demo sets, or a release that adds it) an exact description of the image
plus grouping fields: ``discipline`` (Table 1), ``category``, ``subject``, ``level``, ``split``,
``distractor_design`` (the generated circuit black boxes: how their distractors were drawn), and the
taxonomy (``task_type``, ``sub_task_types`` ...) which has no stable name and goes to ``extra``.

Mapping decisions
-----------------
* ``split``: a ``split`` field that names a paper split, else the first paper split named by the
  file's path (innermost folder first), written as the release folder name (``Morpho_R_Lite``).
  A bare ``v0`` with no family stays ``v0``; R(v0) and P(v0) are different item sets.
* ``id`` = ``<split>-<index>`` (``<index>`` when no split is known): indices repeat across splits,
  ids must not. The official ``index`` is kept in ``extra["index"]``.
* base64 images are decoded and written once per content (named by hash) into the media folder.
* ``answer_type``: ``structured`` for ``row=r, col=c``; ``mcq`` when the answer is option letter(s)
  and the options are given (a ``choices``/``options`` field, or clearly listed in the question,
  then ``choices`` stays empty and ``has_inline_choices`` is set); ``numeric`` for a plain number;
  otherwise ``open``.
* ``caption`` -> ``captions`` = [caption] for a one-image item (kept in ``extra`` otherwise).

Malformed rows raise DataError naming the file, the line (JSON/JSONL) or row (parquet/arrow/TSV),
and the field. Nothing is skipped.
"""
from __future__ import annotations

import json
import logging
import re
from pathlib import Path
from typing import Any, Iterator

from data.converters.fields import Item, with_extra
from data.converters.reader import (DATA_SUFFIXES, ImageError, Images, Row, data_files, is_empty, jsonable,
                                    read_rows)
from data.converters.release import Release
from data.converters.values import by_letter, is_caption_list
from data.jsonl import DataError, problem
from data.media import Media

log = logging.getLogger(__name__)

BENCHMARK = "morphobench"

# Paper disciplines (Table 1); a `category`/`subject` holding one of them also fills `discipline`.
DISCIPLINES = ("Engineering", "Mathematics", "Natural Sciences", "Social Sciences", "Other")

SPLITS = ("Morpho_R_v0", "Morpho_R_Lite", "Morpho_R_Complex", "Morpho_P_v0", "Morpho_P_Perturbed",
          "Morpho_G_circuits", "Morpho_G_spot_diff")  # G: the generated tasks (python -m data.generate)

_VARIANTS = {"v0": "v0", "lite": "Lite", "complex": "Complex", "perturbed": "Perturbed"}
_FAMILY_OF = {"Lite": "R", "Complex": "R", "Perturbed": "P"}  # v0 exists in both families
_SPLIT_FULL = re.compile(r"morpho[\s_\-]*([rpg])[\s_\-]*\(?\s*(v0|lite|complex|perturbed)(?![a-z0-9])", re.I)
_GENERIC_FOLDERS = {"train", "test", "validation", "data", "default"}  # HF split/config folder names
_SPLIT_G = re.compile(r"morpho[\s_\-]*g[\s_\-]*(circuits|spot[\s_\-]*diff)(?![a-z0-9])", re.I)
_SPLIT_BARE = re.compile(r"(?<![a-z0-9])(v0|lite|complex|perturbed)(?![a-z0-9])", re.I)

_GRID = re.compile(r"^\s*row\s*=\s*\d+\s*,\s*col(?:umn)?\s*=\s*\d+\s*$", re.I)
_NUMBER = re.compile(r"^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$")
_LETTERS = re.compile(r"^\(?([A-Z])\)?\.?(?:\s*[,;&]\s*\(?([A-Z])\)?\.?)*$")
# Option markers printed in a question: "A. x" / "A) x" / "A: x" at a line start, or "(A) x" anywhere.
_OPT_LINE = re.compile(r"^\s*\(?([A-Z])[.):]\s+\S", re.M)
_OPT_PAREN = re.compile(r"(?:^|\s)\(([A-Z])\)\s+\S", re.M)
_BULLET = re.compile(r"^\s*(?:[-*\u2022]|\d+[.)])\s+(.*)$")

# Official keys (lower-cased) with a meaning here; any other key goes to `extra` verbatim.
_HINT_KEYS = ("hint", "hints")
_IMAGE_KEYS = ("image_base64", "image", "images", "image_path", "image_paths")
_STABLE_STR = ("discipline", "subject", "category", "difficulty", "task", "domain",
               "distractor_design")  # the generated circuits' design (same_count or fig7): Table 5 reads it


class _Row(Item):
    """One official row, named in problems by its line (JSON, JSONL) or its row number (tables)."""

    def __init__(self, root: Path, path: Path, row: Row):
        # Keys are matched case-insensitively (`Hints` vs `hint`); the original spelling goes to extra.
        super().__init__(row.data, row.where, row.line, norm=str.lower)
        self.root, self.file, self.pos = root, path, row.pos
        self.label = f"index {row.data.get(self.key('index') or '', '?')}"

    def first(self, *names: str) -> tuple[str | None, Any]:
        """(key, value) of the first of `names` present and non-empty, else (None, None)."""
        for name in names:
            key, value = self.get(name)
            if key is not None and not is_empty(value):
                return key, value
        return None, None


# ---------------------------------------------------------------- reading the release files

def _data_files(src: Path) -> list[Path]:
    if src.is_file():
        return [src]
    files = data_files(src)
    # The paper's split order (Table 2), then by path: a stable, readable record order.
    files.sort(key=lambda p: (_split_rank(_split_from_path(p, src)), str(p)))
    if not files:
        raise DataError([problem(src, None, "--src", f"no data files ({', '.join(DATA_SUFFIXES)}) found")])
    return files


def _rows(root: Path, path: Path) -> Iterator[_Row]:
    for row in read_rows(path):
        if not isinstance(row.data, dict):
            raise DataError([problem(path, row.pos, "-", f"expected an object, got {type(row.data).__name__}")])
        yield _Row(root, path, row)


# ---------------------------------------------------------------- field conversions

def canonical_split(text: str) -> str | None:
    """The paper split a name refers to (``Morpho_R_Lite``, ``Morpho_P_v0`` ...; bare ``v0``; the generated
    ``Morpho_G_circuits``, ``Morpho_G_spot_diff``), or None."""
    m = _SPLIT_G.search(text)
    if m:
        return "Morpho_G_circuits" if m.group(1).lower() == "circuits" else "Morpho_G_spot_diff"
    m = _SPLIT_FULL.search(text)
    if m:
        return f"Morpho_{m.group(1).upper()}_{_VARIANTS[m.group(2).lower()]}"
    m = _SPLIT_BARE.search(text)
    if m:
        variant = _VARIANTS[m.group(1).lower()]
        family = _FAMILY_OF.get(variant)
        return f"Morpho_{family}_{variant}" if family else variant
    return None


def _split_from_path(path: Path, root: Path) -> str | None:
    """The paper split named by the file, its folders inside `root`, or `root` itself.

    Folders above `root` are looked at only through generic names (``.../Morpho_R_v0/train``):
    a user's own folder names mean nothing here.
    """
    path, root = path.resolve(), root.resolve()
    names = [path.stem]
    for folder in path.parents:
        names.append(folder.name)
        inside = root in folder.parents
        if not inside and folder.name.lower() not in _GENERIC_FOLDERS:
            break
    for name in names:
        found = canonical_split(name)
        if found:
            return found
    return None


def _split_rank(split: str | None) -> int:
    return SPLITS.index(split) if split in SPLITS else len(SPLITS)


def parse_hints(value: Any) -> list[str]:
    """Hints as a list: one entry per ``- `` bullet (continuation lines join their bullet)."""
    if is_empty(value):
        return []
    if isinstance(value, (list, tuple)):
        return [str(h).strip() for h in value if not is_empty(h) and str(h).strip()]
    text = str(value)
    if not any(_BULLET.match(line) for line in text.splitlines()):
        return [text.strip()]
    hints: list[str] = []
    for line in text.splitlines():
        m = _BULLET.match(line)
        if m:
            hints.append(m.group(1).strip())
        elif line.strip():
            if hints:
                hints[-1] = f"{hints[-1]}\n{line.strip()}"
            else:  # text before the first bullet (an intro line) is a hint of its own
                hints.append(line.strip())
    return [h for h in hints if h]


def _listed_options(question: str) -> list[str]:
    """Option letters printed in the question, if they run A, B, ... without gaps (at least two)."""
    found = {m.group(1) for m in _OPT_LINE.finditer(question)} | {m.group(1) for m in _OPT_PAREN.finditer(question)}
    letters = []
    for k in range(26):
        letter = chr(ord("A") + k)
        if letter not in found:
            break
        letters.append(letter)
    return letters if len(letters) >= 2 else []


def _answer_letters(answer: str) -> list[str] | None:
    m = _LETTERS.match(answer.strip())
    if not m:
        return None
    return re.findall(r"[A-Z]", answer)


def _choices(row: _Row) -> list[str]:
    key, value = row.first("choices", "options")
    if key is None:
        return []
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError:
            raise row.error(key, "expected a list of options (or its JSON text)") from None
    value = by_letter(value)
    if not isinstance(value, list):
        raise row.error(key, f"expected a list of options, got {type(value).__name__}")
    return [str(v) for v in value]


def answer_and_type(answer: str, question: str, choices: list[str]) -> tuple[list[str], str, bool]:
    """(answer list, answer_type, options printed inline) for one MorphoBench answer."""
    if _GRID.match(answer):
        return [answer.strip()], "structured", False
    letters = _answer_letters(answer)
    if choices:
        if letters and all(ord(x) - ord("A") < len(choices) for x in letters):
            return letters, "mcq", False
        if answer.strip() in choices:  # the answer spelled out as an option's text
            return [chr(ord("A") + choices.index(answer.strip()))], "mcq", False
    elif letters:
        listed = _listed_options(question)
        if listed and all(x in listed for x in letters):
            return letters, "mcq", True
    if _NUMBER.match(answer.strip()):
        return [answer.strip()], "numeric", False
    return [answer], "open", False


def _images(row: _Row, images: Images) -> list[str]:
    """Image paths of a row, from the first image field that is not empty."""
    key, value = row.first(*_IMAGE_KEYS)
    if key is None:
        return []

    def find(rel: str) -> Path:
        path = (row.file.parent / rel).resolve()
        if not path.is_file():
            raise ImageError(f"image file not found: {path}")
        return path

    try:
        return images.refs(value, find, base64_text=key.lower() == "image_base64")
    except ImageError as e:
        raise row.error(key, str(e)) from None


def _level(row: _Row) -> int | str | None:
    key, value = row.first("level")
    if key is None:
        return None
    if isinstance(value, bool):
        raise row.error(key, "expected a level, got a boolean")
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    text = str(value).strip()
    return int(text) if re.fullmatch(r"[+-]?\d+", text) else text


def _index(row: _Row) -> tuple[str, Any]:
    key, index = row.first("index")
    if key is None:
        raise row.error("index", "missing")
    if isinstance(index, float) and index.is_integer():
        index = int(index)
    return key, index


def _question(row: _Row) -> str:
    key, question = row.first("question")
    if key is None or not isinstance(question, str):
        raise row.error("question", "missing or empty" if key is None else "expected text")
    return question


def _answer(row: _Row) -> str:
    key, answer = row.first("answer")
    if key is None:
        raise row.error("answer", "missing or empty")
    if isinstance(answer, bool) or isinstance(answer, (dict, list)):
        raise row.error(key, f"expected a single answer, got {type(answer).__name__}")
    if isinstance(answer, float) and answer.is_integer():
        answer = int(answer)
    return str(answer)


def _split(row: _Row) -> str | None:
    """A field naming a paper split wins, else the path, else the field verbatim.

    A field value the path overrides (e.g. the HF split "train") is kept in `extra`.
    """
    key, value = row.first("split")
    field_split = canonical_split(str(value)) if key else None
    path_split = _split_from_path(row.file, row.root)
    if key and not field_split and path_split:
        row.to_extra(key)
    return field_split or path_split or (str(value) if key else None)


def _hints(row: _Row) -> list[str] | None:
    """Hints from the first hint field present, even an empty one (v0 rows have none)."""
    for name in _HINT_KEYS:
        key, value = row.get(name)
        if key is not None:
            return parse_hints(value)
    return None


def _groups(row: _Row, rec: dict[str, Any]) -> None:
    """Grouping fields; a category or subject naming a paper discipline fills `discipline` too."""
    for name in _STABLE_STR:
        key, value = row.first(name)
        if key is not None:
            rec[name] = str(value)
    if "discipline" not in rec:
        for name in ("category", "subject"):
            match = [d for d in DISCIPLINES if d.lower() == str(rec.get(name, "")).strip().lower()]
            if match:
                rec["discipline"] = match[0]
                break
    level = _level(row)
    if level is not None:
        rec["level"] = level


def _captions(row: _Row, n_images: int) -> list[str | None] | None:
    """``captions``, or one ``caption`` for a one-image item; a caption with no image stays in extra."""
    key, captions = row.first("captions")
    if key is None:
        key, captions = row.first("caption")
        captions = [captions] if key is not None else None
    if key is None:
        return None
    if not is_caption_list(captions):
        raise row.error(key, "expected text (caption) or a list of texts (captions)")
    if len(captions) == n_images:
        return captions
    if n_images:
        raise row.error(key, f"{len(captions)} caption(s) for {n_images} image(s)")
    row.to_extra(key)
    return None


def convert_row(row: _Row, images: Images) -> dict[str, Any]:
    index_key, index = _index(row)
    question = _question(row)
    answer = _answer(row)

    rec: dict[str, Any] = {"id": "", "benchmark": BENCHMARK, "question": question}
    rec["images"] = _images(row, images)
    choices = _choices(row)
    rec["choices"] = choices
    rec["answer"], rec["answer_type"], inline = answer_and_type(answer, question, choices)
    if inline:
        rec["has_inline_choices"] = True
    split = _split(row)
    if split:
        rec["split"] = split
    rec["id"] = f"{split}-{index}" if split else str(index)
    row.to_extra(index_key)  # the official index stays in `extra`: predictions are keyed by it

    hints = _hints(row)
    if hints is not None:
        rec["hints"] = hints
    _groups(row, rec)
    captions = _captions(row, len(rec["images"]))
    if captions is not None:
        rec["captions"] = captions
    return with_extra(rec, {k: jsonable(v) for k, v in row.extra().items()})


def convert(src: Path, media: Media) -> list[dict[str, Any]]:
    """Read every MorphoBench data file under `src` and return unified records, in file order."""
    release = Release()
    images = Images(media)  # each picture is written once, however many rows hold it
    for path in _data_files(Path(src)):
        before = len(release.records)
        for row in _rows(Path(src), path):
            release.add(row, f"at {path}:{row.pos}", convert_row, images, id_field="index")
        log.info("%s: %d items", path, len(release.records) - before)
    return release.finish()
