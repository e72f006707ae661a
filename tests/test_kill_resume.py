"""SIGKILL in the middle of a large job, then resume: nothing lost, nothing done twice.

The runs are real `python -m infer.run` / `python -m judge.run` subprocesses (cwd: the repository)
talking to a scripted server in this test process. Also: the repair of a half-written last line
(with its warning), and the lock that refuses a second run on the same output.
"""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import pytest

from data.jsonl import write_jsonl_atomic
from infer.layout import judge_cache_path, judged_path, manifest_of, raw_path
from judge.current import outcome_sha
from tests.scripted_server import Reply, scripted_server  # noqa: F401  (fixture)

ROOT = Path(__file__).resolve().parent.parent
N_RECORDS, N_SAMPLES = 400, 2
MODEL, SETTING = "kr", "cot_boxed"
TIMEOUT = 180  # generous: a shared 2-core machine


def write_data(tmp_path: Path, n: int = N_RECORDS) -> Path:
    recs = [{"id": f"r{i:04d}", "benchmark": "omibench", "question": f"question {i}", "images": [], "choices": [],
             "answer": [str(i % 3)], "answer_type": "numeric", "subject": "Mathematics"} for i in range(n)]
    path = tmp_path / "d.jsonl"
    write_jsonl_atomic(path, recs)
    return path


def write_config(tmp_path: Path, url: str, name: str = MODEL, **extra) -> Path:
    fields = {"name": name, "model": "m", "base_urls": [url], "modalities": ["text"], "max_tokens": 16,
              "concurrency": 8, "max_retries": 3, "backoff_base": 0.01, "read_timeout": 30, **extra}
    path = tmp_path / f"{name}.yaml"
    path.write_text("\n".join(f"{k}: {json.dumps(v)}" for k, v in fields.items()) + "\n")
    return path


def raw_file(results: Path) -> Path:
    return raw_path(results, "omibench", MODEL, SETTING)


def infer_cmd(data: Path, cfg: Path, results: Path) -> list[str]:
    return [sys.executable, "-m", "infer.run", "--bench", "omibench", "--data", str(data), "--model", str(cfg),
            "--setting", SETTING, "--results", str(results), "--n", str(N_SAMPLES)]


class Proc:
    """A subprocess whose output goes to files (a pipe nobody reads could block it)."""

    def __init__(self, cmd: list[str], logs: Path, name: str):
        self.out, self.err = logs / f"{name}.out", logs / f"{name}.err"
        with open(self.out, "w") as out, open(self.err, "w") as err:
            self.p = subprocess.Popen(cmd, cwd=ROOT, stdout=out, stderr=err, stdin=subprocess.DEVNULL)

    @property
    def pid(self) -> int:
        return self.p.pid

    def wait(self, timeout: float = TIMEOUT) -> int:
        try:
            return self.p.wait(timeout)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
            raise

    def stdout(self) -> str:
        return self.out.read_text()

    def stderr(self) -> str:
        return self.err.read_text(errors="replace")

    def kill(self) -> None:
        if self.p.poll() is None:
            self.p.kill()
            self.p.wait()


def run_to_end(cmd: list[str], logs: Path, name: str) -> Proc:
    proc = Proc(cmd, logs, name)
    rc = proc.wait()
    assert rc == 0, f"{name} exited {rc}:\n{proc.stderr()[-3000:]}"
    return proc


def count_lines(path: Path) -> int:
    try:
        with open(path, "rb") as f:
            return f.read().count(b"\n")
    except FileNotFoundError:
        return 0


def kill_after(proc: Proc, path: Path, lines: int) -> int:
    """SIGKILL `proc` once `path` has at least `lines` complete lines; return the count seen then."""
    deadline = time.monotonic() + TIMEOUT
    while True:
        seen = count_lines(path)
        if seen >= lines:
            break
        if proc.p.poll() is not None:
            pytest.fail(f"the run ended (code {proc.p.returncode}) before {lines} lines:\n{proc.stderr()[-3000:]}")
        if time.monotonic() > deadline:
            proc.kill()
            pytest.fail(f"{path} never reached {lines} lines")
        time.sleep(0.002)
    os.kill(proc.pid, signal.SIGKILL)
    assert proc.wait() == -signal.SIGKILL, "the run had already finished: it was not killed mid-way"
    return seen


def parse_lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]


def all_keys() -> set[tuple[str, int]]:
    return {(f"r{i:04d}", k) for i in range(N_RECORDS) for k in range(N_SAMPLES)}


