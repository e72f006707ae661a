"""A run's verdicts read by pyarrow (analysis.columns) are exactly those read line by line with json: the same
frame, value for value and type for type, whatever the files hold; files pyarrow cannot read exactly are read
line by line; and the cache of a run's frame neither goes stale nor lets a table change another's input."""
from __future__ import annotations

import itertools
import json
import random

import pandas as pd
import pytest

import analysis.inputs as inputs
import analysis.run_files as run_files
import analysis.run_frame as run_frame
from analysis.inputs import find_runs, load, load_run, record_digests
from data.demo.__main__ import build as build_demo
from data.jsonl import DataError
from data.benchmarks import BENCHMARKS
from infer.layout import judged_path, manifest_of, raw_path
from judge.current import outcome_sha
from tests.analysis_fixtures import write_data

IDS = ["q0", "q1", 'q"2', "qü3", "q4"]


def raw_line(rng: random.Random, rid: str, idx: int, **over) -> dict:
    line = {"id": rid, "sample_idx": idx, "request_key": f"k{rid}{idx}", "inputs": "c:r", "error": None,
            "model": "m", "setting": "s", "params": {"max_tokens": 8, "temperature": 0.0},
            "response": rng.choice(["The answer is \\boxed{1}.", "é \"quoted\"\nline", "😀", ""]),
            "reasoning": None, "finish_reason": "stop",
            "usage": {"prompt_tokens": 5, "completion_tokens": rng.randint(1, 99), "reasoning_tokens": None},
            "latency_s": round(rng.uniform(0.1, 9), 4), "attempts": 1, "created": "2025-01-01T00:00:00+0000"}
    return {**line, **over}


def verdict(rng: random.Random, raw: dict, record: str | None, **over) -> dict:
    """A verdict of the outcome of `raw`, judged against the record whose line has the digest `record`."""
    ok = rng.random() < 0.8
    rid, idx = raw["id"], raw["sample_idx"]
    line = {"id": rid, "sample_idx": idx, "request_key": f"k{rid}{idx}", "outcome": outcome_sha(raw), "record": record,
            "judge": {"name": "rules", "model": None, "prompt_sha": None}, "extracted": "1" if ok else None,
            "status": "ok" if ok else "no_response", "correct": rng.random() < 0.5 if ok else None,
            "flags": rng.choice([[], [], ["addresses_judge"]])}
    return {**line, **over}


# What a file may hold besides the common case, on every other line (or on every line: `True`), and whether
# pyarrow reads it exactly (else the file is read line by line); each is combined with the others below.
RAW_VARIANTS = {
    "plain": (lambda rng, rid, i: {}, False, True),
    "retried": (lambda rng, rid, i: {"error": "HTTP 503", "response": None, "usage": None}, False, True),
    "no usage": (lambda rng, rid, i: {"usage": None}, False, True),
    "partial usage": (lambda rng, rid, i: {"usage": {"completion_tokens": 3}}, False, True),
    "some whole latencies": (lambda rng, rid, i: {"latency_s": 2}, False, True),
    "whole latencies": (lambda rng, rid, i: {"latency_s": 2}, True, False),  # json keeps ints: int64
    "no response": (lambda rng, rid, i: {"response": None}, False, True),
    "float tokens": (lambda rng, rid, i: {"usage": {"completion_tokens": 2.0}}, False, False),
    # the outcome's digest covers the reasoning returned apart only when there is some, and writes a missing key None
    "reasoning apart": (lambda rng, rid, i: {"reasoning": rng.choice(["thought é", "x"])}, False, True),
    "empty reasoning": (lambda rng, rid, i: {"reasoning": ""}, False, True),
    "no request key": (lambda rng, rid, i: {"request_key": None}, False, True),
}
VERDICT_VARIANTS = {
    "plain": (lambda rng, rid, i: {}, False, True),
    "llm judge": (lambda rng, rid, i: {"judge_calls": 1, "judge_tokens": 40, "raw_judge_reply": "yes"}, True, True),
    "judge calls on some": (lambda rng, rid, i: {"judge_calls": 1}, False, False),  # missing is 0, null None
    "scores": (lambda rng, rid, i: {"score": rng.choice([0.5, 0.25, None])}, False, True),
    "whole scores": (lambda rng, rid, i: {"score": 1}, False, False),
    "process scores": (lambda rng, rid, i: {"score": {"steps": 0.5}}, False, False),
    "labels": (lambda rng, rid, i: {"labels": ["calculation"], "subtypes": []}, False, True),
    "numeric extraction": (lambda rng, rid, i: {"extracted": 3}, False, False),
    "0/1 correct": (lambda rng, rid, i: {"correct": 1}, False, False),
    "no outcome": (lambda rng, rid, i: {"outcome": None}, False, True),
    "another judge": (lambda rng, rid, i: {"judge": {"name": "rules", "model": "jm", "prompt_sha": "p",
                                                     "constrained": True}}, False, True),
    "no judge": (lambda rng, rid, i: {"judge": None}, False, True),
}


