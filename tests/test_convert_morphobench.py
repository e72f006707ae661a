"""MorphoBench converter and demo: every accepted release layout, malformed input, the demo end to end."""
from __future__ import annotations

import base64
import io
import json
import os
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from PIL import Image

from data.convert import convert
from data.converters.morphobench import answer_and_type, canonical_split, parse_hints
from data.demo import morphobench as demo
from data.jsonl import DataError, read_jsonl
from data.validate import validate_file


def png_bytes(color: str = "red", size: tuple[int, int] = (8, 6)) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", size, color).save(buf, format="PNG")
    return buf.getvalue()


def data_url(data: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(data).decode("ascii")


def rows() -> list[dict]:
    """Three rows as the Hub parquet holds them: grid + hints + image, numeric text-only, inline MCQ."""
    return [
        {"index": 7, "question": "Find the odd letter.", "hint": "- Look at each row.\n- It is a Q\n  near the left.",
         "answer": "row=2, col=3", "image_base64": data_url(png_bytes()), "caption": "A grid of O with one Q.",
         "discipline": "Engineering", "category": None, "task_type": "PERC"},
        {"index": 8, "question": "What is 6 times 7?", "hint": "", "answer": "42", "image_base64": "",
         "caption": "", "discipline": None, "category": "Mathematics", "task_type": "RSYN"},
        {"index": 9, "question": "Which is a prime?\nA. 4\nB. 7\nC. 9", "hint": "", "answer": "B",
         "image_base64": "", "caption": "", "discipline": "Mathematics", "category": None, "task_type": "RSYN"},
    ]


def write_parquet(path: Path, items: list[dict]) -> None:
    # from_pylist takes its columns from the first row: rows() gives every row every key.
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(items), path)


def no_output(out: Path) -> bool:
    """True when a conversion left nothing behind: no JSONL, no media folder, no staging folder."""
    return not out.exists() and not [p for p in out.parent.iterdir() if p.name.startswith((out.stem, f".{out.stem}"))]


# ---------------------------------------------------------------- accepted layouts

def test_parquet_folder_hub_layout(tmp_path: Path) -> None:
    src = tmp_path / "MorphoBench"
    write_parquet(src / "Morpho_R_Lite" / "train-00000-of-00001.parquet", rows())
    out = tmp_path / "out" / "morpho.jsonl"
    recs = convert("morphobench", src, out)
    assert recs == read_jsonl(out)
    grid, num, mcq = recs

    assert grid["id"] == "Morpho_R_Lite-7"
    assert grid["benchmark"] == "morphobench"
    assert grid["split"] == "Morpho_R_Lite"
    assert grid["hints"] == ["Look at each row.", "It is a Q\nnear the left."]
    assert grid["answer"] == ["row=2, col=3"] and grid["answer_type"] == "structured"
    assert grid["captions"] == ["A grid of O with one Q."]
    assert grid["discipline"] == "Engineering"
    assert grid["extra"] == {"index": 7, "task_type": "PERC"}
    assert len(grid["images"]) == 1 and grid["images"][0].startswith("morpho_files/")
    assert (out.parent / grid["images"][0]).read_bytes() == png_bytes()

    assert num["id"] == "Morpho_R_Lite-8" and num["answer"] == ["42"] and num["answer_type"] == "numeric"
    assert num["images"] == [] and num["hints"] == [] and "captions" not in num
    assert num["category"] == "Mathematics" and num["discipline"] == "Mathematics"  # filled from category

    assert mcq["answer"] == ["B"] and mcq["answer_type"] == "mcq"
    assert mcq["choices"] == [] and mcq["has_inline_choices"] is True
    assert validate_file(out) == (3, [])


def test_same_picture_across_splits_is_written_once(tmp_path: Path) -> None:
    src = tmp_path / "data"
    write_parquet(src / "Morpho_R_v0" / "train-00000-of-00001.parquet", rows()[:1])
    write_parquet(src / "Morpho_P_v0" / "train-00000-of-00001.parquet", rows()[:1])
    out = tmp_path / "all.jsonl"
    recs = convert("morphobench", src, out)
    assert [r["id"] for r in recs] == ["Morpho_R_v0-7", "Morpho_P_v0-7"]  # paper order, same index
    assert recs[0]["images"] == recs[1]["images"]
    assert len(list((tmp_path / "all_files").iterdir())) == 1


