"""A rerun skips what is finished without reading or rendering it again (infer/resume.py), and still redoes
exactly what changed: the raw file stays the one truth, the inputs cache beside it only saves work."""
from __future__ import annotations

import json
import logging
import os
import re
from pathlib import Path

import pytest
from PIL import Image

import data.dataset
import infer.prompting
import infer.resume
from data.jsonl import write_jsonl_atomic
from infer.config import load_model_config
from infer.layout import inputs_cache_of, manifest_of, raw_path, resume_state_of
from infer.resume import read_outcomes
from infer.run import run
from infer.store import load_latest
from tests.scripted_server import Reply, scripted_server  # noqa: F401  (fixture)


def model_config(tmp_path, url, **extra):
    fields = {"name": "m", "model": "m", "base_urls": [url], "modalities": ["text", "image"], "max_tokens": 32,
              "max_retries": 0, "backoff_base": 0.01, "read_timeout": 5, **extra}
    path = tmp_path / "m.yaml"
    path.write_text("\n".join(f"{k}: {json.dumps(v)}" for k, v in fields.items()))
    return load_model_config(path)


def records(n, start=0, **extra):
    return [{"id": f"r{i}", "benchmark": "omibench", "question": f"question {i}", "images": [], "choices": [],
             "answer": ["1"], "answer_type": "numeric", **extra} for i in range(start, start + n)]


def prompt(tmp_path, text="{{question}}\nAnswer briefly.", name="p"):
    path = tmp_path / "prompts" / "omibench" / f"{name}.txt"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return tmp_path / "prompts"


@pytest.fixture
def watch(monkeypatch):
    """The ids of the records rendered (at planning and again when sent) and the number of data lines parsed."""
    seen = {"rendered": [], "parsed": 0}
    render, parse = infer.prompting.render_spec, data.dataset.parse_line

    def counting_render(rec, *args, **kwargs):
        seen["rendered"].append(rec["id"])
        return render(rec, *args, **kwargs)

    def counting_parse(raw):
        seen["parsed"] += 1
        return parse(raw)

    monkeypatch.setattr(infer.prompting, "render_spec", counting_render)
    monkeypatch.setattr(data.dataset, "parse_line", counting_parse)

    def take(times: bool = False):
        out = {"rendered": sorted(seen["rendered"] if times else set(seen["rendered"])), "parsed": seen["parsed"]}
        seen["rendered"].clear()
        seen["parsed"] = 0
        return out
    return take


class Job:
    """One benchmark run, rerun at will: its data file, model config, prompts and results."""

    def __init__(self, tmp_path, srv, recs, setting="p", **cfg_extra):
        self.tmp, self.srv, self.setting = tmp_path, srv, setting
        self.data = tmp_path / "d.jsonl"
        write_jsonl_atomic(self.data, recs)
        self.cfg = model_config(tmp_path, srv.base_url, **cfg_extra)
        self.prompts = prompt(tmp_path)
        self.results = tmp_path / "results"

    def run(self, **kw):
        before = self.srv.count
        counts = run("omibench", self.data, self.cfg, self.setting, self.results, prompts=self.prompts, **kw)
        assert counts["sent"] == self.srv.count - before
        return counts

    @property
    def raw(self) -> Path:
        return raw_path(self.results, "omibench", "m", self.setting)

    def lines(self) -> list[dict]:
        return [json.loads(x) for x in self.raw.read_text().splitlines()]

    def sent_ids(self, counts) -> list[str]:
        """The record numbers of the last run's requests, from the questions the server saw."""
        bodies = self.srv.requests[len(self.srv.requests) - counts["sent"]:]
        return sorted(re.search(r"question (\d+)", json.dumps(b["messages"])).group(1) for b in bodies)


def test_a_rerun_neither_parses_nor_renders_the_records_it_finished(tmp_path, scripted_server, watch):
    job = Job(tmp_path, scripted_server(), records(5))
    assert job.run()["sent"] == 5
    watch()
    write_jsonl_atomic(job.data, records(7))  # two new records at the end
    counts = job.run()
    assert (counts["sent"], counts["requests"], counts["records"]) == (2, 7, 7)
    assert watch() == {"rendered": ["r5", "r6"], "parsed": 2}
    again = job.run()
    assert (again["sent"], again["requests"]) == (0, 7) and watch() == {"rendered": [], "parsed": 0}
    assert all(x["inputs"].count(":") == 1 for x in job.lines())  # context:record, no files


