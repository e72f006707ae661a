"""GPU nodes: the servers the harness starts (commands checked against the pinned vLLM / LMDeploy), data
parallelism over tensor-parallel groups with real processes, --dry-run, and the offline engines' path."""
from __future__ import annotations

import json
import socket
import sys
from pathlib import Path
from urllib.parse import urlparse

import pytest

from infer import launch, server
from infer.config import ConfigError, ModelConfig, ServerSpec, load_model_config
from infer.launch import Needs, Node
from infer.layout import server_log_dir, server_log_path
from tests import gpu_interfaces as real

ROOT = Path(__file__).resolve().parent.parent
PAPER = ROOT / "configs" / "models" / "paper"
SERVED = [p for p in sorted(PAPER.glob("*.yaml")) if load_model_config(p).server is not None]
OMIBENCH_MOST_IMAGES = 11  # OMIBench records hold up to 11 images


def filled(cfg: ModelConfig, gpus: tuple[int, ...] = tuple(range(8))) -> list[launch.Launch]:
    needs = Needs(max_images=OMIBENCH_MOST_IMAGES, prompt_tokens=9000, max_tokens=cfg.max_tokens, media_dir="/data/omibench")
    return launch.plan(cfg, needs, Node(gpus))


def options(command: list[str]) -> dict[str, str | None]:
    """--flag value pairs (a flag followed by another flag, or last, has no value)."""
    out: dict[str, str | None] = {}
    for i, a in enumerate(command):
        if a.startswith("-"):
            nxt = command[i + 1] if i + 1 < len(command) else None
            out[a] = None if nxt is None or nxt.startswith("--") else nxt
    return out


def test_open_models_of_the_papers_carry_server_commands():
    names = {p.stem for p in SERVED}
    assert {"qwen2.5-vl-7b", "qwen2.5-vl-72b", "internvl3-8b", "internvl3.5-8b", "mimo-vl-7b-rl", "kimi-vl-a3b-thinking",
            "llava-onevision-7b", "glm-4.1v-9b-thinking", "qwen3-vl-8b-instruct"} <= names
    for p in SERVED:  # self-hosted only: an API model's endpoint has a default and is never launched
        assert "BASE_URL" not in p.read_text(), p


