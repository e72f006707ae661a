"""A judged run's frame kept on disk (analysis/frame_cache.py): read back while the run's files are unchanged, made
anew from the files as soon as one changes, and never trusted when unreadable."""
import json
import os
from pathlib import Path

import pandas as pd
import pytest

from analysis import inputs, run_frame
from infer.layout import frame_cache_path
from tests.analysis_fixtures import make_run, write_data


@pytest.fixture
def run(tmp_path):
    data = write_data(tmp_path / "d.jsonl", [{"id": f"q{i}", "benchmark": "omibench", "subject": "Physics"}
                                             for i in range(3)])
    judged = make_run(tmp_path / "results", "omibench", "m", "cot_boxed", "rules", data,
                      [{"id": "q0", "correct": True}, {"id": "q1", "correct": False}, {"id": "q2", "status": "no_response"}])
    inputs._load_run.cache_clear()
    yield next(r for r in inputs.find_runs(tmp_path / "results", "omibench") if r.path == judged)
    inputs._load_run.cache_clear()


def fresh(run):
    """The run read again as a new process would: nothing kept in memory."""
    inputs._load_run.cache_clear()
    return inputs.load_run(run)


def refuse(*args, **kwargs):
    raise AssertionError("the run's files were read again")


def test_an_unchanged_run_is_read_back_without_its_files(run, monkeypatch):
    first = inputs.load_run(run)
    assert frame_cache_path(run.path).is_file()
    assert list(first["correct"]) == [True, False, None] and list(first["subject"]) == ["Physics"] * 3
    monkeypatch.setattr(run_frame, "frame", refuse)
    pd.testing.assert_frame_equal(fresh(run), first)


def test_a_changed_file_is_read_again(run, monkeypatch):
    inputs.load_run(run)
    with open(run.path, "a") as f:  # q1 judged again: correct now
        line = json.loads(run.path.read_text().splitlines()[1])
        f.write(json.dumps({**line, "correct": True}) + "\n")
    assert list(fresh(run)["correct"]) == [True, True, None]
    monkeypatch.setattr(run_frame, "frame", refuse)  # and that is what is kept now
    assert list(fresh(run)["correct"]) == [True, True, None]


def test_an_unreadable_frame_is_not_trusted(run):
    inputs.load_run(run)
    frame_cache_path(run.path).write_bytes(b"not a pickle")
    assert list(fresh(run)["correct"]) == [True, False, None]


def test_frames_are_kept_in_the_users_cache_not_in_the_results_folder_people_share(run, tmp_path):
    inputs.load_run(run)
    kept = frame_cache_path(run.path)
    assert kept.is_relative_to(Path(os.environ["XDG_CACHE_HOME"]) / "mmr-harness" / "frames")
    assert not any(p.suffix == ".pickle" for p in (tmp_path / "results").rglob("*"))
