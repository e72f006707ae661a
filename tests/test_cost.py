"""Knowing the cost before spending it: the arithmetic of prices, image tokens and GPU-hours, the dry run of a
paper table (nothing sent), and --max-cost refusing and allowing a sweep."""
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from PIL import Image

from data.files import read_yaml
from data.jsonl import write_jsonl_atomic
from infer.config import ConfigError, load_model_config
from infer.cost_keys import ImageTokens, Price, Throughput
from infer.experiment_spec import EXPERIMENTS, PAPER_MODELS
from pipeline.cost import Estimate
from tests.scripted_server import ScriptedServer

ROOT = Path(__file__).resolve().parent.parent


def test_dollars_are_tokens_times_the_price_per_million():
    price = Price(input=2.5, output=10.0, as_of="2025-12", source="x")
    assert price.usd(1_000_000, 500_000) == pytest.approx(2.5 + 5.0)
    est = Estimate()
    est.charge(load_model_config(PAPER_MODELS / "gpt-4o.yaml"), 200_000, 30_000, 10_000, 80)
    # 0.2M × $2.50 + 0.03M × $10 = 0.50 + 0.30; expected: 0.50 + 0.01M × $10 = 0.60
    assert (est.usd_bound, est.usd_expected) == (pytest.approx(0.80), pytest.approx(0.60))
    assert est.gpu_hours_bound == 0 and not est.unpriced


def test_openai_high_detail_tiles_match_the_published_examples():
    gpt4o = load_model_config(PAPER_MODELS / "gpt-4o.yaml").image_tokens
    assert gpt4o.count(1024, 1024) == 85 + 170 * 4          # 768² after the short side: 2 × 2 tiles
    assert gpt4o.count(2048, 4096) == 85 + 170 * 6          # 1024 × 2048 → 768 × 1536: 2 × 3 tiles
    assert gpt4o.count(300, 200) == 85 + 170                # small: never scaled up, one tile
    assert ImageTokens(pixels_per_token=784, min=4, max=16384).count(1000, 1000) == 1276   # ⌈10⁶ / 784⌉
    assert ImageTokens(pixels_per_token=784, min=4, max=16384).count(10_000, 10_000) == 16384
    assert ImageTokens(fixed=258).count(5000, 10) == 258


def test_self_hosted_models_cost_gpu_hours_at_their_throughput(tmp_path):
    cfg = load_model_config(PAPER_MODELS / "qwen2.5-vl-72b.yaml")  # 72B in bf16 on 80 GB: 4 GPUs a server
    est = Estimate()
    est.charge(cfg, 36_000_000, 3_600_000, 1_800_000, 80)
    # default 10,000 input and 1,000 output tokens/s: (3,600 s + 3,600 s) × 4 GPUs = 8 GPU-h; expected (3,600 + 1,800) s
    assert est.gpu_hours_bound == pytest.approx(8.0) and est.gpu_hours_expected == pytest.approx(6.0)
    assert est.usd_bound == 0 and any("throughput" in kind for kind, _ in est.defaults)
    assert Throughput(output_tokens_per_s=500, input_tokens_per_s=5000).hours(5000, 500) == pytest.approx(2 / 3600)


def test_an_api_model_without_a_price_is_unknown_not_free(tmp_path):
    est = Estimate()
    est.charge(load_model_config(PAPER_MODELS / "yi-lightning.yaml"), 1000, 1000, 500, 80)
    assert est.unpriced == {"yi-lightning"} and "no price for yi-lightning" in est.line()


@pytest.mark.parametrize("text, error", [
    ("price: {input: 1, output: 2}", "price: missing as_of, source"),
    ("price: {input: -1, output: 2, as_of: 2025-01-01, source: u}", "price.input: expected a non-negative number"),
    ("image_tokens: {tile: 512}", "image_tokens: missing per_tile"),
    ("throughput: {output_tokens_per_s: 0, input_tokens_per_s: 1}", "throughput.output_tokens_per_s: expected a positive"),
])
def test_bad_cost_keys_are_errors_naming_the_key(tmp_path, text, error):
    p = tmp_path / "m.yaml"
    p.write_text(f"name: m\nmodel: m\nbase_urls: [http://x/v1]\n{text}\n")
    with pytest.raises(ConfigError, match=re.escape(error)):
        load_model_config(p)


def paper_t2(tmp_path: Path, models: list[str] | None = None, judges: list[str] | None = None) -> Path:
    """omibench.T2's experiment file on three records of one 1024² image each."""
    data = tmp_path / "data" / "test.jsonl"
    (data.parent / "img").mkdir(parents=True)
    Image.new("RGB", (1024, 1024), "white").save(data.parent / "img" / "a.png")
    write_jsonl_atomic(data, [{"id": f"q{i}", "benchmark": "omibench", "question": f"[IMAGE0] What is {i} + {i}?",
                               "images": ["img/a.png"], "choices": [], "answer": [str(2 * i)],
                               "answer_type": "numeric", "subject": "math"} for i in range(3)])
    exp = read_yaml(EXPERIMENTS / "omibench_T2.yaml")
    exp["data"] = str(data)
    if models is not None:
        exp["models"] = models
    if judges is not None:
        exp["judges"] = judges
    path = tmp_path / "omibench_T2.yaml"
    path.write_text(yaml.safe_dump(exp, allow_unicode=True))
    return path


