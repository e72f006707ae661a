"""Every model × setting pairing of the paper profile can be made, and a sweep meeting one that cannot says it in one
line, makes the other runs and ends naming it (exit 3, after which run_all.sh still rebuilds the report)."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from PIL import Image

from data.jsonl import write_jsonl_atomic
from infer.config import ConfigError, load_model_config
from infer.layout import raw_path
from infer.run import plan_run, preview
from pipeline import experiments
from pipeline.pairing import Unmade, refusal
from tests.scripted_server import scripted_server  # noqa: F401  (fixture)
from tests.test_cli_messages import run_all_paper_with_a_sweep_exiting

FILES = sorted(experiments.EXPERIMENTS.glob("*.yaml"))


@pytest.mark.parametrize("path", FILES, ids=[f.stem for f in FILES])
def test_every_paper_pairing_can_be_made(path):
    """Planned as --dry-run plans (nothing read, started or sent): a text-only model gets only settings that send no
    images, every config loads with the experiment's overrides, every thinking switch exists."""
    exp = experiments.load_experiment(path)
    impossible = [f"{job.what}: {job.impossible}" for job in experiments.plan_jobs(exp, "paper") if job.impossible]
    assert not impossible, "\n".join(impossible)
    left = sorted(set(exp.left_out) - set(exp.models))
    assert left == sorted(exp.left_out), f"{path.name}: left_out models are run all the same"


def test_c2rbench_leaves_out_glm_4_long_s_image_runs():
    """Table 2 marks GLM-4-Long multimodal; its API takes text only: out of the image runs, and not added to the
    text-only LLMs' runs, where the paper does not plot it."""
    main = experiments.load_experiment(experiments.EXPERIMENTS / "c2rbench_main.yaml")
    text = experiments.load_experiment(experiments.EXPERIMENTS / "c2rbench_F10.yaml")
    assert "glm-4-long" in main.left_out and "glm-4-long" not in main.all_models
    assert "glm-4-long" not in text.all_models and text.settings == ["zero_shot+temp0+text"]
    assert not load_model_config(experiments.PAPER_MODELS / "glm-4-long.yaml").accepts_images


def test_the_plans_refusal_is_the_runs_own(tmp_path):
    """What the plan refuses is what infer.run refuses at a record with an image, and only that."""
    cfg = load_model_config(experiments.PAPER_MODELS / "glm-4-long.yaml")
    data = write_data(tmp_path, 1)
    assert "reads text only" in refusal(cfg, "cot_boxed")
    with pytest.raises(ConfigError, match="is text-only"):
        preview(plan_run("omibench", data, cfg, "cot_boxed", tmp_path / "results"))
    assert refusal(cfg, "cot_boxed+text") == refusal(cfg, "cot_boxed+caption") == ""
    assert preview(plan_run("omibench", data, cfg, "cot_boxed+text", tmp_path / "results")).to_send == 1
    assert "no 'on' switch" in refusal(cfg, "cot_boxed+text+think")


def test_a_cause_shared_by_runs_is_said_once_and_every_run_listed():
    unmade = Unmade()
    assert unmade.add("e: m / a", "m.yaml: unknown key 'x'", "m.yaml: unknown key 'x'") == \
        "error: e: m / a: m.yaml: unknown key 'x'"
    assert unmade.add("e: m / b", "m.yaml: unknown key 'x'", "m.yaml: unknown key 'x'") == ""
    assert unmade.lines() == ["e: m / a: m.yaml: unknown key 'x'", "e: m / b: m.yaml: unknown key 'x'"]
    assert unmade.closing(4) == "error: 2 run(s) could not be made (e: m / a, e: m / b: why above); " \
                                "the other 4 run(s) were made"
    assert Unmade().closing(3) == ""