@pytest.mark.parametrize("path", SERVED, ids=lambda p: p.stem)
def test_every_server_command_uses_only_options_the_pinned_engine_defines(path):
    cfg = load_model_config(path)
    for one in filled(cfg):
        cmd = one.command
        opts = options(cmd)
        if cmd[:2] == ["vllm", "serve"]:
            unknown = set(opts) - real.vllm_serve_flags()
            served = opts.get("--served-model-name") or cmd[2]
            assert opts["--tensor-parallel-size"] == str(launch.tensor_parallel(cfg))
            assert opts["--port"] == "{port}" and opts["--host"] == "127.0.0.1"
            if "image" in cfg.modalities:
                limit = json.loads(opts["--limit-mm-per-prompt"])
                assert limit["image"] == OMIBENCH_MOST_IMAGES
                assert opts["--allowed-local-media-path"] == "/data/omibench" and cfg.images_as_files
            length = opts["--max-model-len"]
        else:
            assert cmd[:3] == ["lmdeploy", "serve", "api_server"], cmd
            unknown = set(opts) - real.lmdeploy_serve_flags()
            served = opts.get("--model-name") or cmd[3]
            assert opts["--tp"] == str(launch.tensor_parallel(cfg))
            assert opts["--server-port"] == "{port}" and opts["--server-name"] == "127.0.0.1"
            assert not cfg.images_as_files  # LMDeploy gets the images inline
            length = opts["--session-len"]
        assert not unknown, f"{path.name}: options the engine does not define: {sorted(unknown)}"
        assert served == cfg.model, "requests name the model as the server serves it"
        # the paper's response length fits beside the prompt, unless the model's context is smaller
        assert int(length) == min(1024 * -(-(9000 + cfg.max_tokens) // 1024), cfg.server.max_context or 10**9)
        assert not any("{" + k + "}" in " ".join(cmd) for k in ("tp", "max_images", "max_model_len", "media_dir"))


def test_a_node_is_split_into_tensor_parallel_groups_one_server_each(caplog):
    big = load_model_config(PAPER / "qwen2.5-vl-72b.yaml")
    small = load_model_config(PAPER / "qwen2.5-vl-7b.yaml")
    assert [x.gpus for x in filled(big)] == [(0, 1, 2, 3), (4, 5, 6, 7)]
    assert [x.gpus for x in filled(small)] == [(i,) for i in range(8)]
    assert [x.env() for x in filled(big, (2, 3, 6, 7))] == [{"CUDA_VISIBLE_DEVICES": "2,3,6,7"}]
    assert not caplog.records
    assert [x.gpus for x in filled(big, (0, 1, 2, 3, 4, 5))] == [(0, 1, 2, 3)]  # the rest cannot hold a copy
    assert "GPUs 4,5 left unused" in caplog.text  # and the run says so
    with pytest.raises(ConfigError, match="needs 4 GPUs per server"):
        filled(big, (0, 1))
    (one,) = filled(small, ())  # no GPU named: one server, seeing what it sees
    assert one.env() == {}


def test_tensor_parallel_size_follows_the_weights_and_the_gpu_memory():
    def cfg(b: float, tp: int | None = None) -> ModelConfig:
        return ModelConfig(name="m", model="m", params_total_b=b, server=ServerSpec(["vllm"], tensor_parallel=tp))
    assert [launch.tensor_parallel(cfg(b)) for b in (1, 7, 14, 32, 72, 235)] == [1, 1, 1, 2, 4, 16]
    assert launch.tensor_parallel(cfg(14), gpu_memory_gb=24) == 2
    assert launch.tensor_parallel(cfg(235, tp=8)) == 8  # the config's own choice wins


def test_gpus_from_the_flag_or_cuda_visible_devices(monkeypatch):
    assert launch.parse_gpus("0-3,6") == [0, 1, 2, 3, 6]
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "4,5")
    assert launch.visible_gpus(None) == [4, 5]
    assert launch.visible_gpus("0-1") == [0, 1]
    for bad in ("a", "3-1", "0-"):
        with pytest.raises(ConfigError):
            launch.parse_gpus(bad)


def test_needs_count_images_and_estimate_the_longest_prompt(tmp_path):
    (tmp_path / "a").mkdir()
    img = {"type": "image_ref", "path": str(tmp_path / "a" / "x.png"), "sha": "s"}
    msgs = [[{"role": "user", "content": [{"type": "text", "text": "word " * 300}, img, img]}],
            [{"role": "system", "content": "规则"}, {"role": "user", "content": [img]}]]
    needs = launch.needs_of(msgs, max_tokens=8192, image_tokens=1000)
    assert needs.max_images == 2 and needs.media_dir == str((tmp_path / "a").resolve())
    assert needs.prompt_tokens == 500 + 2 * 1000 + 8
    cfg = ModelConfig(name="m", model="m", server=ServerSpec(["vllm"], max_context=8192))
    assert launch.max_model_len(cfg, needs) == 8192  # 10.7k wanted, capped at the model's context


def test_a_configured_url_is_used_and_nothing_is_started(monkeypatch):
    monkeypatch.setenv("QWEN25_VL_7B_URL", "http://gpu1:8000/v1")
    cfg = load_model_config(PAPER / "qwen2.5-vl-7b.yaml")
    assert not cfg.launches_server and cfg.configured
    with server.serve(cfg, Path("/nonexistent")) as urls:
        assert urls == ["http://gpu1:8000/v1"]


def test_without_url_or_engine_the_model_says_both_ways_to_run_it(monkeypatch):
    monkeypatch.delenv("QWEN25_VL_7B_URL", raising=False)
    monkeypatch.setenv("PATH", "/nonexistent")
    cfg = load_model_config(PAPER / "qwen2.5-vl-7b.yaml")
    assert cfg.launches_server and not cfg.configured
    why = cfg.why_unconfigured()
    assert "QWEN25_VL_7B_URL" in why and "vllm is not installed" in why


# --------------------------------------------------------------------------------------------------
# Real processes: servers started per GPU group, requests spread, all stopped
# --------------------------------------------------------------------------------------------------
def fake_engine(tp: int = 2) -> ModelConfig:
    spec = ServerSpec([sys.executable, str(ROOT / "tests" / "fake_engine_server.py"), "--port", "{port}",
                       "--tensor-parallel-size", "{tp}", "--max-model-len", "{max_model_len}",
                       "--limit-mm-per-prompt", '{"image": {max_images}}'],
                      tensor_parallel=tp, startup_timeout=60)
    return ModelConfig(name="fake", model="fake-model", server=spec, concurrency=2, max_tokens=64)


def listening(url: str) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", urlparse(url).port)) == 0


def write_data(path: Path, n: int) -> Path:
    rows = [{"id": f"q{i}", "benchmark": "omibench", "question": f"What is {i} + 1?", "images": [], "choices": [],
             "answer": [str(i + 1)], "answer_type": "numeric"} for i in range(n)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_one_server_per_group_requests_spread_over_all_and_all_stopped(tmp_path):
    from infer.layout import raw_path
    from infer.run import run
    data = write_data(tmp_path / "d.jsonl", 24)
    counts = run("omibench", data, fake_engine(), "cot_boxed", tmp_path / "res", node=Node((0, 1, 2, 3)))
    assert counts["ok"] == 24
    lines = [json.loads(x) for x in raw_path(tmp_path / "res", "omibench", "fake", "cot_boxed").read_text().splitlines()]
    servers = {json.dumps(json.loads(r["response"])["server"], sort_keys=True) for r in lines}
    seen = [json.loads(s) for s in servers]
    assert sorted(s["gpus"] for s in seen) == ["0,1", "2,3"], "one server per tensor-parallel group, both used"
    assert all(s["tp"] == 2 and s["max_model_len"] == 1024 and s["limit_mm_per_prompt"] == '{"image": 1}' for s in seen)
    assert all(not listening(f"http://127.0.0.1:{s['port']}") for s in seen), "servers stopped after the run"
    logs = server_log_dir(tmp_path / "res")  # one log per server
    assert sorted(logs.iterdir()) == [server_log_path(logs, "fake", 0), server_log_path(logs, "fake", 1)]


def test_servers_are_stopped_on_ctrl_c(tmp_path):
    launches = launch.plan(fake_engine(), Needs(), Node((0, 1, 2, 3)))
    urls: list[str] = []
    with pytest.raises(KeyboardInterrupt):
        with server.serve(fake_engine(), tmp_path, launches) as urls:
            assert len(urls) == 2 and all(listening(u) for u in urls)
            raise KeyboardInterrupt
    assert urls and not any(listening(u) for u in urls)


def test_dry_run_prints_the_servers_it_would_start_and_writes_nothing(tmp_path, capsys, monkeypatch):
    from data.demo.__main__ import build
    from infer.run import main
    monkeypatch.delenv("QWEN25_VL_7B_URL", raising=False)
    data = build(tmp_path / "demo", ["omibench"])["omibench"]
    results = tmp_path / "results"
    rc = main(["--bench", "omibench", "--data", str(data), "--model", str(PAPER / "qwen2.5-vl-7b.yaml"),
               "--setting", "cot_boxed", "--gpus", "0-3", "--dry-run", "--results", str(results)])
    out = capsys.readouterr().out
    assert rc == 0 and not results.exists()
    assert "would send 15 of 15 requests" in out and "servers to start: 4" in out
    lines = [x.strip() for x in out.splitlines() if "vllm serve" in x]
    assert [x.split()[0] for x in lines] == [f"CUDA_VISIBLE_DEVICES={i}" for i in range(4)]
    images = [data.parent / i for line in data.read_text().splitlines() for i in json.loads(line)["images"]]
    for x in lines:  # the demo's largest record has 6 images, every one under the folder the server may read
        assert "--limit-mm-per-prompt '{\"image\": 6}'" in x and "--tensor-parallel-size 1" in x
        media = Path(x.split("--allowed-local-media-path ")[1].split()[0])
        assert images and all(i.resolve().is_relative_to(media) for i in images)


def test_replicas_start_copies_of_a_cpu_server_and_requests_spread_over_them(tmp_path):
    from infer.layout import raw_path
    from infer.run import run
    spec = ServerSpec([sys.executable, str(ROOT / "tests" / "fake_engine_server.py"), "--port", "{port}"],
                      replicas=2, startup_timeout=60)
    cfg = ModelConfig(name="cpu", model="cpu-model", server=spec, concurrency=1, max_tokens=16)
    assert [x.gpus for x in launch.plan(cfg, Needs())] == [(), ()]
    run("omibench", write_data(tmp_path / "d.jsonl", 12), cfg, "cot_boxed", tmp_path / "res")
    lines = raw_path(tmp_path / "res", "omibench", "cpu", "cot_boxed").read_text().splitlines()
    ports = {json.loads(json.loads(x)["response"])["server"]["port"] for x in lines}
    assert len(ports) == 2 and not any(listening(f"http://127.0.0.1:{p}") for p in ports)
