"""The keyed log read through its index (infer/log_index.py, infer.ask.read_log): the last line of each key asked,
a torn last line left out, appenders and readers at once, a log rewritten or replaced by one as long or longer,
and judge verdicts unchanged."""
import json
import multiprocessing
import sqlite3
import time

from data.jsonl import dumps
from infer.ask import read_log
from infer.layout import index_of, judge_cache_path, judged_dir
from infer.store import AppendLog, LockedError
from judge.run import run
from tests.scripted_server import Reply, scripted_server  # noqa: F401  (fixture)
from tests.test_judge_run import judge_config, setup, verdicts


def line(key, reply, rid="q1", error=None):
    """A judge call's line as infer.request.raw_line writes it (its key near the start)."""
    return {"id": rid, "sample_idx": 0, "request_key": key, "error": error, "model": "j", "setting": "judge:p",
            "response": reply}


def write(path, *lines):
    with AppendLog(path) as out:
        for x in lines:
            out.write(x)


def replies(path, keys):
    return {k: v.get("response") for k, v in read_log(path, keys).items()}


def test_last_line_of_each_key_asked_and_only_those(tmp_path):
    path = tmp_path / "j.jsonl"
    write(path, line("a", "a1"), line("b", "b1", rid='odd "id"\\'), line("a", "a2"),
          line("e", None, error="HTTP 500"))
    with open(path, "a") as f:  # the log's earlier form, and a line written by hand with spaces
        f.write(json.dumps({"key": "c", "judge": "x", "reply": "c1"}) + "\n")
        f.write(json.dumps(line("d", "d1")) + "\n")
    got = read_log(path, ["a", "b", "c", "d", "e", "z"])
    assert {k: v["response"] for k, v in got.items()} == {"a": "a2", "b": "b1", "c": "c1", "d": "d1", "e": None}
    assert got["c"]["error"] is None and got["e"]["error"] == "HTTP 500"
    assert replies(path, ["b"]) == {"b": "b1"} and read_log(path, []) == {}
    write(path, line("a", "a3"), line("z", "z1"))  # appended after the index was made: caught up
    assert replies(path, ["a", "z", "b"]) == {"a": "a3", "z": "z1", "b": "b1"}
    assert index_of(path).exists()


def test_a_torn_last_line_is_left_out_then_cut(tmp_path):
    path = tmp_path / "j.jsonl"
    write(path, line("a", "a1"))
    with open(path, "a") as f:
        f.write(json.dumps(line("a", "a2"))[:40])  # a crash in the middle of the line
    assert replies(path, ["a"]) == {"a": "a1"}
    write(path, line("a", "a3"))  # the writer cuts the torn line first
    assert replies(path, ["a"]) == {"a": "a3"}
    assert path.read_text().count("\n") == 2


def test_the_indexed_part_is_not_read_again(tmp_path):
    """A second reader reads only what was appended (and the fingerprint's samples of the rest, all of a log this
    small): an indexed line spoilt in place (same length, other bytes) is seen, and the log indexed again; where
    a spoilt line falls between the samples of a large log, asking its own key finds the offset no longer holds it
    and indexes again."""
    path = tmp_path / "j.jsonl"
    write(path, line("a", "a1"), line("b", "b1"), line("c", "c1"))
    assert replies(path, ["a"]) == {"a": "a1"}
    text = path.read_text()
    path.write_text(text.replace('"request_key":"b","error":null', '"request_key":"B","error":null'))
    write(path, line("d", "d1"))
    assert replies(path, ["a", "d"]) == {"a": "a1", "d": "d1"}
    assert replies(path, ["b", "B"]) == {"B": "b1"}  # the index disagreed with the log: made anew


def test_a_rewritten_log_is_indexed_again(tmp_path):
    path = tmp_path / "j.jsonl"
    write(path, line("a", "a1"), line("b", "b1"))
    assert replies(path, ["a", "b"]) == {"a": "a1", "b": "b1"}
    path.write_text(json.dumps(line("b", "b2"), separators=(",", ":")) + "\n")  # shorter: not an append
    assert replies(path, ["a", "b"]) == {"b": "b2"}
    index_of(path).write_bytes(b"not a database at all")
    assert replies(path, ["b"]) == {"b": "b2"}


