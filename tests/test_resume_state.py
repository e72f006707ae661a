"""A run starts where the last one ended (infer/resume_state.py): the settled records are neither read nor looked up
in the raw file, and the state is used only while it holds, so every rerun still sends exactly what is not done."""
from __future__ import annotations

import json
import logging

import pytest
from PIL import Image

import infer.resume
import infer.resume_state
from data.jsonl import DataError, dumps, write_jsonl_atomic
from infer.layout import manifest_of, resume_state_of
from infer.manifest import sha256_file
from tests.scripted_server import Reply, scripted_server  # noqa: F401  (fixture)
from tests.test_resume import Job, records, watch  # noqa: F401  (fixture)


@pytest.fixture
def raw_reads(monkeypatch):
    """The byte offsets the raw file was read from (0: the whole file)."""
    starts: list[int] = []
    read = infer.resume.read_outcomes

    def counting(path, start=0):
        starts.append(start)
        return read(path, start)
    monkeypatch.setattr(infer.resume, "read_outcomes", counting)
    return starts


def state(job) -> dict:
    return json.loads(resume_state_of(job.raw).read_text())


def current(job) -> dict[str, dict]:
    return {line["id"]: line for line in job.lines()}


def test_a_rerun_reads_neither_the_raw_file_nor_the_settled_lines(tmp_path, scripted_server, watch, raw_reads):
    job = Job(tmp_path, scripted_server(), records(5))
    assert job.run()["sent"] == 5
    assert state(job)["settled"]["ids"] == ["r0", "r1", "r2", "r3", "r4"] and state(job)["revisit"] == []
    watch(), raw_reads.clear()
    counts = job.run()
    assert (counts["sent"], counts["records"], counts["requests"]) == (0, 5, 5)
    assert watch() == {"rendered": [], "parsed": 0} and 0 not in raw_reads
    # the data's sha256 in the manifest is the scan's, and the file's
    assert json.loads(manifest_of(job.raw).read_text())["data"]["sha256"] == sha256_file(job.data)


def test_records_added_at_the_end_are_the_only_lines_read(tmp_path, scripted_server, watch, raw_reads):
    job = Job(tmp_path, scripted_server(), records(5))
    job.run()
    write_jsonl_atomic(job.data, records(8))
    watch(), raw_reads.clear()
    counts = job.run()
    assert (counts["sent"], counts["records"], counts["requests"]) == (3, 8, 8)
    assert job.sent_ids(counts) == ["5", "6", "7"]
    assert watch() == {"rendered": ["r5", "r6", "r7"], "parsed": 3} and 0 not in raw_reads
    assert len(state(job)["settled"]["ids"]) == 8
    assert job.run()["sent"] == 0 and watch() == {"rendered": [], "parsed": 0}


def test_a_failed_record_is_read_again_until_it_is_answered(tmp_path, scripted_server, watch):
    down = {"question 2"}
    srv = scripted_server(script=lambda body, attempt: Reply.error(400) if any(
        q in json.dumps(body) for q in down) else None)
    job = Job(tmp_path, srv, records(5))
    assert job.run()["failed"] == 1
    assert "r2" not in state(job)["settled"]["ids"] and [x[1] for x in state(job)["revisit"]] == [3]
    watch()
    counts = job.run()
    assert (counts["sent"], counts["failed"]) == (1, 1) and watch() == {"rendered": ["r2"], "parsed": 1}
    down.clear()
    assert job.run()["ok"] == 1 and watch()["parsed"] == 1
    assert job.run()["sent"] == 0 and watch() == {"rendered": [], "parsed": 0}
    assert current(job)["r2"]["error"] is None


def test_an_edited_data_file_is_read_again_and_only_the_edit_sent(tmp_path, scripted_server, watch, raw_reads):
    job = Job(tmp_path, scripted_server(), records(5))
    job.run()
    recs = records(5)
    recs[1]["question"] = "question 1, edited"  # earlier than where the state ends: its bytes differ
    write_jsonl_atomic(job.data, recs)
    watch(), raw_reads.clear()
    counts = job.run()
    assert job.sent_ids(counts) == ["1"] and 0 in raw_reads
    assert watch()["rendered"] == ["r1"]
    assert job.run()["sent"] == 0 and watch() == {"rendered": [], "parsed": 0}


