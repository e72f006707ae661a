"""python -m data.download: the Hub download (its client replaced by one that returns the folder a download
leaves), the conversion that follows, and the one-line advice when the Hub cannot be reached."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import huggingface_hub
import pytest

from data import download
from data.jsonl import read_jsonl
from tests.hub_release import RGB, image, pixel, write_parquet

ROOT = Path(__file__).resolve().parents[1]


def run(*args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "data.download", *args], cwd=ROOT, capture_output=True,
                          text=True, env={**os.environ, **env}, timeout=120)


def hub_returns_local_dir(monkeypatch: pytest.MonkeyPatch) -> list[dict]:
    """snapshot_download as it behaves once the files are in local_dir: it returns that folder."""
    calls: list[dict] = []

    def snapshot_download(repo_id: str, **kw) -> str:
        calls.append({"repo_id": repo_id, **kw})
        return str(kw["local_dir"])

    monkeypatch.setattr(huggingface_hub, "snapshot_download", snapshot_download)
    return calls


def test_help_names_the_hub_settings() -> None:
    done = run("--help")
    assert done.returncode == 0 and "HF_ENDPOINT" in done.stdout and "--skip-download" in done.stdout


def test_without_the_hub_one_line_says_what_to_fetch_and_where(tmp_path: Path) -> None:
    done = run("omibench", "--out", str(tmp_path / "omi"), HF_HUB_OFFLINE="1")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1
    assert "https://huggingface.co/datasets/LightChen2333/OMIBench" in lines[0]
    assert f"into {tmp_path / 'omi' / 'release'}/" in lines[0] and "--skip-download" in lines[0]
    assert not (tmp_path / "omi" / "test.jsonl").exists()


def test_c2rbench_has_no_hub_dataset_and_says_where_it_is(tmp_path: Path, capsys, monkeypatch) -> None:
    calls = hub_returns_local_dir(monkeypatch)
    assert download.main(["c2rbench", "--out", str(tmp_path / "c2")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "https://github.com/tjunlp-lab/C2Rbench" in err[0] and calls == []


def test_omibench_downloads_then_converts(tmp_path: Path, capsys, monkeypatch) -> None:
    calls = hub_returns_local_dir(monkeypatch)
    out = tmp_path / "omibench"
    write_parquet(out / "release" / "data" / "test-00000-of-00001.parquet", [
        {"id": "math-1", "subject": "mathematics", "answer_type": "open", "question": "[IMAGE0] vs [IMAGE1]: sum?",
         "image_list": ["a.png", "b.png"], "answer": ["7"], "images": [image("red", "a.png"), image("blue", "b.png")]},
    ])
    assert download.main(["omibench", "--out", str(out)]) == 0
    assert [(c["repo_id"], c["repo_type"], c["allow_patterns"]) for c in calls] == [
        ("LightChen2333/OMIBench", "dataset", None)]
    (rec,) = read_jsonl(out / "test.jsonl")
    assert [pixel(out / p) for p in rec["images"]] == [RGB["red"], RGB["blue"]]
    assert "test.jsonl: 1 records" in capsys.readouterr().out


def test_mira_downloads_task_by_task(tmp_path: Path, monkeypatch) -> None:
    calls = hub_returns_local_dir(monkeypatch)
    monkeypatch.setattr(download.time, "sleep", lambda s: pytest.fail("waited although nothing was fetched"))
    out = tmp_path / "mira"
    write_parquet(out / "release" / "billiards" / "test-00000-of-00001.parquet", [
        {"uid": 1, "image_path": image("green", "1.png"), "question": "Which pocket?", "answer": 3}])
    assert download.main(["mira", "--out", str(out)]) == 0
    assert len(calls) == 20 and {c["repo_id"] for c in calls} == {"YiyangAiLab/MIRA"}
    assert calls[0]["allow_patterns"] == ["billiards/*", "billiards/*/*", "billiards/*/*/*"]
    (rec,) = read_jsonl(out / "test.jsonl")
    assert rec["id"] == "billiards/1" and [pixel(out / p) for p in rec["images"]] == [RGB["green"]]


def test_skip_download_converts_what_is_there_and_reports_problems(tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.setattr(huggingface_hub, "snapshot_download", lambda *a, **k: pytest.fail("downloaded"))
    out = tmp_path / "morphobench"
    write_parquet(out / "release" / "Morpho_R_v0" / "train.parquet", [
        {"index": 1, "question": "1+1?", "answer": "2", "image": image("red", "1.png")},
        {"index": 2, "question": "", "answer": "3", "image": image("red", "1.png")},
    ])
    assert download.main(["morphobench", "--out", str(out), "--skip-download"]) == 1
    err = capsys.readouterr().err
    assert "train.parquet row 2: question: index 2: missing or empty" in err and "not written" in err
    assert not (out / "test.jsonl").exists()
