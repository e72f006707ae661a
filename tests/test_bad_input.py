"""Bad input through the real command lines: a clear error naming file, line and field, a non-zero exit,
and no half-written output (DESIGN.md, "Rules that hold everywhere").

`python -m infer.run`, `python -m judge.run` and `python -m data.convert` run as subprocesses from the
repository. An item that cannot be rendered (missing image, unreadable attachment) is not an input
error of the whole run: it is recorded in the raw file with its reason and nothing is sent for it.
"""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

from infer.layout import manifest_of, raw_path
from tests.scripted_server import scripted_server  # noqa: F401  (fixture)

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT = 120


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", *map(str, args)], cwd=ROOT, capture_output=True, text=True,
                          timeout=TIMEOUT, stdin=subprocess.DEVNULL)


def record(i: int = 0, **fields) -> dict:
    return {"id": f"a{i}", "benchmark": "omibench", "question": f"question {i}", "images": [], "choices": [],
            "answer": ["1"], "answer_type": "numeric", "subject": "Mathematics", **fields}


def write_lines(path: Path, lines: list) -> Path:
    """Each entry a dict (written as JSON) or bytes (written verbatim); one per line."""
    path.write_bytes(b"".join((x if isinstance(x, bytes) else json.dumps(x).encode()) + b"\n" for x in lines))
    return path


def model_config(tmp_path: Path, url: str = "http://127.0.0.1:9/v1", name: str = "bad", **extra) -> Path:
    fields = {"name": name, "model": "m", "base_urls": [url], "max_tokens": 16, "max_retries": 0,
              "backoff_base": 0.01, **extra}
    path = tmp_path / f"{name}.yaml"
    path.write_text("".join(f"{k}: {json.dumps(v)}\n" for k, v in fields.items()))
    return path


def infer(tmp_path: Path, data: Path, cfg: Path, bench: str = "omibench", setting: str = "cot_boxed"):
    return cli("infer.run", "--bench", bench, "--data", data, "--model", cfg, "--setting", setting,
               "--results", tmp_path / "results")


def judge(tmp_path: Path, data: Path, *extra: str, bench: str = "omibench", judge_name: str = "rules"):
    return cli("judge.run", "--bench", bench, "--data", data, "--model", "m", "--setting", "s",
               "--judge", judge_name, "--results", tmp_path / "results", *extra)


def files_under(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file()) if folder.exists() else []


def no_traceback(p: subprocess.CompletedProcess) -> None:
    assert "Traceback" not in p.stderr, p.stderr[-3000:]


def clear_error(p: subprocess.CompletedProcess, where: str, field: str, what: str, code: int = 1) -> None:
    """Exit `code`, and one error line naming `where` (file:line), `field` and matching `what`."""
    assert p.returncode == code, (p.returncode, p.stdout, p.stderr[-3000:])
    no_traceback(p)
    pattern = re.escape(where) + r": " + re.escape(field) + r": .*" + what
    assert re.search(pattern, p.stderr), f"no /{pattern}/ in:\n{p.stderr[-3000:]}"


# --- the data file given to infer.run ----------------------------------------------------------------

BAD_DATA = {
    # name: (line 2 of the data file, field, what the error says)
    "malformed JSON": (b'{"id": "a1", "benchmark": "omibench", oops}', "-", r"invalid JSON"),
    "wrong field type": (record(1, images="x.png"), "images", r"expected list, got str"),
    "wrong type inside a list": (record(1, answer=[1]), r"answer[0]", r"expected str, got int"),
    "missing field": ({k: v for k, v in record(1).items() if k != "answer"}, "answer", r"missing"),
    "non-UTF-8 bytes": (json.dumps(record(1, question="caf\u00e9")).encode().replace(b"\\u00e9", b"\xe9"),
                        "-", r"not UTF-8"),
    "dangling [IMAGEn] in the question": (record(1, question="see [IMAGE1]", images=["x.png"]),
                                          "question", r"\[IMAGE1\] but the record has 1 image"),
    "dangling [IMAGEn] in an option": (record(1, choices=["x", "[IMAGE0]"], answer=["A"], answer_type="mcq"),
                                       "choices[1]", r"\[IMAGE0\] but the record has 0 image"),
    "another benchmark's record": (record(1, benchmark="mira"), "benchmark", r"'mira', but --bench is 'omibench'"),
    "unknown answer type": (record(1, answer_type="number"), "answer_type", r"unknown answer type 'number'"),
}


@pytest.mark.parametrize("case", list(BAD_DATA))
def test_infer_refuses_a_bad_data_file_and_writes_nothing(tmp_path, case):
    line2, field, what = BAD_DATA[case]
    data = write_lines(tmp_path / "d.jsonl", [record(0), line2, record(2)])
    p = infer(tmp_path, data, model_config(tmp_path))
    clear_error(p, f"{data}:2", field, what)
    assert files_under(tmp_path / "results") == []


