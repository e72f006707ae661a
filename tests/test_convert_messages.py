"""Every converter's exact problem list for a malformed release of its format: which items, which
fields, in which order, in which words. The messages are what a user reads to fix a release."""
from __future__ import annotations

import base64
import io
import json
from pathlib import Path
from typing import Callable

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from PIL import Image

from data.convert import convert
from data.jsonl import DataError


def png(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", (4, 4), "white").save(path)


def png_url() -> str:
    buf = io.BytesIO()
    Image.new("RGB", (4, 4), "white").save(buf, format="PNG")
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def jsonl(path: Path, items: list) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in items), encoding="utf-8")


def json_array(path: Path, items: list) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(items, indent=1, ensure_ascii=False), encoding="utf-8")


# ---------------------------------------------------------------- one malformed release per format

def think360(root: Path) -> Path:
    png(root / "images" / "a.png")
    good = {"id": "t0", "question": "How many?", "image_path": "images/a.png", "answer": "3"}
    json_array(root / "think360.json", [
        good,
        {"pid": "t1", "id": "t1", "query": 5, "answer": "A", "image": ["images/a.png", "images/gone.png"],
         "answer_type": "multiple-choice", "options": ["x", "y"], "difficulty": 3},
        {"id": True, "question": "q", "answer": [], "img": "images/gone.png", "answer_type": "essay"},
        {"id": "t3", "question": "q", "answer": "E", "image_path": ["images/a.png"], "choices": {"A": "x", "B": "y"},
         "captions": ["one", "two"], "skills": 4, "solution": ["s"]},
        {"question": "q", "image_path": "images/a.png"},
        ["not", "an", "object"],
        {**good, "caption": ["c", 1], "split": 2},
        good,
    ])
    return root


def omibench(root: Path) -> Path:
    png(root / "images" / "a.png")
    good = {"id": "o0", "subject": "Physics", "answer_type": "open", "question": "[IMAGE0] How far?",
            "image_list": ["a.png"], "answer": ["3"]}
    jsonl(root / "test.jsonl", [
        good,
        {"id": "o1", "answer_type": "essay", "question": 7, "image_list": ["a.png", 2.5, None], "answer": "x"},
        {"id": "o2", "subject": 3, "answer_type": "mcq", "question": "[IMAGE1] [IMAGE0]?", "image_list": ["gone.png"],
         "choice_list": ["x", "[IMAGE4]"], "answer": ["E"], "captions": ["a", "b"], "solution": 1},
        {"id": "o3", "answer_type": "open", "question": "q", "image_list": ["a.png"], "answer": [" "],
         "has_inline_choices": "yes", "captions": "c"},
        {"id": ["o4"], "answer_type": "mcq", "question": "q", "image_list": ["a.png"], "answer": ["the first"]},
        {"question": "q"},
        {**good, "known_issue": "blurry"},
    ])
    (root / "test.jsonl").open("a").write('{"id": "o7", oops}\n')
    return root


def mira(root: Path) -> Path:
    png(root / "gear_rotation" / "image" / "1.png")
    png(root / "gear_rotation" / "cot" / "1_1.png")
    good = {"uid": 1, "image_path": "image/1.png", "question": "Which way?", "answer": 1}
    jsonl(root / "gear_rotation" / "gear_rotation.jsonl", [
        good,
        {"uid": 2, "id": 2, "image_path": "image/1.png", "question": "q", "answer": 1},
        {"uid": 3, "task": "Billiards", "domain": "PBR", "image_path": "image/9.png", "question": ["q"],
         "answer": {"a": 1}},
        {"uid": 4, "task": "no such task", "domain": "XY", "image_path": ["image/1.png", "image/8.png"],
         "question": "q", "answer": "B", "answer_type": "mcq", "choices": ["a", "b"]},
        {"uid": 5, "image_path": "image/1.png", "question": "q", "answer": "Z", "answer_type": "mcq",
         "choices": ["a", "b"], "caption": ["c1", "c2"], "cot_captions": ["one", "two"]},
        {"uid": True, "image_path": "", "question": "q", "answer": "1", "answer_type": "number", "cot": 7},
        {"question": "q"},
        [1, 2],
        good,
    ])
    jsonl(root / "not_a_task" / "x.jsonl", [{"uid": 1, "image_path": "gone.png", "question": "q", "answer": 1}])
    return root


