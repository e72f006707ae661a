"""Secrets never reach a file or a log.

The whole pipeline (infer.run → judge.run with an LLM judge → analysis.run --all --report) runs against
a scripted server that echoes the Authorization header back in its error bodies (401 and 500), for
the model and for the judge. The key, taken from the environment variable a config names, must then
appear in no file under the results folder (raw, judged, manifests, judge cache, tables, report,
logs) or the figures folder, in no log record (DEBUG and up) and in nothing printed; the errors in
the raw lines show it scrubbed.
"""
from __future__ import annotations

import contextvars
import json
import logging
import re
from pathlib import Path

import pytest

from data.jsonl import write_jsonl_atomic
from infer.layout import judge_cache_path, judged_path, raw_path, report_path, table_file
from tests.scripted_server import Reply, ScriptedServer

SENTINEL = "sk-SENTINEL-1234567890"
KEY_ENV = "HARNESS_TEST_API_KEY"  # the name may be written; the value never
_HEADERS: contextvars.ContextVar[dict] = contextvars.ContextVar("headers", default={})


class HeaderEchoServer(ScriptedServer):
    """The scripted server, with the current request's headers visible to the script (`headers()`)."""

    def __init__(self, **kw):
        super().__init__(**kw)
        self.authorizations: list[str] = []

    async def _chat(self, request):
        self.authorizations.append(request.headers.get("Authorization", ""))
        token = _HEADERS.set(dict(request.headers))
        try:
            return await super()._chat(request)
        finally:
            _HEADERS.reset(token)


def auth() -> str:
    return _HEADERS.get().get("Authorization", "")


def fragments(secret: str, length: int = 8) -> list[str]:
    """Every piece of the secret long enough to matter (a truncated key still leaks)."""
    return [secret[i:i + length] for i in range(len(secret) - length + 1)]


def leaks(text: str) -> list[str]:
    return [f for f in fragments(SENTINEL) if f in text]


def index(body: dict) -> int:
    m = re.search(r"question (\d+)", json.dumps(body["messages"]))
    return int(m.group(1))


def script(body: dict, attempt: int):
    i = index(body)
    if body["model"] == "m":  # the evaluated model
        if i % 4 == 1:
            return Reply.error(401, body={"error": {"message": f"Incorrect API key provided: {auth()}",
                                                    "received_headers": {"Authorization": auth()}}})
        if i % 4 == 2:
            return Reply.error(500, body=f"upstream failed; request headers were Authorization: {auth()}")
        if i % 4 == 3 and attempt == 1:  # a transient echo, then an answer
            return Reply.error(503, body=f"overloaded ({auth()})")
        return Reply.ok("The answer is \\boxed{1}.")
    # the judge
    if i % 8 == 0:
        return Reply.error(401, body={"error": {"message": f"bad key {auth()}"}})
    if i % 8 == 3:
        return Reply.error(500, body=f"judge backend error, Authorization={auth()}")
    return Reply.ok("ANSWER: consistent")


def write_config(path: Path, name: str, model: str, url: str) -> Path:
    fields = {"name": name, "model": model, "base_urls": [url], "api_key_env": KEY_ENV, "modalities": ["text"],
              "max_tokens": 16, "max_retries": 1, "backoff_base": 0.01, "concurrency": 4}
    path.write_text("\n".join(f"{k}: {json.dumps(v)}" for k, v in fields.items()) + "\n")
    return path


@pytest.fixture
def echo_server():
    srv = HeaderEchoServer(script=script).start()
    yield srv
    srv.stop()


def every_file(*folders: Path) -> list[Path]:
    return sorted(p for folder in folders if folder.exists() for p in folder.rglob("*") if p.is_file())


def run_pipeline(tmp_path: Path, url: str) -> tuple[Path, Path, Path]:
    """infer.run, then judge.run with the rules and an LLM judge, as their command lines do."""
    from infer.run import main as infer_main
    from judge.run import main as judge_main

    results, figures = tmp_path / "results", tmp_path / "figures"
    recs = [{"id": f"q{i}", "benchmark": "omibench", "question": f"question {i}", "images": [], "choices": [],
             "answer": ["1"], "answer_type": "numeric", "subject": "Mathematics"} for i in range(16)]
    data = tmp_path / "d.jsonl"
    write_jsonl_atomic(data, recs)
    model = write_config(tmp_path / "model.yaml", "secret-test", "m", url)
    judge = write_config(tmp_path / "judge.yaml", "secret-judge", "judge", url)
    assert infer_main(["--bench", "omibench", "--data", str(data), "--model", str(model), "--setting", "cot_boxed",
                       "--results", str(results)]) == 0
    for j in ("rules", "omibench_gptscore"):
        assert judge_main(["--bench", "omibench", "--data", str(data), "--model", "secret-test", "--setting",
                           "cot_boxed", "--judge", j, "--judge-model", str(judge), "--results", str(results)]) == 0
    return results, figures, data


