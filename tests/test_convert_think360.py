"""Think360° converter and demo: key spellings, taxonomy mapping, malformed input, the demo end to end."""
from __future__ import annotations

import hashlib
import io
import json
import os
from pathlib import Path

import pytest
from PIL import Image

from data.convert import convert
from data.jsonl import iter_json_array
from data.demo import think360 as demo
from data.jsonl import DataError, read_jsonl
from data.validate import validate_file


def png(path: Path, color: str = "red") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    buf = io.BytesIO()
    Image.new("RGB", (8, 6), color).save(buf, format="PNG")
    path.write_bytes(buf.getvalue())


def write_release(root: Path, records: list, name: str = "think360.json") -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for rel in ("imgs/a.png", "imgs/b.png", "c.png"):
        png(root / rel)
    (root / name).write_text(json.dumps(records, indent=2), encoding="utf-8")
    return root


def no_output(out: Path) -> bool:
    return not out.exists() and not [p for p in out.parent.iterdir() if p.name.startswith((out.stem, f".{out.stem}"))]


def records() -> list[dict]:
    return [
        # paper-style spellings, MCQ with options
        {"id": 1, "question": "Which cell?", "answer": "B", "image_path": "imgs/a.png",
         "difficulty": "medium", "answer_type": "Multiple-choice", "skills": ["Trial-and-Error", "branch and bound"],
         "question_type": ["Logic", "combinatorics"], "options": ["cell 1", "cell 2", "cell 3"],
         "caption": "A row of three cells.", "source": "HMMT 2010", "testmini": True},
        # title-case keys with spaces, numeric gold as a number, skills as one string
        {"ID": "t2", "Question": "How many paths?", "Answer": 42, "Image": "imgs/b.png",
         "Difficulty Tier": "Olympiad", "Answer Type": "numerical",
         "Cognitive Skills": "Divide-and-Conquer, Perceive-and-Comprehend", "Question Type": "Number Theory",
         "Caption": "A grid."},
        # structural / formula / other / free-form kinds; subcategory as question type; rationale as solution
        {"id": "t3", "question": "Fill the row.", "answer": "3, 1, 2", "image_path": "c.png", "tier": "Hard",
         "answer_type": "structural", "capabilities": ["Hypothesize and Test"], "subcategory": "logic",
         "rationale": "Columns.", "split": "testmini"},
        {"id": "t4", "question": "Formula?", "answer": "$(n+1)(n+2)/2$", "image_path": "c.png",
         "difficulty": "Basic", "answer_type": "formula"},
        {"id": "t5", "question": "Colour?", "answer": "black", "image_path": "c.png", "difficulty": "Easy",
         "answer_type": "Others"},
        {"id": "t6", "question": "Prove or disprove.", "answer": "It cannot be tiled.", "image_path": "c.png",
         "answer_type": "free-form"},
        # MCQ gold given as the option text; options as a {letter: text} mapping
        {"id": "t7", "question": "Odd one out?", "answer": "square", "image_path": "imgs/a.png",
         "answer_type": "multiple choice", "options": {"B": "square", "A": "circle", "C": "disc"}},
        # no answer type: options make it MCQ; a tier outside the paper's five is kept verbatim
        {"id": "t8", "question": "Pick.", "answer": "(C)", "image_path": "imgs/a.png",
         "choices": ["1", "2", "3"], "difficulty": "Level 3"},
    ]


@pytest.fixture()
def converted(tmp_path: Path) -> tuple[Path, Path, dict[str, dict]]:
    src = write_release(tmp_path / "Think360", records())
    out = tmp_path / "unified" / "think360.jsonl"
    convert("think360", src, out)
    return src, out, {r["id"]: r for r in read_jsonl(out)}