def test_a_state_of_other_parameters_is_not_used_and_going_back_sends_nothing(tmp_path, scripted_server, watch):
    job = Job(tmp_path, scripted_server(), records(4))
    job.run()
    assert job.run(overrides={"max_tokens": 16})["sent"] == 4  # another context: the state is not used
    counts = job.run()  # back to the first parameters: their answers are made current again
    assert (counts["sent"], counts["reused"]) == (0, 4)
    assert {line["params"]["max_tokens"] for line in current(job).values()} == {32}
    watch()
    assert job.run()["sent"] == 0 and watch() == {"rendered": [], "parsed": 0}


def test_lines_appended_since_the_state_are_read_and_a_settled_record_asked_again_drops_it(
        tmp_path, scripted_server, watch, raw_reads):
    job = Job(tmp_path, scripted_server(), records(4))
    job.run()
    written = state(job)["raw"]["size"]
    # --limit reads no state and writes none: its lines, other parameters for r0 and r1, come after the state's end
    assert job.run(limit=2, overrides={"max_tokens": 16})["sent"] == 2
    assert state(job)["raw"]["size"] == written
    watch(), raw_reads.clear()
    counts = job.run()
    assert 0 in raw_reads  # r0 and r1 asked again: the raw file is read whole
    assert (counts["sent"], counts["reused"]) == (0, 2)
    assert {line["params"]["max_tokens"] for line in current(job).values()} == {32}


def test_a_failure_appended_after_the_state_is_retried(tmp_path, scripted_server):
    down = {"question 5"}
    srv = scripted_server(script=lambda body, attempt: Reply.error(400) if any(
        q in json.dumps(body) for q in down) else None)
    job = Job(tmp_path, srv, records(5))
    job.run()
    write_jsonl_atomic(job.data, records(6))
    assert job.run(limit=6)["failed"] == 1  # a --limit run writes no state: its failure is after the state's end
    down.clear()
    counts = job.run()
    assert job.sent_ids(counts) == ["5"] and counts["ok"] == 1


def test_a_duplicate_of_a_settled_id_names_its_first_line(tmp_path, scripted_server):
    job = Job(tmp_path, scripted_server(), records(3))
    job.run()
    write_jsonl_atomic(job.data, records(3) + records(1, start=1))
    with pytest.raises(DataError, match=r"d.jsonl:4: id: duplicate id 'r1' \(first on line 2\)"):
        job.run()


def test_records_naming_files_are_looked_at_every_time(tmp_path, scripted_server, watch):
    Image.new("RGB", (8, 8), "red").save(tmp_path / "a.png")
    recs = records(3, images=["a.png"])
    job = Job(tmp_path, scripted_server(), recs)
    job.run()
    assert not resume_state_of(job.raw).exists()  # nothing settled: nothing worth keeping
    watch()
    assert job.run()["sent"] == 0 and watch()["parsed"] == 3
    Image.new("RGB", (8, 8), "blue").save(tmp_path / "a.png")  # a touched image is sent again
    assert job.run()["sent"] == 3


def test_a_last_line_without_its_newline_is_not_settled(tmp_path, scripted_server, watch):
    job = Job(tmp_path, scripted_server(), records(3))
    job.data.write_text(job.data.read_text().rstrip("\n"))
    assert job.run()["sent"] == 3
    assert state(job)["settled"]["ids"] == ["r0", "r1"] and state(job)["data"]["lines"] == 2
    watch()
    assert job.run()["sent"] == 0 and watch() == {"rendered": [], "parsed": 0}  # known by its digest
    with open(job.data, "a") as f:
        f.write("\n" + json.dumps(records(1, start=3)[0]) + "\n")
    counts = job.run()
    assert job.sent_ids(counts) == ["3"] and counts["requests"] == 4


