"""Experiment-level generation overrides (`params`, `model_params`, `thinking`): validated when the experiment
loads, applied in the paper profile, sent, recorded in the raw lines and hashed into the request keys; and
experiments sharing a raw file must agree on them."""
import json
from pathlib import Path

import pytest

from data.jsonl import write_jsonl_atomic
from infer import generation
from pipeline import experiments, sweep_advice
from infer.config import ConfigError, load_model_config
from pipeline.experiments import EXPERIMENTS, load_experiment, shared_file_conflicts
from infer.layout import raw_path
from infer.run import run
from infer.store import load_latest
from tests.scripted_server import scripted_server  # noqa: F401  (fixture)


def write(tmp_path, name, **fields):
    base = {"id": name, "caption": "c", "benchmark": "mira", "settings": ["direct"]}
    path = tmp_path / f"{name}.yaml"
    path.write_text(json.dumps({**base, **fields}))   # JSON is YAML
    return path


def model(tmp_path, url="http://127.0.0.1:9/v1", **extra):
    fields = {"name": "m", "model": "m", "base_urls": [url], "max_tokens": 64, "max_retries": 0,
              "temperature": 0.3, **extra}
    p = tmp_path / "m.yaml"
    p.write_text(json.dumps(fields))
    return load_model_config(p)


@pytest.mark.parametrize("fields, message", [
    ({"params": {"temprature": None}}, "unknown generation parameter 'temprature'"),
    ({"params": {"max_tokens": "16k"}}, "max_tokens: expected a positive integer"),
    ({"params": {"top_p": True}}, "top_p: expected a number"),
    ({"thinking": "max"}, "thinking: 'max'"),
    ({"settings": ["direct+temp0.7"], "params": {"temperature": None}}, "sets \\['temperature'\\]"),
    ({"settings": ["direct+think"], "thinking": "highest"}, "has a thinking switch"),
    ({"added_models": {"gpt-4o": ""}}, "added_models: expected a mapping model → why"),
    ({"models": ["gpt-4o"]}, "give the reference table"),
    ({"models": ["gpt-4o"], "reference": ["mira.T99"]}, "no data/reference/mira.T99.csv"),
    ({"model_params": {"qwen-vl-max": {"top_p": 1.0}}}, "not models of this experiment"),
    ({"pairs": [["a", "b"]], "added_models": {"a": "x"}}, "is not two models"),
    ({"ours": "T = 0"}, "ours: expected a list"),
    ({"n_samples": 3}, "unknown key"),
])
def test_bad_experiment_keys_are_errors_when_loading(tmp_path, fields, message):
    with pytest.raises(ConfigError, match=message):
        load_experiment(write(tmp_path, "e", **fields))


def test_null_means_send_none_and_a_value_replaces_the_configs(tmp_path):
    cfg = model(tmp_path, thinking={"on": {"thinking": {"type": "enabled"}, "temperature": 1.0}})
    applied = generation.apply(cfg, {"max_tokens": 16384, "temperature": None}, None)
    assert applied.generation_params() == {"max_tokens": 16384}
    # a switch's own temperature gives way too, and the setting's modifiers still apply on top
    assert applied.generation_params("on", temperature=0.7) == {"max_tokens": 16384, "thinking": {"type": "enabled"}}
    assert generation.apply(cfg, {"top_p": 1.0}, None).generation_params() == {
        "max_tokens": 64, "temperature": 0.3, "top_p": 1.0}
    assert cfg.generation_params() == {"max_tokens": 64, "temperature": 0.3}   # the config itself is untouched