def write_data(tmp_path: Path, n: int) -> Path:
    """OMIBench records of one image each."""
    Image.new("RGB", (8, 8), "white").save(tmp_path / "a.png")
    recs = [{"id": f"r{i}", "benchmark": "omibench", "question": f"[IMAGE0] question {i}", "images": ["a.png"],
             "choices": [], "answer": ["1"], "answer_type": "numeric", "subject": "Mathematics"} for i in range(n)]
    write_jsonl_atomic(tmp_path / "d.jsonl", recs)
    return tmp_path / "d.jsonl"


def write_model(folder: Path, name: str, url: str, **extra) -> None:
    fields = {"name": name, "model": name, "base_urls": [url], "max_tokens": 16, "max_retries": 0, **extra}
    (folder / f"{name}.yaml").write_text("".join(f"{k}: {json.dumps(v)}\n" for k, v in fields.items()))


def test_a_sweep_says_an_impossible_run_once_makes_the_others_and_ends_naming_it(tmp_path, scripted_server,
                                                                                  monkeypatch, capsys):
    srv = scripted_server()
    models = tmp_path / "models"
    models.mkdir()
    write_model(models, "vision", srv.base_url)
    write_model(models, "textonly", srv.base_url, modalities=["text"])
    write_model(models, "broken", srv.base_url, temprature=0)  # a typo: its config cannot be read
    monkeypatch.setattr(experiments, "PAPER_MODELS", models)
    exp = tmp_path / "exp.yaml"
    exp.write_text(json.dumps({"id": "t.pair", "caption": "pairings", "benchmark": "omibench",
                               "settings": ["cot_boxed", "cot_boxed+text"], "data": str(write_data(tmp_path, 2)),
                               "added_models": {m: "a test model" for m in ("vision", "textonly", "broken")},
                               "judges": ["rules"]}))
    results = tmp_path / "results"
    assert experiments.main([str(exp), "--profile", "paper", "--results", str(results)]) == \
        experiments.SOME_NOT_MADE == 3
    out, err = capsys.readouterr()
    errors = [x for x in err.splitlines() if x.startswith("error: ")]
    assert not re.search(r"[^\n\r]error: ", err)  # each on a line of its own, never inside the progress bar's
    assert errors == [
        "error: t.pair: textonly / cot_boxed: textonly reads text only (modalities: ['text']) and the setting "
        "'cot_boxed' sends images: give it the paper's text setting, or list it under left_out with the reason",
        f"error: t.pair: broken / cot_boxed: {models / 'broken.yaml'}: unknown key 'temprature' "
        "(did you mean 'temperature'?)",   # said once for both of its runs
        "error: 3 run(s) could not be made (t.pair: textonly / cot_boxed, t.pair: broken / cot_boxed, "
        "t.pair: broken / cot_boxed+text: why above); the other 3 run(s) were made"]
    section = out.split("== could not be made (3) ==\n")[1].split("\n\n")[0].splitlines()
    assert [x.split(": ")[1] for x in section] == ["textonly / cot_boxed", "broken / cot_boxed",
                                                   "broken / cot_boxed+text"]
    made = {(m, s) for m in ("vision", "textonly", "broken") for s in ("cot_boxed", "cot_boxed+text")
            if raw_path(results, "omibench", m, s).exists()}
    assert made == {("vision", "cot_boxed"), ("vision", "cot_boxed+text"), ("textonly", "cot_boxed+text")}
    assert srv.count == 6
    sent_images = [any(p.get("type") == "image_url" for m in r["messages"] if isinstance(m["content"], list)
                       for p in m["content"]) for r in srv.requests]
    assert sorted(sent_images) == [False] * 4 + [True] * 2   # vision's image run only


def test_run_all_paper_rebuilds_the_report_when_some_runs_could_not_be_made(tmp_path):
    p = run_all_paper_with_a_sweep_exiting(tmp_path, 3)
    assert p.returncode == 3
    assert (tmp_path / "calls.txt").read_text().splitlines() == [
        "-m pipeline.experiments --profile paper --results results",
        "-m analysis.run --all --report --results results"]
    assert p.stderr.strip() == ("run_all.sh: the paper profile's sweep could not make some runs (listed above); "
                                "the report holds the others")