def test_infer_refuses_duplicate_ids(tmp_path):
    data = write_lines(tmp_path / "d.jsonl", [record(0), record(1), record(0, question="another question")])
    p = infer(tmp_path, data, model_config(tmp_path))
    clear_error(p, f"{data}:3", "id", r"duplicate id 'a0'.*line 1")
    assert files_under(tmp_path / "results") == []


# --- images and attachments: the item is recorded as unrenderable, nothing is sent for it -----------


def sent_questions(srv) -> list[str]:
    return [json.dumps(body["messages"]) for body in srv.requests]


def raw_by_id(tmp_path: Path, name: str, bench: str, setting: str) -> dict[str, dict]:
    path = raw_path(tmp_path / "results", bench, name, setting)
    return {x["id"]: x for x in map(json.loads, path.read_text().splitlines())}


def test_missing_image_is_recorded_as_unrenderable_and_not_sent(tmp_path, scripted_server):
    srv = scripted_server()
    Image.new("RGB", (4, 4), "white").save(tmp_path / "ok.png")
    data = write_lines(tmp_path / "d.jsonl", [record(0, images=["ok.png"]), record(1, images=["gone.png"])])
    p = infer(tmp_path, data, model_config(tmp_path, srv.base_url))
    assert p.returncode == 0, p.stderr[-3000:]
    no_traceback(p)
    assert re.search(r"sent 1 \(1 ok, 0 failed\), 1 unrenderable", p.stdout), p.stdout
    lines = raw_by_id(tmp_path, "bad", "omibench", "cot_boxed")
    assert lines["a0"]["error"] is None
    assert lines["a1"]["response"] is None and str(tmp_path / "gone.png") in lines["a1"]["error"]
    assert srv.count == 1 and "question 1" not in sent_questions(srv)[0]


def test_unsupported_image_format_is_reported_not_sent_and_does_not_sink_the_run(tmp_path, scripted_server):
    srv = scripted_server()
    Image.new("RGB", (4, 4), "white").save(tmp_path / "ok.png")
    (tmp_path / "notes.png").write_text("these are notes, renamed .png\n")
    data = write_lines(tmp_path / "d.jsonl", [record(0, images=["ok.png"]), record(1, images=["notes.png"]),
                                              record(2)])
    p = infer(tmp_path, data, model_config(tmp_path, srv.base_url))
    no_traceback(p)
    assert not any("question 1" in q for q in sent_questions(srv)), "the fake image was sent"
    if p.returncode == 0:
        # like a missing image: the item is recorded with its reason, the others are answered
        lines = raw_by_id(tmp_path, "bad", "omibench", "cot_boxed")
        assert "notes.png" in lines["a1"]["error"] and lines["a1"]["response"] is None
        assert lines["a0"]["error"] is None and lines["a2"]["error"] is None
        assert "1 unrenderable" in p.stdout
    else:
        # or refused up front, naming the file, line and field, with nothing written
        clear_error(p, f"{data}:2", "images[0]", r"notes\.png")
        assert files_under(tmp_path / "results") == []


def test_attached_files_that_cannot_be_read_are_recorded_as_unrenderable(tmp_path, scripted_server):
    srv = scripted_server()
    (tmp_path / "table.csv").write_text("a,b\n1,2\n")
    (tmp_path / "broken.xlsx").write_bytes(b"this is not a zip archive")
    (tmp_path / "latin1.csv").write_bytes("caf\u00e9,1\n".encode("latin-1"))
    c2r = dict(benchmark="c2rbench", category="File Processing")
    data = write_lines(tmp_path / "d.jsonl", [
        record(0, files=["table.csv"], **c2r), record(1, files=["broken.xlsx"], **c2r),
        record(2, files=["latin1.csv"], **c2r), record(3, files=["absent.pdf"], **c2r)])
    p = infer(tmp_path, data, model_config(tmp_path, srv.base_url), bench="c2rbench", setting="zero_shot")
    assert p.returncode == 0, p.stderr[-3000:]
    no_traceback(p)
    assert "3 unrenderable" in p.stdout
    lines = raw_by_id(tmp_path, "bad", "c2rbench", "zero_shot")
    assert lines["a0"]["error"] is None
    assert re.search(r"cannot read attached file .*broken\.xlsx", lines["a1"]["error"])
    assert re.search(r"cannot read attached file .*latin1\.csv", lines["a2"]["error"])
    assert re.search(r"attached file not found: .*absent\.pdf", lines["a3"]["error"])
    assert srv.count == 1 and "a,b" in sent_questions(srv)[0] and "question 0" in sent_questions(srv)[0]