def test_taxonomy_fields_are_mapped(converted: tuple[Path, Path, dict[str, dict]]) -> None:
    src, out, recs = converted
    assert list(recs) == ["1", "t2", "t3", "t4", "t5", "t6", "t7", "t8"]
    r1, r2, r3 = recs["1"], recs["t2"], recs["t3"]
    assert r1["answer"] == ["B"] and r1["answer_type"] == "mcq" and r1["choices"] == ["cell 1", "cell 2", "cell 3"]
    assert r1["difficulty"] == "Medium"
    assert r1["skills"] == ["Trial-and-Error", "Branch-and-Bound"]
    assert r1["question_type"] == ["Logic", "Combinatorics"]
    assert r1["captions"] == ["A row of three cells."]
    assert r1["extra"] == {"source": "HMMT 2010", "testmini": True}
    assert r1["images"] == [os.path.relpath(src / "imgs" / "a.png", out.parent)]

    assert r2["answer"] == ["42"] and r2["answer_type"] == "numeric" and r2["difficulty"] == "Olympiad"
    assert r2["skills"] == ["Divide-and-Conquer", "Perceive-and-Comprehend"]
    assert r2["question_type"] == ["Number Theory"] and r2["captions"] == ["A grid."]
    assert r2["choices"] == [] and "extra" not in r2

    assert r3["answer"] == ["3, 1, 2"] and r3["answer_type"] == "structured" and r3["difficulty"] == "Hard"
    assert r3["skills"] == ["Hypothesize-and-Test"] and r3["question_type"] == ["Logic"]
    assert r3["solution"] == "Columns." and r3["split"] == "testmini"

    assert (recs["t4"]["answer_type"], recs["t4"]["difficulty"]) == ("expression", "Basic")
    assert recs["t4"]["answer"] == ["$(n+1)(n+2)/2$"]
    assert (recs["t5"]["answer_type"], recs["t5"]["difficulty"]) == ("text", "Easy")
    assert recs["t6"]["answer_type"] == "open" and "difficulty" not in recs["t6"]
    assert recs["t7"]["choices"] == ["circle", "square", "disc"] and recs["t7"]["answer"] == ["B"]
    assert recs["t8"]["answer_type"] == "mcq" and recs["t8"]["answer"] == ["C"]
    assert recs["t8"]["difficulty"] == "Level 3"
    assert all(r["benchmark"] == "think360" and len(r["images"]) == 1 for r in recs.values())
    assert not (out.parent / "think360_files").exists()  # images referenced in place


def test_src_may_be_the_json_file(tmp_path: Path) -> None:
    src = write_release(tmp_path / "rel", records()[:2])
    got = convert("think360", src / "think360.json", tmp_path / "o.jsonl")
    assert [r["id"] for r in got] == ["1", "t2"]


def test_json_array_line_numbers(tmp_path: Path) -> None:
    path = tmp_path / "x.json"
    path.write_text('[\n  {"a": 1},\n\n  {"b": [1,\n 2]}, {"c": 3}\n]\n')
    assert list(iter_json_array(path)) == [(2, {"a": 1}), (4, {"b": [1, 2]}), (5, {"c": 3})]


# ---------------------------------------------------------------- malformed input

def good(i: int = 0) -> dict:
    return {"id": f"g{i}", "question": "Q?", "answer": "3", "image_path": "c.png", "answer_type": "Numerical"}


@pytest.mark.parametrize("change, field, words", [
    ({"answer": None}, "answer", "missing"),
    ({"image_path": "imgs/none.png"}, "image_path", "image not found"),
    ({"answer_type": "essay"}, "answer_type", "unknown answer type 'essay'"),
    ({"skills": 3}, "skills", "list of strings"),
    ({"question": ["Q"]}, "question", "expected a string"),
    ({"answer_type": "Multiple-choice", "options": ["a", "b"], "answer": "D"}, "answer", "beyond the 2"),
    ({"answer_type": "Multiple-choice", "answer": "maybe"}, "answer", "neither option letters"),
    ({"caption": 5}, "caption", "string"),
    ({"image": "c.png"}, "image", "both 'image_path' and 'image'"),
])
def test_malformed_record_names_file_line_field(tmp_path: Path, change: dict, field: str, words: str) -> None:
    bad = {**good(2), **change}
    if change.get("answer", 0) is None:
        del bad["answer"]
    src = write_release(tmp_path / "rel", [good(1), bad])
    out = tmp_path / "out" / "t.jsonl"
    out.parent.mkdir()
    with pytest.raises(DataError) as err:
        convert("think360", src, out)
    assert len(err.value.problems) == 1, err.value.problems
    message = err.value.problems[0]
    # indent=2: the second element of the array starts on line 9
    assert message.startswith(f"{src / 'think360.json'}:9: [1].{field}: "), message
    assert words in message
    assert no_output(out)


