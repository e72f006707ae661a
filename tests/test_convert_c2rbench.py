"""C²RBench converter and demo: JSON and JSONL, both places of the steps, both places of attachments,
malformed input, and the demo end to end."""
from __future__ import annotations

import csv
import json
import logging
import os
from pathlib import Path

import pytest
from openpyxl import load_workbook
from PIL import Image

from data.convert import convert
from data.converters.c2rbench import answer_type, canonical_label
from data.demo import c2rbench as demo
from data.jsonl import DataError, read_jsonl
from data.validate import validate_file

# The paper's own example (Fig. 19): Steps at the top level, Level as a string.
PAPER_EXAMPLE = {
    "task_id": "07100",
    "Question": "2019年诺贝尔物理学奖的得主中，不曾在瑞士大学任职过的人获得诺贝尔奖时多大年纪？",
    "Label": "General Knowledge",
    "Level": "2",
    "Final answer": "84",
    "File_name": "",
    "Steps": "1.在网络上搜索诺贝尔物理学奖官网。\n2.确认詹姆斯·皮布尔斯出生于1935年。\n3.他获奖时84岁。",
    "Number of steps": "8",
}


def task(task_id: str, **fields) -> dict:
    base = {"task_id": task_id, "Question": "一加一等于几？", "Label": "Math", "Level": 1, "Final answer": "2",
            "File_name": "", "Annotator Metadata": {"Steps": "1.读题\n2.计算\n3.作答", "Number of steps": 3}}
    base.update(fields)
    return base


