"""data.validate: every problem as file:line: field: problem, a non-zero exit, nothing written."""
import json

from PIL import Image

from data.validate import main, validate_file


def rec(**kw):
    base = {"id": "a", "benchmark": "omibench", "question": "Q [IMAGE0]", "images": ["ok.png"], "choices": [],
            "answer": ["1"], "answer_type": "numeric"}
    return {**base, **kw}


def write_lines(path, lines):
    path.write_bytes(b"".join((x if isinstance(x, bytes) else json.dumps(x).encode()) + b"\n" for x in lines))


def test_valid_file_passes(tmp_path, capsys):
    Image.new("RGB", (2, 2)).save(tmp_path / "ok.png")
    write_lines(tmp_path / "d.jsonl", [rec(), rec(id="b", choices=["[IMAGE0]", "x"], answer=["A"], answer_type="mcq")])
    assert main([str(tmp_path / "d.jsonl")]) == 0
    assert "OK, 2 records" in capsys.readouterr().out


def test_every_problem_is_reported_with_file_line_and_field(tmp_path, capsys):
    Image.new("RGB", (2, 2)).save(tmp_path / "ok.png")
    (tmp_path / "corrupt.png").write_bytes(b"\x89PNG\r\n\x1a\nnot really")
    f = tmp_path / "d.jsonl"
    write_lines(f, [
        rec(),                                                     # 1 fine
        rec(),                                                     # 2 duplicate id
        b'{"id": "c", "question": ',                               # 3 not JSON
        rec(id="d", question="see [IMAGE3]"),                      # 4 dangling tag
        rec(id="e", images=["missing.png"]),                       # 5 missing image
        rec(id="f", images=["corrupt.png"]),                       # 6 corrupt image
        rec(id="g", answer=[]),                                    # 7 no answer
        rec(id="h", answer="1"),                                   # 8 wrong type
        rec(id="i", benchmark="mmmu"),                             # 9 unknown benchmark
        b'{"id": "j", "question": "caf\xe9"}',                     # 10 not UTF-8
        rec(id="k", choices=["[IMAGE1]"], answer=["A"], answer_type="mcq"),  # 11 dangling tag in an option
    ])
    n, problems = validate_file(f)
    text = "\n".join(problems)
    assert f"{f}:2: id: duplicate id 'a' (first on line 1)" in text
    assert f"{f}:3: -: invalid JSON" in text
    assert f"{f}:4: question: [IMAGE3] but the record has 1 image(s)" in text
    assert f"{f}:5: images[0]: file not found" in text
    assert f"{f}:6: images[0]: cannot open image" in text
    assert f"{f}:7: answer: no gold answer" in text
    assert f"{f}:8: answer: expected list, got str" in text
    assert f"{f}:9: benchmark: unknown benchmark 'mmmu'" in text
    assert f"{f}:10: -: not UTF-8" in text
    assert f"{f}:11: choices[0]: [IMAGE1] but the record has 1 image(s)" in text
    assert len(problems) == 10
    before = sorted(p.name for p in tmp_path.iterdir())
    assert main([str(f)]) == 1
    assert "10 problem(s)" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # wrote nothing


def test_empty_and_missing_files_fail(tmp_path):
    (tmp_path / "e.jsonl").write_text("")
    assert validate_file(tmp_path / "e.jsonl")[1] == [f"{tmp_path / 'e.jsonl'}: -: no records"]
    assert "file not found" in validate_file(tmp_path / "nope.jsonl")[1][0]