def test_key_reaches_no_file_and_no_log_in_the_whole_pipeline(tmp_path, monkeypatch, caplog, capsys, echo_server):
    import analysis.run

    monkeypatch.setenv(KEY_ENV, SENTINEL)
    caplog.set_level(logging.DEBUG)
    results, figures, _ = run_pipeline(tmp_path, echo_server.base_url)
    analysis.run.main(["--all", "--report", "--results", str(results), "--figures", str(figures)])

    # the key really was sent, and really echoed back
    assert echo_server.authorizations and set(echo_server.authorizations) == {f"Bearer {SENTINEL}"}
    raw = [json.loads(x) for x in raw_path(results, "omibench", "secret-test", "cot_boxed").read_text().splitlines()]
    by_id = {x["id"]: x for x in raw}
    assert len(by_id) == 16
    for i in range(16):
        x = by_id[f"q{i}"]
        if i % 4 in (1, 2):
            assert x["response"] is None and "Bearer ***" in x["error"], x["error"]
        else:
            assert x["error"] is None
    assert by_id["q1"]["error"].startswith("FatalError: HTTP 401")
    assert by_id["q2"]["error"].startswith("RetryableError: HTTP 500")
    judged = [json.loads(x) for x in judged_path(results, "omibench", "secret-test", "cot_boxed", "omibench_gptscore")
              .read_text().splitlines()]
    judge_errors = [v for v in judged if v["status"] == "judge_error"]
    assert judge_errors and all("***" in v["error"] for v in judge_errors)
    assert report_path(results, "md").is_file() and judge_cache_path(results, "secret-judge").is_file()
    assert table_file(results, "omibench.T2", "md").is_file()

    # ... and is nowhere: files, log records, output
    files = every_file(results, figures, tmp_path / "logs")
    assert len(files) >= 8
    leaked = {str(p.relative_to(tmp_path)): leaks(p.read_bytes().decode("utf-8", "replace")) for p in files}
    assert {p: f for p, f in leaked.items() if f} == {}
    assert any(KEY_ENV in p.read_text() for p in files if p.name.endswith(".manifest.json"))  # the name, not the value
    records = [f"{r.name} {r.levelname} {r.getMessage()} {r.exc_text or ''}" for r in caplog.records]
    assert [r for r in records if leaks(r)] == []
    assert leaks(caplog.text) == []
    out = capsys.readouterr()
    assert leaks(out.out) == [] and leaks(out.err) == []


# The key at the very place where the client cuts an error excerpt short (HTTP error bodies at 300
# characters, non-JSON replies and replies without choices at 200): scrubbing must still leave no
# piece of it.
class CutEchoServer(HeaderEchoServer):
    """Replies with the Authorization header placed so that the client's cut falls inside the key."""

    def __init__(self, cut: int, kind: str):
        super().__init__()
        self.cut, self.kind = cut, kind

    def body_with_key(self, prefix_len: int) -> str:
        return "e" * prefix_len + auth()

    async def _respond(self, request, body, reply, number):
        from aiohttp import web

        key_at = self.cut - len("Bearer sk-SENTINEL-12")  # the cut keeps "Bearer sk-SENTINEL-12"
        if self.kind == "no_choices":  # a JSON reply without choices, quoted as json.dumps(reply)[:200]
            return web.json_response({"x": self.body_with_key(key_at - len('{"x": "'))})
        status = 401 if self.kind == "error" else 200
        return web.Response(status=status, text=self.body_with_key(key_at), content_type="application/json")


@pytest.mark.parametrize("kind, cut", [("error", 300), ("not_json", 200), ("no_choices", 200)])
def test_a_key_cut_in_half_by_the_error_excerpt_is_still_scrubbed(tmp_path, monkeypatch, kind, cut):
    from infer.config import load_model_config
    from infer.run import run

    monkeypatch.setenv(KEY_ENV, SENTINEL)
    srv = CutEchoServer(cut, kind).start()
    try:
        data = tmp_path / "d.jsonl"
        write_jsonl_atomic(data, [{"id": "q0", "benchmark": "omibench", "question": "question 0", "images": [],
                                   "choices": [], "answer": ["1"], "answer_type": "numeric"}])
        cfg = load_model_config(write_config(tmp_path / "model.yaml", "secret-test", "m", srv.base_url))
        run("omibench", data, cfg, "cot_boxed", tmp_path / "results")
    finally:
        srv.stop()
    text = raw_path(tmp_path / "results", "omibench", "secret-test", "cot_boxed").read_text()
    (line,) = [json.loads(x) for x in text.splitlines()]
    assert line["error"] and "Bearer " in line["error"]  # the echo reached the message
    assert leaks(text) == [], line["error"][-60:]


def test_analysis_all_writes_the_report_of_this_pipeline(tmp_path, monkeypatch, echo_server):
    from analysis.run import main as analysis_main

    monkeypatch.setenv(KEY_ENV, SENTINEL)
    results, figures, _ = run_pipeline(tmp_path, echo_server.base_url)
    analysis_main(["--all", "--report", "--results", str(results), "--figures", str(figures)])
    report = report_path(results, "md").read_text()
    assert "## omibench.T2" in report and "omibench.T8" in report
    assert table_file(results, "omibench.T2", "md").is_file()
