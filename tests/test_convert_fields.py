"""What the converters share: official values, an item's fields and problems, a release's records."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from data.converters.fields import Item, with_extra
from data.converters.release import Release
from data.converters.values import (beyond, by_letter, is_caption_list, is_letter_token, norm_key,
                                    scalar_strings, spellings, split_letters, squash)
from data.jsonl import DataError

ALIASES = spellings({"id": ["id", "pid"], "answer": ["answer", "gt_answer"], "images": ["image_path", "images"]})


# ---------------------------------------------------------------- values

def test_key_spellings() -> None:
    assert norm_key(" Answer Type ") == "answer_type" and norm_key("image-path") == "image_path"
    assert squash("Trial and error") == squash("trial-and-error") == "trialanderror"
    assert ALIASES == {"id": "id", "pid": "id", "answer": "answer", "gt_answer": "answer",
                       "image_path": "images", "images": "images"}


@pytest.mark.parametrize("value, expected", [
    ("3", ["3"]), (3, ["3"]), (1.5, ["1.5"]), (["A", 2], ["A", "2"]),
    (True, None), ([], None), ([None], None), ({"a": 1}, None), ([["x"]], None),
])
def test_scalar_strings(value, expected) -> None:
    assert scalar_strings(value) == expected


def test_options_by_letter_and_captions() -> None:
    assert by_letter({"B": "y", "A": "x"}) == ["x", "y"]
    assert by_letter(["y", "x"]) == ["y", "x"] and by_letter("x") == "x"
    assert is_caption_list(["a", None]) and is_caption_list([])
    assert not is_caption_list("a") and not is_caption_list(["a", 1])


def test_option_letters() -> None:
    assert is_letter_token("b") and is_letter_token("AC")
    assert not is_letter_token("AA") and not is_letter_token("Boron") and not is_letter_token("é")
    assert split_letters(["CD"]) == split_letters(["D", "C"]) == split_letters(["(C), D"]) == ["C", "D"]
    assert split_letters(["b"]) == ["B"]
    assert split_letters(["square"]) is None and split_letters([" "]) is None and split_letters([]) is None
    # a release may use its own separators
    assert split_letters(["C、D"]) is None
    assert split_letters(["C、D"], re.compile(r"[\s,、]+")) == ["C", "D"]
    assert beyond(["A", "E"], 4) and not beyond(["A", "D"], 4)


# ---------------------------------------------------------------- an item's fields

def test_fields_are_found_by_normalised_key_and_the_rest_is_extra() -> None:
    item = Item({"Final answer": "2", "Level": 1, "Tools": "Excel", "x": None}, "f.json", 3,
                norm=lambda k: k.replace(" ", "").lower())
    assert item.key("final_answer".replace("_", " ")) == "Final answer"
    assert item.get("level") == ("Level", 1) and item.get("missing") == (None, None)
    assert item.value("finalanswer") == "2"
    assert item.extra() == {"Tools": "Excel", "x": None}
    item.to_extra("Level")
    assert item.extra() == {"Level": 1, "Tools": "Excel", "x": None}
    assert item.claim("Tools") == "Excel" and list(item.extra()) == ["Level", "x"]
    assert item.missing("level", "x", "absent") == ["x", "absent"]


def test_aliases_map_several_spellings_to_one_field_and_report_two_of_them() -> None:
    item = Item({"PID": "a", "gt_answer": "3", "answer": "4", "source": "web"}, "f.json", 1,
                norm=norm_key, aliases=ALIASES)
    assert item.conflicts == [("gt_answer", "answer", "answer")]
    assert item.get("id") == ("PID", "a") and item.value("answer") == "3"
    assert item.key("pid") is None  # fields are asked for by their unified name
    assert item.extra() == {"source": "web"}  # aliased keys have stable names, read or not
    assert item.missing("id", "images") == ["images"]


def test_known_fields_never_go_to_extra() -> None:
    item = Item({"id": 1, "solution": "s", "img_category": "diagram"}, "f.jsonl", 1, known={"id", "solution"})
    assert item.extra() == {"img_category": "diagram"}
    assert with_extra({"id": "1"}, item.extra()) == {"id": "1", "extra": {"img_category": "diagram"}}
    assert with_extra({"id": "1"}, {}) == {"id": "1"}


def test_problems_name_the_file_line_and_field() -> None:
    item = Item({"id": 1}, Path("r/t.json"), 7, field_prefix="[2].", label="task 9")
    assert item.problem("id", "bad") == "r/t.json:7: [2].id: task 9: bad"
    assert item.ok
    item.fail("id", "first")
    item.fail("answer", "second")
    assert not item.ok
    assert item.problems == ["r/t.json:7: [2].id: task 9: first", "r/t.json:7: [2].answer: task 9: second"]
    error = item.error("x", "raised")
    assert isinstance(error, DataError) and error.problems == ["r/t.json:7: [2].x: task 9: raised"]
    assert Item({}, "t.parquet row 3", None).problem("q", "m") == "t.parquet row 3: q: m"


# ---------------------------------------------------------------- typed fields

def read(data: dict, **kw) -> Item:
    return Item(data, "f", 1, **kw)


def test_string_and_identifier() -> None:
    item = read({"q": "text", "n": 3})
    assert item.string("q") == "text" and item.string("absent") is None
    assert item.string("n") is None and item.problems == ["f:1: n: expected a string, got int"]
    item = read({"id": 7, "uid": 1.5, "pid": " ", "flag": True})
    assert item.identifier("id") == "7" and item.ok
    assert item.identifier("uid", numbers="number") == "1.5" and item.ok
    item.identifier("uid")
    item.identifier("pid")
    item.identifier("flag", numbers="number")
    item.identifier("absent")
    assert item.problems == ["f:1: uid: expected a non-empty string or integer, got 1.5",
                             "f:1: pid: expected a non-empty string or integer, got ' '",
                             "f:1: flag: expected a non-empty string or number, got True",
                             "f:1: absent: expected a non-empty string or integer, got None"]


def test_options() -> None:
    item = read({"a": ["x", 2], "b": {"B": "y", "A": "x"}, "c": "x", "d": [True]})
    assert item.options("a") == ["x", "2"] and item.options("b") == ["x", "y"] and item.options("z") == []
    assert item.options("c") == [] and item.options("d") == []
    assert item.problems == [f"f:1: {f}: expected a list of options (or {{letter: option}})" for f in "cd"]


def test_captions_one_per_image() -> None:
    item = read({"one": "c", "two": ["a", None], "bad": [1]})
    assert item.captions("one", 1) == ["c"] and item.captions("two", 2) == ["a", None]
    assert item.captions("absent", 1) is None and item.ok
    assert item.captions("bad", 1) is None
    assert item.problems == ["f:1: bad: expected a string or a list of strings"]
    item = read({"two": ["a", "b"]})
    assert item.captions("two", 1, "input image(s)") is None
    assert item.problems == ["f:1: two: 2 caption(s) for 1 input image(s)"]
    # once the item has a problem (a missing image, say), the count is not what to report
    item = read({"two": ["a", "b"]})
    item.fail("images", "image not found")
    assert item.captions("two", 1) == ["a", "b"] and len(item.problems) == 1


def test_images_are_located_and_missing_ones_named(tmp_path: Path) -> None:
    (tmp_path / "a.png").write_bytes(b"png")
    find = lambda rel: tmp_path / rel if (tmp_path / rel).is_file() else None  # noqa: E731
    item = read({"one": "a.png", "list": ["a.png", "b.png"], "lone": ["b.png"], "bad": [""], "none": []})
    assert item.images("one", tmp_path, find) == [tmp_path / "a.png"]
    assert item.images("list", tmp_path, find) == [tmp_path / "a.png"]
    item.images("lone", tmp_path, find)
    item.images("lone", tmp_path, find, index_one=False)
    item.images("bad", tmp_path, find)
    assert item.images("none", tmp_path, find, required=False) == []
    item.images("none", tmp_path, find)
    assert item.problems == [f"f:1: list[1]: image not found: {tmp_path / 'b.png'}",
                             f"f:1: lone[0]: image not found: {tmp_path / 'b.png'}",
                             f"f:1: lone: image not found: {tmp_path / 'b.png'}",
                             "f:1: bad: expected a path or a list of paths, got ['']",
                             "f:1: none: expected a path or a list of paths, got []"]


# ---------------------------------------------------------------- a release's records

def convert_item(item: Item) -> dict | None:
    if item.value("bad"):
        item.fail("bad", "reported")
        return None
    if item.value("raise"):
        raise item.error("raise", "raised")
    return {"id": item.value("id")}


def test_a_release_keeps_records_and_collects_every_problem_once() -> None:
    release = Release()
    items = [{"id": "a"}, {"id": "b", "bad": 1}, ["not an object"], {"id": "c", "raise": 1}, {"id": "a"}, {"id": "d"}]
    kept = [release.add(Item(data, "r.jsonl", line, field_prefix="p."), f"on line {line}", convert_item)
            for line, data in enumerate(items, start=1)]
    assert kept == [{"id": "a"}, None, None, None, None, {"id": "d"}]
    assert release.records == [{"id": "a"}, {"id": "d"}]
    assert release.problems == ["r.jsonl:2: p.bad: reported", "r.jsonl:3: p.-: expected an object, got list",
                                "r.jsonl:4: p.raise: raised", "r.jsonl:5: p.id: duplicate id 'a' (first on line 1)"]
    with pytest.raises(DataError) as e:
        release.finish()
    assert e.value.problems == release.problems


def test_a_duplicate_is_reported_under_the_release_id_field() -> None:
    release = Release()
    for line in (1, 2):
        release.add(Item({"index": 5}, "t.json", line, label="index 5"), f"at t.json:{line}",
                    lambda item: {"id": str(item.value("index"))}, id_field="index")
    assert release.problems == ["t.json:2: index: index 5: duplicate id '5' (first at t.json:1)"]


def test_an_empty_release() -> None:
    assert Release().finish() == []
    with pytest.raises(DataError) as e:
        Release().finish(source="r/test.jsonl")
    assert e.value.problems == ["r/test.jsonl: -: no records"]