def test_arrow_save_to_disk_folder(tmp_path: Path) -> None:
    # datasets' save_to_disk: IPC stream shards plus JSON metadata; a DatasetDict adds a split folder.
    folder = tmp_path / "Morpho_P_v0" / "train"
    folder.mkdir(parents=True)
    table = pa.Table.from_pylist(rows())
    with pa.OSFile(str(folder / "data-00000-of-00001.arrow"), "wb") as sink, pa.ipc.new_stream(sink, table.schema) as w:
        w.write_table(table)
    (folder / "dataset_info.json").write_text(json.dumps({"features": {}}))
    (folder / "state.json").write_text(json.dumps({"_data_files": [{"filename": "data-00000-of-00001.arrow"}]}))
    (tmp_path / "Morpho_P_v0" / "dataset_dict.json").write_text(json.dumps({"splits": ["train"]}))

    for src in (tmp_path / "Morpho_P_v0", folder):  # the whole DatasetDict, or its "train" folder
        out = tmp_path / "o" / "p.jsonl"
        recs = convert("morphobench", src, out)
        assert [r["id"] for r in recs] == ["Morpho_P_v0-7", "Morpho_P_v0-8", "Morpho_P_v0-9"]
        assert recs[0]["hints"] == ["Look at each row.", "It is a Q\nnear the left."]
        assert recs[0]["images"] == ["p_files/" + os.listdir(tmp_path / "o" / "p_files")[0]]


def test_arrow_ipc_file_format(tmp_path: Path) -> None:
    path = tmp_path / "Morpho_R_Complex.arrow"
    table = pa.Table.from_pylist(rows()[1:2])
    with pa.OSFile(str(path), "wb") as sink, pa.ipc.new_file(sink, table.schema) as w:
        w.write_table(table)
    recs = convert("morphobench", path, tmp_path / "c.jsonl")
    assert recs[0]["id"] == "Morpho_R_Complex-8" and recs[0]["answer"] == ["42"]


def test_json_with_Hints_and_image_paths(tmp_path: Path) -> None:
    (tmp_path / "rel" / "imgs").mkdir(parents=True)
    (tmp_path / "rel" / "imgs" / "a.png").write_bytes(png_bytes("blue"))
    items = [
        {"index": 1, "question": "Q1", "Hints": "- first hint\n- second hint", "answer": "5",
         "image_path": "imgs/a.png", "caption": "a blue square", "subject": "Physics", "level": "3"},
        {"index": 2, "question": "Q2", "Hints": ["one", " two "], "answer": "x = 2",
         "image": {"bytes": png_bytes("green"), "path": None}},
    ]
    src = tmp_path / "rel" / "Morpho-R(Complex).json"
    src.write_text(json.dumps([{**items[0]}, {**items[1], "image": {"bytes": None, "path": "imgs/a.png"}}], indent=2))
    out = tmp_path / "out" / "j.jsonl"
    a, b = convert("morphobench", src, out)
    assert a["id"] == "Morpho_R_Complex-1" and a["split"] == "Morpho_R_Complex"
    assert a["hints"] == ["first hint", "second hint"]
    assert a["images"] == [os.path.relpath(tmp_path / "rel" / "imgs" / "a.png", out.parent)]  # referenced, not copied
    assert a["captions"] == ["a blue square"]
    assert a["subject"] == "Physics" and a["level"] == 3
    assert b["hints"] == ["one", "two"] and b["answer_type"] == "open"
    assert b["images"] == a["images"]  # HF Image struct with a path only
    assert not (out.parent / "j_files").exists()


def test_jsonl_split_field_options_and_answer_kinds(tmp_path: Path) -> None:
    folder = tmp_path / "Morpho_P_Perturbed"
    folder.mkdir()
    lines = [
        {"index": 1, "question": "Pick one.", "answer": "A", "split": "train"},  # no options: open
        {"index": 2, "question": "Pick one.", "options": ["red", "blue"], "answer": "B"},
        {"index": 3, "question": "Pick one.", "choices": {"A": "cat", "B": "dog"}, "answer": "dog"},
        {"index": 4, "question": "Value?", "answer": -2.5},
        {"index": 5, "question": "Ratio?", "answer": "3/4", "split": "lite", "hint": None},
        {"index": 6, "question": "Which two?\n(A) 1 (B) 2 (C) 3", "answer": "A, C"},
    ]
    (folder / "items.jsonl").write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    recs = {r["extra"]["index"]: r for r in convert("morphobench", folder, tmp_path / "l.jsonl")}

    assert recs[1]["answer_type"] == "open" and recs[1]["split"] == "Morpho_P_Perturbed"
    assert recs[1]["extra"]["split"] == "train"  # the HF split name, overridden by the folder, is kept
    assert "hints" not in recs[1]
    assert (recs[2]["choices"], recs[2]["answer"], recs[2]["answer_type"]) == (["red", "blue"], ["B"], "mcq")
    assert (recs[3]["choices"], recs[3]["answer"], recs[3]["answer_type"]) == (["cat", "dog"], ["B"], "mcq")
    assert recs[4]["answer"] == ["-2.5"] and recs[4]["answer_type"] == "numeric"
    assert recs[5]["answer_type"] == "open"
    assert recs[5]["split"] == "Morpho_R_Lite" and recs[5]["id"] == "Morpho_R_Lite-5"  # a field naming a split wins
    assert recs[5]["hints"] == []
    assert recs[6]["answer"] == ["A", "C"] and recs[6]["answer_type"] == "mcq"