@pytest.mark.parametrize("text, words", [
    ('{"id": 1}', "expected a JSON array"),
    ('[{"id": 1},\n {"id": 2', "invalid JSON"),
    ('[1]', "[0].-: expected an object"),
])
def test_malformed_file(tmp_path: Path, text: str, words: str) -> None:
    (tmp_path / "rel").mkdir()
    (tmp_path / "rel" / "t.json").write_text(text)
    with pytest.raises(DataError) as err:
        convert("think360", tmp_path / "rel", tmp_path / "out.jsonl")
    assert words in err.value.problems[0] and str(tmp_path / "rel" / "t.json") in err.value.problems[0]
    assert no_output(tmp_path / "out.jsonl")


def test_folder_must_hold_exactly_one_json(tmp_path: Path) -> None:
    src = write_release(tmp_path / "rel", [good()])
    (src / "second.json").write_text("[]")
    with pytest.raises(DataError, match=r"found 2 \.json files \(second\.json, think360\.json\)"):
        convert("think360", src, tmp_path / "out.jsonl")


def test_duplicate_ids(tmp_path: Path) -> None:
    src = write_release(tmp_path / "rel", [good(), good()])
    with pytest.raises(DataError) as err:
        convert("think360", src, tmp_path / "out.jsonl")
    assert err.value.problems == [f"{src / 'think360.json'}:9: [1].id: duplicate id 'g0' (first at record 0)"]


# ---------------------------------------------------------------- the demo, end to end

def test_demo_generates_converts_and_validates(tmp_path: Path) -> None:
    src = demo.generate(tmp_path / "official" / "think360")
    out = tmp_path / "think360.jsonl"
    records_ = convert("think360", src, out)
    n, problems = validate_file(out)
    assert problems == [] and n == len(records_) == 14
    by_id = {r["id"]: r for r in records_}

    assert all(len(r["images"]) == 1 and len(r["captions"]) == 1 and r["captions"][0] for r in records_)
    assert all(r["skills"] and r["question_type"] and r["solution"] for r in records_)
    assert {r["difficulty"] for r in records_} == {"Easy", "Basic", "Medium", "Hard", "Olympiad"}
    assert {r["answer_type"] for r in records_} == {"mcq", "numeric", "structured", "expression", "text"}
    skills = {s for r in records_ for s in r["skills"]}
    assert skills == {"Perceive-and-Comprehend", "Trial-and-Error", "Divide-and-Conquer", "Branch-and-Bound",
                      "Hypothesize-and-Test"}
    # the computed answers
    assert [by_id[f"paths-{k}"]["answer"] for k in ("1x2", "2x2", "2x3", "3x3")] == [["3"], ["6"], ["10"], ["20"]]
    assert [by_id[f"rects-{k}"]["answer"] for k in ("1x3", "2x2", "2x3")] == [["6"], ["9"], ["18"]]
    assert by_id["shade-row-4"]["answer"] == ["8"] and by_id["shade-row-6"]["answer"] == ["21"]
    assert by_id["coins-row-5"]["answer"] == ["C"] and by_id["coins-row-5"]["choices"][2] == "cell 5"
    assert by_id["latin-3"]["answer"] == ["3, 1, 2"] and by_id["prime-digits"]["answer"] == ["17"]
    assert by_id["paths-2x3"]["captions"] == [
        "A grid of unit squares 2 high and 3 wide. Corner S is the top-left corner and corner E is the "
        "bottom-right corner."]
    assert all(r["extra"] == {"source": "procedural demo"} for r in records_)


def test_demo_is_deterministic(tmp_path: Path) -> None:
    def digest(folder: Path) -> dict[str, str]:
        return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
                for p in sorted(folder.rglob("*")) if p.is_file()}

    assert digest(demo.generate(tmp_path / "a")) == digest(demo.generate(tmp_path / "b"))