def png(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", (5, 5), "white").save(path)


def no_output(out: Path) -> bool:
    return not out.exists() and not [p for p in out.parent.iterdir() if p.name.startswith((out.stem, f".{out.stem}"))]


# ---------------------------------------------------------------- accepted layouts

def test_json_array_nested_metadata_attachments_in_place(tmp_path: Path) -> None:
    rel = tmp_path / "release"
    rel.mkdir()
    (rel / "scores.csv").write_text("姓名,成绩\n张三,90\n李四,80\n", encoding="utf-8")
    png(rel / "chart.png")
    tasks = [
        task("06001", Question="附件中成绩最高的是谁？", Label="File", Level="2", **{"Final answer": "张三"},
             File_name="scores.csv;chart.png",
             **{"Annotator Metadata": {"Steps": ["打开附件", "比较成绩"], "Number of steps": "7", "Tools": "Excel"}},
             Source="Kaggle"),
        task("02001", Question="谁最矮？A. 甲 B. 乙 C. 丙 D. 无法确定", Label="Logical", **{"Final answer": "C"}),
    ]
    src = rel / "c2rbench.json"
    src.write_text(json.dumps(tasks, ensure_ascii=False, indent=2), encoding="utf-8")
    out = tmp_path / "out" / "c2r.jsonl"
    a, b = convert("c2rbench", src, out)
    assert a == read_jsonl(out)[0]

    assert a["id"] == "06001" and a["benchmark"] == "c2rbench"
    assert a["question"] == "附件中成绩最高的是谁？"
    assert a["category"] == "File Processing" and a["extra"]["Label"] == "File"
    assert a["level"] == 2
    assert a["answer"] == ["张三"] and a["answer_type"] == "text"
    assert a["steps"] == ["打开附件", "比较成绩"] and a["num_steps"] == 7
    ref = lambda name: os.path.relpath(rel / name, out.parent)  # noqa: E731
    assert a["files"] == [ref("scores.csv"), ref("chart.png")]
    assert a["images"] == [ref("chart.png")]
    assert a["choices"] == []
    assert a["extra"]["Source"] == "Kaggle"
    assert a["extra"]["Annotator Metadata"] == {"Tools": "Excel"}

    assert b["answer"] == ["C"] and b["answer_type"] == "mcq" and b["has_inline_choices"] is True
    assert b["level"] == 1 and b["num_steps"] == 3 and b["steps"] == "1.读题\n2.计算\n3.作答"
    assert "files" not in b and b["images"] == [] and "extra" not in b
    assert validate_file(out) == (2, [])


def test_jsonl_top_level_steps_and_files_folder(tmp_path: Path) -> None:
    (tmp_path / "files").mkdir()
    (tmp_path / "files" / "sales.xlsx").write_bytes(b"PK placeholder")  # only its existence matters here
    png(tmp_path / "files" / "fig.png")
    lines = [
        PAPER_EXAMPLE,
        # Fig. 18 spells "Task_id"; a level given as an integer; attachments under files/.
        {"Task_id": "06.138", "Question": "表格中销量总和是多少？", "Label": "File Processing", "Level": 3,
         "Final answer": "1,234", "File_name": ["sales.xlsx", "files/fig.png"], "Steps": "1.打开\n2.求和",
         "Number of steps": 12},
    ]
    src = tmp_path / "c2r.jsonl"
    src.write_text("\n".join(json.dumps(x, ensure_ascii=False) for x in lines) + "\n", encoding="utf-8")
    out = tmp_path / "out" / "u.jsonl"
    a, b = convert("c2rbench", src, out)

    assert a["id"] == "07100" and a["category"] == "General Knowledge" and a["level"] == 2
    assert a["answer"] == ["84"] and a["answer_type"] == "numeric"
    assert a["steps"] == PAPER_EXAMPLE["Steps"] and a["num_steps"] == 8
    assert "files" not in a and "extra" not in a

    assert b["id"] == "06.138" and b["level"] == 3 and b["num_steps"] == 12
    assert b["answer"] == ["1,234"] and b["answer_type"] == "numeric"
    assert b["files"] == ["../files/sales.xlsx", "../files/fig.png"]
    assert b["images"] == ["../files/fig.png"]


def test_folder_of_data_files_ignores_attachment_json(tmp_path: Path) -> None:
    (tmp_path / "files").mkdir()
    (tmp_path / "files" / "table.json").write_text('{"not": "a task"}')
    (tmp_path / "a.json").write_text(json.dumps([task("04001")]))
    (tmp_path / "b.jsonl").write_text(json.dumps(task("04002", File_name="table.json")) + "\n")
    recs = convert("c2rbench", tmp_path, tmp_path / "out" / "all.jsonl")
    assert [r["id"] for r in recs] == ["04001", "04002"]
    assert recs[1]["files"] == ["../files/table.json"] and recs[1]["images"] == []


def test_nested_steps_win_and_top_level_copy_is_kept(tmp_path: Path) -> None:
    src = tmp_path / "t.json"
    src.write_text(json.dumps([task("04001", Steps="other")]))
    (rec,) = convert("c2rbench", src, tmp_path / "o.jsonl")
    assert rec["steps"] == "1.读题\n2.计算\n3.作答" and rec["extra"] == {"Steps": "other"}


def test_unknown_label_is_kept_with_a_warning(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    src = tmp_path / "t.json"
    src.write_text(json.dumps([task("09001", Label="Poetry"), task("08001", Label="reading comprehension")]))
    with caplog.at_level(logging.WARNING):
        a, b = convert("c2rbench", src, tmp_path / "o.jsonl")
    assert a["category"] == "Poetry" and "Poetry" in caplog.text
    assert b["category"] == "Reading" and b["extra"]["Label"] == "reading comprehension"


def test_helpers() -> None:
    assert [canonical_label(x) for x in ("math", "Graph  Analysis", "FILE", "General Knowledge")] == [
        "Math", "Graph Analysis", "File Processing", "General Knowledge"]
    assert canonical_label("数学") is None
    options = "下列哪项正确？\nA．甲\nB．乙\nC．丙\nD．丁"
    assert answer_type("B", options) == (["B"], "mcq")
    assert answer_type("(B)", "问题（A）甲（B）乙") == (["B"], "mcq")
    assert answer_type("AC", options) == (["A", "C"], "mcq")
    assert answer_type("B", "连接点A、B，求长度。") == (["B"], "text")  # points, not options
    assert answer_type("D", "选择：A. 甲 B. 乙") == (["D"], "text")
    assert answer_type("-3.5", "") == (["-3.5"], "numeric")
    assert answer_type("84岁", "") == (["84岁"], "text")


# ---------------------------------------------------------------- malformed input

def convert_fails(src: Path, out: Path) -> str:
    with pytest.raises(DataError) as e:
        convert("c2rbench", src, out)
    assert no_output(out)
    return "\n".join(e.value.problems)


def test_malformed_tasks_are_all_reported(tmp_path: Path) -> None:
    bad = [task("04001")]
    bad.append({k: v for k, v in task("04002").items() if k != "Question"})
    bad += [task("04003", Level="x"), task("04004", Level=4), task("04005", File_name="nowhere.pdf"),
            task("04006", **{"Final answer": ""}), task("04001"),
            task("04008", **{"Annotator Metadata": {"Steps": "1.a", "Number of steps": "three"}})]
    src = tmp_path / "bad.json"
    src.write_text(json.dumps(bad, ensure_ascii=False, indent=1), encoding="utf-8")
    lines = src.read_text(encoding="utf-8").splitlines()
    line_of = {tid: next(i for i, l in enumerate(lines, 1) if tid in l) - 1 for tid in ("04002", "04003", "04004")}

    msg = convert_fails(src, tmp_path / "out" / "x.jsonl")
    assert f"{src}:{line_of['04002']}: Question: task 04002: missing or empty" in msg
    assert f"{src}:{line_of['04003']}: Level: task 04003: expected an integer, got 'x'" in msg
    assert f"{src}:{line_of['04004']}: Level: task 04004: 4 is outside 1–3" in msg
    assert "File_name: task 04005: attachment 'nowhere.pdf' not found" in msg
    assert "Final answer: task 04006: missing or empty" in msg
    assert "task_id: task 04001: duplicate id '04001'" in msg
    assert "Annotator Metadata.Number of steps: task 04008: expected an integer" in msg
    assert len(msg.splitlines()) == 7


def test_jsonl_errors_name_the_line(tmp_path: Path) -> None:
    src = tmp_path / "x.jsonl"
    src.write_text(json.dumps(task("04001")) + "\n\n" + json.dumps(task("04002", Level="x")) + "\n")
    assert f"{src}:3: Level: task 04002:" in convert_fails(src, tmp_path / "o.jsonl")
    src.write_text(json.dumps(task("04001")) + "\n{broken\n")
    assert f"{src}:2: -: invalid JSON" in convert_fails(src, tmp_path / "o.jsonl")


def test_not_an_array(tmp_path: Path) -> None:
    src = tmp_path / "x.json"
    src.write_text(json.dumps(task("04001")))
    assert "expected a JSON array" in convert_fails(src, tmp_path / "o.jsonl")


# ---------------------------------------------------------------- the demo set

def test_demo_generates_converts_and_validates(tmp_path: Path) -> None:
    src = demo.generate(tmp_path / "official")
    official = json.loads(src.read_text(encoding="utf-8"))
    assert 10 <= len(official) <= 20
    assert any("Steps" in t for t in official) and any("Annotator Metadata" in t for t in official)

    out = tmp_path / "c2rbench.jsonl"
    recs = convert("c2rbench", src, out)
    assert validate_file(out) == (len(recs), [])
    assert {r["category"] for r in recs} == set(demo.CODES)  # all eight subsets
    assert {r["level"] for r in recs} == {1, 2, 3}
    for r in recs:  # the paper's level rule holds for every demo task
        assert r["level"] == (1 if r["num_steps"] <= 6 else 2 if r["num_steps"] <= 11 else 3)
    assert {"mcq", "numeric", "text"} <= {r["answer_type"] for r in recs}
    assert any(r["images"] for r in recs)

    # The table tasks are answered by the tables' contents.
    xlsx = next(r for r in recs if any(f.endswith(".xlsx") for f in r.get("files", [])))
    sheet = load_workbook(out.parent / xlsx["files"][0]).active
    assert xlsx["answer"] == [str(sum(row[1] for row in sheet.iter_rows(min_row=2, values_only=True)))]
    scores = next(r for r in recs if any(f.endswith("scores.csv") for f in r.get("files", [])))
    with open(out.parent / scores["files"][0], encoding="utf-8") as f:
        table = list(csv.DictReader(f))
    assert scores["answer"] == [max(table, key=lambda row: int(row["成绩"]))["姓名"]]

    # Deterministic.
    assert json.loads(demo.generate(tmp_path / "again").read_text(encoding="utf-8")) == official


def test_optional_caption_of_an_image_attachment(tmp_path: Path) -> None:
    png(tmp_path / "shapes.png")
    src = tmp_path / "c2r.json"
    src.write_text(json.dumps([task("01001", File_name="shapes.png", caption="两个圆形")], ensure_ascii=False),
                   encoding="utf-8")
    (rec,) = convert("c2rbench", src, tmp_path / "out.jsonl")
    assert rec["captions"] == ["两个圆形"] and "caption" not in rec.get("extra", {})
    src.write_text(json.dumps([task("01001", caption="no image here")], ensure_ascii=False), encoding="utf-8")
    with pytest.raises(DataError, match="c2r.json:1: caption: task 01001: a caption needs exactly one image attachment"):
        convert("c2rbench", src, tmp_path / "out2.jsonl")
    assert no_output(tmp_path / "out2.jsonl")