def assert_exactly_once_and_ok(path: Path) -> list[dict]:
    xs = parse_lines(path)  # every line parses: nothing half-written is left
    seen = Counter((x["id"], x["sample_idx"]) for x in xs)
    duplicated = {k: c for k, c in seen.items() if c > 1}
    assert not duplicated, f"done twice: {sorted(duplicated)[:5]}"
    assert set(seen) == all_keys(), f"lost: {sorted(all_keys() - set(seen))[:5]}"
    failed = [x for x in xs if x["error"] is not None]
    assert not failed, failed[:3]
    return xs


def comparable(x: dict) -> dict:
    return {k: v for k, v in x.items() if k not in ("created", "latency_s", "elapsed_s", "attempts")}


# --- inference --------------------------------------------------------------------------------------


def test_sigkill_mid_run_then_resume_loses_nothing_and_duplicates_nothing(tmp_path, scripted_server):
    srv = scripted_server(latency=0.02)
    data, cfg = write_data(tmp_path), write_config(tmp_path, srv.base_url)
    logs = tmp_path / "logs"
    logs.mkdir()

    reference = tmp_path / "reference"
    run_to_end(infer_cmd(data, cfg, reference), logs, "reference")
    assert srv.count == N_RECORDS * N_SAMPLES

    results = tmp_path / "results"
    seen = kill_after(Proc(infer_cmd(data, cfg, results), logs, "killed"), raw_file(results), 100)
    assert 100 <= seen < N_RECORDS * N_SAMPLES
    sent_before = srv.count - N_RECORDS * N_SAMPLES

    resumed = run_to_end(infer_cmd(data, cfg, results), logs, "resumed")
    final = assert_exactly_once_and_ok(raw_file(results))
    # the resume sent only what was not written before the kill (a cut last line is redone)
    kept = len(final) - int(re.search(r"sent (\d+)", resumed.stdout()).group(1))
    assert kept >= seen  # every line complete at the kill was kept
    assert srv.count - N_RECORDS * N_SAMPLES == sent_before + (len(final) - kept)
    assert re.search(rf"{kept} already done", resumed.stdout())

    # the same records as an uninterrupted run
    ref = {(x["id"], x["sample_idx"]): comparable(x) for x in parse_lines(raw_file(reference))}
    got = {(x["id"], x["sample_idx"]): comparable(x) for x in final}
    assert got == ref
    assert all(x["response"].startswith("ECHO: ") and f"question {int(x['id'][1:])}\n" in x["response"] for x in final)

    # and a third run has nothing left to do: it sends nothing and leaves the manifest of the run that finished
    before, written = srv.count, manifest_of(raw_file(results)).read_bytes()
    again = run_to_end(infer_cmd(data, cfg, results), logs, "again")
    assert srv.count == before and "sent 0 " in again.stdout()
    assert count_lines(raw_file(results)) == N_RECORDS * N_SAMPLES
    assert manifest_of(raw_file(results)).read_bytes() == written
    manifest = json.loads(written)
    assert manifest["counts"]["sent"] == len(final) - kept and manifest["counts"]["requests"] == N_RECORDS * N_SAMPLES


def test_half_written_last_line_is_cut_with_a_warning_on_resume(tmp_path, scripted_server):
    srv = scripted_server(latency=0.02)
    data, cfg = write_data(tmp_path), write_config(tmp_path, srv.base_url)
    logs = tmp_path / "logs"
    logs.mkdir()
    results = tmp_path / "results"
    kill_after(Proc(infer_cmd(data, cfg, results), logs, "killed"), raw_file(results), 100)

    path = raw_file(results)
    whole = path.read_bytes()
    whole = whole[: whole.rfind(b"\n") + 1]  # the complete lines (the kill may itself have cut one)
    partial = b'{"id":"r0399","sample_idx":1,"request_key":"abc","model":"kr","resp'
    with open(path, "ab") as f:
        f.write(partial)
    assert not path.read_bytes().endswith(b"\n")

    resumed = run_to_end(infer_cmd(data, cfg, results), logs, "resumed")
    err = resumed.stderr()
    assert re.search(rf"WARNING .*{re.escape(str(path))}: removed a half-written last line \(\d+ bytes\)", err), err[-2000:]
    final_bytes = path.read_bytes()
    assert final_bytes.startswith(whole)  # the complete lines were kept as they were
    assert partial not in final_bytes
    assert_exactly_once_and_ok(path)

    # a file that ends cleanly is left alone: no warning the next time
    quiet = run_to_end(infer_cmd(data, cfg, results), logs, "quiet")
    assert "half-written" not in quiet.stderr()


