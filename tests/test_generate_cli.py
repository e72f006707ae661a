"""`python -m data.generate` as a user runs it: the same command writes the same bytes, the MorphoBench
converter reads what it writes, and bad arguments get a clear message and no output."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from data.generate import glyphs
from data.generate.__main__ import main
from data.generate.common import SPLIT_CIRCUITS, SPLIT_SPOT_DIFF

ROOT = Path(__file__).resolve().parents[1]
needs_ngspice = pytest.mark.skipif(shutil.which("ngspice") is None, reason="ngspice is not installed (bash setup.sh)")


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, timeout=600)


def files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@needs_ngspice
def test_the_commands_reproduce_their_files_and_convert(tmp_path):
    for out in (tmp_path / "a", tmp_path / "b"):
        for cmd in (["circuits", "--n", "1", "--level", "3"],
                    ["spot_diff", "--n", "2", "--rows", "6", "--cols", "11", "--similarity", "medium"]):
            done = run("data.generate", *cmd, "--seed", "11", "--out", str(out), "--quiet")
            assert done.returncode == 0, done.stderr
            assert done.stdout.strip().endswith(".parquet")
    a, b = files(tmp_path / "a"), files(tmp_path / "b")
    assert a == b and f"{SPLIT_CIRCUITS}/L03-s11.parquet" in a and f"{SPLIT_SPOT_DIFF}/latin-6x11-medium-s11.parquet" in a
    done = run("data.convert", "morphobench", "--src", str(tmp_path / "a"), "--out", str(tmp_path / "g.jsonl"))
    assert done.returncode == 0, done.stderr
    records = [json.loads(line) for line in (tmp_path / "g.jsonl").read_text().splitlines()]
    assert [r["split"] for r in records] == [SPLIT_CIRCUITS] + [SPLIT_SPOT_DIFF] * 2
    assert [r["answer_type"] for r in records] == ["mcq", "structured", "structured"]


def test_bad_arguments_are_refused_by_the_parser(capsys):
    for argv in (["circuits", "--n", "1", "--level", "11", "--out", "x"],
                 ["circuits", "--n", "0", "--level", "1", "--out", "x"],
                 ["circuits", "--n", "1", "--level", "1", "--distractors", "figure7", "--out", "x"],
                 ["spot_diff", "--n", "1", "--rows", "0", "--cols", "3", "--out", "x"],
                 ["spot_diff", "--n", "1", "--rows", "3", "--cols", "3", "--script", "greek", "--out", "x"]):
        with pytest.raises(SystemExit) as e:
            main(argv)
        assert e.value.code == 2
    assert "invalid choice" in capsys.readouterr().err


@needs_ngspice
def test_the_distractor_design_is_chosen_on_the_command_line(tmp_path):
    for argv, run, design in (([], "L01-s0", "same_count"), (["--distractors", "fig7"], "L01-fig7-s0", "fig7")):
        assert main(["circuits", "--n", "1", "--level", "1", *argv, "--out", str(tmp_path), "--quiet"]) == 0
        rows = pq.read_table(tmp_path / SPLIT_CIRCUITS / f"{run}.parquet").to_pylist()
        assert [r["distractor_design"] for r in rows] == [design]


def test_missing_ngspice_or_font_is_a_clear_error_and_writes_nothing(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr("data.generate.spice.shutil.which", lambda name: None)
    assert main(["circuits", "--n", "1", "--level", "1", "--out", str(tmp_path), "--quiet"]) == 1
    assert "ngspice is not installed: run `bash setup.sh`" in capsys.readouterr().err
    monkeypatch.setattr(glyphs.shutil, "which", lambda name: None)
    assert main(["spot_diff", "--n", "1", "--rows", "3", "--cols", "3", "--script", "cjk",
                 "--out", str(tmp_path), "--quiet"]) == 1
    assert "no font with the Chinese characters" in capsys.readouterr().err
    assert not any(tmp_path.rglob("*"))
