"""A model config's `system_prompt: <name>` (prompts/models/<name>.txt): sent first, as the system message, in
every request of that model, on the server path and the offline engines; part of the request key, so editing it
redoes exactly that model's requests and reverting it sends nothing; listed in the run manifest; a missing
template is a config error naming the file and the key."""
from __future__ import annotations

import ast
import dataclasses
import hashlib
import json
import sys
import types
from pathlib import Path

import pytest

from infer import engines
from infer.request import request_key, wire_body
from infer.config import ConfigError, ModelConfig, load_model_config
from infer.launch import Node
from infer.layout import manifest_of, raw_path
from infer.run import run
from tests import gpu_interfaces as real
from tests.scripted_server import Reply, scripted_server  # noqa: F401  (fixture)
from tests.test_offline_engines import Calls, fake_lmdeploy, fake_vllm

ROOT = Path(__file__).resolve().parent.parent
PROTOCOL = "Think first, inside <think> and </think>.\n\nThen answer."
# What is sent: the comment dropped, the blank space around the text too (the final line break)
SENT = "Think first, inside <think> and </think>.\n\nThen answer."


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def prompts_dir(tmp_path: Path, system: str | None = PROTOCOL) -> Path:
    root = tmp_path / "prompts"
    (root / "omibench").mkdir(parents=True, exist_ok=True)
    (root / "omibench" / "p.txt").write_text("{{question}}\nAnswer briefly.\n")
    if system is not None:
        set_system(root, system)
    return root


def set_system(root: Path, text: str) -> None:
    (root / "models").mkdir(exist_ok=True)
    (root / "models" / "think.txt").write_text("{{! where this protocol comes from }}\n" + text + "\n")


def config(tmp_path: Path, url: str, name: str = "m", prompts: Path | None = None, **extra) -> ModelConfig:
    fields = {"name": name, "model": "org/m", "base_urls": [url], "modalities": ["text", "image"], "max_tokens": 32,
              "max_retries": 0, "read_timeout": 5, **extra}
    path = tmp_path / f"{name}.yaml"
    path.write_text("\n".join(f"{k}: {json.dumps(v)}" for k, v in fields.items()))
    return load_model_config(path, prompts) if prompts else load_model_config(path)