def c2rbench(root: Path) -> Path:
    png(root / "files" / "a.png")
    good = {"task_id": "001", "Question": "一加一？", "Label": "Math", "Level": 1, "Final answer": "2", "File_name": ""}
    json_array(root / "c2rbench.json", [
        good,
        {**good, "task_id": "002", "Level": 4},
        {**good, "task_id": "003", "Final answer": " "},
        {**good, "task_id": "004", "File_name": "a.png;gone.pdf"},
        {**good, "task_id": "005", "caption": "no image here"},
        {**good, "task_id": "006", "Annotator Metadata": "not json"},
        {**good, "task_id": "007", "Annotator Metadata": {"Steps": ["a", 1]}},
        {**good, "task_id": "008", "Number of steps": "eight"},
        {**good, "task_id": "009", "Question": ["q"]},
        {**good, "task_id": "010", "Level": None},
        {**good, "Label": "Graph"},
    ])
    return root


def morphobench(root: Path) -> Path:
    good = {"index": 1, "question": "What is 6 times 7?", "answer": "42"}
    jsonl(root / "Morpho_R_Lite" / "data.jsonl", [
        good,
        {"index": 2, "question": "q", "answer": ["42"]},
        {"index": 3, "question": "q", "answer": "1", "image_base64": "data:image/png;base64,@@@"},
        {"index": 4, "question": "q", "answer": "1", "image_base64": "data:text/plain,hi"},
        {"index": 5, "question": "q", "answer": "1", "image_base64": png_url(), "captions": ["a", "b"]},
        {"index": 6, "question": "q", "answer": "1", "image_path": "gone.png"},
        {"index": 7, "question": 3, "answer": "1"},
        {"index": 8, "question": "q", "answer": "1", "choices": "not json", "level": True},
        {"question": "q", "answer": "1"},
        {"index": 9, "question": "q"},
        {"index": 10, "question": "q", "answer": "1", "caption": 5, "image_base64": png_url()},
        {**good, "split": "Lite"},
    ])
    # A table row is named by its row number, not a line.
    (root / "Morpho_P_v0").mkdir()
    pq.write_table(pa.Table.from_pylist([
        {"index": 1, "question": "q", "answer": "1", "level": True},
        {"index": 2, "question": None, "answer": "1", "level": None},
    ]), root / "Morpho_P_v0" / "train-00000-of-00001.parquet")
    return root


RELEASES: dict[str, Callable[[Path], Path]] = {
    "think360": think360, "omibench": omibench, "mira": mira, "c2rbench": c2rbench, "morphobench": morphobench,
}