def test_a_fresh_run_renders_each_prompt_once_to_plan_it_and_once_to_send_it(tmp_path, scripted_server, watch):
    job = Job(tmp_path, scripted_server(), records(3))
    assert job.run()["sent"] == 3  # the raw file the run creates, empty, is no reason to plan again
    assert watch(times=True)["rendered"] == ["r0", "r0", "r1", "r1", "r2", "r2"]


def test_a_changed_template_record_or_parameter_redoes_exactly_its_requests(tmp_path, scripted_server, watch):
    srv = scripted_server()
    recs = [{**r, "task": "Hull" if i % 2 else "Dice"} for i, r in enumerate(records(6))]
    job = Job(tmp_path, srv, recs, setting="spec")
    folder = job.prompts / "omibench" / "spec"
    folder.mkdir()
    (folder / "dice.txt").write_text("DICE {{question}}")
    (folder / "hull.txt").write_text("HULL {{question}}")
    assert job.run()["sent"] == 6

    (folder / "hull.txt").write_text("HULL, briefly: {{question}}")  # one task's prompt
    counts = job.run()
    assert job.sent_ids(counts) == ["1", "3", "5"]
    (folder / "dice.txt").write_text("{{! where this prompt comes from }}DICE {{question}}")  # a comment only
    watch()
    assert job.run()["sent"] == 0 and watch()["rendered"] == []

    recs[2]["question"] = "question 2, edited"
    write_jsonl_atomic(job.data, recs)
    counts = job.run()
    assert job.sent_ids(counts) == ["2"]
    assert watch() == {"rendered": ["r2"], "parsed": 1}

    assert job.run(overrides={"max_tokens": 16})["sent"] == 6  # every key holds the parameters
    assert job.run(overrides={"max_tokens": 16})["sent"] == 0


def test_new_inputs_that_render_the_same_prompt_send_nothing_and_are_rendered_once(tmp_path, scripted_server,
                                                                                      watch, monkeypatch):
    job = Job(tmp_path, scripted_server(), records(4))
    job.run()
    cache = inputs_cache_of(job.raw)
    assert not cache.exists()  # every raw line says its inputs: nothing to note
    # the same records written another way: other line digests, the same prompts
    job.data.write_text("".join(json.dumps(dict(reversed(r.items())), indent=None) + "\n" for r in records(4)))
    watch()
    assert job.run()["sent"] == 0 and watch() == {"rendered": ["r0", "r1", "r2", "r3"], "parsed": 4}
    assert len(json.loads(cache.read_text())["entries"]) == 4
    assert job.run()["sent"] == 0 and watch() == {"rendered": [], "parsed": 0}

    monkeypatch.setattr(infer.resume, "code_digest", lambda: "other code")  # a code change
    assert job.run()["sent"] == 0 and watch()["rendered"] == ["r0", "r1", "r2", "r3"]
    assert job.run()["sent"] == 0 and watch()["rendered"] == []


def test_the_inputs_cache_is_only_a_cache(tmp_path, scripted_server, watch, caplog):
    job = Job(tmp_path, scripted_server(), records(4))
    job.run()
    job.data.write_text("".join(json.dumps(r, indent=1).replace("\n", "") + "\n" for r in records(4)))
    job.run()
    cache = inputs_cache_of(job.raw)
    assert cache.exists()

    cache.unlink()  # lost (with the resume state, the other cache): everything is rendered again, nothing sent
    resume_state_of(job.raw).unlink()
    watch()
    assert job.run()["sent"] == 0 and len(watch()["rendered"]) == 4 and cache.exists()

    cache.write_text("{not json")  # broken: a warning, then the same
    resume_state_of(job.raw).unlink()
    with caplog.at_level(logging.WARNING):
        assert job.run()["sent"] == 0
    assert "inputs.json: unreadable" in caplog.text and len(watch()["rendered"]) == 4

    # a failure appended after the cache noted r1's inputs: the cache does not make r1 done
    line = {**next(x for x in job.lines() if x["id"] == "r1"), "error": "RetryableError: HTTP 503", "response": None}
    with open(job.raw, "a") as f:
        f.write(json.dumps(line) + "\n")
    counts = job.run()
    assert job.sent_ids(counts) == ["1"]