def _append(path, name, n):
    """Append n lines, key <name><i> with reply i, taking the log's lock for each (waiting while the other holds it)."""
    for i in range(n):
        while True:
            try:
                write(path, line(f"{name}{i % 5}", str(i)))
                break
            except LockedError:
                time.sleep(0.001)


def test_two_appenders_and_a_reader(tmp_path):
    """Two processes append to one log while a third reads it: every read gives, for every key, a line that was
    written, never an older one than the previous read gave; the last read gives each key's last line."""
    path = tmp_path / "j.jsonl"
    write(path, line("x0", "-1"), line("y0", "-1"))
    ctx = multiprocessing.get_context("spawn")
    writers = [ctx.Process(target=_append, args=(path, name, 200)) for name in "xy"]
    reader = ctx.Process(target=_read_while, args=(path, 0.0))
    for p in (*writers, reader):
        p.start()
    for p in writers:
        p.join(60)
    reader.join(60)
    assert [p.exitcode for p in (*writers, reader)] == [0, 0, 0]
    final = replies(path, [f"{n}{i}" for n in "xy" for i in range(5)])
    assert final == {f"{n}{i}": str(195 + i) for n in "xy" for i in range(5)}


def _read_while(path, _):
    keys = [f"{n}{i}" for n in "xy" for i in range(5)]
    seen = {k: -2 for k in keys}
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        got = {k: int(v) for k, v in replies(path, keys).items()}
        for k, v in got.items():
            assert v >= seen[k] and (v == -1 or v % 5 == int(k[1])), (k, v, seen[k])
            seen[k] = v
        if all(seen[k] >= 195 for k in keys):
            return
    raise AssertionError(f"the reader never saw the last lines: {seen}")


def test_judge_verdicts_are_the_same_from_the_index(tmp_path, scripted_server):
    """Judged again from the judge's log alone (no call), with its index and after the index is deleted, every
    verdict says what the judge model said."""
    srv = scripted_server(script=lambda body, attempt: Reply.ok(
        "ANSWER: consistent" if "\\boxed{5}" in body["messages"][0]["content"] else "ANSWER: inconsistent"))
    data, _ = setup(tmp_path)
    cfg = judge_config(tmp_path, srv.base_url)
    results = tmp_path / "results"

    def fields():
        return {v["id"]: (v["status"], v["correct"], v.get("raw_judge_reply")) for v in verdicts(tmp_path, "omibench_gptscore")}

    run("omibench", data, "m", "s", "omibench_gptscore", results, cfg)
    first = fields()
    assert srv.count == 2 and first["a"][:2] == ("ok", True) and first["b"][:2] == ("ok", False)
    for n, drop_index in enumerate((False, True)):
        judged_dir(results).rename(tmp_path / f"old{n}")
        if drop_index:
            index_of(judge_cache_path(results, "j")).unlink()
        run("omibench", data, "m", "s", "omibench_gptscore", results, cfg)
        assert srv.count == 2 and fields() == first


LONG = "X" * 64  # a reply longer than a log's last 64 bytes: a line's key lies before them


def test_a_log_replaced_by_one_of_the_same_size_serves_no_stale_line(tmp_path):
    """Another log as long as the one indexed, ending in the same bytes: a's last line is now the second."""
    path = tmp_path / "j.jsonl"
    write(path, line("a", "a1"), line("b", LONG), line("c", "c1"))
    assert replies(path, ["a", "b", "c"]) == {"a": "a1", "b": LONG, "c": "c1"}
    old = path.read_bytes()
    path.write_bytes(b"".join(dumped(x) for x in (line("a", "a1"), line("a", LONG), line("c", "c1"))))
    assert len(path.read_bytes()) == len(old)
    assert replies(path, ["a", "c"]) == {"a": LONG, "c": "c1"}
    assert replies(path, ["b"]) == {}


def test_a_log_replaced_by_a_longer_one_with_a_prefix_as_long_serves_no_stale_line(tmp_path):
    """The first bytes as many as were indexed, and their last 64 the same, then more lines."""
    path = tmp_path / "j.jsonl"
    write(path, line("a", "a1"), line("b", LONG))
    assert replies(path, ["a", "b"]) == {"a": "a1", "b": LONG}
    old = path.read_bytes()
    path.write_bytes(b"".join(dumped(x) for x in (line("a", "a1"), line("a", LONG), line("d", "d1"))))
    new = path.read_bytes()
    assert len(new) > len(old) and new[len(old) - 64:len(old)] == old[-64:] and new[:len(old)] != old
    assert replies(path, ["a", "d"]) == {"a": LONG, "d": "d1"}


