"""Failures that say what happened, in seconds: an endpoint that does not answer, a judge model's server that
is down, an unset key, a run whose every request failed, Ctrl-C and SIGTERM.

The commands are real `python -m …` subprocesses (cwd: the repository) talking to scripted servers in this
test process, or to a port nothing listens on.
"""
from __future__ import annotations

import json
import logging
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from data.jsonl import write_jsonl_atomic
from infer.client import GIVE_UP_AFTER, GaveUp, Streak
from infer.config import load_model_config
from infer.layout import judge_cache_path, judged_path, raw_path
from infer.preflight import EndpointDown
from infer.run import run
from judge.run import run as judge_run
from pipeline.experiments import EXPERIMENTS, Job, RunFailed, load_experiment, run_job
from tests.scripted_server import Reply, scripted_server  # noqa: F401  (fixture)

ROOT = Path(__file__).resolve().parent.parent
SETTING = "cot_boxed"
QUICK = 10  # seconds: "in seconds", with room for a busy 2-core machine (a dead endpoint's retries took minutes)


def closed_port_url() -> str:
    """A base URL on this machine where nothing listens."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def write_data(tmp_path: Path, n: int) -> Path:
    recs = [{"id": f"r{i:03d}", "benchmark": "omibench", "question": f"question {i}", "images": [], "choices": [],
             "answer": ["1"], "answer_type": "numeric", "subject": "Mathematics"} for i in range(n)]
    path = tmp_path / "d.jsonl"
    write_jsonl_atomic(path, recs)
    return path


def write_config(tmp_path: Path, urls: list[str], name: str = "m", **extra) -> Path:
    # Seven attempts of up to 30 s each: what a dead endpoint cost every request before it was checked
    fields = {"name": name, "model": "m", "base_urls": urls, "modalities": ["text"], "max_tokens": 16,
              "max_retries": 6, "backoff_base": 1.0, "read_timeout": 30, **extra}
    path = tmp_path / f"{name}.yaml"
    path.write_text("\n".join(f"{k}: {json.dumps(v)}" for k, v in fields.items()) + "\n")
    return path


def files_under(path: Path) -> list[Path]:
    return sorted(p for p in path.rglob("*") if p.is_file()) if path.exists() else []


def python(*args: str | Path, env: dict[str, str] | None = None) -> tuple[subprocess.CompletedProcess, float]:
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-m", *map(str, args)], cwd=ROOT, capture_output=True, text=True,
                          timeout=120, env=env, stdin=subprocess.DEVNULL)
    return done, time.monotonic() - start


def infer_args(data: Path, cfg: Path, results: Path, *more: str) -> list[str | Path]:
    return ["infer.run", "--bench", "omibench", "--data", data, "--model", cfg, "--setting", SETTING,
            "--results", results, *more]


def lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]


# --- endpoints that do not answer ---------------------------------------------------------------------


def test_a_dead_endpoint_fails_in_seconds_with_one_line_naming_it_and_writes_nothing(tmp_path):
    url = closed_port_url()
    data, cfg, results = write_data(tmp_path, 3), write_config(tmp_path, [url]), tmp_path / "results"
    done, took = python(*infer_args(data, cfg, results))
    assert done.returncode == 1 and took < QUICK, (took, done.stderr[-2000:])
    assert done.stderr.strip().splitlines() == [
        f"error: no endpoint of model m answers: {url} (connection refused); nothing was sent (model config {cfg})"]
    assert done.stdout == ""
    assert files_under(results) == []  # no raw file, no lock, no manifest


def test_a_dead_and_a_live_endpoint_the_run_uses_the_live_one_and_names_the_other(tmp_path, scripted_server, caplog):
    live, dead = scripted_server(), closed_port_url()
    cfg = load_model_config(write_config(tmp_path, [dead, live.base_url]))
    with caplog.at_level(logging.WARNING, logger="infer.preflight"):
        counts = run("omibench", write_data(tmp_path, 6), cfg, SETTING, tmp_path / "results")
    assert (counts["sent"], counts["ok"], counts["failed"]) == (6, 6, 0)
    assert live.count == 6
    # no request went to the dead endpoint first: without the check half of them would have taken 2 attempts
    assert [x["attempts"] for x in lines(raw_path(tmp_path / "results", "omibench", "m", SETTING))] == [1] * 6
    (warning,) = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert warning == f"m: 1 of 2 endpoints do not answer and are left out of this run: {dead} (connection refused)"


@pytest.mark.parametrize("status", [401, 403])  # 403 Forbidden: a key some APIs do not take, as 401
def test_an_endpoint_that_refuses_the_key_is_named_with_the_variable_to_check(tmp_path, scripted_server, monkeypatch,
                                                                               status):
    srv = scripted_server(script=lambda body, attempt: Reply.error(status))
    srv.models_status = status
    monkeypatch.setenv("FAIL_FAST_TEST_KEY", "sk-test-refused")
    cfg = load_model_config(write_config(tmp_path, [srv.base_url], api_key_env="FAIL_FAST_TEST_KEY"))
    with pytest.raises(EndpointDown, match=re.escape(f"{srv.base_url} (HTTP {status}: the key was refused (check the "
                                                     "environment variable FAIL_FAST_TEST_KEY))")):
        run("omibench", write_data(tmp_path, 2), cfg, SETTING, tmp_path / "results")
    assert srv.requests == [{}]  # the check's empty chat body, refused: no request of the run was sent
    assert files_under(tmp_path / "results") == []


@pytest.mark.parametrize("status", [401, 403])
def test_an_api_that_refuses_its_model_list_but_takes_the_key_for_chat_is_used(tmp_path, scripted_server, status):
    # (some OpenAI-compatible APIs answer GET /models with 401 or 403 to keys their chat endpoint takes)
    srv = scripted_server(script=lambda body, attempt: Reply.error(400) if body == {} else None)
    srv.models_status = status
    counts = run("omibench", write_data(tmp_path, 2), load_model_config(write_config(tmp_path, [srv.base_url])),
                 SETTING, tmp_path / "results")
    assert (counts["ok"], counts["failed"]) == (2, 0)
    assert srv.requests[0] == {} and srv.count == 3


# --- a judge model whose server is down -----------------------------------------------------------------


def judge_args(data: Path, judge_cfg: Path, results: Path) -> list[str | Path]:
    return ["judge.run", "--bench", "omibench", "--data", data, "--model", "m", "--setting", SETTING,
            "--judge", "omibench_gptscore", "--judge-model", judge_cfg, "--results", results]


def write_raw(results: Path, n: int) -> Path:
    path = raw_path(results, "omibench", "m", SETTING)
    path.parent.mkdir(parents=True)
    path.write_text("".join(json.dumps({"id": f"r{i:03d}", "sample_idx": 0, "request_key": f"k{i}", "response":
                                        f"\\boxed{{{i % 2}}}", "error": None}) + "\n" for i in range(n)))
    return path


def test_a_judge_server_that_is_down_is_one_line_and_no_verdict_file(tmp_path):
    url, results = closed_port_url(), tmp_path / "results"
    data, raw = write_data(tmp_path, 40), write_raw(results, 40)
    judge_cfg = write_config(tmp_path, [url], name="judge")
    done, took = python(*judge_args(data, judge_cfg, results))
    assert done.returncode == 1 and took < QUICK, (took, done.stderr[-2000:])
    assert [x for x in done.stderr.splitlines() if not x.startswith("INFO ")] == [
        f"error: no endpoint of model judge answers: {url} (connection refused); nothing was sent "
        f"(model config {judge_cfg})"]
    assert files_under(results) == [raw]  # no verdict file of 40 judge errors, no judge cache


def test_a_failed_judge_call_keeps_each_attempt_in_the_verdict(tmp_path, scripted_server):
    srv = scripted_server(script=lambda body, attempt: Reply.error(503) if attempt == 1 else Reply.error(500))
    results = tmp_path / "results"
    data, _ = write_data(tmp_path, 1), write_raw(results, 1)
    judge_cfg = load_model_config(write_config(tmp_path, [srv.base_url], name="judge", max_retries=2,
                                               backoff_base=0.01))
    s = judge_run("omibench", data, "m", SETTING, "omibench_gptscore", results, judge_cfg)
    assert s["judge_error"] == 1
    (v,) = lines(judged_path(results, "omibench", "m", SETTING, "omibench_gptscore"))
    assert v["status"] == "judge_error" and v["error"].startswith("RetryableError: HTTP 500")
    (call,) = v["failed_calls"]
    assert call["attempts"] == 3 and call["attempt_errors"] == ["HTTP 503", "HTTP 500", "HTTP 500"]
    assert call["elapsed_s"] > 0


@pytest.mark.parametrize("status", [404, 503])  # a wrong judge model name; an overloaded gateway
def test_a_judge_run_whose_every_call_fails_stops_early_and_exits_non_zero_with_one_line(tmp_path, scripted_server,
                                                                                          status):
    srv = scripted_server(script=lambda body, attempt: Reply.error(status))  # /models answers; every chat fails
    results = tmp_path / "results"
    data, _ = write_data(tmp_path, 200), write_raw(results, 200)
    judge_cfg = write_config(tmp_path, [srv.base_url], name="judge", max_retries=6, backoff_base=0.05)
    done, took = python(*judge_args(data, judge_cfg, results))
    assert done.returncode == 1 and took < 6 * QUICK, (took, done.stderr[-2000:])
    errors = [x for x in done.stderr.splitlines() if x.startswith("error")]
    assert len(errors) == 1 and errors[0].startswith(f"error: stopped after {GIVE_UP_AFTER} requests in a row "
                                                     f"failed with HTTP {status} ("), errors
    assert errors[0].endswith("the requests not answered were not sent, a rerun sends them")
    concurrency = load_model_config(judge_cfg).concurrency
    calls = [b for b in srv.requests if b]  # the check's empty body aside
    tries = 1 if status == 404 else 7
    assert len({json.dumps(b) for b in calls}) <= GIVE_UP_AFTER + concurrency  # not the 200 items' calls
    assert len(calls) <= (GIVE_UP_AFTER + concurrency) * tries


def test_an_inference_run_whose_every_request_fails_alike_stops_early_and_a_rerun_sends_the_rest(tmp_path,
                                                                                                   scripted_server):
    srv = scripted_server(script=lambda body, attempt: Reply.error(404))
    data, cfg, results = write_data(tmp_path, 150), write_config(tmp_path, [srv.base_url]), tmp_path / "results"
    done, _ = python(*infer_args(data, cfg, results))
    assert done.returncode == 1
    assert done.stderr.strip().splitlines()[-1].startswith(f"error: stopped after {GIVE_UP_AFTER} requests in a row")
    written = lines(raw_path(results, "omibench", "m", SETTING))
    assert GIVE_UP_AFTER <= len(written) < 150 and all(x["error"] for x in written)  # the others were not sent
    srv.script = lambda body, attempt: None  # the endpoint is fixed: the rerun answers every request
    done, _ = python(*infer_args(data, cfg, results))
    assert done.returncode == 0 and "sent 150 (150 ok, 0 failed)" in done.stdout, done.stdout + done.stderr[-2000:]


def test_a_judge_run_where_no_item_got_a_verdict_exits_non_zero_naming_the_cause(tmp_path, scripted_server):
    srv = scripted_server(script=lambda body, attempt: Reply.error(404))  # fewer items than stop a run early
    results = tmp_path / "results"
    data, _ = write_data(tmp_path, 3), write_raw(results, 3)
    judge_cfg = write_config(tmp_path, [srv.base_url], name="judge")
    done, _ = python(*judge_args(data, judge_cfg, results))
    assert done.returncode == 1, done.stderr[-2000:]
    assert done.stderr.strip().splitlines()[-1] == \
        "error: omibench_gptscore: none of the 3 items judged now got a verdict: 3 × HTTP 404"
    assert "judge error(s)" in done.stdout  # the summary is still printed, its errors counted

    # the same items judged again with a judge that answers: a verdict each, exit 0
    srv.script = lambda body, attempt: Reply.ok("consistent")
    done, _ = python(*judge_args(data, judge_cfg, results))
    assert done.returncode == 0, done.stderr[-2000:]


def test_a_streak_of_failures_about_the_requests_content_or_broken_by_a_success_does_not_stop_a_run():
    streak = Streak(limit=3)
    failed = {"error": "FatalError: HTTP 400: too long", "attempt_errors": ["HTTP 400"]}
    for _ in range(5):
        streak.add(failed)  # one request's content: another request may be fine
    assert streak.gave_up is None
    down = {"error": "RetryableError: HTTP 503: busy", "attempt_errors": ["HTTP 503"] * 7}
    for result in (down, down, {"error": None, "attempt_errors": []}, down, down, {**down, "attempt_errors": ["HTTP 502"]}):
        streak.add(result)  # a success, then another cause, each starts the count anew
    assert streak.gave_up is None
    streak.add({**down, "attempt_errors": ["HTTP 502"]})
    streak.add({**down, "attempt_errors": ["HTTP 502"]})
    assert isinstance(streak.gave_up, GaveUp) and "3 requests in a row failed with HTTP 502" in str(streak.gave_up)


def test_two_judge_runs_of_other_settings_with_one_judge_model_both_finish(tmp_path, scripted_server):
    srv = scripted_server(script=lambda body, attempt: Reply.ok("consistent"), latency=0.05)
    results, data = tmp_path / "results", write_data(tmp_path, 30)
    raw = write_raw(results, 30)
    raw_path(results, "omibench", "m", "direct").write_bytes(raw.read_bytes())
    judge_cfg = write_config(tmp_path, [srv.base_url], name="judge")
    runs = [subprocess.Popen([sys.executable, "-m", *map(str, judge_args(data, judge_cfg, results)[:-2]), "--setting",
                              setting, "--results", results], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True) for setting in (SETTING, "direct")]
    outs = [p.communicate(timeout=120) for p in runs]
    assert [p.returncode for p in runs] == [0, 0], [err[-2000:] for _, err in outs]
    for setting in (SETTING, "direct"):
        verdicts = lines(judged_path(results, "omibench", "m", setting, "omibench_gptscore"))
        assert len(verdicts) == 30 and all(v["status"] == "ok" for v in verdicts)
    cache = lines(judge_cache_path(results, "judge"))
    assert len({x["request_key"] for x in cache}) == 30 <= len(cache)  # the same calls: paid by one run or both


# --- a run whose requests failed -----------------------------------------------------------------------


def test_failures_are_counted_by_cause_and_a_run_where_none_succeeded_exits_non_zero(tmp_path, scripted_server):
    def script(body, attempt):
        i = int(re.search(r"question (\d+)", body["messages"][0]["content"]).group(1))
        return {0: None, 1: Reply.error(500), 2: Reply.error(500), 3: Reply.error(400)}[i]

    srv = scripted_server(script=script)
    data, results = write_data(tmp_path, 4), tmp_path / "results"
    cfg = write_config(tmp_path, [srv.base_url], max_retries=1, backoff_base=0.01)
    done, _ = python(*infer_args(data, cfg, results))
    assert done.returncode == 0, done.stderr[-2000:]
    assert "sent 4 (1 ok, 3 failed: 2 × HTTP 500 after 2 attempts, 1 × HTTP 400)" in done.stdout

    # the rerun sends the three failures again, and none succeeds; the run still has its earlier answer, so the
    # failures are reported, not the run (a request that keeps failing must not stop a sweep)
    done, _ = python(*infer_args(data, cfg, results))
    assert done.returncode == 0, done.stderr[-2000:]
    assert "sent 3 (0 ok, 3 failed: 2 × HTTP 500 after 2 attempts, 1 × HTTP 400)" in done.stdout

    # a run with no answer at all: every request fails, and nothing was answered before
    srv_down = scripted_server(script=lambda body, attempt: Reply.error(500))
    cfg = write_config(tmp_path, [srv_down.base_url], max_retries=1, backoff_base=0.01)
    done, _ = python(*infer_args(data, cfg, tmp_path / "other"))
    assert done.returncode == 1
    assert done.stderr.strip().splitlines()[-1] == "error: none of the 4 requests sent succeeded"


def test_an_experiment_run_where_none_succeeded_is_judged_then_an_error(tmp_path, scripted_server):
    srv = scripted_server(script=lambda body, attempt: Reply.error(502))
    cfg = load_model_config(write_config(tmp_path, [srv.base_url], max_retries=1, backoff_base=0.01))
    job = Job(load_experiment(EXPERIMENTS / "omibench_F4a.yaml"), cfg, SETTING, write_data(tmp_path, 3), 1, None,
              ["rules"], {})
    with pytest.raises(RunFailed, match=r"^none of the 3 requests sent succeeded: 3 × HTTP 502 after 2 attempts$"):
        run_job(job, tmp_path / "results")
    verdicts = lines(judged_path(tmp_path / "results", "omibench", "m", SETTING, "rules"))
    assert [v["status"] for v in verdicts] == ["no_response"] * 3  # counted in the tables as failures


# --- an unset key ---------------------------------------------------------------------------------------


def test_an_unset_key_is_one_line_naming_the_variable_and_leaves_no_file(tmp_path, scripted_server):
    srv = scripted_server()
    data, results = write_data(tmp_path, 3), tmp_path / "results"
    cfg = write_config(tmp_path, [srv.base_url], api_key_env="FAIL_FAST_UNSET_KEY")
    env = {k: v for k, v in os.environ.items() if k != "FAIL_FAST_UNSET_KEY"}
    done, took = python(*infer_args(data, cfg, results), env=env)
    assert done.returncode == 1 and took < QUICK
    assert done.stderr.strip().splitlines() == [
        f"error: the environment variable FAIL_FAST_UNSET_KEY is not set: set it to the API key of model m "
        f"(api_key_env in {cfg})"]
    assert files_under(results) == [] and srv.count == 0

    # the same for a judge model's key: no verdict file, no judge cache
    raw = write_raw(results, 3)
    done, _ = python(*judge_args(data, cfg, results), env=env)
    assert done.returncode == 1 and "FAIL_FAST_UNSET_KEY is not set" in done.stderr
    assert files_under(results) == [raw]


# --- Ctrl-C and SIGTERM ------------------------------------------------------------------------------------


N_SLOW = 60


def interrupt_during_sending(tmp_path: Path, srv, sig: int) -> tuple[subprocess.Popen, str, Path, list[str | Path]]:
    data, results = write_data(tmp_path, N_SLOW), tmp_path / "results"
    cfg = write_config(tmp_path, [srv.base_url], concurrency=4)
    args = infer_args(data, cfg, results)
    raw = raw_path(results, "omibench", "m", SETTING)
    err = tmp_path / "stderr"
    with open(err, "w") as f:
        proc = subprocess.Popen([sys.executable, "-m", *map(str, args)], cwd=ROOT, stdout=subprocess.DEVNULL,
                                stderr=f, stdin=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while not (raw.exists() and raw.read_bytes().count(b"\n") >= 8):
        assert proc.poll() is None and time.monotonic() < deadline, err.read_text()[-2000:]
        time.sleep(0.01)
    proc.send_signal(sig)
    proc.wait(30)
    return proc, err.read_text(), raw, args


@pytest.mark.parametrize("sig, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)], ids=["SIGINT", "SIGTERM"])
def test_a_signal_during_sending_is_one_line_and_the_same_command_resumes(tmp_path, scripted_server, sig, code):
    srv = scripted_server(latency=0.1)  # 4 in flight: about 40 answers a second
    proc, stderr, raw, args = interrupt_during_sending(tmp_path, srv, sig)
    assert proc.returncode == code, stderr[-3000:]
    assert "Traceback" not in stderr
    saved = lines(raw)  # every line parses: none half-written
    assert 8 <= len(saved) < N_SLOW, "the run was not stopped mid-way"
    assert stderr.splitlines()[-1] == (f"interrupted: {len(saved)} answers saved in {raw}; "
                                       "rerun the same command to resume")
    assert len({(x["id"], x["sample_idx"]) for x in saved}) == len(saved)

    done, _ = python(*args)
    assert done.returncode == 0, done.stderr[-2000:]
    assert f"sent {N_SLOW - len(saved)} ({N_SLOW - len(saved)} ok, 0 failed)" in done.stdout
    final = Counter((x["id"], x["sample_idx"]) for x in lines(raw))
    assert final == Counter({(f"r{i:03d}", 0): 1 for i in range(N_SLOW)})  # every item answered exactly once


def test_sigterm_while_judging_saves_the_judge_replies_and_the_same_command_resumes(tmp_path, scripted_server):
    srv = scripted_server(script=lambda body, attempt: Reply.ok("ANSWER: consistent"), latency=0.1)
    results = tmp_path / "results"
    data, _ = write_data(tmp_path, N_SLOW), write_raw(results, N_SLOW)
    args = judge_args(data, write_config(tmp_path, [srv.base_url], name="judge", concurrency=4), results)
    cache, err = judge_cache_path(results, "judge"), tmp_path / "stderr"
    with open(err, "w") as f:
        proc = subprocess.Popen([sys.executable, "-m", *map(str, args)], cwd=ROOT, stdout=subprocess.DEVNULL,
                                stderr=f, stdin=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while not (cache.exists() and cache.read_bytes().count(b"\n") >= 8):
        assert proc.poll() is None and time.monotonic() < deadline, err.read_text()[-2000:]
        time.sleep(0.01)
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(30) == 143
    stderr, saved = err.read_text(), lines(cache)
    assert "Traceback" not in stderr and 8 <= len(saved) < N_SLOW
    assert stderr.splitlines()[-1] == (f"interrupted: {len(saved)} answers saved in {cache}; "
                                       "rerun the same command to resume")
    verdicts = judged_path(results, "omibench", "m", SETTING, "omibench_gptscore")
    assert not verdicts.exists()  # written at the end of judging: none yet, and no empty file left

    asked = srv.count
    done, _ = python(*args)
    assert done.returncode == 0, done.stderr[-2000:]
    assert srv.count - asked == N_SLOW - len(saved)  # the saved replies are not asked again
    assert Counter(v["id"] for v in lines(verdicts)) == Counter(f"r{i:03d}" for i in range(N_SLOW))


# --- a sweep -------------------------------------------------------------------------------------------


def test_a_sweep_says_once_that_a_judge_model_is_down(tmp_path, scripted_server, monkeypatch, capsys):
    import pipeline.experiments as experiments

    srv, dead = scripted_server(), closed_port_url()
    models = tmp_path / "models"
    models.mkdir()
    write_config(models, [srv.base_url], name="m", modalities=["text", "image"])  # cot_boxed may send images
    write_config(models, [dead], name="judge")
    monkeypatch.setattr(experiments, "PAPER_MODELS", models)
    exp = tmp_path / "exp.yaml"
    exp.write_text(json.dumps({"id": "t.sweep", "caption": "a sweep", "benchmark": "omibench",
                               "settings": ["cot_boxed", "plan_and_solve"], "added_models": {"m": "a test model"},
                               "data": str(write_data(tmp_path, 2)), "judges": ["rules", "omibench_gptscore"],
                               "judge_model": "judge"}))
    status = experiments.main([str(exp), "--profile", "paper", "--results", str(tmp_path / "results")])
    out, err = capsys.readouterr()
    assert status == 1
    said = [x for x in err.splitlines() if "no endpoint of model judge answers" in x]
    assert said == [f"error: t.sweep: m / cot_boxed: no endpoint of model judge answers: {dead} (connection "
                    f"refused); nothing was sent (model config {models / 'judge.yaml'})"]
    assert "t.sweep: m / plan_and_solve: not done, judge does not answer" in out
    assert srv.count == 4  # both runs answered: only the judge model is down


def test_the_interruption_line_names_the_file_written_last_and_counts_the_others(tmp_path, capsys):
    from infer.interrupt import exits_cleanly
    from infer.store import AppendLog

    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"

    @exits_cleanly
    def main(argv):
        with AppendLog(a) as out_a, AppendLog(b) as out_b:
            for i in range(3):
                out_a.write({"i": i})
            out_b.write({"i": 0})
            out_a.write({"i": 3})
            out_b.write({"i": 1})  # b is the file written last
            raise KeyboardInterrupt

    assert main(None) == 130
    assert capsys.readouterr().err == (f"interrupted: 2 answers saved in {b} (and 4 in 1 other file); "
                                       "rerun the same command to resume\n")
