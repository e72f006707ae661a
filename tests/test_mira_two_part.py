"""MIRA Rolling Dice: Two: the release's two-part gold (answer1 red / black / same, answer2 an integer)
converts to one record whose gold keeps both parts, and an answer is right only when both parts are —
in the careful rule judge, and in the published judge by the authors' acc.py rule."""
from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from PIL import Image

from data.convert import convert
from data.jsonl import DataError
from judge.judges import JUDGES
from judge.rules import score
from judge.types import Item

QUESTION = ("Two dice roll along the red path and the black path. Which path ends with the larger number on top "
            "(red, black or same), and what is the sum of the two top numbers?")


def png(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    buf = io.BytesIO()
    Image.new("RGB", (8, 6), "white").save(buf, format="PNG")
    path.write_bytes(buf.getvalue())


def release(root: Path, records: list[dict], task: str = "rolling_dice_two") -> Path:
    """A layout-A release: <task>/<task>.jsonl with the records, and image/1.png."""
    png(root / task / "image" / "1.png")
    (root / task / f"{task}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return root


def official(uid: int, answer1, answer2, **more) -> dict:
    """A record as the release writes Rolling Dice: Two: answer1 and answer2, no answer."""
    return {"uid": uid, "image_path": "image/1.png", "question": QUESTION, "answer1": answer1, "answer2": answer2,
            **more}


@pytest.fixture()
def converted(tmp_path: Path) -> dict[str, dict]:
    root = release(tmp_path / "MIRA", [official(1, "red", 7), official(2, "Same", "12"), official(3, "black", 9.0)])
    return {r["id"]: r for r in convert("mira", root, tmp_path / "mira.jsonl")}


# --- the record --------------------------------------------------------------------------------------------

def test_the_official_two_part_gold_converts(converted: dict[str, dict]) -> None:
    red, same, black = (converted[f"rolling_dice_two/{k}"] for k in (1, 2, 3))
    assert red["answer"] == ["red", "7"] and red["answer_type"] == "multi-part"
    assert red["task"] == "Rolling Dice: Two" and red["domain"] == "CT"
    # acc.py compares answer1 case-insensitively and answer2 as int(): "Same" is same, "12" and 9.0 integers
    assert same["answer"] == ["same", "12"] and black["answer"] == ["black", "9"]
    # both parts are the gold, not extra fields
    assert red["extra"] == {"uid": 1}


@pytest.mark.parametrize("record, field, words", [
    (official(1, "blue", 7), "answer1", "expected one of red, black, same, got 'blue'"),
    (official(1, "red", "seven"), "answer2", "expected an integer, got 'seven'"),
    (official(1, "red", 7.5), "answer2", "expected an integer, got 7.5"),
    (official(1, "red", True), "answer2", "expected an integer, got True"),
    ({**official(1, "red", 7), "answer2": None}, "answer2", "missing (the gold of Rolling Dice: Two is answer1"),
    ({k: v for k, v in official(1, "red", 7).items() if k != "answer1"}, "answer1", "missing"),
    (official(1, "red", 7, answer="red, 7"), "answer", "both 'answer' and 'answer1' given"),
    (official(1, "red", 7, answer_type="numeric"), "answer_type", "'numeric', but a two-part gold is multi-part"),
])
def test_a_bad_two_part_gold_names_file_line_field(tmp_path: Path, record: dict, field: str, words: str) -> None:
    root = release(tmp_path / "MIRA", [official(1, "red", 7) | {"uid": 9}, record])
    with pytest.raises(DataError) as err:
        convert("mira", root, tmp_path / "mira.jsonl")
    (message,) = err.value.problems
    assert message.startswith(f"{root / 'rolling_dice_two' / 'rolling_dice_two.jsonl'}:2: {field}: "), message
    assert words in message


def test_a_two_part_gold_belongs_to_rolling_dice_two(tmp_path: Path) -> None:
    root = release(tmp_path / "MIRA", [official(1, "red", 7)], task="rolling_dice_sum")
    with pytest.raises(DataError, match="answer1: a two-part gold .* belongs to Rolling Dice: Two, not Rolling Dice: Sum"):
        convert("mira", root, tmp_path / "mira.jsonl")


def test_no_gold_at_all_is_still_a_missing_answer(tmp_path: Path) -> None:
    record = {"uid": 1, "image_path": "image/1.png", "question": QUESTION}
    with pytest.raises(DataError, match=r"rolling_dice_two\.jsonl:1: answer: missing"):
        convert("mira", release(tmp_path / "MIRA", [record]), tmp_path / "mira.jsonl")


# --- the rule judge: right only when both parts are ---------------------------------------------------------

@pytest.mark.parametrize("response", [
    "<answer>Red, 7</answer>",
    "<answer>red and 7</answer>",
    "<answer>**red**; 7</answer>",
    "<answer>RED\n7</answer>",
    "I roll each die in turn ... <answer>red, 7</answer>",
    "<answer>The red path, with a total of 7</answer>",  # words around the parts
    "<answer>7, red</answer>",  # a colour and a number cannot be mistaken for each other
    "<answer>red, seven</answer>",
    "<answer>black, 7</answer> On second thought: <answer>red, 7</answer>",  # the last answer counts
])
def test_both_parts_right_is_right(converted: dict[str, dict], response: str) -> None:
    assert score(converted["rolling_dice_two/1"], response)["correct"] is True


@pytest.mark.parametrize("response", [
    "<answer>red, 8</answer>",  # the colour right, the number wrong
    "<answer>Red; 17</answer>",
    "<answer>black, 7</answer>",  # the number right, the colour wrong
    "<answer>same, 7</answer>",
    "<answer>red</answer>",  # one part only
    "<answer>7</answer>",
    "<answer>red or black, 7</answer>",  # two paths named (acc.py takes the first word and accepts it)
    "<answer>not red, 7</answer>",  # a negation (acc.py accepts it)
    "<answer>black 3, red 7</answer>",  # more than one number (acc.py takes the last and accepts it)
    "<answer>red, -7</answer>",  # the sign is part of the number
    "<answer>red, 7</answer> No, I was wrong: <answer>black, 7</answer>",
])
def test_a_wrong_or_missing_part_is_wrong(converted: dict[str, dict], response: str) -> None:
    assert score(converted["rolling_dice_two/1"], response)["correct"] is False


@pytest.mark.parametrize("response, correct", [
    ("<answer>same, 12</answer>", True),
    ("<answer>Equal; 12</answer>", True),  # "equal" names the same path answer
    ("<answer>Both paths give the same number on top; the sum is 12</answer>", True),
    ("<answer>red, 12</answer>", False),  # "same" vs "red"
    ("<answer>same, 21</answer>", False),
])
def test_same_as_the_gold_path(converted: dict[str, dict], response: str, correct: bool) -> None:
    assert score(converted["rolling_dice_two/2"], response)["correct"] is correct


# --- the published judge (acc.py) scores both parts by its own rule, never asking the LLM judge -----------------

def published(rec: dict, response: str) -> dict:
    """The verdict of the published MIRA judge, which must not ask the judge model for this task."""
    steps = JUDGES["mira_judge"].steps(Item(rec, response))
    with pytest.raises(StopIteration) as done:
        next(steps)
    return done.value.value


@pytest.mark.parametrize("response, correct", [
    ("<answer>red, 7</answer>", True),
    ("<answer>The RED path; the sum is 7</answer>", True),
    ("<answer>red or black, 7</answer>", True),      # acc.py takes the first path word: looser than a reader
    ("<answer>red, 3 then 7</answer>", True),        # and the last integer
    ("<answer>red, 8</answer>", False),
    ("<answer>black, 7</answer>", False),
    ("<answer>7</answer>", False),                    # no path word
    ("red, 7", False),                                # no answer tag: wrong in acc.py
])
def test_the_published_judge_reads_both_parts_as_acc_py(converted: dict[str, dict], response: str,
                                                        correct: bool) -> None:
    v = published(converted["rolling_dice_two/1"], response)
    assert v["correct"] is correct
    assert v["stage"] == ("no_answer_tag" if "<answer>" not in response else "two_part_rule")


def test_the_careful_rule_is_stricter_than_acc_py_where_acc_py_is_loose(converted: dict[str, dict]) -> None:
    rec = converted["rolling_dice_two/1"]
    assert published(rec, "<answer>red or black, 7</answer>")["correct"] is True
    assert score(rec, "<answer>red or black, 7</answer>")["correct"] is False