def test_the_raw_file_decides_a_lost_failed_or_cut_line_is_sent_again(tmp_path, scripted_server, caplog):
    job = Job(tmp_path, scripted_server(), records(5))
    job.run()
    lines = job.raw.read_bytes().splitlines(keepends=True)
    by_id = {json.loads(x)["id"]: x for x in lines}

    job.raw.write_bytes(b"".join(x for x in lines if x != by_id["r2"]))  # a line lost behind the run's back
    assert job.sent_ids(job.run()) == ["2"]

    with open(job.raw, "a") as f:  # a retried request that failed: same key, same inputs, an error
        f.write(json.dumps({**json.loads(by_id["r3"]), "error": "HTTP 500", "response": None}) + "\n")
    assert job.sent_ids(job.run()) == ["3"]

    for cut in (by_id["r4"][:len(by_id["r4"]) // 2],  # half-written by a crash, well past the fields read first
                by_id["r4"][:-1]):                    # whole but for its newline
        kept = [x for x in job.raw.read_bytes().splitlines(keepends=True) if json.loads(x)["id"] != "r4"]
        job.raw.write_bytes(b"".join(kept) + cut)
        assert json.loads(cut.split(b',"model"')[0] + b"}")["error"] is None
        with caplog.at_level(logging.WARNING):
            assert job.sent_ids(job.run()) == ["4"]
        assert "removed a half-written last line" in caplog.text
        caplog.clear()
    assert [x["id"] for x in job.lines()].count("r4") == 1  # every line whole, the cut ones gone
    current = read_outcomes(job.raw)
    assert {k[0] for k, (_, error, _) in current.items() if error is None} == {f"r{i}" for i in range(5)}
    assert job.run()["sent"] == 0


def test_lines_written_before_inputs_resume_and_are_noted(tmp_path, scripted_server, watch):
    srv = scripted_server(script=lambda body, attempt: Reply.error(400) if "question 3" in json.dumps(body) else None)
    job = Job(tmp_path, srv, records(4))
    job.run()
    old = []  # the earlier layout: no inputs, the error after the response
    for x in job.lines():
        x.pop("inputs")
        error = x.pop("error")
        old.append({**{k: v for k, v in x.items() if k != "created"}, "error": error, "created": x["created"]})
    job.raw.write_text("".join(json.dumps(x) + "\n" for x in old))
    watch()
    srv.script = None
    counts = job.run()  # the failed one is retried, the others rendered once to check their keys
    assert job.sent_ids(counts) == ["3"] and watch()["rendered"] == ["r0", "r1", "r2", "r3"]
    assert job.run()["sent"] == 0 and watch() == {"rendered": [], "parsed": 0}


def test_a_record_naming_files_is_read_but_rendered_only_when_a_file_changes(tmp_path, scripted_server, watch):
    for i in range(2):
        Image.new("RGB", (4, 4), (i, 0, 0)).save(tmp_path / f"i{i}.png")
    recs = [{**r, "question": f"[IMAGE0] question {i}", "images": [f"i{i}.png"]} for i, r in enumerate(records(2))]
    job = Job(tmp_path, scripted_server(), recs)
    job.run()
    assert all(x["inputs"].count(":") == 2 for x in job.lines())  # context:record:files
    watch()
    assert job.run()["sent"] == 0 and watch() == {"rendered": [], "parsed": 2}

    st = os.stat(tmp_path / "i0.png")
    os.utime(tmp_path / "i0.png", ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))  # touched, the same pixels
    assert job.run()["sent"] == 0 and watch()["rendered"] == ["r0"]
    assert job.run()["sent"] == 0 and watch()["rendered"] == []

    Image.new("RGB", (4, 4), (0, 200, 0)).save(tmp_path / "i1.png")  # new pixels: a new request
    assert job.run()["sent"] == 1 and watch()["rendered"] == ["r1"]


def test_each_sample_is_done_on_its_own(tmp_path, scripted_server, watch):
    # the second request with r0's body fails once
    srv = scripted_server(script=lambda body, attempt: Reply.error(400) if "question 0" in json.dumps(body)
                          and attempt == 2 else None)
    job = Job(tmp_path, srv, records(3))
    counts = job.run(n=2)
    assert (counts["sent"], counts["failed"]) == (6, 1)
    failed = [(x["id"], x["sample_idx"]) for x in job.lines() if x["error"]]
    assert job.run(n=2)["sent"] == 1 and failed == [("r0", failed[0][1])]
    watch()
    assert job.run(n=2)["sent"] == 0 and watch() == {"rendered": [], "parsed": 0}
    counts = job.run(n=3)  # one more sample of each record
    assert counts["sent"] == 3 and {(x["id"], x["sample_idx"]) for x in job.lines()[-3:]} == {(f"r{i}", 2) for i in range(3)}