def test_samples_settle_only_when_every_one_is_answered(tmp_path, scripted_server, watch):
    calls = {"n": 0}

    def second_fails_once(body, attempt):
        calls["n"] += 1
        return Reply.error(400) if calls["n"] == 2 else None
    job = Job(tmp_path, scripted_server(script=second_fails_once), records(1))
    counts = job.run(n=3)
    assert (counts["ok"], counts["failed"]) == (2, 1) and not resume_state_of(job.raw).exists()
    counts = job.run(n=3)
    assert (counts["sent"], counts["ok"]) == (1, 1) and state(job)["settled"]["ids"] == ["r0"]
    watch()
    assert job.run(n=3)["sent"] == 0 and watch() == {"rendered": [], "parsed": 0}


def test_a_broken_or_deleted_state_only_costs_time(tmp_path, scripted_server, watch, caplog):
    job = Job(tmp_path, scripted_server(), records(4))
    job.run()
    resume_state_of(job.raw).write_text("{not json")
    watch()
    with caplog.at_level(logging.WARNING):
        assert job.run()["sent"] == 0
    assert "resume.json: unreadable" in caplog.text and watch()["parsed"] == 0  # known by digest, read whole
    resume_state_of(job.raw).unlink()
    assert job.run()["sent"] == 0 and resume_state_of(job.raw).exists()


def test_no_state_is_kept_when_it_would_be_as_large_as_the_raw_file(tmp_path, scripted_server, monkeypatch):
    monkeypatch.setattr(infer.resume_state, "MAX_OTHERS", 2)
    job = Job(tmp_path, scripted_server(script=lambda body, attempt: Reply.error(400)), records(4))
    assert job.run()["failed"] == 4
    assert not resume_state_of(job.raw).exists()


def as_long_as(line: dict, like: bytes) -> bytes:
    """`line` as a raw line exactly as long as `like`, padded with a field no reader takes."""
    gap = len(like) - len((dumps({**line, "pad": ""}) + "\n").encode())
    assert gap >= 0
    return (dumps({**line, "pad": "x" * gap}) + "\n").encode()


def replace_raw(job, more: list[dict]) -> None:
    """The raw file replaced in place by another whose lines are as long, r1's now a failure (a run that failed it,
    restored over this one), then the lines `more`: the state's last bytes are the same, r1 is no longer done."""
    old = job.raw.read_bytes().splitlines(keepends=True)
    lines = [as_long_as({**json.loads(x), "error": "HTTP 500", "response": ""}, x)
             if json.loads(x)["id"] == "r1" else x for x in old]
    job.raw.write_bytes(b"".join(lines) + b"".join((dumps(x) + "\n").encode() for x in more))
    assert len(b"".join(lines)) == sum(map(len, old)) and b"".join(lines)[-64:] == old[-1][-64:]


@pytest.mark.parametrize("more", [[], [{"id": "gone", "sample_idx": 0, "request_key": "k", "error": None}]],
                         ids=["same size", "longer"])
def test_a_raw_file_replaced_by_one_as_long_or_longer_skips_no_record(tmp_path, scripted_server, more):
    job = Job(tmp_path, scripted_server(), records(4))
    job.run()
    size = state(job)["raw"]["size"]
    replace_raw(job, more)
    assert job.raw.stat().st_size == size + sum(len(dumps(x)) + 1 for x in more)
    counts = job.run()
    assert job.sent_ids(counts) == ["1"]  # r1 is not taken for settled: the state is another file's
    assert current(job)["r1"]["error"] is None and job.run()["sent"] == 0


def test_a_raw_file_copied_elsewhere_keeps_its_state(tmp_path, scripted_server, raw_reads):
    """The state knows the raw file by its bytes, not by the file: a results folder copied elsewhere resumes as
    quickly (a copy moved into place here)."""
    job = Job(tmp_path, scripted_server(), records(3))
    job.run()
    copy = tmp_path / "copy.jsonl"
    copy.write_bytes(job.raw.read_bytes())
    copy.replace(job.raw)
    raw_reads.clear()
    assert job.run()["sent"] == 0 and 0 not in raw_reads