def test_second_run_on_the_same_output_is_refused_and_the_first_completes(tmp_path, scripted_server):
    slow = threading.Event()
    slow.set()
    # slow while the second run tries its luck, so the first surely still holds the lock; fast after
    srv = scripted_server(latency=lambda body: 0.2 if slow.is_set() else 0.005)
    data, cfg = write_data(tmp_path), write_config(tmp_path, srv.base_url)
    logs = tmp_path / "logs"
    logs.mkdir()
    results = tmp_path / "results"
    first = Proc(infer_cmd(data, cfg, results), logs, "first")
    try:
        deadline = time.monotonic() + TIMEOUT
        while count_lines(raw_file(results)) < 8:  # writing, so holding the lock
            assert first.p.poll() is None, first.stderr()[-3000:]
            assert time.monotonic() < deadline
            time.sleep(0.01)
        lines_before = count_lines(raw_file(results))
        second = Proc(infer_cmd(data, cfg, results), logs, "second")
        rc = second.wait()
        assert first.p.poll() is None, "the first run ended before the second was refused"
        slow.clear()
    except BaseException:
        first.kill()
        raise
    assert rc == 1
    err = second.stderr()
    assert re.search(r"^error: .*" + re.escape(str(raw_file(results))) + r".*(lock|another run)", err, re.M), err
    assert "sent" not in second.stdout()
    assert count_lines(raw_file(results)) >= lines_before

    assert first.wait() == 0, first.stderr()[-3000:]
    assert_exactly_once_and_ok(raw_file(results))
    assert srv.count == N_RECORDS * N_SAMPLES  # the refused run sent nothing


# --- judging ----------------------------------------------------------------------------------------


def judge_cmd(data: Path, judge_cfg: Path, results: Path) -> list[str]:
    return [sys.executable, "-m", "judge.run", "--bench", "omibench", "--data", str(data), "--model", MODEL,
            "--setting", SETTING, "--judge", "omibench_gptscore", "--judge-model", str(judge_cfg),
            "--results", str(results)]


def judge_reply(body: dict, attempt: int) -> Reply:
    i = int(re.search(r"question (\d+)", body["messages"][0]["content"]).group(1))
    return Reply.ok("ANSWER: consistent" if i % 2 == 0 else "ANSWER: inconsistent")


def test_sigkill_mid_judging_then_resume_gives_one_verdict_per_outcome(tmp_path, scripted_server):
    srv = scripted_server(script=judge_reply, latency=0.02)
    data = write_data(tmp_path)
    results = tmp_path / "results"
    raws = [{"id": f"r{i:04d}", "sample_idx": k, "request_key": f"key{i}", "model": MODEL, "setting": SETTING,
             "response": f"The result is \\boxed{{{(i + k) % 3}}}.", "error": None}
            for i in range(N_RECORDS) for k in range(N_SAMPLES)]
    raw_file(results).parent.mkdir(parents=True)
    raw_file(results).write_text("".join(json.dumps(r) + "\n" for r in raws))
    judge_cfg = write_config(tmp_path, srv.base_url, name="judge")
    cache = judge_cache_path(results, "judge")
    judged = judged_path(results, "omibench", MODEL, SETTING, "omibench_gptscore")
    logs = tmp_path / "logs"
    logs.mkdir()

    kill_after(Proc(judge_cmd(data, judge_cfg, results), logs, "killed"), cache, 100)
    complete = cache.read_bytes().split(b"\n")[:-1]  # what follows the last newline may be cut
    cached = len({json.loads(x)["request_key"] for x in complete if x.strip()})
    calls_before = srv.count
    assert cached < len(raws)

    resumed = run_to_end(judge_cmd(data, judge_cfg, results), logs, "resumed")
    # the cached replies were not asked again; every other one was asked once
    assert srv.count - calls_before == len(raws) - cached, resumed.stderr()[-2000:]

    verdicts = parse_lines(judged)
    per_outcome = Counter((v["id"], v["sample_idx"], v["outcome"]) for v in verdicts)
    assert {k: c for k, c in per_outcome.items() if c > 1} == {}
    current = {(v["id"], v["sample_idx"]): v for v in verdicts}
    assert set(current) == {(r["id"], r["sample_idx"]) for r in raws}
    for r in raws:
        v = current[(r["id"], r["sample_idx"])]
        assert v["outcome"] == outcome_sha(r) and v["status"] == "ok"
        assert v["correct"] is (int(r["id"][1:]) % 2 == 0)
    assert "accuracy 50.00% (400/800, a failure counts as not correct); over scored 50.00% (400/800)" \
        in resumed.stdout()

    # a rerun: every outcome already has its verdict, no call, no new line
    before, n_lines = srv.count, count_lines(judged)
    again = run_to_end(judge_cmd(data, judge_cfg, results), logs, "again")
    assert srv.count == before and count_lines(judged) == n_lines and "0 judged now" in again.stdout()