# --- names on the command line, configs ---------------------------------------------------------------


def test_unknown_benchmark_name(tmp_path):
    data = write_lines(tmp_path / "d.jsonl", [record(0)])
    p = infer(tmp_path, data, model_config(tmp_path), bench="omnibench")
    assert p.returncode == 2 and re.search(r"--bench: invalid choice: 'omnibench'.*'omibench'", p.stderr)
    p = cli("data.convert", "omnibench", "--src", tmp_path, "--out", tmp_path / "out" / "x.jsonl")
    assert p.returncode == 2 and re.search(r"invalid choice: 'omnibench'", p.stderr)
    assert files_under(tmp_path / "results") == [] and not (tmp_path / "out").exists()


def test_judge_names_an_unknown_benchmark(tmp_path):
    data = write_lines(tmp_path / "d.jsonl", [record(0)])
    p = judge(tmp_path, data, bench="omnibench")
    assert p.returncode != 0
    no_traceback(p)
    assert re.search(r"(unknown benchmark|invalid choice).*'omnibench'", p.stderr) and "omibench" in p.stderr, p.stderr
    assert files_under(tmp_path / "results") == []


def test_unknown_setting_modifier(tmp_path):
    data = write_lines(tmp_path / "d.jsonl", [record(0)])
    p = infer(tmp_path, data, model_config(tmp_path), setting="cot_boxed+captoin")
    assert p.returncode == 1
    no_traceback(p)
    assert re.search(r"^error: setting 'cot_boxed\+captoin': unknown modifier 'captoin' \(known: .*caption", p.stderr, re.M)
    p = infer(tmp_path, data, model_config(tmp_path), setting="cot_boxd")
    assert p.returncode == 1 and re.search(r"no prompt .*cot_boxd\.txt .*known: .*cot_boxed", p.stderr)
    assert files_under(tmp_path / "results") == []


@pytest.mark.parametrize("fields, what", [
    ({"max_token": 32}, r"unknown key 'max_token' \(did you mean 'max_tokens'\?\)"),
    ({"concurency": 4}, r"unknown key 'concurency' \(did you mean 'concurrency'\?\)"),
    ({"concurrency": "eight"}, r"concurrency: expected a non-negative integer, got 'eight'"),
    ({"backoff_base": "fast"}, r"backoff_base: expected a number, got 'fast'"),
    ({"modalities": ["text", "imgae"]}, r"modalities: unknown \['imgae'\]"),
])
def test_model_config_with_a_typo(tmp_path, fields, what):
    data = write_lines(tmp_path / "d.jsonl", [record(0)])
    cfg = model_config(tmp_path, **fields)
    p = infer(tmp_path, data, cfg)
    assert p.returncode == 1
    no_traceback(p)
    assert re.search(r"^error: " + re.escape(str(cfg)) + r": " + what, p.stderr, re.M), p.stderr
    # the same config as an LLM judge
    raw = raw_path(tmp_path / "results", "omibench", "m", "s")
    raw.parent.mkdir(parents=True)
    write_lines(raw, [{"id": "a0", "sample_idx": 0, "request_key": "k", "response": "\\boxed{1}", "error": None}])
    p = judge(tmp_path, data, "--judge-model", str(cfg), judge_name="omibench_gptscore")
    assert p.returncode == 1
    no_traceback(p)
    assert re.search(r"^error: " + re.escape(str(cfg)) + r": " + what, p.stderr, re.M), p.stderr
    assert files_under(tmp_path / "results") == [raw]


# --- result files -----------------------------------------------------------------------------------


def raw_outputs(tmp_path: Path, lines: list) -> Path:
    raw = raw_path(tmp_path / "results", "omibench", "m", "s")
    raw.parent.mkdir(parents=True)
    return write_lines(raw, lines)


def raw_line(i: int, response: str = "\\boxed{1}") -> dict:
    return {"id": f"a{i}", "sample_idx": 0, "request_key": f"k{i}", "response": response, "error": None}


def test_corrupt_line_in_the_middle_of_a_raw_file_when_judging(tmp_path):
    data = write_lines(tmp_path / "d.jsonl", [record(0), record(1), record(2)])
    raw = raw_outputs(tmp_path, [raw_line(0), b'{"id": "a1", "sample_idx": 0, "resp', raw_line(2)])
    before = raw.read_bytes()
    p = judge(tmp_path, data)
    clear_error(p, f"{raw}:2", "-", r"corrupt result line")
    assert raw.read_bytes() == before
    assert files_under(tmp_path / "results") == [raw]  # no verdict file, no manifest


