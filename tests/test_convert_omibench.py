"""OMIBench converter and demo: every release quirk, malformed input, scale, the demo end to end."""
from __future__ import annotations

import hashlib
import io
import json
import os
import time
from pathlib import Path

import pytest
from PIL import Image

from data.convert import convert
from data.converters.omibench import split_letters
from data.demo import omibench as demo
from data.jsonl import DataError, read_jsonl
from data.records import image_tags
from data.validate import validate_file


def png_bytes(color: str = "red") -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (8, 6), color).save(buf, format="PNG")
    return buf.getvalue()


def write_release(root: Path, records: list[dict], images: dict[str, str] | None = None) -> Path:
    """test.jsonl + images/ as the release ships them; `images` maps file name -> colour."""
    (root / "images").mkdir(parents=True, exist_ok=True)
    for name, color in (images or {n: "red" for n in "abcdefg"}).items():
        (root / "images" / (name if "." in name else f"{name}.png")).write_bytes(png_bytes(color))
    (root / "test.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return root


def no_output(out: Path) -> bool:
    """Nothing left behind by a failed conversion: no JSONL, no media folder, no staging folder."""
    return not out.exists() and not [p for p in out.parent.iterdir() if p.name.startswith((out.stem, f".{out.stem}"))]


def quirky_records() -> list[dict]:
    return [
        # out-of-order tags; a repeated file; tag inside choice_list; gold as one string "CD"
        {"id": "m1", "subject": "Mathematics", "answer_type": "mcq",
         "question": "Compare [IMAGE2] with [IMAGE0] and [IMAGE1].",
         "image_list": ["a.png", "b.png", "a.png", "c.png"],
         "choice_list": ["3", "[IMAGE3]", "5", "7"], "answer": ["CD"],
         "solution": "Because.", "known_issue": None, "img_category": "diagram"},
        # no tag in the question: the options are the images; golds as separate letters, unsorted
        {"id": "m2", "subject": "Physics", "answer_type": "mcq", "question": "Which circuits are closed?",
         "image_list": ["d.png", "e.png", "f.png"], "choice_list": ["[IMAGE0]", "[IMAGE1]", "[IMAGE2]"],
         "answer": ["C", "A"], "solution": "A and C.", "source_exam": "IPhO 2019"},
        # open, choice_list absent, numeric id, captions
        {"id": 3, "subject": "Chemistry", "answer_type": "open", "question": "Atoms in [IMAGE0] and [IMAGE1]?",
         "image_list": ["a.png", "g.png"], "answer": ["12"], "solution": "6 + 6.",
         "captions": ["Benzene ring.", "Hexane chain."]},
        # open with letters in the question: the flag is kept, the letters normalised
        {"id": "o4", "subject": "Biology", "answer_type": "open", "has_inline_choices": True,
         "question": "[IMAGE0] [IMAGE1] Which cell divides? (A) left (B) right (C) neither", "image_list": ["b.png", "c.png"],
         "choice_list": [], "answer": ["b"], "solution": "The right one.", "known_issue": "blurry image"},
        # open whose gold looks like letters but no flag: kept verbatim; MCQ with "C, D" spelling
        {"id": "o5", "subject": "Chemistry", "answer_type": "open", "question": "Symbol of boron? [IMAGE0][IMAGE1]",
         "image_list": ["a.png", "b.png"], "answer": ["B"], "solution": "B."},
        {"id": "m6", "subject": "Mathematics", "answer_type": "MCQ", "question": "[IMAGE0] or [IMAGE1]?",
         "image_list": ["a.png", "b.png"], "choice_list": ["x", "y", "z", "w"], "answer": ["C, D"], "solution": "s"},
    ]


@pytest.fixture()
def converted(tmp_path: Path) -> tuple[Path, Path, dict[str, dict]]:
    src = write_release(tmp_path / "OMIBench", quirky_records())
    out = tmp_path / "unified" / "test.jsonl"
    records = convert("omibench", src, out)
    assert [r["id"] for r in records] == ["m1", "m2", "3", "o4", "o5", "m6"]
    return src, out, {r["id"]: r for r in read_jsonl(out)}


def test_split_letters() -> None:
    assert split_letters(["CD"]) == ["C", "D"]
    assert split_letters(["D", "C"]) == ["C", "D"]
    assert split_letters(["C, D"]) == ["C", "D"]
    assert split_letters(["(B)"]) == ["B"]
    assert split_letters(["12"]) is None
    assert split_letters(["C", "3"]) is None
    assert split_letters([" "]) is None
    # words are not letter runs, even when made of letters
    assert split_letters(["square"]) is None and split_letters(["Boron"]) is None
    assert split_letters(["AA"]) is None and split_letters(["b"]) == ["B"]


def test_quirks_are_kept_or_normalised(converted: tuple[Path, Path, dict[str, dict]]) -> None:
    src, out, recs = converted
    m1, m2, r3, o4, o5, m6 = (recs[k] for k in ("m1", "m2", "3", "o4", "o5", "m6"))

    # tags untouched and in their original (out-of-order) positions
    assert m1["question"] == "Compare [IMAGE2] with [IMAGE0] and [IMAGE1]."
    assert image_tags(m1["question"]) == [2, 0, 1]
    # a repeated file name keeps both positions, referenced in place (relative to the output folder)
    ref_a = os.path.relpath(src / "images" / "a.png", out.parent)
    assert m1["images"] == [ref_a, os.path.relpath(src / "images" / "b.png", out.parent), ref_a,
                            os.path.relpath(src / "images" / "c.png", out.parent)]
    assert (out.parent / m1["images"][2]).resolve() == (src / "images" / "a.png").resolve()
    # an option that is an image
    assert m1["choices"] == ["3", "[IMAGE3]", "5", "7"]
    # "CD", ["C", "A"] and "C, D" -> sorted single letters
    assert m1["answer"] == ["C", "D"] and m1["answer_type"] == "mcq"
    assert m2["answer"] == ["A", "C"]
    assert m6["answer"] == ["C", "D"] and m6["answer_type"] == "mcq"
    # MCQ with no tag in its question
    assert image_tags(m2["question"]) == [] and m2["choices"] == ["[IMAGE0]", "[IMAGE1]", "[IMAGE2]"]
    # absent and empty choice_list
    assert r3["choices"] == [] and o4["choices"] == []
    # open answers verbatim; numeric id as a string; captions aligned
    assert r3["id"] == "3" and r3["answer"] == ["12"] and r3["answer_type"] == "open"
    assert r3["captions"] == ["Benzene ring.", "Hexane chain."]
    assert o5["answer"] == ["B"] and "has_inline_choices" not in o5
    # has_inline_choices kept (scored as MCQ later), letter upper-cased
    assert o4["has_inline_choices"] is True and o4["answer_type"] == "open" and o4["answer"] == ["B"]
    # solution under its stable name; subject kept
    assert m1["solution"] == "Because." and m2["subject"] == "Physics"
    # unknown and auxiliary fields under extra, verbatim (null included)
    assert m1["extra"] == {"known_issue": None, "img_category": "diagram"}
    assert m2["extra"] == {"source_exam": "IPhO 2019"}
    assert o4["extra"] == {"known_issue": "blurry image"}
    assert "extra" not in r3
    assert all(r["benchmark"] == "omibench" for r in recs.values())


def test_images_are_referenced_not_copied(converted: tuple[Path, Path, dict[str, dict]]) -> None:
    src, out, recs = converted
    assert not (out.parent / "test_files").exists()
    assert sorted(p.name for p in out.parent.iterdir()) == ["test.jsonl"]
    for rec in recs.values():
        for rel in rec["images"]:
            assert (out.parent / rel).resolve().parent == (src / "images").resolve()


def test_src_may_be_the_jsonl_file(tmp_path: Path) -> None:
    src = write_release(tmp_path / "rel", quirky_records()[:1])
    records = convert("omibench", src / "test.jsonl", tmp_path / "o.jsonl")
    assert records[0]["answer"] == ["C", "D"]


# ---------------------------------------------------------------- malformed input

def good() -> dict:
    return {"id": "x1", "subject": "Mathematics", "answer_type": "mcq", "question": "[IMAGE0] or [IMAGE1]?",
            "image_list": ["a.png", "b.png"], "choice_list": ["p", "q", "r"], "answer": ["B"], "solution": "s"}


@pytest.mark.parametrize("change, field, words", [
    ({"answer": None}, "answer", "missing"),
    ({"answer": []}, "answer", "no gold answer"),
    ({"answer": ["E"]}, "answer", "beyond the 3"),
    ({"answer": ["42"]}, "answer", "not option letters"),
    ({"answer_type": "essay"}, "answer_type", "'essay'"),
    ({"question": "[IMAGE5] here"}, "question", "[IMAGE5]"),
    ({"choice_list": ["p", "[IMAGE2]"]}, "choice_list[1]", "[IMAGE2]"),
    ({"image_list": ["a.png", "missing.png"]}, "image_list[1]", "image not found"),
    ({"image_list": "a.png"}, "image_list", "expected a list"),
    ({"captions": ["only one"]}, "captions", "1 captions for 2 images"),
    ({"has_inline_choices": "yes"}, "has_inline_choices", "true/false"),
    ({"id": ""}, "id", "non-empty"),
    ({"question": " "}, "question", "empty"),
    ({"solution": ["s"]}, "solution", "expected a string"),
])
def test_malformed_record_names_file_line_field(tmp_path: Path, change: dict, field: str, words: str) -> None:
    bad = {**good(), **change, "id": change.get("id", "x2")}
    if change.get("answer", 0) is None:
        del bad["answer"]
    src = write_release(tmp_path / "rel", [good(), bad])
    out = tmp_path / "out" / "test.jsonl"
    out.parent.mkdir()
    with pytest.raises(DataError) as err:
        convert("omibench", src, out)
    assert len(err.value.problems) == 1, err.value.problems
    message = err.value.problems[0]
    assert message.startswith(f"{src / 'test.jsonl'}:2: {field}: "), message
    assert words in message
    assert no_output(out)


def test_invalid_json_and_duplicate_ids(tmp_path: Path) -> None:
    src = write_release(tmp_path / "rel", [good(), good()])
    out = tmp_path / "out.jsonl"
    with pytest.raises(DataError) as err:
        convert("omibench", src, out)
    assert err.value.problems == [f"{src / 'test.jsonl'}:2: id: duplicate id 'x1' (first on line 1)"]
    assert no_output(out)

    with open(src / "test.jsonl", "a", encoding="utf-8") as f:
        f.write("{not json\n")
    with pytest.raises(DataError) as err:
        convert("omibench", src, out)
    # both problems, in file order: a bad line does not hide the others
    assert len(err.value.problems) == 2
    assert err.value.problems[0].startswith(f"{src / 'test.jsonl'}:2: id: duplicate id")
    assert err.value.problems[1].startswith(f"{src / 'test.jsonl'}:3: -: invalid JSON")
    assert no_output(out)


def test_every_problem_is_reported_at_once(tmp_path: Path) -> None:
    src = write_release(tmp_path / "rel", [{**good(), "id": "a", "answer": ["Z"]},
                                           {**good(), "id": "b"},
                                           {**good(), "id": "c", "image_list": ["nope.png", "b.png"]}])
    with pytest.raises(DataError) as err:
        convert("omibench", src, tmp_path / "out.jsonl")
    assert [p.split(": ")[0].rsplit(":", 1)[1] for p in err.value.problems] == ["1", "3"]


def test_missing_test_jsonl(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(DataError, match="no test.jsonl"):
        convert("omibench", tmp_path / "empty", tmp_path / "out.jsonl")


# ---------------------------------------------------------------- scale of the real release

def test_release_scale_is_fast_and_copies_nothing(tmp_path: Path) -> None:
    """1,322 records, 3,845 image references, 2,837 distinct files: the real release's numbers."""
    src = tmp_path / "OMIBench"
    (src / "images").mkdir(parents=True)
    data = png_bytes()
    for k in range(2837):
        (src / "images" / f"{k}.png").write_bytes(data)
    # 1,322 records of 2 or 3 images: the first 2,837 references visit each file once, the rest repeat.
    counts = [3] * 1201 + [2] * 121
    assert sum(counts) == 3845
    names = [f"{k % 2837}.png" for k in range(3845)]
    records, pos = [], 0
    for i, n in enumerate(counts):
        records.append({"id": f"r{i}", "subject": "Physics", "answer_type": "open",
                        "question": "[IMAGE0] " * n, "image_list": names[pos:pos + n], "answer": ["1"]})
        pos += n
    (src / "test.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    out = tmp_path / "out" / "test.jsonl"
    start = time.perf_counter()
    converted = convert("omibench", src, out)
    elapsed = time.perf_counter() - start
    assert len(converted) == 1322
    assert sum(len(r["images"]) for r in converted) == 3845
    assert len({i for r in converted for i in r["images"]}) == 2837
    assert sorted(p.name for p in out.parent.iterdir()) == ["test.jsonl"]  # nothing copied
    assert elapsed < 30, f"conversion took {elapsed:.1f}s"


# ---------------------------------------------------------------- the demo, end to end

def test_demo_generates_converts_and_validates(tmp_path: Path) -> None:
    src = demo.generate(tmp_path / "official" / "omibench")
    out = tmp_path / "omibench.jsonl"
    records = convert("omibench", src, out)
    n, problems = validate_file(out)
    assert problems == [] and n == len(records) == 15

    raw = [json.loads(line) for line in (src / "test.jsonl").read_text().splitlines()]
    by_id = {r["id"]: r for r in records}
    types = [r["answer_type"] for r in records]
    assert types.count("mcq") == 6 and types.count("open") == 9
    assert all(2 <= len(r["images"]) <= 6 for r in records)
    assert {len(r["images"]) for r in records} >= {2, 3, 4, 5, 6}
    # an image as an option, [IMAGE3] inside choice_list
    assert any("[IMAGE3]" in c for r in records for c in r["choices"])
    # out-of-order tags
    assert any(image_tags(r["question"]) != sorted(image_tags(r["question"])) for r in records)
    # a repeated file name in one record
    assert any(len(set(r["image_list"])) < len(r["image_list"]) for r in raw)
    assert any(len(set(r["images"])) < len(r["images"]) for r in records)
    # an MCQ with no tag in its question
    assert any(r["answer_type"] == "mcq" and not image_tags(r["question"]) for r in records)
    # multi-letter golds given both ways, normalised the same way
    assert any(r["answer"] == ["CD"] for r in raw) and any(r["answer"] == ["C", "A"] for r in raw)
    assert sorted(r["answer"] for r in records if len(r["answer"]) > 1) == [["A", "C"], ["C", "D"]]
    # has_inline_choices with a letter gold
    inline = [r for r in records if r.get("has_inline_choices")]
    assert len(inline) == 1 and inline[0]["answer"] == ["B"] and inline[0]["answer_type"] == "open"
    # a solution and one exact caption per image everywhere; all four subjects
    assert all(r["solution"] and len(r["captions"]) == len(r["images"]) and all(r["captions"]) for r in records)
    assert {r["subject"] for r in records} == {"Mathematics", "Physics", "Chemistry", "Biology"}
    # exact captions and answers of known items
    assert by_id["omi-demo-01"]["captions"] == ["3 black dots on a white background.",
                                                "4 black dots on a white background."]
    assert by_id["omi-demo-01"]["answer"] == ["7"]
    assert by_id["omi-demo-03"]["answer"] == ["C"] and by_id["omi-demo-03"]["captions"][3] == \
        "A regular pentagon (5 sides)."
    # release-only fields under extra
    assert all(set(r["extra"]) == {"known_issue", "img_category", "source"} for r in records)
    # images are shared, not duplicated per record
    distinct = {(out.parent / i).resolve() for r in records for i in r["images"]}
    assert len(distinct) == len(list((src / "images").iterdir())) < sum(len(r["images"]) for r in records)


def test_demo_is_deterministic(tmp_path: Path) -> None:
    def digest(folder: Path) -> dict[str, str]:
        return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
                for p in sorted(folder.rglob("*")) if p.is_file()}

    assert digest(demo.generate(tmp_path / "a")) == digest(demo.generate(tmp_path / "b"))