def test_a_large_log_replaced_by_another_runs_log_as_long_is_indexed_again(tmp_path):
    """A log of 20,000 lines (far past what is hashed whole) replaced, by renaming onto it, with another run's log
    of the same size and the same last 1,000 lines, in which k00099 was asked twice and k00100 never."""
    path = tmp_path / "j.jsonl"
    lines = [line(f"k{i:05d}", f"r{i:05d}") for i in range(20_000)]
    write(path, *lines)
    assert replies(path, ["k00099", "k10000"]) == {"k00099": "r00099", "k10000": "r10000"}
    lines[100] = line("k00099", "R00099")
    copy = tmp_path / "copy.jsonl"
    copy.write_bytes(b"".join(map(dumped, lines)))
    assert copy.stat().st_size == path.stat().st_size
    copy.replace(path)
    assert replies(path, ["k00099", "k10000"]) == {"k00099": "R00099", "k10000": "r10000"}


def test_an_index_of_the_earlier_form_is_made_anew(tmp_path):
    """An index whose `tail` holds the log's last 64 bytes (as an earlier version wrote it) is indexed again."""
    path = tmp_path / "j.jsonl"
    write(path, line("a", "a1"), line("b", LONG))
    assert replies(path, ["a"]) == {"a": "a1"}
    db = sqlite3.connect(index_of(path))
    db.execute("UPDATE read SET tail = ?", (path.read_bytes()[-64:],))
    db.commit()
    db.close()
    path.write_bytes(b"".join(dumped(x) for x in (line("a", "a1"), line("a", LONG))))  # b's line now a's
    assert replies(path, ["a"]) == {"a": LONG}


def dumped(x: dict) -> bytes:
    """A line as AppendLog writes it."""
    return (dumps(x) + "\n").encode()


def test_an_index_with_a_torn_page_is_made_anew(tmp_path):
    """A page of the index overwritten (a crash mid-write): SQLite says "malformed"; the index is a cache, made anew."""
    path = tmp_path / "j.jsonl"
    write(path, *[line(f"k{i}", f"r{i}" + LONG) for i in range(2000)])
    assert replies(path, ["k7"]) == {"k7": "r7" + LONG}
    index = index_of(path)
    data = bytearray(index.read_bytes())
    assert len(data) > 3 * 4096
    data[4096:3 * 4096] = b"\xff" * (2 * 4096)  # the root of a table and what follows it
    index.write_bytes(bytes(data))
    assert replies(path, ["k7", "k1999"]) == {"k7": "r7" + LONG, "k1999": "r1999" + LONG}


def test_an_index_that_lost_rows_is_not_trusted_for_a_miss(tmp_path):
    """Rows of a valid index deleted (synchronous=OFF and a crash): every key the log holds is still found, so no
    call is made again for it."""
    path = tmp_path / "j.jsonl"
    write(path, *[line(f"k{i}", f"r{i}") for i in range(300)])
    keys = [f"k{i}" for i in range(300)]
    assert len(replies(path, keys)) == 300
    db = sqlite3.connect(index_of(path))
    db.execute("DELETE FROM line WHERE key IN (SELECT key FROM line LIMIT 100)")
    db.commit()
    db.close()
    assert replies(path, keys) == {f"k{i}": f"r{i}" for i in range(300)}


def test_two_runs_with_one_judge_model_append_to_its_log_side_by_side(tmp_path):
    """A shared log (a judge model's, written by runs judging different settings) takes both writers; a run's own
    raw file still refuses a second writer."""
    path = tmp_path / "j.jsonl"
    with AppendLog(path, shared=True) as a, AppendLog(path, shared=True) as b:
        for i in range(50):
            a.write(line(f"a{i}", "x" * 20_000))  # longer than one write's buffer: still one line each
            b.write(line(f"b{i}", "y"))
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    assert len(lines) == 100 and {x["request_key"] for x in lines} == {f"{n}{i}" for n in "ab" for i in range(50)}
    with AppendLog(tmp_path / "raw.jsonl"):
        try:
            with AppendLog(tmp_path / "raw.jsonl"):
                raise AssertionError("a second writer of a run's own file was let in")
        except LockedError:
            pass