def write(path, lines, style: str = "compact", tail: bytes = b"") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    sep = (",", ":") if style == "compact" else (", ", ": ")
    path.write_bytes(b"".join(json.dumps(x, ensure_ascii=style != "compact", separators=sep).encode() + b"\n"
                              for x in lines) + tail)


def both_ways(run) -> tuple[pd.DataFrame, pd.DataFrame, bool]:
    """The run's frame read as analysis reads it, read line by line, and whether pyarrow read both files."""
    read, used = run_frame.read_table, []

    def watched(*args, **kwargs):
        got = read(*args, **kwargs)
        used.append(got is not None)
        return got

    run_frame.read_table = watched
    try:
        fast = run_frame.frame(run)
        run_frame.read_table = lambda *args, **kwargs: None
        slow = run_frame.frame(run)
    finally:
        run_frame.read_table = read
    return fast, slow, all(used)


@pytest.fixture
def data(tmp_path):
    return write_data(tmp_path / "d.jsonl", [{"id": rid, "benchmark": "omibench", "subject": "Physics"}
                                             for rid in IDS])


@pytest.mark.parametrize("raw_kind, verdict_kind", list(itertools.product(RAW_VARIANTS, VERDICT_VARIANTS)))
def test_pyarrow_gives_the_frame_json_gives(tmp_path, data, raw_kind, verdict_kind):
    rng = random.Random(f"{raw_kind}/{verdict_kind}")
    res = tmp_path / "results"
    keys = [(rid, i) for rid in IDS for i in range(2)]
    (raw_over, raw_every, raw_exact), (ver_over, ver_every, ver_exact) = RAW_VARIANTS[raw_kind], \
        VERDICT_VARIANTS[verdict_kind]
    digests = record_digests(data)
    first = [raw_line(rng, rid, i, **(raw_over(rng, rid, i) if raw_every or n % 3 == 0 else {}))
             for n, (rid, i) in enumerate(keys)]
    # retried: the last line of a key is current
    again = [raw_line(rng, rid, i, **(raw_over(rng, rid, i) if raw_every else {})) for rid, i in keys[:3]]
    now = {(r["id"], r["sample_idx"]): r for r in first + again}
    every = {**(ver_over(rng, *keys[0]) if ver_every else {})}  # what every line holds
    verdicts = [verdict(rng, {**now[keys[0]], "response": "an earlier reply"}, digests[keys[0][0]], **every)]
    verdicts += [verdict(rng, now[key], digests[key[0]], **(ver_over(rng, *key) if ver_every or n % 2 == 0 else {}))
                 for n, key in enumerate(reversed(keys[1:]))]  # in another order, one outcome unjudged
    verdicts += [verdict(rng, now[keys[4]], digests[keys[4][0]], **(ver_over(rng, *keys[4]) if ver_every else {}))]
    verdicts += [verdict(rng, now[keys[5]], "another record", **every)]  # against another version of the record
    raw = first + again
    write(raw_path(res, "omibench", "m", "s"), raw)
    judged = judged_path(res, "omibench", "m", "s", "rules")
    write(judged, verdicts, style="spaced")
    manifest_of(judged).write_text(json.dumps({"data": str(data)}))
    fast, slow, by_pyarrow = both_ways(find_runs(res, "omibench")[0])
    pd.testing.assert_frame_equal(fast, slow, check_exact=True)
    assert len(fast) == len(keys) and fast.set_index(["id", "sample_idx"]).loc[keys[0], "status"] == "unjudged"
    assert by_pyarrow is (raw_exact and ver_exact)  # read by pyarrow wherever it can be exact


