"""MIRA Rolling Dice: Two: the release's two-part gold (answer1 red / black / same, answer2 an integer)
converts to one record whose gold keeps both parts, and an answer is right only when both parts are —
in the rule judge and in what the LLM judge is shown."""
from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from PIL import Image

from data.convert import convert
from data.jsonl import DataError
from infer.config import load_model_config
from infer.templates import PROMPTS
from judge import llm
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


# --- the LLM judge sees both parts of the gold ---------------------------------------------------------------

def test_the_mira_judge_is_shown_both_parts(converted: dict[str, dict], tmp_path: Path) -> None:
    rec = converted["rolling_dice_two/1"]
    steps = JUDGES["mira_judge"].steps(Item(rec, "<answer>red, 8</answer>"))
    (ask,) = next(steps)
    cfg_path = tmp_path / "judge.yaml"
    cfg_path.write_text("name: j\nmodel: j\nbase_urls: [http://127.0.0.1:9]\nmodalities: [text]\n")
    messages = llm.render(rec, ask, load_model_config(cfg_path), tmp_path, PROMPTS)
    text = "".join(m["content"] if isinstance(m["content"], str) else
                   "".join(part.get("text", "") for part in m["content"]) for m in messages)
    assert "Ground Truth Answer: “red, 7”" in text
    assert "<answer>red, 8</answer>" in text