def test_tsv_of_the_adaption_scripts(tmp_path: Path) -> None:
    # Columns read by the authors' adaption/Agent_reasoning.py.
    png_path = tmp_path / "img" / "1.png"
    png_path.parent.mkdir()
    png_path.write_bytes(png_bytes())
    header = ["index", "question", "hint", "answer", "category", "task_type", "sub_task_types", "split", "image_path"]
    row = ["12", "How many?", "- count them", "3", "Mathematics", "PERC", "COUNT", "Lite", "img/1.png"]
    (tmp_path / "data.tsv").write_text("\t".join(header) + "\n" + "\t".join(row) + "\n")
    (rec,) = convert("morphobench", tmp_path / "data.tsv", tmp_path / "t.jsonl")
    assert rec["id"] == "Morpho_R_Lite-12" and rec["hints"] == ["count them"]
    assert rec["images"] == ["img/1.png"] and rec["answer_type"] == "numeric"
    assert rec["discipline"] == "Mathematics"
    assert rec["extra"] == {"index": "12", "task_type": "PERC", "sub_task_types": "COUNT"}


def test_helpers() -> None:
    assert parse_hints("- a\n- b") == ["a", "b"]
    assert parse_hints("Hints:\n- a\n  more\n* b\n1. c") == ["Hints:", "a\nmore", "b", "c"]
    assert parse_hints("just one hint") == ["just one hint"]
    assert parse_hints("") == [] and parse_hints(None) == [] and parse_hints(float("nan")) == []
    assert canonical_split("Morpho_R_v0") == "Morpho_R_v0"
    assert canonical_split("morpho-p (v0)") == "Morpho_P_v0"
    assert canonical_split("MORPHO-R(Lite)") == "Morpho_R_Lite"
    assert canonical_split("perturbed") == "Morpho_P_Perturbed"
    assert canonical_split("v0") == "v0"  # R(v0) and P(v0) differ: no family is guessed
    assert canonical_split("train") is None and canonical_split("delight") is None
    assert answer_and_type(" row = 3 , col = 11 ", "", []) == (["row = 3 , col = 11"], "structured", False)
    assert answer_and_type("C", "Q\nA) x\nB) y\nC) z", []) == (["C"], "mcq", True)
    assert answer_and_type("D", "Q\nA) x\nB) y\nC) z", []) == (["D"], "open", False)  # D is not listed
    assert answer_and_type("1e-3", "", []) == (["1e-3"], "numeric", False)


# ---------------------------------------------------------------- malformed input

def convert_fails(src: Path, out: Path) -> str:
    with pytest.raises(DataError) as e:
        convert("morphobench", src, out)
    assert no_output(out)
    return "\n".join(e.value.problems)


def test_bad_base64_names_file_line_field_and_record(tmp_path: Path) -> None:
    src = tmp_path / "Morpho_R_v0.jsonl"
    good = {"index": 1, "question": "q", "answer": "1", "image_base64": data_url(png_bytes())}
    bad = {"index": 5, "question": "q", "answer": "1", "image_base64": "data:image/png;base64,@@not*base64@@"}
    src.write_text(json.dumps(good) + "\n" + json.dumps(bad) + "\n")
    msg = convert_fails(src, tmp_path / "out" / "x.jsonl")
    assert f"{src}:2: image_base64: index 5:" in msg and "base64" in msg


def test_base64_that_is_not_an_image(tmp_path: Path) -> None:
    src = tmp_path / "items.json"
    src.write_text(json.dumps([{"index": 3, "question": "q", "answer": "1",
                                "image_base64": "data:image/png;base64," + base64.b64encode(b"hello").decode()}]))
    msg = convert_fails(src, tmp_path / "x.jsonl")
    assert f"{src}:1: image_base64: index 3: decoded bytes are not an image" in msg


