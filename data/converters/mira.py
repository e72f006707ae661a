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

Record fields (key variants accepted in brackets):

- ``uid`` [id, pid, qid]: in layout A the record id becomes ``<task folder>/<uid>`` (the release
  numbers items per task); in layout B it is ``uid`` itself. The original value is also kept in
  ``extra`` (Gear Rotation pairs questions by uids ``1.1``/``1.2``; the scorer needs them).
- ``task`` [task_name, subtask]: one of the 20 tasks of Tables 4-10 -> ``task`` (the paper's name) and
  ``domain`` (EG, PBR, ASLP or CT, from the task). Optional in layout A. A ``domain`` field, if given,
  must agree.
- ``image_path`` [image, input_image, img, img_path, images]: the input image, relative to the data
  file; when it is not there, ``image/<name>`` and then ``image/<stem>.png|.jpg|.jpeg`` are tried, as
  the authors' code does.
- ``question`` [prompt, query]; ``answer`` [ground_truth, gt, gt_answer, label] (number, string or
  list; an ``<answer>…</answer>`` wrapper is removed); ``choices`` [options] (list or {letter: text}).
- ``cot_images`` [intermediate_images, visual_cot, visual_cot_images, cot_image, cot]: the ordered
  visual-CoT images -> ``cot_images``. Without the field, ``cot/<stem>.*`` and ``cot/<stem>_*`` images
  are used, in natural order (``_2`` before ``_10``).
- ``caption`` / ``captions``: text for the input image(s) -> ``captions``. ``cot_captions`` (one per
  CoT image) is checked for length and kept in ``extra`` (the unified schema has no field for it).
- ``answer_type`` if given; else ``mcq`` when choices exist and the golds are option letters,
  ``numeric`` when every gold is a number, ``text`` otherwise.

Everything else is kept verbatim under ``extra``.
"""
from __future__ import annotations

import json
import logging
import re
from pathlib import Path
from typing import Any, Callable, Iterator

from data.jsonl import DataError, iter_jsonl, problem
from data.media import Media
from data.records import ANSWER_TYPES, letters

log = logging.getLogger(__name__)

BENCHMARK = "mira"

DOMAINS = {"EG": "Euclidean Geometry", "PBR": "Physics-Based Reasoning",
           "ASLP": "Abstract Spatial & Logical Puzzles", "CT": "Causal Transformations"}

# The 20 tasks: names as in Tables 4-10, domains as in the Sec. 7 prompt headings (the tables agree),
# folder names as in the official release.
TASKS: list[tuple[str, str, str]] = [
    ("Convex Hull", "EG", "convex_hull"),
    ("Overlap", "EG", "overlap"),
    ("Localizer", "EG", "localizer"),
    ("Mirror Pattern", "EG", "mirror_pattern"),
    ("Cubes Count", "EG", "cubes_count"),
    ("Cubes Missing", "EG", "cubes_missing"),
    ("Billiards", "PBR", "billiards"),
    ("Electric Charge", "PBR", "electric_charge"),
    ("Mirror Clock", "PBR", "mirror_clock"),
    ("Unfolded Cube", "ASLP", "unfolded_cube"),
    ("Defuse A Bomb", "ASLP", "defuse_a_bomb"),
    ("Multi-piece Puzzle", "ASLP", "multi_piece_puzzle"),
    ("Puzzle", "ASLP", "puzzle"),
    ("Trailer Cubes Count", "ASLP", "trailer_cubes_count"),
    ("Trailer Cubes Missing", "ASLP", "trailer_cubes_missing"),
    ("Paper Airplane", "CT", "paper_airplane"),
    ("Gear Rotation", "CT", "gear_rotation"),
    ("Rolling Dice: Top", "CT", "rolling_dice_top"),
    ("Rolling Dice: Two", "CT", "rolling_dice_two"),
    ("Rolling Dice: Sum", "CT", "rolling_dice_sum"),
]
TASK_DOMAIN = {name: domain for name, domain, _ in TASKS}


def squash(text: str) -> str:
    """Lower-case letters and digits only: 'Rolling Dice (Top)' == 'rolling_dice_top'."""
    return re.sub(r"[^a-z0-9]", "", text.lower())


_TASK_BY_KEY = {squash(k): name for name, _, folder in TASKS for k in (name, folder)}
_TASK_BY_KEY.update({"defusebomb": "Defuse A Bomb", "multipiecespuzzle": "Multi-piece Puzzle",
                     "cubecount": "Cubes Count", "cubemissing": "Cubes Missing",
                     "trailercubecount": "Trailer Cubes Count", "trailercubemissing": "Trailer Cubes Missing",
                     "unfoldcube": "Unfolded Cube", "mirrorpatterns": "Mirror Pattern"})
_DOMAIN_BY_KEY = {squash(k): abbr for abbr, full in DOMAINS.items() for k in (abbr, full)}
_DOMAIN_BY_KEY.update({"abstractspatialandlogicalpuzzles": "ASLP", "abstractpuzzles": "ASLP",
                       "physicsbasedreasoning": "PBR", "causaltransformation": "CT"})

ALIASES: dict[str, str] = {}
for _field, _keys in {
    "id": ["uid", "id", "pid", "qid"],
    "task": ["task", "task_name", "subtask"],
    "domain": ["domain"],
    "image": ["image_path", "image", "input_image", "img", "img_path", "images"],
    "question": ["question", "prompt", "query"],
    "answer": ["answer", "ground_truth", "gt", "gt_answer", "label"],
    "choices": ["choices", "options"],
    "cot": ["cot_images", "intermediate_images", "visual_cot", "visual_cot_images", "cot_image", "cot"],
    "captions": ["caption", "captions"],
    "answer_type": ["answer_type"],
}.items():
    for _key in _keys:
        ALIASES[_key] = _field

IMAGE_EXTS = (".png", ".jpg", ".jpeg")
_NUMBER = re.compile(r"[-+]?(\d+(\.\d*)?|\.\d+)")
_ANSWER_TAG = re.compile(r"^\s*<answer>(.*)</answer>\s*$", re.S)

Report = Callable[[str, str], None]


def canonical_task(name: str) -> str | None:
    return _TASK_BY_KEY.get(squash(name))


def norm_key(key: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", key.lower()).strip("_")


def _natural(path: Path) -> list:
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", path.name)]


def _load_records(path: Path, errors: list[str]) -> Iterator[tuple[int, Any]]:
    """(line, record) from a .jsonl file (bad lines go to `errors`) or a .json array file."""
    if path.suffix == ".jsonl":
        yield from iter_jsonl(path, errors=errors)
        return
    try:
        text = path.read_text(encoding="utf-8-sig")
        data = json.loads(text)
    except UnicodeDecodeError as e:
        raise DataError([problem(path, None, "-", f"not UTF-8 ({e.reason})")]) from None
    except json.JSONDecodeError as e:
        raise DataError([problem(path, e.lineno, "-", f"invalid JSON ({e.msg}, column {e.colno})")]) from None
    if not isinstance(data, list):
        raise DataError([problem(path, None, "-", f"expected a JSON array of records, got {type(data).__name__}")])
    # Where each element starts, so problems name a line as they do for .jsonl.
    decoder, skip = json.JSONDecoder(), re.compile(r"[\s,]*")
    pos, line, counted = text.index("[") + 1, 1, 0
    for element in data:
        pos = skip.match(text, pos).end()
        line += text.count("\n", counted, pos)
        counted = pos
        _, pos = decoder.raw_decode(text, pos)
        yield line, element


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
        for f in sorted(folder.glob("*.jsonl")) + sorted(folder.glob("*.json")):
            files.append((f, folder.name))
    if not files:
        raise DataError([problem(src, None, "--src", "no data.jsonl/data.json and no <task>/ folder with a .jsonl file")])
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
    problems: list[str] = []
    records: list[dict[str, Any]] = []
    seen: dict[str, str] = {}
    cot_index = _CotIndex()
    for path, folder in _data_files(src):
        folder_task = canonical_task(folder) if folder is not None else None
        for line, raw in _load_records(path, problems):
            def bad(field: str, message: str, _line: int = line) -> None:
                problems.append(problem(path, _line, field, message))

            if not isinstance(raw, dict):
                bad("-", f"expected an object, got {type(raw).__name__}")
                continue
            rec = _convert_record(raw, path.parent, folder, folder_task, media, cot_index, bad)
            if rec is None:
                continue
            where = f"{path}:{line}"
            if rec["id"] in seen:
                bad("id", f"duplicate id {rec['id']!r} (first at {seen[rec['id']]})")
            seen.setdefault(rec["id"], where)
            records.append(rec)
    if problems:
        raise DataError(problems)
    if not records:
        raise DataError([problem(src, None, "-", "no records")])
    no_cot = [r["id"] for r in records if not r.get("cot_images")]
    if no_cot:
        log.warning("mira: %d record(s) have no visual-CoT image (Level 3 cannot run on them): %s",
                    len(no_cot), ", ".join(no_cot[:10]) + (" ..." if len(no_cot) > 10 else ""))
    log.info("mira: %d records, %d tasks", len(records), len({r["task"] for r in records}))
    return records


def _find_image(base: Path, sub: str, rel: str) -> Path | None:
    """`rel` relative to the data file, else in `sub`/ by name, else by stem with another extension."""
    given = Path(rel)
    candidates = [given if given.is_absolute() else base / given, base / sub / given.name]
    candidates += [base / sub / (given.stem + ext) for ext in IMAGE_EXTS]
    return next((c for c in candidates if c.is_file()), None)


def _strings(value: Any) -> list[str] | None:
    items = value if isinstance(value, list) else [value]
    if not items or any(isinstance(v, bool) or not isinstance(v, (str, int, float)) for v in items):
        return None
    out = []
    for v in items:
        text = str(v)
        m = _ANSWER_TAG.match(text)
        out.append(m.group(1).strip() if m else text)
    return out


def _is_letter_token(token: str) -> bool:
    """One letter (any case) or a run of distinct capitals ("AC"); not a word such as "square"."""
    if not (token.isascii() and token.isalpha()):
        return False
    return len(token) == 1 or (token.isupper() and len(set(token)) == len(token))


def _mcq_letters(answer: list[str], n_choices: int) -> list[str] | None:
    """Sorted option letters when every gold is made of letters among the first n_choices."""
    allowed = set(letters(n_choices))
    found: set[str] = set()
    for a in answer:
        tokens = [t for t in re.split(r"[\s,;/()\[\]]+", a.strip()) if t]
        if not tokens or not all(_is_letter_token(t) for t in tokens):
            return None
        found.update("".join(tokens).upper())
    return sorted(found) if found and found <= allowed else None


def _convert_record(raw: dict[str, Any], base: Path, folder: str | None, folder_task: str | None,
                    media: Media, cot_index: _CotIndex, bad: Report) -> dict[str, Any] | None:
    """One release record -> unified record, or None when it has problems (reported through `bad`)."""
    ok = True  # fail() clears it; the problems are collected and the whole conversion fails

    def fail(field: str, message: str) -> None:
        nonlocal ok
        ok = False
        bad(field, message)

    get: dict[str, Any] = {}
    key_of: dict[str, str] = {}
    extra: dict[str, Any] = {}
    for key, value in raw.items():
        field = ALIASES.get(norm_key(key))
        if field is None:
            extra[key] = value
        elif field in get:
            fail(key, f"both {key_of[field]!r} and {key!r} given")
        else:
            get[field], key_of[field] = value, key
    for field, label in (("id", "uid"), ("question", "question"), ("answer", "answer"), ("image", "image_path")):
        if get.get(field) is None:
            fail(label, "missing")
    if not ok:
        return None

    task, domain = _task_and_domain(get, key_of, folder, folder_task, fail)
    rid = get["id"]
    if isinstance(rid, bool) or not isinstance(rid, (str, int, float)) or not str(rid).strip():
        fail(key_of["id"], f"expected a non-empty string or number, got {rid!r}")
    if not isinstance(get["question"], str):
        fail(key_of["question"], f"expected a string, got {type(get['question']).__name__}")

    images = _paths(get["image"], key_of["image"], base, "image", fail, required=True)
    if get.get("cot") is not None:
        cot = _paths(get["cot"], key_of["cot"], base, "cot", fail, required=False)
    else:  # not listed: the release's naming rule, cot/<stem>.* and cot/<stem>_*
        cot = cot_index.find(base / "cot", images[0].stem) if images else []

    choices: list[str] = []
    if get.get("choices") is not None:
        value = get["choices"]
        if isinstance(value, dict):
            value = [value[k] for k in sorted(value)]
        if not isinstance(value, list) or any(isinstance(v, bool) or not isinstance(v, (str, int, float)) for v in value):
            fail(key_of["choices"], "expected a list of options (or {letter: option})")
        else:
            choices = [str(v) for v in value]
    answer, answer_type = _answer_and_type(get, key_of, choices, fail)

    rec: dict[str, Any] = {
        "id": f"{folder}/{rid}" if folder is not None else str(rid),
        "benchmark": BENCHMARK, "task": task or "", "domain": domain or "",
        "question": get["question"], "images": [media.ref(p) for p in images],
        "choices": choices, "answer": answer, "answer_type": answer_type,
    }
    if cot:
        rec["cot_images"] = [media.ref(p) for p in cot]

    if get.get("captions") is not None:
        caps = [get["captions"]] if isinstance(get["captions"], str) else get["captions"]
        if not isinstance(caps, list) or any(c is not None and not isinstance(c, str) for c in caps):
            fail(key_of["captions"], "expected a string or a list of strings")
        elif ok and len(caps) != len(images):
            fail(key_of["captions"], f"{len(caps)} caption(s) for {len(images)} input image(s)")
        else:
            rec["captions"] = caps
    if "cot_captions" in extra and ok:  # (when a CoT image is missing, that is the problem to report)
        caps = extra.pop("cot_captions")
        if not isinstance(caps, list) or len(caps) != len(cot):
            fail("cot_captions", f"expected one caption per visual-CoT image ({len(cot)} found)")
        else:
            rec["cot_captions"] = caps

    extra = {key_of["id"]: rid, **extra}  # the release id, verbatim (uids like 1.1 pair Gear Rotation items)
    rec["extra"] = extra
    return rec if ok else None


def _task_and_domain(get: dict[str, Any], key_of: dict[str, str], folder: str | None, folder_task: str | None,
                     fail: Report) -> tuple[str | None, str | None]:
    """The paper's task name (from the record, else from its folder) and the task's domain."""
    task = None
    if get.get("task") is not None:
        if not isinstance(get["task"], str):
            fail(key_of["task"], f"expected a string, got {type(get['task']).__name__}")
        else:
            task = canonical_task(get["task"])
            if task is None:
                fail(key_of["task"], f"unknown MIRA task {get['task']!r}")
            elif folder_task and task != folder_task:
                fail(key_of["task"], f"{get['task']!r} but the record is in folder {folder!r} ({folder_task})")
    elif folder is not None:
        task = folder_task
        if task is None:
            fail("task", f"folder {folder!r} is not one of the 20 MIRA tasks and the record names none")
    else:
        fail("task", "missing (a single-file release must name each record's task)")
    domain = TASK_DOMAIN.get(task) if task else None
    if get.get("domain") is not None:
        given = _DOMAIN_BY_KEY.get(squash(str(get["domain"])))
        if given is None:
            fail(key_of["domain"], f"unknown domain {get['domain']!r} (known: {', '.join(DOMAINS)})")
        elif domain and given != domain:
            fail(key_of["domain"], f"{get['domain']!r} but task {task!r} belongs to {domain}")
    return task, domain


def _paths(value: Any, key: str, base: Path, sub: str, fail: Report, required: bool) -> list[Path]:
    """Existing image files for a path or a list of paths (problems name `key` or `key[i]`)."""
    listed = [value] if isinstance(value, str) else value
    if not isinstance(listed, list) or (required and not listed) or not all(isinstance(p, str) and p for p in listed):
        fail(key, f"expected a path or a list of paths, got {value!r}")
        return []
    found = []
    for i, rel in enumerate(listed):
        path = _find_image(base, sub, rel)
        if path is None:
            fail(key if isinstance(value, str) else f"{key}[{i}]", f"image not found: {base / rel}")
        else:
            found.append(path)
    return found


def _answer_and_type(get: dict[str, Any], key_of: dict[str, str], choices: list[str],
                     fail: Report) -> tuple[list[str], str]:
    """Gold strings and answer type: as given, else mcq (letters among choices), numeric or text."""
    answer = _strings(get["answer"])
    if answer is None or not any(a.strip() for a in answer):
        fail(key_of["answer"], f"expected a non-empty string, number or list, got {get['answer']!r}")
        return [], "text"
    if get.get("answer_type") is not None:
        answer_type = get["answer_type"]
        if answer_type not in ANSWER_TYPES:
            fail(key_of["answer_type"], f"unknown answer type {answer_type!r} (known: {', '.join(ANSWER_TYPES)})")
        elif answer_type == "mcq":
            # Options may live in the image only; then any letters are accepted.
            picked = _mcq_letters(answer, len(choices) if choices else 26)
            if picked is None:
                fail(key_of["answer"], f"mcq gold {get['answer']!r} is not option letters"
                                       + (f" among the {len(choices)} choices" if choices else ""))
            return picked or answer, answer_type
        return answer, str(answer_type)
    picked = _mcq_letters(answer, len(choices)) if choices else None
    if picked is not None:
        return picked, "mcq"
    if all(_NUMBER.fullmatch(a.strip()) for a in answer):
        return answer, "numeric"
    return answer, "text"
