"""MIRA converter and demo: both layouts, task/domain table, CoT discovery, malformed input, the demo."""
from __future__ import annotations

import hashlib
import io
import json
import os
from collections import Counter
from pathlib import Path

import pytest
from PIL import Image

from data.convert import convert
from data.benchmarks.mira import TASKS
from data.converters.mira import canonical_task
from data.demo import mira as demo
from data.jsonl import DataError, read_jsonl
from data.validate import validate_file


def png(path: Path, color: str = "red") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    buf = io.BytesIO()
    Image.new("RGB", (8, 6), color).save(buf, format="PNG")
    path.write_bytes(buf.getvalue())


def write_jsonl(path: Path, records: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")


def no_output(out: Path) -> bool:
    return not out.exists() and not [p for p in out.parent.iterdir() if p.name.startswith((out.stem, f".{out.stem}"))]


def rel(path: Path, out: Path) -> str:
    return os.path.relpath(path, out.parent)


# ---------------------------------------------------------------- the task table

def test_twenty_tasks_in_four_domains() -> None:
    assert len(TASKS) == 20 and len({name for name, _, _ in TASKS}) == 20
    assert Counter(domain for _, domain, _ in TASKS) == {"EG": 6, "PBR": 3, "ASLP": 6, "CT": 5}
    domain = {name: d for name, d, _ in TASKS}
    # as in Tables 4-10 of the paper
    assert domain["Mirror Clock"] == "PBR" and domain["Unfolded Cube"] == "ASLP"
    assert domain["Paper Airplane"] == "CT" and domain["Cubes Missing"] == "EG"
    assert domain["Trailer Cubes Missing"] == "ASLP" and domain["Electric Charge"] == "PBR"


@pytest.mark.parametrize("spelling, name", [
    ("rolling_dice_top", "Rolling Dice: Top"), ("Rolling Dice (Top)", "Rolling Dice: Top"),
    ("Rolling Dice: Sum", "Rolling Dice: Sum"), ("defuse_a_bomb", "Defuse A Bomb"),
    ("Defuse Bomb", "Defuse A Bomb"), ("multi-piece puzzle", "Multi-piece Puzzle"), ("PUZZLE", "Puzzle"),
    ("trailer cube count", "Trailer Cubes Count"), ("chess", None),
])
def test_task_spellings(spelling: str, name: str | None) -> None:
    assert canonical_task(spelling) == name


# ---------------------------------------------------------------- layout A: one folder per task

@pytest.fixture()
def folder_release(tmp_path: Path) -> Path:
    root = tmp_path / "MIRA"
    t = root / "rolling_dice_top"
    png(t / "image" / "1.png")
    png(t / "image" / "11.png")
    for name in ("1_1.png", "1_2.png", "1_10.png", "11_1.png"):  # 1_10 must come after 1_2
        png(t / "cot" / name)
    write_jsonl(t / "rolling_dice_top.jsonl", [
        {"uid": 1, "image_path": "image/1.png", "question": "Top?", "answer": 5, "source": "x"},
        # the authors' files name images by path relative to elsewhere; the name and stem still resolve
        {"uid": 11, "image_path": "/somewhere/else/11.jpg", "question": "Top?", "answer": "<answer>4</answer>"},
    ])
    g = root / "gear_rotation"
    png(g / "image" / "1.png")
    png(g / "cot" / "1_1.png")
    write_jsonl(g / "data.jsonl", [
        {"uid": 1.1, "image_path": "image/1.png", "question": "Q1", "answer": 1},
        {"uid": 1.2, "image_path": "image/1.png", "question": "Q2", "answer": 2},
    ])
    o = root / "overlap"
    png(o / "image" / "1.png")
    write_jsonl(o / "overlap.jsonl", [{"uid": 1, "image_path": "image/1.png", "question": "Pair?", "answer": "AC",
                                       "task": "Overlap", "domain": "Euclidean Geometry"}])
    (root / "README.md").write_text("not a task folder")
    return root


def test_task_folders(folder_release: Path, tmp_path: Path) -> None:
    out = tmp_path / "unified" / "mira.jsonl"
    records = convert("mira", folder_release, out)
    recs = {r["id"]: r for r in read_jsonl(out)}
    assert [r["id"] for r in records] == ["gear_rotation/1.1", "gear_rotation/1.2", "overlap/1",
                                          "rolling_dice_top/1", "rolling_dice_top/11"]
    dice, dice11 = recs["rolling_dice_top/1"], recs["rolling_dice_top/11"]
    t = folder_release / "rolling_dice_top"
    assert dice["task"] == "Rolling Dice: Top" and dice["domain"] == "CT"
    assert dice["images"] == [rel(t / "image" / "1.png", out)]
    # CoT found by stem, natural order; 11_1 belongs to item 11 only
    assert dice["cot_images"] == [rel(t / "cot" / n, out) for n in ("1_1.png", "1_2.png", "1_10.png")]
    assert dice11["images"] == [rel(t / "image" / "11.png", out)]
    assert dice11["cot_images"] == [rel(t / "cot" / "11_1.png", out)]
    assert dice["answer"] == ["5"] and dice["answer_type"] == "numeric"
    assert dice11["answer"] == ["4"]  # <answer> wrapper removed
    assert dice["extra"] == {"uid": 1, "source": "x"} and dice11["extra"] == {"uid": 11}
    # Gear Rotation keeps the float uids that pair its questions
    g1, g2 = recs["gear_rotation/1.1"], recs["gear_rotation/1.2"]
    assert (g1["extra"]["uid"], g2["extra"]["uid"]) == (1.1, 1.2)
    assert g1["cot_images"] == g2["cot_images"] and g1["task"] == "Gear Rotation"
    # letters without choices are a text answer (Overlap's "AC"); an agreeing domain is accepted
    ov = recs["overlap/1"]
    assert ov["answer"] == ["AC"] and ov["answer_type"] == "text" and ov["choices"] == [] and ov["domain"] == "EG"
    assert "cot_images" not in ov  # none in the release: absent, not empty
    assert all(r["benchmark"] == "mira" for r in records)
    assert not (out.parent / "mira_files").exists()


# ---------------------------------------------------------------- layout B: one file

def single_file_records() -> list[dict]:
    return [
        {"id": "a1", "task": "Mirror Clock", "image": "img/a.png", "question": "Time?",
         "choices": ["9:40", "2:20", "10:40"], "answer": "<answer>A</answer>",
         "cot_images": ["steps/a1.png", "steps/a2.png"], "caption": "A mirrored clock.",
         "cot_captions": ["Unmirrored.", "Read."], "level": 2},
        {"id": "a2", "task_name": "rolling_dice_sum", "image_path": "img/a.png", "question": "Sum?",
         "answer": "11", "intermediate_images": "steps/a1.png"},
        {"id": "a3", "task": "Localizer", "image": "img/a.png", "question": "Where?",
         "answer": "[1, (2, 3)]; [2, (1, 1)]", "visual_cot": ["steps/a2.png"]},
        {"id": "a4", "task": "Billiards", "image": "img/a.png", "question": "Pocket?", "answer": 3.5,
         "choices": {"B": "x", "A": "y"}},
        {"id": "a5", "task": "Unfolded Cube", "image": "img/a.png", "question": "Which net?", "answer": "b",
         "answer_type": "mcq"},
    ]


def write_single(root: Path, records: list[dict], name: str = "data.jsonl") -> Path:
    png(root / "img" / "a.png")
    png(root / "steps" / "a1.png")
    png(root / "steps" / "a2.png")
    if name.endswith(".json"):
        (root / name).write_text(json.dumps(records, indent=1))
    else:
        write_jsonl(root / name, records)
    return root


@pytest.mark.parametrize("name", ["data.jsonl", "data.json"])
def test_single_file(tmp_path: Path, name: str) -> None:
    root = write_single(tmp_path / "MIRA", single_file_records(), name)
    out = tmp_path / "out" / "mira.jsonl"
    convert("mira", root, out)
    recs = {r["id"]: r for r in read_jsonl(out)}
    a1, a2, a3, a4, a5 = (recs[f"a{k}"] for k in range(1, 6))
    assert (a1["task"], a1["domain"]) == ("Mirror Clock", "PBR")
    assert a1["answer"] == ["A"] and a1["answer_type"] == "mcq" and a1["choices"] == ["9:40", "2:20", "10:40"]
    assert a1["cot_images"] == [rel(root / "steps" / "a1.png", out), rel(root / "steps" / "a2.png", out)]
    assert a1["captions"] == ["A mirrored clock."]
    assert a1["extra"] == {"id": "a1", "level": 2} and a1["cot_captions"] == ["Unmirrored.", "Read."]
    assert (a2["task"], a2["domain"], a2["answer_type"]) == ("Rolling Dice: Sum", "CT", "numeric")
    assert a2["cot_images"] == [rel(root / "steps" / "a1.png", out)]
    assert (a3["task"], a3["domain"], a3["answer_type"]) == ("Localizer", "EG", "text")
    assert a3["cot_images"] == [rel(root / "steps" / "a2.png", out)]
    assert a4["answer"] == ["3.5"] and a4["answer_type"] == "numeric" and a4["choices"] == ["y", "x"]
    assert (a5["domain"], a5["answer_type"], a5["answer"]) == ("ASLP", "mcq", ["B"])


def test_src_may_be_the_file(tmp_path: Path) -> None:
    root = write_single(tmp_path / "MIRA", single_file_records()[:2], "items.jsonl")
    got = convert("mira", root / "items.jsonl", tmp_path / "o.jsonl")
    assert [r["id"] for r in got] == ["a1", "a2"]


# ---------------------------------------------------------------- malformed input

@pytest.mark.parametrize("change, field, words", [
    ({"task": "Chess"}, "task", "unknown MIRA task 'Chess'"),
    ({"task": None}, "task", "missing"),
    ({"domain": "CT"}, "domain", "belongs to PBR"),
    ({"domain": "Astronomy"}, "domain", "unknown domain"),
    ({"cot_images": ["steps/a1.png", "steps/nope.png"]}, "cot_images[1]", "image not found"),
    ({"image": "img/nope.png"}, "image", "image not found"),
    ({"question": None}, "question", "missing"),
    ({"answer": ""}, "answer", "non-empty"),
    ({"answer": "Z"}, "answer", None),  # letters outside the choices: kept as text, not an error
    ({"answer_type": "mcq", "answer": "D"}, "answer", "among the 3 choices"),
    ({"answer_type": "essay"}, "answer_type", "unknown answer type"),
    ({"cot_captions": ["one"]}, "cot_captions", "one caption per visual-CoT image (2 found)"),
    ({"captions": ["x", "y"]}, "caption", "2 caption(s) for 1 input image(s)"),
])
def test_malformed_record_names_file_line_field(tmp_path: Path, change: dict, field: str, words: str | None) -> None:
    good = single_file_records()[0]
    bad = {**good, "id": "bad"}
    for key, value in change.items():
        if key == "captions":
            del bad["caption"]
        if value is None:
            bad.pop(key, None)
        else:
            bad[key] = value
    if field == "caption":
        field = "captions"
    root = write_single(tmp_path / "MIRA", [good, bad])
    out = tmp_path / "out" / "mira.jsonl"
    out.parent.mkdir()
    if words is None:
        (rec,) = [r for r in convert("mira", root, out) if r["id"] == "bad"]
        assert rec["answer"] == ["Z"] and rec["answer_type"] == "text"
        return
    with pytest.raises(DataError) as err:
        convert("mira", root, out)
    assert len(err.value.problems) == 1, err.value.problems
    message = err.value.problems[0]
    assert message.startswith(f"{root / 'data.jsonl'}:2: {field}: "), message
    assert words in message
    assert no_output(out)


def test_folder_layout_errors(folder_release: Path, tmp_path: Path) -> None:
    # a record naming another task than its folder, and a folder that is no task
    path = folder_release / "rolling_dice_top" / "rolling_dice_top.jsonl"
    path.write_text(path.read_text() + json.dumps({"uid": 2, "image_path": "image/1.png", "question": "q",
                                                   "answer": 1, "task": "Billiards"}) + "\n")
    write_jsonl(folder_release / "chess" / "chess.jsonl", [{"uid": 1, "image_path": "x.png", "question": "q",
                                                            "answer": 1}])
    png(folder_release / "chess" / "x.png")
    # the same uid twice in one task
    write_jsonl(folder_release / "overlap" / "more.jsonl", [{"uid": 1, "image_path": "image/1.png",
                                                            "question": "q", "answer": "AB"}])
    out = tmp_path / "o.jsonl"
    with pytest.raises(DataError) as err:
        convert("mira", folder_release, out)
    assert err.value.problems == [
        f"{folder_release / 'chess' / 'chess.jsonl'}:1: task: folder 'chess' is not one of the 20 MIRA tasks "
        "and the record names none",
        # a folder's files are read in name order: more.jsonl before overlap.jsonl
        f"{folder_release / 'overlap' / 'overlap.jsonl'}:1: id: duplicate id 'overlap/1' "
        f"(first at {folder_release / 'overlap' / 'more.jsonl'}:1)",
        f"{path}:3: task: 'Billiards' but the record is in folder 'rolling_dice_top' (Rolling Dice: Top)",
    ]
    assert no_output(out)


def test_empty_release(tmp_path: Path) -> None:
    (tmp_path / "MIRA" / "images").mkdir(parents=True)
    with pytest.raises(DataError, match="no data.jsonl/data.json and no <task>/ folder"):
        convert("mira", tmp_path / "MIRA", tmp_path / "o.jsonl")


# ---------------------------------------------------------------- the demo, end to end

def test_demo_generates_converts_and_validates(tmp_path: Path) -> None:
    src = demo.generate(tmp_path / "official" / "mira")
    out = tmp_path / "mira.jsonl"
    records = convert("mira", src, out)
    n, problems = validate_file(out)
    assert problems == [] and n == len(records) == 20
    by_id = {r["id"]: r for r in records}

    assert {r["domain"] for r in records} == {"EG", "PBR", "ASLP", "CT"}
    assert Counter(r["task"] for r in records) == {"Cubes Count": 3, "Convex Hull": 2, "Mirror Clock": 3,
                                                   "Trailer Cubes Count": 2, "Rolling Dice: Top": 3,
                                                   "Rolling Dice: Two": 3, "Gear Rotation": 4}
    for r in records:
        assert len(r["images"]) == 1 and 1 <= len(r["cot_images"]) <= 3
        assert len(r["captions"]) == 1 and r["captions"][0]
        assert len(r["cot_captions"]) == len(r["cot_images"]) and all(r["cot_captions"])
        parts = 2 if r["task"] == "Rolling Dice: Two" else 1
        assert len(r["answer"]) == parts and all(len(a) <= 5 for a in r["answer"])
    assert {len(r["cot_images"]) for r in records} == {1, 2, 3}
    # computed answers
    assert [by_id[f"cubes_count/{k}"]["answer"] for k in (1, 2, 3)] == [["6"], ["8"], ["7"]]
    assert [by_id[f"convex_hull/{k}"]["answer"] for k in (1, 2)] == [["4"], ["5"]]
    assert [by_id[f"rolling_dice_top/{k}"]["answer"] for k in (1, 2, 3)] == [["5"], ["4"], ["2"]]
    # red path east, east, south ends on 5 and black south, east on 4; north 2 vs east 4; east, south 5 vs south 5
    two = [by_id[f"rolling_dice_two/{k}"] for k in (1, 2, 3)]
    assert [r["answer"] for r in two] == [["red", "9"], ["black", "6"], ["same", "10"]]
    assert all(r["answer_type"] == "multi-part" for r in two)
    assert two[0]["cot_captions"] == ["Both dice on their last squares: the red die shows 5 on top, the black die 4."]
    assert [by_id[f"trailer_cubes_count/{k}"]["answer"] for k in (1, 2)] == [["4"], ["10"]]
    assert [by_id[f"gear_rotation/{k}"]["answer"] for k in ("1.1", "1.2", "2.1", "2.2")] == [["1"], ["2"], ["2"], ["1"]]
    clocks = [by_id[f"mirror_clock/{k}"] for k in (1, 2, 3)]
    assert [c["answer"] for c in clocks] == [["A"], ["B"], ["C"]] and all(c["answer_type"] == "mcq" for c in clocks)
    assert [c["choices"]["ABC".index(c["answer"][0])] for c in clocks] == ["9:40", "8:00", "1:45"]
    assert by_id["rolling_dice_top/1"]["cot_captions"] == [
        "After roll 1 (east) the die shows 4 on top.", "After roll 2 (east) the die shows 6 on top.",
        "After roll 3 (south) the die shows 5 on top."]
    # explicit CoT lists (Convex Hull) and stem discovery (the rest) both used
    assert all("/cot/hull_" in r["cot_images"][0] for r in records if r["task"] == "Convex Hull")


def test_demo_helpers() -> None:
    assert demo.mirror_time(2, 20) == (9, 40) and demo.mirror_time(4, 0) == (8, 0)
    assert demo.mirror_time(11, 0) == (1, 0) and demo.mirror_time(6, 0) == (6, 0) and demo.mirror_time(12, 30) == (11, 30)
    assert demo.convex_hull([(0, 0), (2, 0), (4, 0), (2, 2), (0, 4), (1, 1)]) == [(0, 0), (4, 0), (0, 4)]
    state = (1, 2, 3)
    for move in ("east", "west", "south", "north", "north", "south"):
        state = demo.roll(state, move)
    assert state == (1, 2, 3)  # every roll undone by its opposite
    assert demo.roll((1, 2, 3), "east") == (4, 2, 1) and demo.roll((1, 2, 3), "south") == (5, 1, 3)
    assert demo.max_cubes([[3, 1, 0], [1, 2, 1]]) == 10


def test_demo_is_deterministic(tmp_path: Path) -> None:
    def digest(folder: Path) -> dict[str, str]:
        return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
                for p in sorted(folder.rglob("*")) if p.is_file()}

    assert digest(demo.generate(tmp_path / "a")) == digest(demo.generate(tmp_path / "b"))