def sweep(tmp_path: Path, exp: Path, url: str, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not re.search(r"(_API_KEY|_URL)$", k)}
    env.update(OPENAI_API_KEY="x", GEMINI_API_KEY="x", OPENAI_BASE_URL=url, GEMINI_BASE_URL=url)
    return subprocess.run([sys.executable, "-m", "pipeline.experiments", str(exp), "--profile", "paper", "--only",
                           "omibench.T2", "--results", str(tmp_path / "results"), *args],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)


def cost_line(out: str, model: str) -> str:
    lines = out.splitlines()
    i = next(i for i, x in enumerate(lines) if x.startswith(f"omibench.T2: {model} / cot_boxed:"))
    return lines[i + 1]


def test_a_dry_run_of_omibench_T2_prints_tokens_and_dollars_and_sends_nothing(tmp_path):
    with ScriptedServer() as srv:  # every API model of the table points here: a request would be counted
        p = sweep(tmp_path, paper_t2(tmp_path), srv.base_url, "--dry-run")
        assert srv.count == 0
    assert p.returncode == 0, p.stderr
    assert not (tmp_path / "results").exists()
    line = cost_line(p.stdout, "gpt-4o")
    # 3 requests; the bound is 3 × gpt-4o's max_tokens 16,384; GPTScore and its careful variant by gpt-4o-mini: one
    # call each per answer, and the careful cascade at most one more per answer (it asks only about answers the rules
    # leave undecided)
    assert line.startswith("    cost: 3 request(s), 9 judge call(s); input ")
    # output bound: gpt-4o's 3 × 16,384 (its max_tokens) + the judges' 9 calls × 16,384 (gpt-4o-mini's)
    assert "output 0.20M at most, 0.20M expected" in line  # 196,608; no earlier runs: the expectation is the bound
    said = re.search(r"input ([\d.,]+)(M?) tokens", line)
    tokens = float(said.group(1).replace(",", "")) * (1e6 if said.group(2) else 1)
    usd = float(re.search(r"\$([\d.]+) at most", line).group(1))
    # input: three 1024² images at 765 tokens each, and each judge reads each answer (16,384 tokens expected)
    assert tokens + 0.005e6 > 3 * 765 + 9 * 16_384  # printed to 0.01M
    # gpt-4o: images × $2.50/M + 49,152 × $10/M; gpt-4o-mini: answers read × $0.15/M + 147,456 × $0.60/M; the
    # prompts' short text adds well under a cent
    least = 3 * 765 * 2.5e-6 + 49_152 * 10e-6 + 9 * 16_384 * 0.15e-6 + 147_456 * 0.6e-6
    assert least - 0.005 <= usd <= least + 0.01
    totals = p.stdout[p.stdout.index("== cost per experiment"):]
    assert re.search(r"^omibench\.T2: \d+ request\(s\), \d+ judge call\(s\); input [\d.,M]+ tokens; output "
                     r"[\d.,M]+ at most, [\d.,M]+ expected; \$[\d.,]+ at most", totals, re.M)
    assert "text tokens: SmolLM2's tokenizer" in totals or "characters" in totals


def test_max_cost_refuses_a_sweep_above_it_and_allows_one_below(tmp_path):
    exp = paper_t2(tmp_path, models=["gpt-4o"], judges=["rules"])
    with ScriptedServer() as srv:
        p = sweep(tmp_path, exp, srv.base_url, "--max-cost", "0.10")
        assert srv.count == 0
        # 49,152 output tokens × $10/M = $0.49 alone: above $0.10
        errors = [x for x in p.stderr.splitlines() if x.startswith("error")]
        assert p.returncode == 1 and len(errors) == 1
        assert errors[0].startswith("error: --max-cost 0.1: the sweep may cost up to $0.5")
        assert "nothing was sent" in errors[0]
        assert not list((tmp_path / "results").rglob("*.jsonl"))
        p = sweep(tmp_path, exp, srv.base_url, "--max-cost", "1")
        assert p.returncode == 0, p.stderr
        assert srv.count == 3  # allowed: the three requests went out


def test_a_dry_run_plans_models_whose_server_is_not_configured_yet(tmp_path):
    """A researcher plans before setting up GPU servers: the model's GPU-hours are known without its URL."""
    with ScriptedServer() as srv:
        p = sweep(tmp_path, paper_t2(tmp_path, models=["qwen2.5-vl-72b"], judges=["rules"]), srv.base_url, "--dry-run")
        assert srv.count == 0
    assert p.returncode == 0, p.stderr
    line = cost_line(p.stdout, "qwen2.5-vl-72b")
    assert line.startswith("    cost: 3 request(s), 0 judge call(s)") and "GPU-h at most" in line
    assert "== not configured: 1 model(s); set these" in p.stdout  # still said: it cannot run yet
    assert "QWEN25_VL_72B_URL" in p.stdout


def test_max_cost_refuses_when_a_run_cannot_be_planned(tmp_path):
    """A run the plan cannot price (here its data file has a bad line) leaves the bound unknown: never counted as $0."""
    exp = paper_t2(tmp_path, models=["gpt-4o"], judges=["rules"])
    with open(tmp_path / "data" / "test.jsonl", "a") as f:
        f.write("{not json\n")
    with ScriptedServer() as srv:
        p = sweep(tmp_path, exp, srv.base_url, "--max-cost", "1000")
        assert srv.count == 0
    errors = [x for x in p.stderr.splitlines() if x.startswith("error")]
    assert p.returncode == 1 and len(errors) == 1
    assert errors[0].startswith("error: --max-cost 1000: the cost bound is unknown (1 run(s) could not be planned, "
                                "e.g. omibench.T2: gpt-4o / cot_boxed (")
    assert not list((tmp_path / "results").rglob("*.jsonl"))
