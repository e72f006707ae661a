"""Every converter reads the Hub's form of its release (parquet whose images are Image-feature structs) and
the official repositories' own layouts."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from data.convert import convert
from data.jsonl import DataError, read_jsonl
from tests.hub_release import RGB, image, pixel, png_bytes, write_parquet


# ---------------------------------------------------------------- OMIBench

OMI_ROWS = [
    {"id": "physics-1", "subject": "physics", "answer_type": "mcq", "question": "Compare [IMAGE0] and [IMAGE1].",
     "image_list": ["p1a.png", "p1b.png"], "choice_list": ["up", "down"], "answer": ["B"], "solution": "Down.",
     "images": [image("red", "p1a.png"), image("green", "p1b.png")]},
    # the same picture twice (tags count positions), and one shared with physics-1
    {"id": "biology-2", "subject": "biology", "answer_type": "open", "question": "[IMAGE0] [IMAGE1] [IMAGE2] How many?",
     "image_list": ["b2.png", "b2.png", "p1b.png"], "choice_list": [], "answer": ["3"], "solution": "Three.",
     "images": [image("blue", "b2.png"), image("blue", "b2.png"), image("green", "p1b.png")]},
]


def test_omibench_hub_parquet_writes_every_image(tmp_path: Path) -> None:
    src = tmp_path / "OMIBench"
    write_parquet(src / "data" / "test-00000-of-00001.parquet", OMI_ROWS)
    out = tmp_path / "omibench" / "test.jsonl"
    recs = convert("omibench", src, out)
    assert recs == read_jsonl(out)
    p1, b2 = recs
    assert [pixel(out.parent / p) for p in p1["images"]] == [RGB["red"], RGB["green"]]
    assert [pixel(out.parent / p) for p in b2["images"]] == [RGB["blue"], RGB["blue"], RGB["green"]]
    assert b2["images"][0] == b2["images"][1] and b2["images"][2] == p1["images"][1]  # each picture once
    assert len(list((out.parent / "test_files").iterdir())) == 3
    assert p1["answer"] == ["B"] and p1["answer_type"] == "mcq" and p1["choices"] == ["up", "down"]
    assert b2["answer"] == ["3"] and b2["question"].startswith("[IMAGE0] [IMAGE1] [IMAGE2]")
    assert "extra" not in p1  # image_list and images are read, not left over


def test_omibench_hub_parquet_without_image_list(tmp_path: Path) -> None:
    rows = [{k: v for k, v in r.items() if k != "image_list"} for r in OMI_ROWS]
    src = tmp_path / "OMIBench"
    write_parquet(src / "test.parquet", rows)
    recs = convert("omibench", src, tmp_path / "o" / "test.jsonl")
    assert [len(r["images"]) for r in recs] == [2, 3]


def test_omibench_hub_parquet_image_count_must_match_image_list(tmp_path: Path) -> None:
    rows = [dict(OMI_ROWS[0], images=[image("red", "p1a.png")])]
    src = tmp_path / "OMIBench"
    path = write_parquet(src / "test.parquet", rows)
    out = tmp_path / "o" / "test.jsonl"
    with pytest.raises(DataError) as e:
        convert("omibench", src, out)
    assert e.value.problems == [f"{path} row 1: images: 1 image(s) for 2 name(s) in image_list"]
    assert not out.exists()


def test_omibench_repository_root(tmp_path: Path) -> None:
    """The GitHub repository keeps the release under dataset/: its root converts as is."""
    root = tmp_path / "OMIBench"
    (root / "dataset" / "images").mkdir(parents=True)
    for row in OMI_ROWS:
        for name, picture in zip(row["image_list"], row["images"]):
            (root / "dataset" / "images" / name).write_bytes(picture["bytes"])
    lines = [{k: v for k, v in r.items() if k != "images"} for r in OMI_ROWS]
    (root / "dataset" / "test.jsonl").write_text("".join(json.dumps(r) + "\n" for r in lines))
    (root / "omi_bench.py").write_text("# the repository's CLI\n")
    out = tmp_path / "omibench" / "test.jsonl"
    recs = convert("omibench", root, out)
    assert [r["id"] for r in recs] == ["physics-1", "biology-2"]
    assert [pixel(out.parent / p) for p in recs[1]["images"]] == [RGB["blue"], RGB["blue"], RGB["green"]]
    assert recs[0]["images"][0] == "../OMIBench/dataset/images/p1a.png"  # referenced in place


# ---------------------------------------------------------------- Think360

def test_think360_hub_parquet_with_image_structs(tmp_path: Path) -> None:
    src = tmp_path / "Think360"
    write_parquet(src / "data" / "testmini-00000-of-00001.parquet", [
        {"id": 1, "question": "How many squares?", "answer": "5", "choices": [], "image": [image("red", "1.png")],
         "difficulty": "hard", "skills": ["Trial-and-Error"], "answer_type": "numerical"},
        {"id": 2, "question": "Which path? [IMAGE0] [IMAGE1]", "answer": "B", "choices": ["left", "right"],
         "image": [image("green", "2a.png"), image("blue", "2b.png")], "difficulty": "Easy",
         "skills": ["Branch-and-Bound"], "answer_type": "multiple-choice"},
    ])
    (src / "README.md").write_text("dataset card\n")
    out = tmp_path / "think360" / "testmini.jsonl"
    one, two = convert("think360", src, out)
    assert [pixel(out.parent / p) for p in one["images"]] == [RGB["red"]]
    assert [pixel(out.parent / p) for p in two["images"]] == [RGB["green"], RGB["blue"]]
    assert one["id"] == "1" and one["answer"] == ["5"] and one["answer_type"] == "numeric"
    assert one["difficulty"] == "Hard"
    assert two["answer"] == ["B"] and two["answer_type"] == "mcq" and two["choices"] == ["left", "right"]
    assert "extra" not in one


# ---------------------------------------------------------------- MIRA

def test_mira_hub_parquet_per_task_with_image_structs(tmp_path: Path) -> None:
    src = tmp_path / "MIRA"
    write_parquet(src / "billiards" / "test-00000-of-00001.parquet", [
        {"uid": 1, "image_path": image("red", "1.png"), "question": "Which pocket?", "answer": 4,
         "cot_images": [image("green", "1_1.png"), image("blue", "1_2.png")]},
        {"uid": 2, "image_path": image("yellow", "2.png"), "question": "Which pocket?", "answer": 2,
         "cot_images": []},
    ])
    # A configuration whose pictures are embedded but whose visual-CoT images stay files in cot/.
    gear = write_parquet(src / "gear_rotation" / "data" / "test-00000-of-00001.parquet", [
        {"uid": "1.1", "image_path": image("blue", "7.png"), "question": "Clockwise?", "answer": "yes"},
    ])
    (gear.parent / "cot").mkdir()
    (gear.parent / "cot" / "7_1.png").write_bytes(png_bytes("red"))
    (src / ".cache").mkdir()  # huggingface_hub's bookkeeping in a downloaded folder
    out = tmp_path / "mira" / "test.jsonl"
    b1, b2, g = convert("mira", src, out)
    assert (b1["id"], b1["task"], b1["domain"]) == ("billiards/1", "Billiards", "PBR")
    assert [pixel(out.parent / p) for p in b1["images"]] == [RGB["red"]]
    assert [pixel(out.parent / p) for p in b1["cot_images"]] == [RGB["green"], RGB["blue"]]
    assert b1["answer"] == ["4"] and b1["extra"] == {"uid": 1}
    assert [pixel(out.parent / p) for p in b2["images"]] == [RGB["yellow"]] and "cot_images" not in b2
    assert (g["id"], g["task"]) == ("gear_rotation/1.1", "Gear Rotation")
    assert [pixel(out.parent / p) for p in g["images"]] == [RGB["blue"]]
    assert g["cot_images"] == ["../MIRA/gear_rotation/data/cot/7_1.png"]


# ---------------------------------------------------------------- C²RBench

def test_c2rbench_parquet_with_image_structs(tmp_path: Path) -> None:
    src = tmp_path / "C2Rbench"
    write_parquet(src / "data" / "test-00000-of-00001.parquet", [
        {"task_id": "02001", "Question": "图中有几个三角形？", "Label": "Multimodal", "Level": 1,
         "Final answer": "3", "File_name": image("red", "02001.png"),
         "Annotator Metadata": {"Steps": "1.数\n2.加", "Number of steps": "2"}},
        {"task_id": "01002", "Question": "1+1=?", "Label": "Math", "Level": 2, "Final answer": "2",
         "File_name": None, "Annotator Metadata": {"Steps": "1.加", "Number of steps": "1"}},
    ])
    out = tmp_path / "c2rbench" / "test.jsonl"
    pic, text = convert("c2rbench", src, out)
    assert [pixel(out.parent / p) for p in pic["images"]] == [RGB["red"]] and pic["files"] == pic["images"]
    assert (pic["id"], pic["category"], pic["level"], pic["num_steps"]) == ("02001", "Multimodal", 1, 2)
    assert pic["answer"] == ["3"] and pic["answer_type"] == "numeric" and pic["steps"] == "1.数\n2.加"
    assert text["images"] == [] and "files" not in text and text["answer"] == ["2"]
    assert "extra" not in pic and "extra" not in text


def test_c2rbench_image_column_beside_file_attachments(tmp_path: Path) -> None:
    src = tmp_path / "C2Rbench"
    (src / "files").mkdir(parents=True)
    (src / "files" / "t.csv").write_text("a,b\n1,2\n")
    write_parquet(src / "tasks.parquet", [
        {"task_id": "08001", "Question": "表中 a+b？", "Label": "File Processing", "Level": "1",
         "Final answer": "3", "File_name": "t.csv", "images": [image("green", "g.png"), image("blue", "b.png")]},
    ])
    out = tmp_path / "c" / "test.jsonl"
    (rec,) = convert("c2rbench", src, out)
    assert [pixel(out.parent / p) for p in rec["images"]] == [RGB["green"], RGB["blue"]]
    assert rec["files"] == ["../C2Rbench/files/t.csv", *rec["images"]]


# ---------------------------------------------------------------- MorphoBench

def test_morphobench_hub_parquet_with_image_structs(tmp_path: Path) -> None:
    src = tmp_path / "MorphoBench"
    for split, color in (("Morpho_R_v0", "red"), ("Morpho_P_Perturbed", "blue")):
        write_parquet(src / split / "train-00000-of-00001.parquet", [
            {"index": 1, "question": "Which is odd?\nA. x\nB. y", "answer": "B", "image": image(color, "1.png"),
             "hint": "", "category": "Mathematics"},
            {"index": 2, "question": "2+2?", "answer": "4", "image": image("red", "2.png"), "hint": "",
             "category": "Other"},
        ])
    out = tmp_path / "morphobench" / "test.jsonl"
    recs = convert("morphobench", src, out)
    assert [r["id"] for r in recs] == ["Morpho_R_v0-1", "Morpho_R_v0-2", "Morpho_P_Perturbed-1", "Morpho_P_Perturbed-2"]
    assert [pixel(out.parent / r["images"][0]) for r in recs] == [RGB["red"], RGB["red"], RGB["blue"], RGB["red"]]
    assert len({r["images"][0] for r in recs}) == 2  # the same picture is written once
    assert recs[0]["answer"] == ["B"] and recs[0]["answer_type"] == "mcq" and recs[0]["has_inline_choices"]
    assert recs[1]["answer"] == ["4"] and recs[1]["answer_type"] == "numeric"