def write_data(path: Path, n: int) -> Path:
    rows = [{"id": f"q{i}", "benchmark": "omibench", "question": f"question {i}", "images": [], "choices": [],
             "answer": ["1"], "answer_type": "numeric"} for i in range(n)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def current(results: Path, model: str) -> dict[str, dict]:
    """The current (last) line of each id of a run's raw file."""
    return {x["id"]: x for x in map(json.loads, raw_path(results, "omibench", model, "p").read_text().splitlines())}


def says_its_system_prompt(body: dict, attempt: int) -> Reply:
    """A reply that tells which system prompt the request carried (none: 'no system')."""
    first = body["messages"][0]
    return Reply.ok("saw " + (first["content"].split(",")[0] if first["role"] == "system" else "no system"))


def test_the_system_message_goes_first_in_every_request(tmp_path, scripted_server):
    srv = scripted_server(script=says_its_system_prompt)
    prompts = prompts_dir(tmp_path)
    cfg = config(tmp_path, srv.base_url, prompts=prompts, system_prompt="think")
    counts = run("omibench", write_data(tmp_path / "d.jsonl", 3), cfg, "p", tmp_path / "r", prompts=prompts)
    assert counts["sent"] == 3 and srv.count == 3
    for body in srv.requests:
        assert body["messages"][0] == {"role": "system", "content": SENT}
        assert [m["role"] for m in body["messages"]] == ["system", "user"]
        assert "system_prompt_sha" not in body, "the hash keys the request; it is no request field"
    lines = current(tmp_path / "r", "m")
    assert {x["response"] for x in lines.values()} == {"saw Think first"}
    assert all(x["params"]["system_prompt_sha"] == sha(SENT) for x in lines.values())

    # the same model without a system prompt: no system message, and the parameters (so every key) as before
    plain = config(tmp_path, srv.base_url, name="plain")
    assert plain.generation_params() == {"max_tokens": 32, "temperature": 0.0}
    run("omibench", tmp_path / "d.jsonl", plain, "p", tmp_path / "r", prompts=prompts)
    assert [m["role"] for m in srv.requests[-1]["messages"]] == ["user"]
    assert {x["response"] for x in current(tmp_path / "r", "plain").values()} == {"saw no system"}


def test_the_key_follows_the_system_prompt_and_a_revert_sends_nothing(tmp_path, scripted_server):
    srv = scripted_server(script=says_its_system_prompt)
    prompts = prompts_dir(tmp_path)
    data = write_data(tmp_path / "d.jsonl", 4)
    results = tmp_path / "r"

    def both() -> tuple[dict, dict]:
        """Both models run again, their configs read anew (a config reads its system prompt when loaded)."""
        thinking = config(tmp_path, srv.base_url, prompts=prompts, system_prompt="think")
        other = config(tmp_path, srv.base_url, name="other", prompts=prompts)
        return (run("omibench", data, thinking, "p", results, prompts=prompts),
                run("omibench", data, other, "p", results, prompts=prompts))

    assert [c["sent"] for c in both()] == [4, 4]
    first = current(results, "m")
    assert [c["sent"] for c in both()] == [0, 0]

    set_system(prompts, "Reason, then answer.")  # edited: that model's requests only, all of them
    thinking, other = both()
    assert (thinking["sent"], other["sent"]) == (4, 0)
    edited = current(results, "m")
    assert {x["response"] for x in edited.values()} == {"saw Reason"}
    assert all(edited[i]["request_key"] != first[i]["request_key"] for i in first)
    manifest = json.loads(manifest_of(raw_path(results, "omibench", "m", "p")).read_text())
    assert manifest["templates"][str(prompts / "models" / "think.txt")] == sha("Reason, then answer.")
    assert manifest["model"]["system_prompt"] == "think"
    assert manifest["model"]["system"] == {"path": str(prompts / "models" / "think.txt"), "sha": sha("Reason, then answer.")}

    set_system(prompts, PROTOCOL)  # reverted: the earlier answers are current again, nothing is sent
    before = srv.count
    thinking, other = both()
    assert (thinking["sent"], thinking["reused"], other["sent"], srv.count) == (0, 4, 0, before)
    assert current(results, "m") == first
    manifest = json.loads(manifest_of(raw_path(results, "omibench", "m", "p")).read_text())
    assert manifest["templates"][str(prompts / "models" / "think.txt")] == sha(SENT)
    assert both()[0]["reused"] == 0  # and the next rerun has nothing to do


def test_a_judge_models_system_prompt_is_in_its_judge_calls_and_their_keys(tmp_path, scripted_server):
    """Judge calls key and send through infer.calls with the judge model's parameters: its system prompt
    applies to them as to every request of that model."""
    srv = scripted_server()
    judge = config(tmp_path, srv.base_url, prompts=prompts_dir(tmp_path), system_prompt="think")
    messages = [{"role": "user", "content": "Is 2 the answer? Reply yes or no."}]
    params = judge.judge_params()
    assert params["system_prompt_sha"] == sha(SENT)
    assert wire_body(judge, messages, params)["messages"] == [{"role": "system", "content": SENT}, *messages]
    plain = dataclasses.replace(judge, system_prompt=None)
    assert plain.system is None and "system_prompt_sha" not in plain.judge_params()
    assert request_key(messages, params, judge.model) != request_key(messages, plain.judge_params(), judge.model)


def test_a_missing_or_unusable_template_is_an_error_naming_the_file_and_key(tmp_path):
    prompts = prompts_dir(tmp_path)
    with pytest.raises(ConfigError, match=r"m\.yaml: system_prompt: no template .*models/nothere\.txt \(known: think\)"):
        config(tmp_path, "http://127.0.0.1:9/v1", prompts=prompts, system_prompt="nothere")
    with pytest.raises(ConfigError, match=r"m\.yaml: system_prompt: expected the name of a template"):
        config(tmp_path, "http://127.0.0.1:9/v1", prompts=prompts, system_prompt="../omibench/p")
    (prompts / "models" / "filled.txt").write_text("You answer {{question}}.")
    with pytest.raises(ConfigError, match=r"filled\.txt: a system prompt is sent as written; it has placeholders"):
        config(tmp_path, "http://127.0.0.1:9/v1", prompts=prompts, system_prompt="filled")
    (prompts / "models" / "blank.txt").write_text("{{! nothing but a comment }}\n\n")
    with pytest.raises(ConfigError, match=r"blank\.txt: empty system prompt"):
        config(tmp_path, "http://127.0.0.1:9/v1", prompts=prompts, system_prompt="blank")
    with pytest.raises(ConfigError, match=r"unknown key 'system_promt' \(did you mean 'system_prompt'\?\)"):
        config(tmp_path, "http://127.0.0.1:9/v1", prompts=prompts, system_promt="think")
    with pytest.raises(ConfigError, match=r"unknown key 'system'"):  # the text is read, never written in a config
        config(tmp_path, "http://127.0.0.1:9/v1", prompts=prompts, system="Be brief.")
    with pytest.raises(ConfigError, match=r"^m: system_prompt: no template"):  # made directly, read from prompts/
        ModelConfig(name="m", model="org/m", system_prompt="no-such-prompt")


@pytest.fixture
def no_loaded_engine():
    engines._loaded.clear()
    yield
    engines._loaded.clear()


def watching(engine: str, calls: Calls, seen: list) -> types.SimpleNamespace:
    """The tests' stand-in of the engine (accepting only the pinned wheel's names), keeping each conversation."""
    if engine == "vllm":
        mod = fake_vllm(calls)
        chat = mod.LLM.chat

        def keep_chat(self, messages, *args, **kw):
            seen.extend(messages)
            return chat(self, messages, *args, **kw)
        mod.LLM.chat = keep_chat
        return mod
    mod = fake_lmdeploy(calls)
    pipeline = mod.pipeline

    def keep_pipeline(*args, **kw):
        pipe = pipeline(*args, **kw)
        infer = pipe.batch_infer
        pipe.batch_infer = lambda prompts, **k: (seen.extend(prompts), infer(prompts, **k))[1]
        return pipe
    mod.pipeline = keep_pipeline
    return mod


@pytest.mark.parametrize("engine", ["vllm", "lmdeploy"])
def test_the_offline_engines_get_the_system_message_first_and_the_same_keys(engine, tmp_path, monkeypatch,
                                                                            scripted_server, no_loaded_engine):
    prompts = prompts_dir(tmp_path)
    data = write_data(tmp_path / "d.jsonl", 3)
    http_cfg = config(tmp_path, scripted_server().base_url, prompts=prompts, system_prompt="think", params_total_b=7)
    run("omibench", data, http_cfg, "p", tmp_path / "http", prompts=prompts)

    calls, seen = Calls(), []
    monkeypatch.setitem(sys.modules, engine, watching(engine, calls, seen))
    offline = dataclasses.replace(http_cfg, base_urls=[], engine=engine)
    assert offline.system == http_cfg.system
    counts = run("omibench", data, offline, "p", tmp_path / "offline", prompts=prompts, node=Node((0,)))
    assert counts["ok"] == 3 and len(seen) == 3
    for conversation in seen:
        assert conversation[0] == {"role": "system", "content": SENT} and conversation[1]["role"] == "user"
    http, off = current(tmp_path / "http", "m"), current(tmp_path / "offline", "m")
    assert {i: x["request_key"] for i, x in off.items()} == {i: x["request_key"] for i, x in http.items()}
    assert all(x["params"]["system_prompt_sha"] == sha(SENT) for x in off.values())


def test_lmdeploy_keeps_a_plain_text_system_message_under_its_role():
    """Why the system message's content is a string: LMDeploy's InternVL message processing (the pinned wheel)
    keeps a string content under its own role and turns a list of parts into a user turn."""
    module = "lmdeploy/vl/model/internvl.py"
    cls = next(n for n in ast.walk(real.tree("lmdeploy", module))
               if isinstance(n, ast.ClassDef) and n.name == "InternVLVisionModel")
    proc = ast.unparse(next(n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "proc_messages"))
    assert "if isinstance(message['content'], str):\n            prompt_messages.append(message)\n            continue" in proc
    assert "prompt_messages.append(dict(role='user', content=prompt))" in proc


def test_the_thinking_config_sends_internvl35s_protocol():
    cfg = load_model_config(ROOT / "configs" / "models" / "paper" / "internvl3.5-8b-thinking.yaml")
    base = load_model_config(ROOT / "configs" / "models" / "paper" / "internvl3.5-8b.yaml")
    assert (cfg.model, cfg.base_urls, cfg.server, cfg.max_tokens) == (base.model, base.base_urls, base.server, 16384)
    assert base.system is None and cfg.system is not None
    text = cfg.system.text
    assert text.startswith("You are an AI assistant that rigorously follows this response protocol:\n\n1. First,")
    assert "Enclose this entire thinking process within <think> and </think> tags." in text
    assert text.endswith("The final answer should be standalone and not reference the thinking section.")
    assert "{{" not in text and text.count("\n\n") == 3  # the card's four paragraphs, the source comment left out