def test_corrupt_line_in_the_middle_of_a_raw_file_when_resuming_inference(tmp_path):
    data = write_lines(tmp_path / "d.jsonl", [record(0), record(1)])
    cfg = model_config(tmp_path, name="m")
    raw = raw_path(tmp_path / "results", "omibench", "m", "cot_boxed")
    raw.parent.mkdir(parents=True)
    write_lines(raw, [raw_line(0), b"\x00\x00garbage", raw_line(1)])
    before = raw.read_bytes()
    p = infer(tmp_path, data, cfg)
    clear_error(p, f"{raw}:2", "-", r"corrupt result line")
    assert raw.read_bytes() == before
    assert not manifest_of(raw).exists()


BAD_JUDGE_DATA = {
    # name: (line 2 of the data file, field, what the error says)
    "malformed JSON": (b'{"id": "a1", oops', "-", r"invalid JSON"),
    "wrong field type": (record(1, answer="12"), "answer", r"expected list, got str"),
    "missing field": ({k: v for k, v in record(1).items() if k != "answer"}, "answer", r"missing"),
    "duplicate id": (record(0, answer=["7"]), "id", r"duplicate id 'a0'"),
}


@pytest.mark.parametrize("case", list(BAD_JUDGE_DATA))
def test_judge_refuses_a_bad_data_file_and_writes_nothing(tmp_path, case):
    line2, field, what = BAD_JUDGE_DATA[case]
    data = write_lines(tmp_path / "d.jsonl", [record(0), line2, record(2)])
    ids = [0, 2] if case == "duplicate id" else [0, 1, 2]  # every raw output has its item in the data
    raw = raw_outputs(tmp_path, [raw_line(i) for i in ids])
    p = judge(tmp_path, data)
    clear_error(p, f"{data}:2", field, what)
    assert files_under(tmp_path / "results") == [raw]


# --- data.convert ------------------------------------------------------------------------------------


def release(tmp_path: Path, line2) -> tuple[Path, Path]:
    """An OMIBench release folder whose test.jsonl has a good line 1 and the given line 2."""
    src = tmp_path / "OMIBench"
    (src / "images").mkdir(parents=True)
    for name in ("a.png", "b.png"):
        Image.new("RGB", (4, 4), "white").save(src / "images" / name)
    (src / "images" / "notes.png").write_text("not an image\n")
    good = {"id": "o0", "subject": "Physics", "answer_type": "open", "question": "[IMAGE0] [IMAGE1] How far?",
            "image_list": ["a.png", "b.png"], "answer": ["3"]}
    if isinstance(line2, dict):
        line2 = {**good, "id": "o1", **line2}
    write_lines(src / "test.jsonl", [good, line2])
    return src, src / "test.jsonl"


BAD_RELEASE = {
    # name: (line 2, field, what the error says)
    "malformed JSON": (b'{"id": "o1", "question": oops', "-", r"invalid JSON"),
    "wrong field type": ({"image_list": "a.png"}, "image_list", r"expected a list, got str"),
    "duplicate id": ({"id": "o0"}, "id", r"duplicate id 'o0' \(first on line 1\)"),
    "non-UTF-8 bytes": (json.dumps({"id": "o1", "subject": "Physics", "answer_type": "open",
                                    "question": "[IMAGE0] caf\u00e9", "image_list": ["a.png"], "answer": ["3"]})
                        .encode().replace(b"\\u00e9", b"\xe9"), "-", r"not UTF-8"),
    "dangling [IMAGEn]": ({"question": "[IMAGE0] [IMAGE2] compare"}, "question", r"\[IMAGE2\] but image_list has 2"),
    "missing image": ({"image_list": ["a.png", "gone.png"]}, "image_list[1]", r"image not found: .*gone\.png"),
}


@pytest.mark.parametrize("case", list(BAD_RELEASE))
def test_convert_refuses_a_bad_release_and_writes_nothing(tmp_path, case):
    line2, field, what = BAD_RELEASE[case]
    src, source = release(tmp_path, line2)
    out = tmp_path / "out" / "test.jsonl"
    p = cli("data.convert", "omibench", "--src", src, "--out", out)
    clear_error(p, f"{source}:2", field, what)
    assert re.search(re.escape(str(out)) + r": not written", p.stderr)
    assert files_under(tmp_path / "out") == []


def test_convert_refuses_an_image_that_is_not_an_image(tmp_path):
    src, _ = release(tmp_path, {"image_list": ["a.png", "notes.png"]})
    out = tmp_path / "out" / "test.jsonl"
    p = cli("data.convert", "omibench", "--src", src, "--out", out)
    assert p.returncode == 1
    no_traceback(p)
    # named by the image's path and the unified field (the line is that of the unwritten output)
    assert re.search(r":2: images\[1\]: cannot open image .*notes\.png", p.stderr), p.stderr
    assert re.search(re.escape(str(out)) + r": not written", p.stderr)
    assert files_under(tmp_path / "out") == []
