"""A run sends while its plan reads the data file (infer.run.plan, checked): a file no longer than infer.run.AHEAD
lines is checked whole before the first request, a longer one that far ahead of the plan; a bad line further on
stops the run with every problem listed and only whole answers to valid records written."""
import json

import pytest

import infer.run
from data.jsonl import DataError
from tests.scripted_server import scripted_server  # noqa: F401  (fixture)
from tests.test_resume import Job, records


def write_with_bad_lines(path, recs, bad):
    """The records one per line, line numbers (1-based) in `bad` replaced by broken JSON."""
    lines = [b"{oops" if i + 1 in bad else json.dumps(r).encode() for i, r in enumerate(recs)]
    path.write_bytes(b"\n".join(lines) + b"\n")


def test_a_long_file_is_sent_as_it_is_read_and_a_bad_line_further_on_stops_the_run(tmp_path, scripted_server,
                                                                                   monkeypatch):
    monkeypatch.setattr(infer.run, "AHEAD", 3)
    recs = records(10)
    job = Job(tmp_path, scripted_server(), recs)
    write_with_bad_lines(job.data, recs, bad={8, 10})
    with pytest.raises(DataError) as e:
        job.run()
    # every problem of the file, not only the first one
    assert [p.split(": ")[0] for p in e.value.problems] == [f"{job.data}:8", f"{job.data}:10"]
    # lines 1-4 were given to the plan as lines 4-7 were checked (each once 3 lines past it were); line 8 stopped it
    assert sorted(x["id"] for x in job.lines()) == ["r0", "r1", "r2", "r3"] and job.srv.count == 4
    assert all(x["error"] is None and x["response"] for x in job.lines())
    write_with_bad_lines(job.data, recs, bad=set())  # mended: the rest is sent, the answers kept
    counts = job.run()
    assert (counts["records"], counts["requests"], counts["sent"], counts["ok"]) == (10, 10, 6, 6)
    assert job.sent_ids(counts) == [str(i) for i in range(4, 10)]


def test_a_file_within_the_look_ahead_is_checked_whole_before_anything_is_sent(tmp_path, scripted_server,
                                                                               monkeypatch):
    monkeypatch.setattr(infer.run, "AHEAD", 20)
    recs = records(10)
    job = Job(tmp_path, scripted_server(), recs)
    write_with_bad_lines(job.data, recs, bad={10})
    with pytest.raises(DataError, match=":10: -: invalid JSON"):
        job.run()
    assert job.srv.count == 0 and not job.raw.exists()


def test_the_run_counts_what_its_stream_found(tmp_path, scripted_server, monkeypatch):
    """Counts learnt while sending: records, requests, the unrenderable (a failure line each, once), the sent."""
    monkeypatch.setattr(infer.run, "AHEAD", 2)
    recs = records(6) + [{**records(1, start=6)[0], "question": "see [IMAGE0]", "images": ["gone.png"]}]
    job = Job(tmp_path, scripted_server(), recs)
    counts = job.run(n=2)
    assert (counts["records"], counts["requests"], counts["sent"], counts["ok"], counts["unrenderable"]) == (7, 12, 12, 12, 2)
    failed = [x for x in job.lines() if x["error"]]
    assert [(x["id"], x["sample_idx"]) for x in failed] == [("r6", 0), ("r6", 1)]
    again = job.run(n=2)
    assert (again["sent"], again["unrenderable"]) == (0, 2) and len(job.lines()) == 14  # the failures not written again
