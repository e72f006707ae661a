"""pipeline.export_sft: unified records -> LLaMA-Factory sharegpt (OMIBench Table 9's SFT setting)."""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from pipeline.export_sft import dataset_info_entry, ends_with_boxed, main
from infer.templates import load_template

INSTRUCTION = load_template("omibench", "cot_boxed").text.splitlines()[0]

EXPECTED_INFO_ENTRY = {
    "file_name": "sft.json",
    "formatting": "sharegpt",
    "columns": {"messages": "messages", "images": "images"},
    "tags": {"role_tag": "role", "content_tag": "content", "user_tag": "user", "assistant_tag": "assistant"},
}


def png(path: Path, shade: int) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", (6, 5), (shade, 255 - shade, 0)).save(path)


def record(**kw: Any) -> dict[str, Any]:
    base = {"id": "x", "benchmark": "omibench", "question": "Q?", "images": [], "choices": [],
            "answer": ["1"], "answer_type": "open", "solution": "Because."}
    return {**base, **kw}


def write_jsonl(path: Path, records: list[dict[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


@pytest.fixture
def src(tmp_path: Path) -> Path:
    """A unified file in its own folder, images in a subfolder, covering every image placement."""
    folder = tmp_path / "bench"
    for i in range(5):
        png(folder / "img" / f"p{i}.png", i * 50)
    imgs = [f"img/p{i}.png" for i in range(5)]
    records = [
        # out-of-order tags, a repeated tag, an image option, two untagged images (p1, p4)
        record(id="multi", question="Compare [IMAGE2] with [IMAGE0], then [IMAGE2] again.", images=imgs,
               choices=["[IMAGE3]", "none of these"], answer=["A"], answer_type="mcq",
               solution="[IMAGE2] matches option A."),
        # multi-select MCQ whose solution already ends with the boxed answer
        record(id="mcq2", question="Which two? [IMAGE0]", images=["img/p0.png"], choices=["w", "x", "y", "z"],
               answer=["C", "D"], answer_type="mcq", solution="Both hold, so $\\boxed{CD}$."),
        # multi-part answer, one untagged image
        record(id="parts", question="Give a and b.", images=["img/p1.png"], answer=["3", "5"],
               answer_type="multi-part", solution="a = 3 and b = 5."),
        # text only
        record(id="text", question="What is 2+2?", answer=["4"], answer_type="numeric", solution="2+2=4"),
    ]
    return write_jsonl(folder / "train.jsonl", records)


def run(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def load(out: Path, name: str = "sft") -> list[dict[str, Any]]:
    return json.loads((out / f"{name}.json").read_text(encoding="utf-8"))


def by_first_image(examples: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {ex["messages"][1]["content"].splitlines()[0]: ex for ex in examples}


def test_image_tokens_match_images_in_order_and_paths_resolve_from_out(src, tmp_path, capsys):
    out = tmp_path / "export" / "llamafactory"
    code, stdout, err = run(capsys, "--data", src, "--out", out, "--name", "sft")
    assert code == 0, err
    assert "wrote 4 example(s)" in stdout
    examples = load(out)
    assert len(examples) == 4
    for ex in examples:
        assert set(ex) == {"messages", "images"}
        assert [m["role"] for m in ex["messages"]] == ["user", "assistant"]
        n_tokens = sum(m["content"].count("<image>") for m in ex["messages"])
        assert n_tokens == len(ex["images"])
        assert ex["messages"][0]["content"].startswith(INSTRUCTION)
        for p in ex["images"]:
            assert not os.path.isabs(p)
            assert (out / p).is_file()  # LLaMA-Factory: media_dir (= dataset_dir = DIR) joined with the path

    multi = examples[0]
    # untagged p1, p4 first (the template's {{images}} slot), then tags as they appear, the option last
    names = [Path(p).name for p in multi["images"]]
    assert names == ["p1.png", "p4.png", "p2.png", "p0.png", "p2.png", "p3.png"]
    user = multi["messages"][0]["content"]
    assert "[IMAGE" not in user
    assert "[Question]\n<image><image>Compare <image> with <image>, then <image> again.\n" in user
    assert "[Choices]\nA. <image>\nB. none of these\n" in user
    assert user.rstrip().endswith("Let's think step-by-step!")
    # same bytes as the images the record names
    for p, idx in zip(multi["images"], [1, 4, 2, 0, 2, 3]):
        assert (out / p).resolve() == (src.parent / "img" / f"p{idx}.png").resolve()

    text_only = examples[3]
    assert text_only["images"] == [] and "<image>" not in text_only["messages"][0]["content"]


def test_dataset_info_has_the_documented_sharegpt_entry(src, tmp_path, capsys):
    out = tmp_path / "out"
    code, _, err = run(capsys, "--data", src, "--out", out, "--name", "sft")
    assert code == 0, err
    info = json.loads((out / "dataset_info.json").read_text(encoding="utf-8"))
    assert info == {"sft": EXPECTED_INFO_ENTRY}
    assert dataset_info_entry("sft") == EXPECTED_INFO_ENTRY
    assert (out / info["sft"]["file_name"]).is_file()


def test_existing_dataset_info_entries_are_kept(src, tmp_path, capsys):
    out = tmp_path / "out"
    out.mkdir()
    other = {"mllm_demo": {"file_name": "mllm_demo.json", "formatting": "sharegpt"}}
    (out / "dataset_info.json").write_text(json.dumps(other), encoding="utf-8")
    code, stdout, err = run(capsys, "--data", src, "--out", out, "--name", "sft")
    assert code == 0, err
    info = json.loads((out / "dataset_info.json").read_text(encoding="utf-8"))
    assert info == {**other, "sft": EXPECTED_INFO_ENTRY}
    assert "added entry 'sft'" in stdout


def test_solution_target_appends_the_boxed_answer_once(src, tmp_path, capsys):
    out = tmp_path / "out"
    assert run(capsys, "--data", src, "--out", out, "--name", "sft")[0] == 0
    answers = [ex["messages"][1]["content"] for ex in load(out)]
    assert answers[0] == "[IMAGE2] matches option A.\nThe final answer is \\boxed{A}"
    assert answers[1] == "Both hold, so $\\boxed{CD}$."  # already ends with a boxed answer
    assert answers[2] == "a = 3 and b = 5.\nThe final answer is \\boxed{3, 5}"
    assert answers[3] == "2+2=4\nThe final answer is \\boxed{4}"


def test_answer_target_is_the_boxed_gold_only(src, tmp_path, capsys):
    out = tmp_path / "out"
    code, _, err = run(capsys, "--data", src, "--out", out, "--name", "sft", "--target", "answer")
    assert code == 0, err
    assert [ex["messages"][1]["content"] for ex in load(out)] == [
        "\\boxed{A}", "\\boxed{CD}", "\\boxed{3, 5}", "\\boxed{4}"]


def test_targets_are_scored_correct_by_the_rule_judge(src, tmp_path, capsys):
    from judge.rules import score

    records = [json.loads(line) for line in src.read_text().splitlines()]
    for target in ("solution", "answer"):
        out = tmp_path / target
        code, stdout, _ = run(capsys, "--data", src, "--out", out, "--name", "sft", "--target", target)
        assert code == 0 and "rule judge does not score" not in stdout
        for rec, ex in zip(records, load(out)):
            assert score(rec, ex["messages"][1]["content"])["correct"], (target, rec["id"])


def test_missing_solution_is_an_error_naming_file_and_line(tmp_path, capsys):
    data = write_jsonl(tmp_path / "d.jsonl", [record(id="a"), record(id="b", solution="  "),
                                              {k: v for k, v in record(id="c").items() if k != "solution"}])
    out = tmp_path / "out"
    code, _, err = run(capsys, "--data", data, "--out", out)
    assert code == 1
    assert f"{data}:2: solution:" in err and f"{data}:3: solution:" in err
    assert f"{data}:1:" not in err
    assert not out.exists()  # nothing written

    code, stdout, err = run(capsys, "--data", data, "--out", out, "--skip-missing")
    assert code == 0, err
    assert "skipped 2 record(s) without a solution" in stdout
    assert len(load(out, "my_dataset")) == 1
    # the answer target needs no solution
    code, _, err = run(capsys, "--data", data, "--out", tmp_path / "o2", "--target", "answer")
    assert code == 0, err
    assert len(load(tmp_path / "o2", "my_dataset")) == 3


def test_exclude_ids_from_text_or_jsonl(src, tmp_path, capsys):
    ids = tmp_path / "test_ids.txt"
    ids.write_text("multi\n\nparts\nnot-in-data\n", encoding="utf-8")
    out = tmp_path / "out"
    code, stdout, err = run(capsys, "--data", src, "--out", out, "--name", "sft", "--exclude-ids", ids)
    assert code == 0, err
    assert "excluded 2 record(s)" in stdout and "1 listed id(s) matched no record" in stdout
    kept = [ex["messages"][1]["content"] for ex in load(out)]
    assert kept == ["Both hold, so $\\boxed{CD}$.", "2+2=4\nThe final answer is \\boxed{4}"]

    bench = write_jsonl(tmp_path / "test.jsonl", [record(id="text"), record(id="mcq2")])
    code, stdout, err = run(capsys, "--data", src, "--out", out, "--name", "sft", "--exclude-ids", bench)
    assert code == 0, err
    assert "excluded 2 record(s)" in stdout
    assert len(load(out)) == 2


def test_excluded_items_are_never_checked(tmp_path, capsys):
    data = write_jsonl(tmp_path / "d.jsonl", [
        record(id="train"),
        {k: v for k, v in record(id="test-1").items() if k != "solution"},  # would be an error
        record(id="test-2", question="[IMAGE0]", images=["missing.png"]),  # would be an error
    ])
    ids = tmp_path / "ids.txt"
    ids.write_text("test-1\ntest-2\n", encoding="utf-8")
    code, stdout, err = run(capsys, "--data", data, "--out", tmp_path / "out", "--exclude-ids", ids)
    assert code == 0, err
    assert "excluded 2 record(s)" in stdout
    assert len(load(tmp_path / "out", "my_dataset")) == 1


def test_several_data_files_resolve_images_from_their_own_folders(src, tmp_path, capsys):
    png(tmp_path / "other" / "deep" / "q.png", 9)
    other = write_jsonl(tmp_path / "other" / "deep" / "more.jsonl",
                        [record(id="o", question="See [IMAGE0].", images=["q.png"])])
    out = tmp_path / "out"
    code, _, err = run(capsys, "--data", src, "--data", other, "--out", out, "--name", "sft")
    assert code == 0, err
    examples = load(out)
    assert len(examples) == 5
    assert (out / examples[-1]["images"][0]).resolve() == (tmp_path / "other" / "deep" / "q.png").resolve()


def test_literal_image_token_or_missing_image_is_refused(tmp_path, capsys):
    png(tmp_path / "a.png", 1)
    data = write_jsonl(tmp_path / "d.jsonl", [
        record(id="ok", question="[IMAGE0]", images=["a.png"]),
        record(id="literal", question="Is <image> a tag? [IMAGE0]", images=["a.png"]),
        record(id="gone", question="[IMAGE0]", images=["missing.png"]),
        record(id="video", question="A <video> here.", answer=["1"]),
    ])
    out = tmp_path / "out"
    code, _, err = run(capsys, "--data", data, "--out", out)
    assert code == 1
    assert f"{data}:2: messages: 2 <image> token(s) for 1 image(s)" in err
    assert f"{data}:3: images[0]: file not found" in err
    assert f"{data}:4: messages:" in err and "<video>" in err
    assert f"{data}:1:" not in err
    assert not out.exists()


def test_other_prompt_and_bad_arguments(src, tmp_path, capsys):
    out = tmp_path / "out"
    code, _, err = run(capsys, "--data", src, "--out", out, "--name", "sft", "--prompt", "think360/direct")
    assert code == 0, err
    user = load(out)[0]["messages"][0]["content"]
    assert user.startswith("<image><image>Compare <image>") and INSTRUCTION not in user

    assert run(capsys, "--data", src, "--out", out, "--prompt", "omibench/nope")[0] == 1
    assert run(capsys, "--data", src, "--out", out, "--prompt", "omibench/cot_boxed+caption")[0] == 1
    assert run(capsys, "--data", src, "--out", out, "--name", "../escape")[0] == 1
    code, _, err = run(capsys, "--data", tmp_path / "absent.jsonl", "--out", out)
    assert code == 1 and "file not found" in err


@pytest.mark.parametrize("text,expected", [
    ("so \\boxed{3}", True),
    ("so $\\boxed{\\frac{1}{2}}$.", True),
    ("\\[\\boxed{x^{2}}\\]\n", True),
    ("\\boxed{3} is wrong; it is 4", False),
    ("no box here", False),
    ("\\boxed{unclosed", False),
])
def test_ends_with_boxed(text, expected):
    assert ends_with_boxed(text) is expected