@pytest.mark.parametrize("tail", [b'{"id": "q9", "sample_idx": 0, "outcome": "x", "status": "ok"}',  # no newline
                                  b'{"id": "q9", "sample_idx": 0, "outco', b"\n\n"])
def test_a_cut_or_blank_tail_is_read_line_by_line(tmp_path, data, tail):
    rng = random.Random(0)
    res = tmp_path / "results"
    raws = [raw_line(rng, rid, 0) for rid in IDS]
    write(raw_path(res, "omibench", "m", "s"), raws)
    judged = judged_path(res, "omibench", "m", "s", "rules")
    write(judged, [verdict(rng, r, record_digests(data)[r["id"]]) for r in raws], tail=tail)
    manifest_of(judged).write_text(json.dumps({"data": str(data)}))
    fast, slow, by_pyarrow = both_ways(find_runs(res, "omibench")[0])
    pd.testing.assert_frame_equal(fast, slow, check_exact=True)
    assert not by_pyarrow and len(fast) == len(IDS)


def test_the_cached_frame_is_shared_by_tables_but_never_changed_by_one(tmp_path, data):
    rng = random.Random(1)
    res = tmp_path / "results"
    raws = [raw_line(rng, rid, 0) for rid in IDS]
    write(raw_path(res, "omibench", "m", "s"), raws)
    judged = judged_path(res, "omibench", "m", "s", "rules")
    write(judged, [verdict(rng, r, record_digests(data)[r["id"]]) for r in raws])
    manifest_of(judged).write_text(json.dumps({"data": str(data)}))
    run = find_runs(res, "omibench")[0]
    first = load(res, "omibench", ["s"], "rules")
    reference = first.copy()
    first.loc[:, "correct"] = "changed"   # a table that writes into its input
    first["response"] = None
    mine = load_run(run)
    mine.loc[:, "status"] = "changed"
    again = load(res, "omibench", ["s"], "rules")
    pd.testing.assert_frame_equal(again, reference, check_exact=True)
    assert inputs._load_run.cache_info().hits + inputs._joined.cache_info().hits >= 2  # read once, shared

    with open(judged, "a") as f:  # re-judged: read again
        line = {**verdict(rng, raws[0], record_digests(data)["q0"]), "correct": True, "status": "ok"}
        f.write(json.dumps(line) + "\n")
    assert load(res, "omibench", ["s"], "rules").set_index("id").loc["q0", "correct"] is True


def test_the_current_line_of_each_answer_is_read_by_pyarrow_and_line_by_line_alike(tmp_path, data):
    """Hand-made files (q0…q3: IDS): q0 asked again (its first raw line superseded), whose earlier outcome's verdict comes last in
    the verdict file; q1 judged twice (the second verdict of the same outcome wins); q2's verdict lacks `extracted`;
    q3 judged by another judge model only (unjudged). Read by pyarrow, then with a torn raw line appended (a run
    still writing q4's answer), which the reader leaves out, reading line by line."""
    res = tmp_path / "results"
    digests = record_digests(data)

    def raw(rid, response, tokens):
        return {"id": rid, "sample_idx": 0, "request_key": f"k{rid}", "error": None, "response": response,
                "reasoning": None, "finish_reason": "stop", "latency_s": 1.5,
                "usage": {"completion_tokens": tokens, "reasoning_tokens": None}}

    def ver(r, correct, **over):
        return {"id": r["id"], "sample_idx": 0, "outcome": outcome_sha(r), "record": digests[r["id"]],
                "judge": {"name": "rules", "model": None, "prompt_sha": "p"}, "status": "ok", "correct": correct,
                "extracted": "1", "flags": [], **over}

    q0_old, q0_new = raw(IDS[0], "an earlier reply", 3), raw(IDS[0], "the reply now", 7)
    q1, q2, q3 = raw(IDS[1], "one", 1), raw(IDS[2], "two", 2), raw(IDS[3], "thrée", 3)
    raw_file = raw_path(res, "omibench", "m", "s")
    write(raw_file, [q0_old, q1, q2, q3, q0_new])
    q2_verdict = ver(q2, True)
    del q2_verdict["extracted"]
    judged = judged_path(res, "omibench", "m", "s", "rules")
    write(judged, [ver(q0_new, True), ver(q1, False), ver(q0_old, False), ver(q1, True), q2_verdict,
                   ver(q3, True, judge={"name": "rules", "model": "another", "prompt_sha": "p"})])
    manifest_of(judged).write_text(json.dumps({"data": str(data), "judge": {"name": "rules", "prompt_sha": "p"}}))
    expected = {IDS[0]: (True, "ok", 13, 7), IDS[1]: (True, "ok", 3, 1), IDS[2]: (True, "ok", 3, 2),
                IDS[3]: (None, "unjudged", 5, 3)}

    def check(frame):
        assert list(frame["id"]) == IDS[:4]  # a key at the place of its first line
        got = {r.id: (r.correct, r.status, r.response_chars, r.completion_tokens) for r in frame.itertuples()}
        assert got == expected
        assert frame.set_index("id")["extracted"].isna().tolist() == [False, False, True, True]

    fast, slow, by_pyarrow = both_ways(find_runs(res, "omibench")[0])
    assert by_pyarrow
    check(fast)
    check(slow)
    with open(raw_file, "ab") as f:
        f.write(b'{"id": "q4", "sample_idx": 0, "request_key": "kq4", "response": "cut sh')  # no newline
    fast, slow, by_pyarrow = both_ways(find_runs(res, "omibench")[0])
    assert not by_pyarrow
    check(fast)
    pd.testing.assert_frame_equal(fast, slow, check_exact=True)