def test_thinking_highest_falls_back_to_on_then_to_nothing(tmp_path):
    both = model(tmp_path, thinking={"on": {"reasoning_effort": "high"}, "highest": {"budget": 32768}})
    assert generation.apply(both, {}, "highest").generation_params()["budget"] == 32768
    on = model(tmp_path, thinking={"on": {"reasoning_effort": "high"}})
    assert generation.apply(on, {}, "highest").generation_params()["reasoning_effort"] == "high"
    plain = model(tmp_path)
    assert generation.apply(plain, {}, "highest").generation_params() == plain.generation_params()
    with pytest.raises(ConfigError, match="no 'off' switch"):
        generation.apply(on, {}, "off")


def test_overrides_reach_the_request_the_raw_line_and_the_key(tmp_path, scripted_server):
    srv = scripted_server()
    data = tmp_path / "d.jsonl"
    write_jsonl_atomic(data, [{"id": "r0", "benchmark": "mira", "question": "q", "images": [], "choices": [],
                               "answer": ["1"], "answer_type": "numeric", "task": "Convex Hull"}])
    cfg = model(tmp_path, srv.base_url)
    results = tmp_path / "results"
    run("mira", data, cfg, "direct", results)
    run("mira", data, generation.apply(cfg, {"max_tokens": 16384, "temperature": None}, None), "direct", results)
    first, second = srv.requests
    assert first["temperature"] == 0.3 and first["max_tokens"] == 64
    assert "temperature" not in second and second["max_tokens"] == 16384
    lines = [json.loads(x) for x in raw_path(results, "mira", "m", "direct").read_text().splitlines()]
    assert lines[-1]["params"] == {"max_tokens": 16384} and lines[0]["request_key"] != lines[-1]["request_key"]
    latest = load_latest(raw_path(results, "mira", "m", "direct"), key=lambda r: (r["id"], r["sample_idx"]))
    assert latest[("r0", 0)]["params"] == {"max_tokens": 16384}   # the rerun replaced the old answer


def test_the_paper_profile_applies_them_and_the_demo_does_not():
    exp = load_experiment(EXPERIMENTS / "mira_levels.yaml")
    jobs = {j.cfg.name: j for j in experiments.plan_jobs(exp, "paper")}
    # MIRA's GPT-4o is the snapshot whose config, made for judging, has temperature 0: not sent here (§6)
    assert jobs["gpt-4o-2024-11-20"].cfg.generation_params() == {"max_tokens": 16384}
    assert jobs["qwen-vl-max"].cfg.generation_params() == {"max_tokens": 8192, "top_p": 1.0}
    demo = experiments.plan_jobs(exp, "demo")[0].cfg
    assert demo.generation_params()["max_tokens"] != 16384 and "temperature" in demo.generation_params()
    morpho = load_experiment(EXPERIMENTS / "morphobench_main.yaml")
    o3 = {j.cfg.name: j for j in experiments.plan_jobs(morpho, "paper")}["o3"].cfg
    assert o3.generation_params()["reasoning_effort"] == "high"


def test_experiments_sharing_a_raw_file_must_agree(tmp_path, capsys):
    a = write(tmp_path, "a", added_models={"gpt-4o": "x"}, params={"max_tokens": 8192})
    b = write(tmp_path, "b", added_models={"gpt-4o": "y"})
    c = write(tmp_path, "c", settings=["cot_general"], added_models={"gpt-4o": "z"})   # another file: fine
    problems = shared_file_conflicts([load_experiment(p) for p in (a, b, c)])
    assert len(problems) == 1 and str(raw_path(Path("results"), "mira", "gpt-4o", "direct")) in problems[0]
    assert experiments.main([str(a), str(b), "--profile", "paper"]) == 1
    assert "send different parameters" in capsys.readouterr().err


def test_the_shipped_experiments_agree_and_mark_what_is_ours():
    exps = [load_experiment(p) for p in sorted(EXPERIMENTS.glob("*.yaml"))]
    assert shared_file_conflicts(exps) == []
    lines = sweep_advice.marked(exps)
    assert any("omibench.T5: ours — Temperature 0.6" in x for x in lines)
    assert any("mira.Tspec: added model gpt-4o" in x for x in lines)