def test_in_context_prompts_are_redone_when_a_demonstration_changes(tmp_path, scripted_server):
    recs = [{**r, "solution": f"solution {r['id']}"} for r in records(12)]
    job = Job(tmp_path, scripted_server(), recs, setting="icl+shots2")
    prompt(tmp_path, "{{demos}}\n[REQUEST]\n{{question}}", "icl")
    prompt(tmp_path, "[EXAMPLE]\n{{question}}\n[Solution]\n{{solution}}", "icl_demo")
    first = job.run()
    assert first["sent"] == 6 and job.run()["sent"] == 0
    pool = json.loads(manifest_of(job.raw).read_text())["excluded_ids"]
    shown = sum(f"solution {pool[0]}" in json.dumps(b) for b in job.srv.requests)
    recs = [{**r, "solution": "edited"} if r["id"] == pool[0] else r for r in recs]
    write_jsonl_atomic(job.data, recs)
    assert job.run()["sent"] == shown > 0  # exactly the prompts that show the edited demonstration


def test_reading_outcomes_agrees_with_the_store_reader(tmp_path):
    lines = [
        {"id": "a", "sample_idx": 0, "request_key": "k1", "inputs": "c:r", "error": None, "response": "x"},
        {"id": "b", "sample_idx": 0, "request_key": "k2", "inputs": "c:s", "error": "HTTP 500", "response": None},
        {"id": "a", "sample_idx": 1, "request_key": "k1", "model": "m", "response": "y", "error": None},  # older layout
        {"id": 'q"uote', "sample_idx": 0, "request_key": "k3", "inputs": "c:t", "error": None, "response": "z"},
        {"id": "ünï", "sample_idx": 0, "request_key": "k4", "inputs": "c:u", "error": None, "response": '"error":1'},
        {"id": "b", "sample_idx": 0, "request_key": "k2", "inputs": "c:s", "error": None, "response": "ok now"},
        {"id": "a", "sample_idx": 0, "request_key": "k5", "inputs": "c:v", "error": "HTTP 400", "response": None},
    ]
    path = tmp_path / "raw.jsonl"
    path.write_text("".join(json.dumps(x, ensure_ascii=False, separators=(",", ":")) + "\n" + ("\n" if i == 2 else "")
                            for i, x in enumerate(lines)), encoding="utf-8")
    store = load_latest(path, key=lambda r: (r["id"], r["sample_idx"]), keep=("request_key", "error", "inputs"))
    assert read_outcomes(path) == {k: (v["request_key"], v["error"], v["inputs"]) for k, v in store.items()}
    assert len(store) == 5

    whole = path.read_bytes()
    cut = b'{"id":"c","sample_idx":0,"request_key":"k6","inputs":"c:w","error":null,"model":"m","response":"half'
    for tail in (cut, cut + b'"}'):  # a crash's last line, half or whole but for its newline: AppendLog cuts it
        path.write_bytes(whole + tail)
        assert ("c", 0) not in read_outcomes(path) and len(read_outcomes(path)) == 5

    path.write_bytes(whole.replace(b'"id":"b"', b'"id":b', 1))
    with pytest.raises(ValueError, match=r"raw.jsonl:2: -: corrupt result line"):
        read_outcomes(path)


def test_going_back_to_an_earlier_prompt_makes_its_answers_current_without_sending(tmp_path, scripted_server, watch):
    # the first prompt's requests for record 1 fail
    srv = scripted_server(script=lambda body, attempt: Reply.error(400) if "question 1" in json.dumps(body)
                          and "briefly" in json.dumps(body) else None)
    job = Job(tmp_path, srv, records(3))
    template = job.prompts / "omibench" / "p.txt"
    original = template.read_text()
    assert job.run(n=2)["failed"] == 2
    first = {(x["id"], x["sample_idx"]): x for x in job.lines()}

    template.write_text("{{question}}\nAnswer in one word.")
    assert job.run(n=2)["sent"] == 6
    srv.script = None
    template.write_text(original)  # back: the finished answers are current again, the failed ones are sent
    counts = job.run(n=2)
    assert (counts["sent"], counts["reused"]) == (2, 4) and job.sent_ids(counts) == ["1", "1"]
    now = load_latest(job.raw, key=lambda x: (x["id"], x["sample_idx"]))
    assert {k: now[k] for k in first if k[0] != "r1"} == {k: v for k, v in first.items() if k[0] != "r1"}
    assert all(now[("r1", i)]["error"] is None and now[("r1", i)]["request_key"] == first[("r1", i)]["request_key"]
               for i in range(2))
    watch()
    again = job.run(n=2)
    assert (again["sent"], again["reused"]) == (0, 0) and watch() == {"rendered": [], "parsed": 0}