# A data file's fields as `record_fields` and `record_digests` read them: by pyarrow when every record has the same
# fields of one type each (a converted file), else line by line; the two always agree.
DATA_FIRST = {"id": "a", "benchmark": "omibench", "question": "Q?", "images": ["x.png"], "choices": [], "answer": ["1"],
              "answer_type": "numeric", "subject": "Physics", "level": 3, "skills": ["s1", "s2"]}
DATA_VARIANTS = {  # a second line, and whether pyarrow reads the file
    "same fields": ({"id": "b", "images": [], "subject": "Chemistry", "level": 1, "skills": []}, True),
    "a level as text": ({"id": "b", "level": "hard"}, False),
    "a field the first lacks": ({"id": "b", "category": "geometry"}, False),
    "a field missing": ({"id": "b", "level": None, "subject": "Biology"}, False),
    "a number in a list of texts": ({"id": "b", "skills": [1]}, False),
    "a whole-number id": ({"id": 7}, False),
    "a lone surrogate in a field not read": ({"id": "b", "question": "\ud800"}, False),
}


@pytest.mark.parametrize("name", DATA_VARIANTS)
def test_a_data_files_fields_read_by_pyarrow_are_those_read_line_by_line(tmp_path, name):
    second, by_pyarrow = DATA_VARIANTS[name]
    path = tmp_path / "d.jsonl"
    lines = [json.dumps(DATA_FIRST), "", "  ", json.dumps({**DATA_FIRST, **second}), json.dumps({**DATA_FIRST, "id": "c"})]
    path.write_text("\n".join(lines) + "\n")
    arrow = run_files._data_index_by_arrow(path)
    lines_read = run_files._data_index_by_lines(path)
    assert (arrow is not None) == by_pyarrow
    if arrow is not None:
        assert arrow[0] == lines_read[0] and list(arrow[0]) == list(lines_read[0])
        pd.testing.assert_frame_equal(arrow[1], lines_read[1], check_exact=True)
    assert run_files._data_index.__wrapped__(path)[0] == lines_read[0]


def test_two_records_on_one_line_are_read_line_by_line_and_said(tmp_path):
    path = tmp_path / "d.jsonl"
    path.write_text(json.dumps(DATA_FIRST) + "\n" + json.dumps(DATA_FIRST) + " " + json.dumps(DATA_FIRST) + "\n")
    assert run_files._data_index_by_arrow(path) is None
    with pytest.raises(DataError, match=r"d.jsonl:2"):
        run_files._data_index.__wrapped__(path)


def test_the_demo_data_files_fields_read_by_pyarrow_are_those_read_line_by_line(tmp_path):
    read = 0
    for path in build_demo(tmp_path, list(BENCHMARKS)).values():  # every benchmark's converted shape
        arrow, lines_read = run_files._data_index_by_arrow(path), run_files._data_index_by_lines(path)
        if arrow is not None:
            read += 1
            assert list(arrow[0].items()) == list(lines_read[0].items())
            pd.testing.assert_frame_equal(arrow[1], lines_read[1], check_exact=True)
    assert read >= 5
