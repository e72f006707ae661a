"""A setting's name says what was sent: its own +max<N> / +temp<X> reach every request, the command line's
--max-tokens / --temperature are written into the name, and a flag that conflicts with the setting is one error
naming both, with nothing written."""
from __future__ import annotations

import json

import pytest

from infer.layout import raw_path
from infer.run import main, run
from infer.settings import SettingError, with_flags
from tests.scripted_server import scripted_server  # noqa: F401  (fixture)
from tests.test_client import data_file, model_config


def raw_params(tmp_path, cfg, setting):
    path = raw_path(tmp_path / "results", "omibench", cfg.name, setting)
    return [json.loads(line)["params"] for line in path.read_text().splitlines()]


def cli(tmp_path, cfg, setting, *flags):
    return main(["--bench", "omibench", "--data", str(data_file(tmp_path, n=2)), "--model", cfg.path,
                 "--setting", setting, "--results", str(tmp_path / "results"), *flags])


def test_the_setting_s_own_budget_and_temperature_are_sent(tmp_path, scripted_server):
    srv = scripted_server()
    cfg = model_config(tmp_path, [srv.base_url])          # the config's own: max_tokens 32, temperature 0
    assert cli(tmp_path, cfg, "cot_boxed+max48+temp0.6") == 0
    params = raw_params(tmp_path, cfg, "cot_boxed+max48+temp0.6")
    assert [(p["max_tokens"], p["temperature"]) for p in params] == [(48, 0.6)] * 2
    assert {r["max_tokens"] for r in srv.requests} == {48} and {r["temperature"] for r in srv.requests} == {0.6}


def test_flags_are_written_into_the_setting_s_name(tmp_path, scripted_server, capsys):
    srv = scripted_server()
    cfg = model_config(tmp_path, [srv.base_url])
    assert cli(tmp_path, cfg, "cot_boxed", "--max-tokens", "48", "--temperature", "0.5") == 0
    assert [(p["max_tokens"], p["temperature"]) for p in raw_params(tmp_path, cfg, "cot_boxed+max48+temp0.5")] \
        == [(48, 0.5)] * 2
    assert not raw_path(tmp_path / "results", "omibench", cfg.name, "cot_boxed").exists()
    assert "cot_boxed+max48+temp0.5.jsonl" in capsys.readouterr().out
    # the same value as the setting's own adds nothing: the same file, nothing sent again
    assert cli(tmp_path, cfg, "cot_boxed+max48+temp0.5", "--max-tokens", "48") == 0
    assert len(srv.requests) == 2


def test_a_flag_that_conflicts_with_the_setting_is_one_error_and_nothing_is_written(tmp_path, scripted_server, capsys):
    srv = scripted_server()
    cfg = model_config(tmp_path, [srv.base_url])
    assert cli(tmp_path, cfg, "cot_boxed+max48", "--max-tokens", "128") == 1
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith("error: setting 'cot_boxed+max48' sends max_tokens 48") and "max_tokens 128" in line
    assert not (tmp_path / "results").exists() and not srv.requests


def test_library_overrides_never_replace_the_setting_s_own(tmp_path, scripted_server):
    srv = scripted_server()
    cfg = model_config(tmp_path, [srv.base_url])
    data = data_file(tmp_path, n=1)
    run("omibench", data, cfg, "cot_boxed+max48", tmp_path / "results", overrides={"max_tokens": None})
    assert raw_params(tmp_path, cfg, "cot_boxed+max48")[0]["max_tokens"] == 48
    with pytest.raises(SettingError, match="conflicts"):
        run("omibench", data, cfg, "cot_boxed+max48", tmp_path / "results", overrides={"max_tokens": 16})


@pytest.mark.parametrize("name, flags, want", [
    ("cot_boxed", {"max_tokens": 100}, "cot_boxed+max100"),
    ("cot_boxed", {"temperature": 0.0}, "cot_boxed+temp0"),
    ("cot_boxed+caption", {"temperature": 1.0}, "cot_boxed+caption+temp1"),
    ("cot_boxed+temp0.6", {"temperature": 0.6}, "cot_boxed+temp0.6"),
    ("cot_boxed+temp0.6", {}, "cot_boxed+temp0.6"),
])
def test_with_flags(name, flags, want):
    assert with_flags(name, **flags) == want