def test_missing_question_in_parquet_names_the_row(tmp_path: Path) -> None:
    items = rows()
    items[1]["question"] = None
    src = tmp_path / "Morpho_R_v0" / "train.parquet"
    write_parquet(src, items)
    msg = convert_fails(src.parent, tmp_path / "x.jsonl")
    assert f"{src} row 2: question: index 8: missing" in msg


def test_every_bad_row_is_reported(tmp_path: Path) -> None:
    src = tmp_path / "v.jsonl"
    src.write_text("\n".join(json.dumps(x) for x in [
        {"index": 1, "question": "q", "answer": ""},
        {"index": 2, "question": "q", "answer": "1", "image_path": "missing.png"},
        {"index": 3, "question": "q", "answer": "1", "image_base64": data_url(png_bytes()), "captions": ["a", "b"]},
        {"question": "q", "answer": "1"},
        {"index": 5, "question": "q", "answer": "1"},
        {"index": 5, "question": "q", "answer": "2"},
    ]) + "\n")
    msg = convert_fails(src, tmp_path / "x.jsonl")
    assert f"{src}:1: answer: index 1: missing or empty" in msg
    assert f"{src}:2: image_path: index 2: image file not found" in msg
    assert f"{src}:3: captions: index 3: 2 caption(s) for 1 image(s)" in msg
    assert f"{src}:4: index: index ?: missing" in msg
    assert f"{src}:6: index: index 5: duplicate id '5'" in msg


def test_invalid_json_and_empty_folder(tmp_path: Path) -> None:
    src = tmp_path / "broken.json"
    src.write_text('[{"index": 1, "question": "q", "answer": "1"},\n {"index": 2, ')
    assert f"{src}:2: -: invalid JSON" in convert_fails(src, tmp_path / "x.jsonl")
    (tmp_path / "empty").mkdir()
    assert "no data files" in convert_fails(tmp_path / "empty", tmp_path / "y.jsonl")


# ---------------------------------------------------------------- the demo set

def test_demo_generates_converts_and_validates(tmp_path: Path) -> None:
    src = demo.generate(tmp_path / "official")
    assert sorted(p.name for p in src.iterdir()) == sorted(
        ["Morpho_R_v0", "Morpho_R_Lite", "Morpho_R_Complex", "Morpho_P_v0", "Morpho_P_Perturbed"])
    first = pq.read_table(src / "Morpho_R_v0" / demo.FILE).to_pylist()[0]
    assert first["image_base64"].startswith("data:image/png;base64,")

    out = tmp_path / "morphobench.jsonl"
    recs = convert("morphobench", src, out)
    assert validate_file(out) == (len(recs), [])
    by_split: dict[str, list[dict]] = {}
    for r in recs:
        by_split.setdefault(r["split"], []).append(r)
    assert {k: len(v) for k, v in by_split.items()} == {
        "Morpho_R_v0": 6, "Morpho_R_Lite": 6, "Morpho_R_Complex": 6, "Morpho_P_v0": 3, "Morpho_P_Perturbed": 3}
    assert {r["answer_type"] for r in recs} == {"structured", "numeric", "mcq", "open"}
    assert all(r["hints"] == [] for r in by_split["Morpho_R_v0"])
    assert all(len(r["hints"]) >= 1 for r in by_split["Morpho_R_Lite"] + by_split["Morpho_R_Complex"])
    assert all(len(r.get("captions", [])) == len(r["images"]) for r in recs)
    assert sum(bool(r["images"]) for r in recs) == 3 * 5  # three picture items in each split

    # The caption states the answer's ground truth exactly (the grid item).
    grid = next(r for r in by_split["Morpho_R_v0"] if r["answer_type"] == "structured")
    row, col = (int(x.split("=")[1]) for x in grid["answer"][0].split(","))
    assert f"row {row}, column {col}" in grid["captions"][0]

    # Deterministic: a second generation gives the same records and the same pictures.
    again = tmp_path / "again.jsonl"
    recs2 = convert("morphobench", demo.generate(tmp_path / "official2"), again)
    assert [{**r, "images": None} for r in recs] == [{**r, "images": None} for r in recs2]
    assert sorted(os.listdir(tmp_path / "morphobench_files")) == sorted(os.listdir(tmp_path / "again_files"))
