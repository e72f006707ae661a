"""Model configs are strict; result files are locked, append-only and repaired after a crash."""
import json

import pytest

from infer.config import ConfigError, load_model_config
from infer.store import AppendLog, LockedError, load_latest


def write(tmp_path, text):
    p = tmp_path / "m.yaml"
    p.write_text(text)
    return p


def test_embedded_default_config_loads():
    cfg = load_model_config("configs/models/smollm2-135m.yaml")
    assert cfg.modalities == ["text"] and not cfg.accepts_images
    assert cfg.server is not None and "{port}" in cfg.server.command


def test_typo_in_config_names_the_key_and_a_suggestion(tmp_path):
    with pytest.raises(ConfigError, match=r"unknown key 'max_token' \(did you mean 'max_tokens'\?\)"):
        load_model_config(write(tmp_path, "name: a\nmodel: b\nbase_urls: [http://x/v1]\nmax_token: 5\n"))
    with pytest.raises(ConfigError, match="max_tokens: expected a non-negative integer"):
        load_model_config(write(tmp_path, "name: a\nmodel: b\nbase_urls: [http://x/v1]\nmax_tokens: lots\n"))
    with pytest.raises(ConfigError, match="base_urls"):
        load_model_config(write(tmp_path, "name: a\nmodel: b\n"))


def test_key_comes_from_the_named_variable_and_never_into_the_manifest(tmp_path, monkeypatch):
    cfg = load_model_config(write(tmp_path, "name: a\nmodel: b\nbase_urls: http://x/v1\napi_key_env: MY_TEST_KEY\n"))
    with pytest.raises(ConfigError, match="MY_TEST_KEY is not set"):
        cfg.api_key()
    monkeypatch.setenv("MY_TEST_KEY", "sk-sentinel-123")
    assert cfg.api_key() == "sk-sentinel-123"
    assert "sk-sentinel-123" not in json.dumps(cfg.public_dict())
    assert cfg.base_urls == ["http://x/v1"]


def test_generation_params_overrides():
    cfg = load_model_config("configs/models/smollm2-135m.yaml")
    assert cfg.generation_params(max_tokens=16, temperature=None) == {"max_tokens": 16, "temperature": 0.0}


def test_append_log_lock_repair_and_last_line_wins(tmp_path):
    path = tmp_path / "raw.jsonl"
    with AppendLog(path) as out:
        out.write({"id": "a", "v": 1})
        out.write({"id": "b", "v": 1})
        with pytest.raises(LockedError):
            with AppendLog(path):
                pass
    with open(path, "a") as f:
        f.write('{"id": "a", "v": 2}\n{"id": "c", "v"')  # crash mid-write
    with AppendLog(path) as out:
        out.write({"id": "d", "v": 1})
    latest = load_latest(path, key=lambda r: r["id"])
    assert {k: r["v"] for k, r in latest.items()} == {"a": 2, "b": 1, "d": 1}
    assert path.read_text().count("\n") == 4


def test_endpoints_from_the_environment(tmp_path, monkeypatch):
    p = write(tmp_path, "name: a\nmodel: b\nbase_urls: ['${MY_VLLM_URL}', '${MY_OTHER:-http://h:1/v1}']\n")
    monkeypatch.delenv("MY_VLLM_URL", raising=False)
    cfg = load_model_config(p)
    assert not cfg.configured and "MY_VLLM_URL" in cfg.why_unconfigured()
    with pytest.raises(ConfigError, match="MY_VLLM_URL not set"):
        cfg.api_key()
    monkeypatch.setenv("MY_VLLM_URL", "http://gpu1:8000/v1")
    cfg = load_model_config(p)
    assert cfg.configured and cfg.base_urls == ["http://gpu1:8000/v1", "http://h:1/v1"]


def test_temperature_floor_for_models_that_reject_zero(tmp_path):
    cfg = load_model_config(write(tmp_path, "name: a\nmodel: b\nbase_urls: [http://x/v1]\ntemperature_floor: 0.001\n"))
    assert cfg.generation_params(temperature=0)["temperature"] == 0.001
    assert cfg.generation_params(temperature=0.7)["temperature"] == 0.7
