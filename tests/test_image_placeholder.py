"""A model config's `image_placeholder` (infer/image_placeholder.py): a server that reads only a message's first
text part (LMDeploy's InternVL) gets the whole interleaved prompt as one text part, each image's place holding
the placeholder, the images after it in order; on the server path and the offline engine alike, keyed as sent.

What LMDeploy makes of a message is not reimplemented here: the pinned wheel's own functions are read from its
source (tests/gpu_interfaces.py) and executed alone — the api_server's conversion of `image_url` parts
(`VLAsyncEngine.async_convert_to_pil_images`, with a stand-in image loader) and InternVL's `proc_messages`
(with a stand-in chat template that writes each turn as <|role|>content<|end|>).
"""
from __future__ import annotations

import ast
import asyncio
import base64
import copy
import dataclasses
import json
import logging
import sys
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional

import pytest
from PIL import Image

from infer import engines
from infer.config import ConfigError, load_model_config
from infer.image_placeholder import place_images
from infer.launch import Node
from infer.layout import raw_path
from infer.run import run
from tests import gpu_interfaces as real
from tests.scripted_server import scripted_server  # noqa: F401  (fixture)
from tests.test_offline_engines import Calls
from tests.test_system_prompt import watching

ROOT = Path(__file__).resolve().parent.parent
PAPER = ROOT / "configs" / "models" / "paper"
TOKEN = "<IMAGE_TOKEN>"
# The two classes LMDeploy 0.10.2 serves InternVL checkpoints with: InternVLChatModel (OpenGVLab's own
# repositories, which every paper config names) and InternVLForConditionalGeneration (the "-HF" conversions)
INTERNVL = [("lmdeploy/vl/model/internvl.py", "InternVLVisionModel"),
            ("lmdeploy/vl/model/internvl3_hf.py", "InternVL3VisionModel")]

INTERLEAVED = "Look closely. Is [IMAGE0] the same shape as [IMAGE1] rotated?"
# The template below around it, as the model must read it: every text part, the images where the record has them
WHOLE = ("Look closely. Is <img><IMAGE_TOKEN></img> the same shape as <img><IMAGE_TOKEN></img> rotated?\n"
         "Answer with a letter.")


# --------------------------------------------------------------------------------------------------
# The pinned wheel's functions, executed alone
# --------------------------------------------------------------------------------------------------
def wheel_function(module: str, cls: str, name: str, namespace: dict[str, Any]) -> Callable:
    """A method of a class in the pinned LMDeploy wheel, compiled from its source as a plain function."""
    klass = next(n for n in ast.walk(real.tree("lmdeploy", module)) if isinstance(n, ast.ClassDef) and n.name == cls)
    node = copy.deepcopy(next(n for n in klass.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                              and n.name == name))
    node.decorator_list = []  # @staticmethod / @classmethod: called here with the class argument given
    scope = dict(namespace)
    exec(compile(ast.Module(body=[node], type_ignores=[]), f"{module}:{name}", "exec"), scope)
    return scope[name]


class Template:
    """Stands in for LMDeploy's chat template: each turn as <|role|>content<|end|>."""

    def messages2prompt(self, messages, sequence_start, tools=None, enable_thinking=None):
        return "".join(f"<|{m['role']}|>{m['content']}<|end|>" for m in messages)


def lmdeploy_prompt(messages: list[dict], module: str = INTERNVL[0][0], cls: str = INTERNVL[0][1]) -> tuple[str, list]:
    """The prompt LMDeploy's InternVL builds from an OpenAI request's messages, and the images it loads in order."""
    loaded: list[str] = []

    def load_image(url: str) -> str:  # the real one decodes the URL into a PIL image
        loaded.append(url)
        return f"image {len(loaded)}"

    convert = wheel_function("lmdeploy/serve/vl_async_engine.py", "VLAsyncEngine", "async_convert_to_pil_images",
                             {"List": List, "Dict": Dict, "asyncio": asyncio, "load_image": load_image,
                              "logger": logging.getLogger("lmdeploy")})
    internal = asyncio.run(convert(None, messages))
    proc = wheel_function(module, cls, "proc_messages", {"List": List, "Optional": Optional})
    prompt, token = proc(internal, Template(), True)
    assert token == TOKEN
    return prompt, loaded


# --------------------------------------------------------------------------------------------------
# Runs against the scripted server
# --------------------------------------------------------------------------------------------------
def prompts_dir(tmp_path: Path) -> Path:
    root = tmp_path / "prompts"
    (root / "omibench").mkdir(parents=True, exist_ok=True)
    (root / "omibench" / "p.txt").write_text("{{question}}\nAnswer with a letter.\n")
    return root


