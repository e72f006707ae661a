"""The runs of several tables read ahead on every core (analysis/read_ahead.py): every run ends up read in this
process exactly as it reads it alone, workers read some of them, and nothing a run gets wrong is hidden or moved."""
import threading
import time

import pandas as pd
import pytest

from analysis import inputs, read_ahead, run_frame
from analysis.run_files import MissingDataFile
from tests.analysis_fixtures import make_run, write_data

MODELS = ["m0", "m1", "m2", "m3"]


THREADS = threading.active_count


@pytest.fixture
def runs(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    # threads earlier tests leave behind (a progress bar's monitor) would keep read_ahead from forking
    monkeypatch.setattr(read_ahead.threading, "active_count", lambda: 1)
    data = write_data(tmp_path / "d.jsonl", [{"id": f"q{i}", "benchmark": "omibench", "subject": "Physics"}
                                             for i in range(3)])
    for k, model in enumerate(MODELS):
        make_run(tmp_path / "results", "omibench", model, "cot_boxed", "rules", data,
                 [{"id": f"q{i}", "correct": (i + k) % 2 == 0} for i in range(3)])
    inputs._load_run.cache_clear()
    yield inputs.find_runs(tmp_path / "results", "omibench")
    inputs._load_run.cache_clear()


def slow_frames(monkeypatch) -> list:
    """Make reading a run take a while (so that each process gets some), counting the runs read in this process."""
    made, frame = [], run_frame.frame

    def slow(run):
        time.sleep(0.3)
        made.append(run.model)
        return frame(run)
    monkeypatch.setattr(run_frame, "frame", slow)
    return made


def test_every_run_is_read_as_alone_and_the_workers_read_some(runs, monkeypatch):
    alone = {r.model: run_frame.frame(r) for r in runs}
    made = slow_frames(monkeypatch)
    read_ahead.read_ahead(runs, jobs=2)
    assert 0 < len(made) < len(runs)  # this process read some, a worker the others
    monkeypatch.setattr(run_frame, "frame", lambda run: pytest.fail("read again"))
    for r in runs:  # each one now read, kept in this process
        pd.testing.assert_frame_equal(inputs.load_run(r), alone[r.model], check_exact=True)


def test_a_run_whose_data_file_is_gone_is_left_to_the_table_that_reads_it(runs, tmp_path):
    (tmp_path / "d.jsonl").unlink()
    read_ahead.read_ahead(runs, jobs=2)
    with pytest.raises(MissingDataFile, match=r"d.jsonl \(outside the checkout\) is gone"):
        inputs.read_run(runs[0])


def test_nothing_is_read_ahead_where_no_frame_can_be_kept(runs, tmp_path, monkeypatch):
    (tmp_path / "not-a-folder").write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "not-a-folder"))
    made = slow_frames(monkeypatch)
    read_ahead.read_ahead(runs, jobs=2)
    assert made == []
    assert list(inputs.load_run(runs[0])["correct"]) == [True, False, True]  # read by the table, as before


def test_one_core_reads_nothing_ahead(runs, monkeypatch):
    made = slow_frames(monkeypatch)
    read_ahead.read_ahead(runs, jobs=1)
    assert made == []


def test_runs_already_kept_are_not_read_again(runs, monkeypatch):
    read_ahead.read_ahead(runs, jobs=2)
    inputs._load_run.cache_clear()  # a new process: every frame kept on disk
    made = slow_frames(monkeypatch)
    monkeypatch.setattr(read_ahead, "record_digests", lambda data: pytest.fail("the data file read again"))
    read_ahead.read_ahead(runs, jobs=2)
    assert made == []


def test_nothing_is_forked_while_another_thread_runs(runs, monkeypatch):
    monkeypatch.setattr(read_ahead.threading, "active_count", THREADS)
    made = slow_frames(monkeypatch)
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        read_ahead.read_ahead(runs, jobs=2)
    finally:
        stop.set()
        other.join()
    assert made == []