EXPECTED: dict[str, list[str]] = {
    "think360": [
        "<src>/think360.json:8: [1].id: both 'pid' and 'id' given for id",
        "<src>/think360.json:24: [2].id: expected a non-empty string or integer, got True",
        "<src>/think360.json:24: [2].img: image not found: <src>/images/gone.png",
        "<src>/think360.json:24: [2].answer_type: unknown answer type 'essay' (the paper's kinds: multiple-choice, numerical, structural, formula, other)",
        "<src>/think360.json:24: [2].answer: expected a non-empty string, number or list, got []",
        "<src>/think360.json:31: [3].answer: 'E' names an option beyond the 2 given",
        "<src>/think360.json:31: [3].skills: expected a list of strings or a string",
        "<src>/think360.json:31: [3].solution: expected a string, got list",
        "<src>/think360.json:51: [4].id: missing",
        "<src>/think360.json:51: [4].answer: missing",
        "<src>/think360.json:55: [5].-: expected an object, got list",
        "<src>/think360.json:60: [6].caption: expected a string or a list of strings",
        "<src>/think360.json:60: [6].split: expected a string, got int",
        "<src>/think360.json:71: [7].id: duplicate id 't0' (first at record 0)",
    ],
    "omibench": [
        "<src>/test.jsonl:2: question: expected a string, got int",
        "<src>/test.jsonl:2: answer_type: expected 'mcq' or 'open', got 'essay'",
        "<src>/test.jsonl:2: image_list[2]: expected a string, got NoneType",
        "<src>/test.jsonl:3: image_list[0]: image not found: <src>/images/gone.png",
        "<src>/test.jsonl:3: answer: ['E'] names an option beyond the 2 in choice_list",
        "<src>/test.jsonl:3: question: [IMAGE1] but image_list has 1 image(s)",
        "<src>/test.jsonl:3: choice_list[1]: [IMAGE4] but image_list has 1 image(s)",
        "<src>/test.jsonl:3: subject: expected a string, got int",
        "<src>/test.jsonl:3: captions: 2 captions for 1 images in image_list",
        "<src>/test.jsonl:3: solution: expected a string, got int",
        "<src>/test.jsonl:4: answer: no gold answer",
        "<src>/test.jsonl:4: has_inline_choices: expected true/false, got 'yes'",
        "<src>/test.jsonl:4: captions: expected a list of strings (or nulls)",
        "<src>/test.jsonl:5: id: expected a non-empty string or integer, got ['o4']",
        "<src>/test.jsonl:5: answer: MCQ gold ['the first'] is not option letters",
        "<src>/test.jsonl:6: id: missing",
        "<src>/test.jsonl:6: image_list: missing",
        "<src>/test.jsonl:6: answer: missing",
        "<src>/test.jsonl:6: answer_type: missing",
        "<src>/test.jsonl:7: id: duplicate id 'o0' (first on line 1)",
        "<src>/test.jsonl:8: -: invalid JSON (Expecting property name enclosed in double quotes, column 14)",
    ],
    "mira": [
        "<src>/gear_rotation/gear_rotation.jsonl:2: id: both 'uid' and 'id' given",
        "<src>/gear_rotation/gear_rotation.jsonl:3: task: 'Billiards' but the record is in folder 'gear_rotation' (Gear Rotation)",
        "<src>/gear_rotation/gear_rotation.jsonl:3: question: expected a string, got list",
        "<src>/gear_rotation/gear_rotation.jsonl:3: image_path: image not found: <src>/gear_rotation/image/9.png",
        "<src>/gear_rotation/gear_rotation.jsonl:3: answer: expected a non-empty string, number or list, got {'a': 1}",
        "<src>/gear_rotation/gear_rotation.jsonl:4: task: unknown MIRA task 'no such task'",
        "<src>/gear_rotation/gear_rotation.jsonl:4: domain: unknown domain 'XY' (known: EG, PBR, ASLP, CT)",
        "<src>/gear_rotation/gear_rotation.jsonl:4: image_path[1]: image not found: <src>/gear_rotation/image/8.png",
        "<src>/gear_rotation/gear_rotation.jsonl:5: answer: mcq gold 'Z' is not option letters among the 2 choices",
        "<src>/gear_rotation/gear_rotation.jsonl:6: uid: expected a non-empty string or number, got True",
        "<src>/gear_rotation/gear_rotation.jsonl:6: image_path: expected a path or a list of paths, got ''",
        "<src>/gear_rotation/gear_rotation.jsonl:6: cot: expected a path or a list of paths, got 7",
        "<src>/gear_rotation/gear_rotation.jsonl:6: answer_type: unknown answer type 'number' (known: mcq, numeric, expression, text, multi-part, structured, open)",
        "<src>/gear_rotation/gear_rotation.jsonl:7: uid: missing",
        "<src>/gear_rotation/gear_rotation.jsonl:7: answer: missing",
        "<src>/gear_rotation/gear_rotation.jsonl:7: image_path: missing",
        "<src>/gear_rotation/gear_rotation.jsonl:8: -: expected a JSON object, got list",
        "<src>/gear_rotation/gear_rotation.jsonl:9: id: duplicate id 'gear_rotation/1' (first at <src>/gear_rotation/gear_rotation.jsonl:1)",
        "<src>/not_a_task/x.jsonl:1: task: folder 'not_a_task' is not one of the 20 MIRA tasks and the record names none",
        "<src>/not_a_task/x.jsonl:1: image_path: image not found: <src>/not_a_task/gone.png",
    ],
    "c2rbench": [
        "<src>/c2rbench.json:10: Level: task 002: 4 is outside 1–3",
        "<src>/c2rbench.json:18: Final answer: task 003: missing or empty",
        "<src>/c2rbench.json:26: File_name: task 004: attachment 'gone.pdf' not found (tried <src>/gone.pdf, <src>/files/gone.pdf)",
        "<src>/c2rbench.json:34: caption: task 005: a caption needs exactly one image attachment and must be text",
        "<src>/c2rbench.json:43: Annotator Metadata: task 006: expected an object (Steps, Number of steps)",
        "<src>/c2rbench.json:52: Annotator Metadata.Steps: task 007: expected text or a list of texts",
        "<src>/c2rbench.json:66: Number of steps: task 008: expected an integer, got 'eight'",
        "<src>/c2rbench.json:75: Question: task 009: expected text, got list",
        "<src>/c2rbench.json:85: Level: task 010: expected an integer, got None",
        "<src>/c2rbench.json:93: task_id: task 001: duplicate id '001' (first at <src>/c2rbench.json:2)",
    ],
    "morphobench": [
        "<src>/Morpho_R_Lite/data.jsonl:2: answer: index 2: expected a single answer, got list",
        "<src>/Morpho_R_Lite/data.jsonl:3: image_base64: index 3: image does not decode as base64 (Only base64 data is allowed)",
        "<src>/Morpho_R_Lite/data.jsonl:4: image_base64: index 4: data URL is not base64-encoded",
        "<src>/Morpho_R_Lite/data.jsonl:5: captions: index 5: 2 caption(s) for 1 image(s)",
        "<src>/Morpho_R_Lite/data.jsonl:6: image_path: index 6: image file not found: <src>/Morpho_R_Lite/gone.png",
        "<src>/Morpho_R_Lite/data.jsonl:7: question: index 7: expected text",
        "<src>/Morpho_R_Lite/data.jsonl:8: choices: index 8: expected a list of options (or its JSON text)",
        "<src>/Morpho_R_Lite/data.jsonl:9: index: index ?: missing",
        "<src>/Morpho_R_Lite/data.jsonl:10: answer: index 9: missing or empty",
        "<src>/Morpho_R_Lite/data.jsonl:11: caption: index 10: expected text (caption) or a list of texts (captions)",
        "<src>/Morpho_R_Lite/data.jsonl:12: index: index 1: duplicate id 'Morpho_R_Lite-1' (first at <src>/Morpho_R_Lite/data.jsonl:1)",
        "<src>/Morpho_P_v0/train-00000-of-00001.parquet row 1: level: index 1: expected a level, got a boolean",
        "<src>/Morpho_P_v0/train-00000-of-00001.parquet row 2: question: index 2: missing or empty",
    ],
}


def problems(bench: str, tmp_path: Path) -> list[str]:
    src = RELEASES[bench](tmp_path / "release")
    out = tmp_path / "out" / "x.jsonl"
    with pytest.raises(DataError) as e:
        convert(bench, src, out)
    assert not out.exists()
    return [p.replace(str(src), "<src>") for p in e.value.problems]


@pytest.mark.parametrize("bench", list(RELEASES))
def test_every_problem_of_a_malformed_release_is_reported_in_order(bench: str, tmp_path: Path) -> None:
    assert problems(bench, tmp_path) == EXPECTED[bench]