def write_data(tmp_path: Path, questions: dict[str, tuple[str, int]]) -> Path:
    """One record per id: its question and how many images (a.png, b.png, in that order)."""
    Image.new("RGB", (3, 2), (255, 0, 0)).save(tmp_path / "a.png")
    Image.new("RGB", (2, 3), (0, 0, 255)).save(tmp_path / "b.png")
    rows = [{"id": rid, "benchmark": "omibench", "question": q, "images": ["a.png", "b.png"][:n], "choices": [],
             "answer": ["A"], "answer_type": "mcq"} for rid, (q, n) in questions.items()]
    path = tmp_path / "d.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def data_url(path: Path) -> str:
    return "data:image/png;base64," + base64.b64encode(path.read_bytes()).decode("ascii")


def config(tmp_path: Path, url: str, **extra):
    fields = {"name": "m", "model": "org/m", "base_urls": [url], "max_tokens": 32, "max_retries": 0,
              "read_timeout": 5, **extra}
    path = tmp_path / "m.yaml"
    path.write_text("\n".join(f"{k}: {json.dumps(v)}" for k, v in fields.items()))
    return load_model_config(path)


def current(results: Path) -> dict[str, dict]:
    return {x["id"]: x for x in map(json.loads, raw_path(results, "omibench", "m", "p").read_text().splitlines())}


def sent_by_id(srv) -> dict[str, list]:
    """The user message's content of each request the server received, by the record its text comes from."""
    out = {}
    for body in srv.requests:
        content = body["messages"][-1]["content"]
        text = content if isinstance(content, str) else " ".join(p.get("text", "") for p in content)
        rid = "inter" if "Look closely" in text else "first" if "What shape" in text else "text"
        out[rid] = content
    return out


QUESTIONS = {"inter": (INTERLEAVED, 2), "first": ("What shape is this?", 1), "text": ("What is 2 + 3?", 0)}


def test_an_interleaved_prompt_is_one_text_part_with_the_placeholders_then_its_images(tmp_path, scripted_server):
    srv = scripted_server()
    data, prompts = write_data(tmp_path, QUESTIONS), prompts_dir(tmp_path)
    cfg = config(tmp_path, srv.base_url, image_placeholder=TOKEN)
    assert run("omibench", data, cfg, "p", tmp_path / "r", prompts=prompts)["ok"] == 3
    sent = sent_by_id(srv)
    assert sent["inter"] == [
        {"type": "text", "text": "Look closely. Is <IMAGE_TOKEN> the same shape as <IMAGE_TOKEN> rotated?\n"
                                 "Answer with a letter."},
        {"type": "image_url", "image_url": {"url": data_url(tmp_path / "a.png")}},
        {"type": "image_url", "image_url": {"url": data_url(tmp_path / "b.png")}}]
    # read whole by the server already: left as rendered
    assert sent["first"] == [{"type": "image_url", "image_url": {"url": data_url(tmp_path / "a.png")}},
                             {"type": "text", "text": "What shape is this?\nAnswer with a letter."}]
    assert sent["text"] == "What is 2 + 3?\nAnswer with a letter."
    assert all("image_placeholder" not in body for body in srv.requests), "keyed, never a request field"
    assert all(x["params"]["image_placeholder"] == TOKEN for x in current(tmp_path / "r").values())

    # what LMDeploy's InternVL makes of it: every text part, in order, each image where the record has it
    body = next(b for b in srv.requests if "Look closely" in json.dumps(b))
    prompt, loaded = lmdeploy_prompt(body["messages"])
    assert prompt == f"<|user|>{WHOLE}<|end|>"
    assert loaded == [data_url(tmp_path / "a.png"), data_url(tmp_path / "b.png")]


@pytest.mark.parametrize("module, cls", INTERNVL, ids=["InternVLChatModel", "InternVLForConditionalGeneration"])
def test_lmdeploy_reads_the_placed_message_whole_and_cuts_the_old_one_after_the_first_image(module, cls, tmp_path,
                                                                                             scripted_server):
    """The bug this key fixes, documented against the pinned wheel: sent as rendered, the interleaved message
    loses all its text after the first image, and its images move to the front."""
    data, prompts = write_data(tmp_path, {"inter": (INTERLEAVED, 2)}), prompts_dir(tmp_path)
    old, placed = scripted_server(), scripted_server()
    run("omibench", data, config(tmp_path, old.base_url), "p", tmp_path / "old", prompts=prompts)
    run("omibench", data, config(tmp_path, placed.base_url, image_placeholder=TOKEN), "p", tmp_path / "new",
        prompts=prompts)

    cut, loaded = lmdeploy_prompt(old.requests[0]["messages"], module, cls)
    assert cut == "<|user|><img><IMAGE_TOKEN><IMAGE_TOKEN></img>\nLook closely. Is <|end|>"
    assert "the same shape as" not in cut and "rotated?" not in cut and "Answer with a letter." not in cut
    assert len(loaded) == 2

    whole, loaded = lmdeploy_prompt(placed.requests[0]["messages"], module, cls)
    assert whole == f"<|user|>{WHOLE}<|end|>"
    # the wheel splits the prompt at the token and asserts one piece more than images (to_*_aux)
    assert len(whole.split(TOKEN)) == len(loaded) + 1 == 3


def test_omibench_cot_boxed_reaches_internvl_with_its_question(tmp_path, scripted_server):
    """OMIBench's main prompt puts the images under "[Question]", after the instruction: sent as rendered, LMDeploy
    kept the instruction alone, and the model never saw the question nor its choices."""
    data = write_data(tmp_path, {"one": ("Which figure is larger?", 1)})
    rows = [dict(json.loads(line), choices=["left", "right"]) for line in data.read_text().splitlines()]
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    old, placed = scripted_server(), scripted_server()
    run("omibench", data, config(tmp_path, old.base_url), "cot_boxed", tmp_path / "old")
    run("omibench", data, config(tmp_path, placed.base_url, image_placeholder=TOKEN), "cot_boxed", tmp_path / "new")
    instruction = 'Please reason step by step, and then provide the final answer in the exact format: "\\boxed{ANSWER}".'
    assert lmdeploy_prompt(old.requests[0]["messages"])[0] == (
        f"<|user|><img><IMAGE_TOKEN></img>\n{instruction}\n\n[Question]\n<|end|>")
    assert lmdeploy_prompt(placed.requests[0]["messages"])[0] == (
        f"<|user|>{instruction}\n\n[Question]\n<img><IMAGE_TOKEN></img>Which figure is larger?\n[Choices]\n"
        "A. left\nB. right\nLet's think step-by-step!<|end|>")


def test_text_before_a_lone_image_stays_before_it():
    """A message of text then one image: sent as rendered, LMDeploy would move the image in front of the text."""
    image = {"type": "image_ref", "path": "/d/a.png", "sha": "5ha"}
    rendered = [{"role": "user", "content": [{"type": "text", "text": "Read this:"}, image]}]
    placed = place_images(rendered, TOKEN)
    assert placed == [{"role": "user", "content": [{"type": "text", "text": "Read this:<IMAGE_TOKEN>"}, image]}]

    def wire(messages):  # as infer.render.to_wire sends an image, its URL aside
        return [{**m, "content": [{"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}
                                  if p["type"] == "image_ref" else p for p in m["content"]]} for m in messages]
    assert lmdeploy_prompt(wire(rendered))[0] == "<|user|><img><IMAGE_TOKEN></img>\nRead this:<|end|>"
    assert lmdeploy_prompt(wire(placed))[0] == "<|user|>Read this:<img><IMAGE_TOKEN></img><|end|>"


# --------------------------------------------------------------------------------------------------
# Keys and resume
# --------------------------------------------------------------------------------------------------
def test_only_the_requests_the_placeholder_changes_get_new_keys_and_are_sent_again(tmp_path, scripted_server):
    srv = scripted_server()
    data, prompts = write_data(tmp_path, QUESTIONS), prompts_dir(tmp_path)
    plain = config(tmp_path, srv.base_url)
    assert "image_placeholder" not in plain.generation_params() and plain.image_placeholder is None
    assert run("omibench", data, plain, "p", tmp_path / "r", prompts=prompts)["sent"] == 3
    before = {rid: x["request_key"] for rid, x in current(tmp_path / "r").items()}

    placed = config(tmp_path, srv.base_url, image_placeholder=TOKEN)
    srv.requests.clear()
    counts = run("omibench", data, placed, "p", tmp_path / "r", prompts=prompts)
    assert counts["sent"] == 1 and list(sent_by_id(srv)) == ["inter"], "the one request whose form changed"
    after = {rid: x["request_key"] for rid, x in current(tmp_path / "r").items()}
    assert after["text"] == before["text"] and after["first"] == before["first"]
    assert after["inter"] != before["inter"]
    assert run("omibench", data, placed, "p", tmp_path / "r", prompts=prompts)["sent"] == 0

    other = config(tmp_path, srv.base_url, image_placeholder="<image>")  # another text the model sees: another key
    srv.requests.clear()
    assert run("omibench", data, other, "p", tmp_path / "r", prompts=prompts)["sent"] == 1
    assert sent_by_id(srv)["inter"][0]["text"].count("<image>") == 2
    assert current(tmp_path / "r")["inter"]["request_key"] not in (before["inter"], after["inter"])

    # back to the config without the key: the first answers are current again, nothing is sent
    srv.requests.clear()
    counts = run("omibench", data, plain, "p", tmp_path / "r", prompts=prompts)
    assert counts["sent"] == 0 and counts["reused"] == 1 and srv.requests == []
    assert {rid: x["request_key"] for rid, x in current(tmp_path / "r").items()} == before


def test_a_text_holding_the_placeholder_is_unrenderable_and_not_sent(tmp_path, scripted_server):
    srv = scripted_server()
    data = write_data(tmp_path, {"inter": ("Is [IMAGE0] an <IMAGE_TOKEN> like [IMAGE1]?", 2)})
    counts = run("omibench", data, config(tmp_path, srv.base_url, image_placeholder=TOKEN), "p", tmp_path / "r",
                 prompts=prompts_dir(tmp_path))
    assert counts["unrenderable"] == 1 and srv.requests == []
    assert "holds the image placeholder '<IMAGE_TOKEN>'" in current(tmp_path / "r")["inter"]["error"]


# --------------------------------------------------------------------------------------------------
# The offline engine
# --------------------------------------------------------------------------------------------------
@pytest.fixture
def no_loaded_engine():
    engines._loaded.clear()
    yield
    engines._loaded.clear()


def test_the_offline_lmdeploy_pipeline_gets_the_same_messages_and_keys(tmp_path, monkeypatch, scripted_server,
                                                                        no_loaded_engine):
    srv = scripted_server()
    data, prompts = write_data(tmp_path, QUESTIONS), prompts_dir(tmp_path)
    http_cfg = config(tmp_path, srv.base_url, image_placeholder=TOKEN, params_total_b=7)
    run("omibench", data, http_cfg, "p", tmp_path / "http", prompts=prompts)

    calls, seen = Calls(), []
    monkeypatch.setitem(sys.modules, "lmdeploy", watching("lmdeploy", calls, seen))
    offline = dataclasses.replace(http_cfg, base_urls=[], engine="lmdeploy")
    counts = run("omibench", data, offline, "p", tmp_path / "offline", prompts=prompts, node=Node((0,)))
    assert counts["ok"] == 3 and calls.batches == [3]
    by_text = {json.dumps(m["messages"], sort_keys=True) for m in srv.requests}
    assert {json.dumps(c, sort_keys=True) for c in seen} == by_text, "the pipeline gets what the server got"
    inter = next(c for c in seen if "Look closely" in json.dumps(c))
    assert lmdeploy_prompt(inter)[0] == f"<|user|>{WHOLE}<|end|>"
    http, off = current(tmp_path / "http"), current(tmp_path / "offline")
    assert {i: x["request_key"] for i, x in off.items()} == {i: x["request_key"] for i, x in http.items()}


# --------------------------------------------------------------------------------------------------
# The configs
# --------------------------------------------------------------------------------------------------
def test_every_paper_model_served_by_lmdeploy_places_its_images_with_the_wheels_token():
    proc = ast.unparse(next(n for n in ast.walk(real.tree("lmdeploy", INTERNVL[0][0]))
                            if isinstance(n, ast.FunctionDef) and n.name == "proc_messages"))
    assert f"IMAGE_TOKEN = '{TOKEN}'" in proc and "prompt = content[0]" in proc
    served = {p.stem: load_model_config(p) for p in sorted(PAPER.glob("*.yaml"))}
    lmdeploy = {name for name, cfg in served.items() if cfg.server and cfg.server.command[0] == "lmdeploy"}
    assert len(lmdeploy) == 17 and all(name.startswith("internvl") for name in lmdeploy)
    assert {name for name, cfg in served.items() if cfg.image_placeholder == TOKEN} == lmdeploy
    assert all(cfg.image_placeholder is None for name, cfg in served.items() if name not in lmdeploy)


def test_a_bad_placeholder_is_a_config_error(tmp_path):
    for bad in ("", "  ", 5, ["<IMAGE_TOKEN>"]):
        with pytest.raises(ConfigError, match=r"m\.yaml: image_placeholder: expected the text the server takes"):
            config(tmp_path, "http://127.0.0.1:9/v1", image_placeholder=bad)
    with pytest.raises(ConfigError, match=r"did you mean 'image_placeholder'"):
        config(tmp_path, "http://127.0.0.1:9/v1", image_placehoder=TOKEN)
