"""Experimental conditions as settings: modifiers, thinking switches, per-task prompts, ICL, input modes."""
import json
from pathlib import Path

import pytest
from PIL import Image

from data.jsonl import write_jsonl_atomic
from infer.config import ConfigError, load_model_config
from infer.icl import demo_pool, pick_demos
from infer.layout import derived_dir, manifest_of, raw_path
from infer.prompting import Prompter, task_slug
from infer.render import render_spec
from infer.run import run
from infer.settings import SettingError, parse_setting
from infer.templates import Template
from tests.scripted_server import scripted_server  # noqa: F401  (fixture)


def cfg_for(tmp_path, url, **extra):
    lines = {"name": "m", "model": "m", "base_urls": [url], "max_tokens": 64, "max_retries": 0, **extra}
    p = tmp_path / "m.yaml"
    p.write_text("\n".join(f"{k}: {json.dumps(v)}" for k, v in lines.items()))
    return load_model_config(p)


def records(n=3, bench="omibench", **extra):
    return [{"id": f"r{i}", "benchmark": bench, "question": f"question {i}", "images": [], "choices": [],
             "answer": [str(i)], "answer_type": "numeric", **extra} for i in range(n)]


def test_setting_modifiers():
    s = parse_setting("cot_boxed+caption+nothink+max512+temp0.6")
    assert (s.template, s.mode, s.thinking, s.overrides) == ("cot_boxed", "caption", "off", {"max_tokens": 512, "temperature": 0.6})
    assert parse_setting("icl+shots3+demos-first").demo_images == "first"
    with pytest.raises(SettingError, match="unknown modifier 'captoin'"):
        parse_setting("direct+captoin")


def test_thinking_switch_and_budget_reach_the_request(tmp_path, scripted_server):
    srv = scripted_server()
    cfg = cfg_for(tmp_path, srv.base_url, thinking={"on": {"chat_template_kwargs": {"enable_thinking": True}},
                                                    "off": {"chat_template_kwargs": {"enable_thinking": False}}})
    data = tmp_path / "d.jsonl"
    write_jsonl_atomic(data, records(1))
    for setting in ("cot_boxed+think", "cot_boxed+nothink+max512", "cot_boxed+temp0.6"):
        run("omibench", data, cfg, setting, tmp_path / "results")
    bodies = srv.requests
    assert bodies[0]["chat_template_kwargs"] == {"enable_thinking": True}
    assert bodies[1]["chat_template_kwargs"] == {"enable_thinking": False} and bodies[1]["max_tokens"] == 512
    assert bodies[2]["temperature"] == 0.6 and "chat_template_kwargs" not in bodies[2]
    assert raw_path(tmp_path / "results", "omibench", "m", "cot_boxed+nothink+max512").exists()
    with pytest.raises(ConfigError, match="no 'on' switch"):
        run("omibench", data, cfg_for(tmp_path, srv.base_url), "cot_boxed+think", tmp_path / "results")


def test_mira_task_specific_prompts_are_chosen_per_task(tmp_path):
    prompts = tmp_path / "prompts"
    (prompts / "mira" / "spec").mkdir(parents=True)
    (prompts / "mira" / "spec" / "rolling_dice_top.txt").write_text("DICE {{question}}")
    (prompts / "mira" / "spec" / "convex_hull.txt").write_text("HULL {{question}}")
    recs = [{**records(1, "mira")[0], "id": "a", "task": "Rolling Dice: Top"},
            {**records(1, "mira")[0], "id": "b", "task": "Convex Hull"}]
    p = Prompter("mira", parse_setting("spec"), recs, prompts)
    assert [p.messages(r, tmp_path)[0]["content"] for r in recs] == ["DICE question 0", "HULL question 0"]
    assert task_slug("Multi-piece Puzzle") == "multi_piece_puzzle"


def make_icl_prompts(tmp_path):
    prompts = tmp_path / "prompts"
    (prompts / "omibench").mkdir(parents=True)
    (prompts / "omibench" / "icl.txt").write_text("{{demos}}\n[REQUEST]\n{{images}}{{question}}")
    (prompts / "omibench" / "icl_demo.txt").write_text("[EXAMPLE]\n{{question}}\n[Solution]\n{{solution}}")
    return prompts


def test_icl_same_demos_across_conditions_and_demos_never_run(tmp_path, scripted_server):
    for i in range(3):
        Image.new("RGB", (3 + i, 3), (i * 80, 0, 0)).save(tmp_path / f"i{i}.png")
    recs = [{**r, "images": ["i0.png", "i1.png", "i2.png"], "question": f"[IMAGE1] q{r['id']} [IMAGE0]",
             "solution": f"sol {r['id']}"} for r in records(40)]
    data = tmp_path / "d.jsonl"
    write_jsonl_atomic(data, recs)
    prompts = make_icl_prompts(tmp_path)
    srv = scripted_server()
    cfg = cfg_for(tmp_path, srv.base_url)
    seen = {}
    for cond in ("none", "first", "all"):
        counts = run("omibench", data, cfg, f"icl+shots2+demos-{cond}", tmp_path / "results", prompts=prompts)
        manifest = json.loads(manifest_of(raw_path(tmp_path / "results", "omibench", "m", f"icl+shots2+demos-{cond}"))
                              .read_text())
        assert counts["sent"] == 40 - counts["excluded"] and counts["excluded"] == 20
        seen[cond] = (set(manifest["excluded_ids"]), srv.requests[-counts["sent"]:])
    pool = seen["none"][0]
    assert pool == seen["first"][0] == seen["all"][0]
    requests_text = ["".join(p.get("text", "") for p in b["messages"][0]["content"]).split("[REQUEST]")[1]
                     for b in seen["all"][1]]
    sent_ids = {t.split()[0][1:] for t in requests_text}
    assert len(sent_ids) == 20 and not sent_ids & pool

    def demo_texts(body):
        text = "".join(p.get("text", "") for p in body["messages"][0]["content"])
        return [x.split("\n")[1].replace("  ", " ").strip() for x in text.split("[EXAMPLE]")[1:]]

    def n_images(body):
        return sum(p["type"] == "image_url" for p in body["messages"][0]["content"])

    for k in range(5):
        texts = {cond: demo_texts(seen[cond][1][k]) for cond in seen}
        assert texts["none"] == texts["first"] == texts["all"] and len(texts["none"]) == 2
        # the test item always has its 3 images; demos add 0, 1 each, or 3 each
        assert [n_images(seen[c][1][k]) for c in ("none", "first", "all")] == [3, 5, 9]


def test_demo_pool_and_picks_are_seeded():
    recs = records(30)
    pool = demo_pool(recs)
    assert pool == demo_pool(recs) and len(pool) == 15
    assert pick_demos("r29", pool, 3) == pick_demos("r29", pool, 3)
    assert all(d["id"] != "r29" for d in pick_demos("r29", pool, 3))


def test_first_image_only_and_icq(tmp_path):
    for i in range(3):
        Image.new("RGB", (2, 2)).save(tmp_path / f"i{i}.png")
    rec = {**records(1)[0], "question": "A [IMAGE0] B [IMAGE1] C [IMAGE2]", "images": ["i0.png", "i1.png", "i2.png"],
           "captions": ["zero", "one", "two"]}
    t = Template(Path("t.txt"), "{{question}}")
    first = render_spec(rec, t, tmp_path, "first")[0]["content"]
    assert [p["type"] for p in first] == ["text", "image_ref", "text"] and first[2]["text"] == " B  C"
    icq = render_spec(rec, t, tmp_path, "icq")[0]["content"]
    assert [p["type"] for p in icq] == ["text", "image_ref", "text", "image_ref", "text", "image_ref", "text"]
    assert icq[2]["text"] == "[Image 1: zero] B "


def test_composite_and_io_modes_send_one_derived_image(tmp_path):
    Image.new("RGB", (30, 20), (255, 0, 0)).save(tmp_path / "a.png")
    Image.new("RGB", (30, 20), (0, 0, 255)).save(tmp_path / "b.png")
    rec = {**records(1)[0], "question": "Compare [IMAGE0] with [IMAGE1].", "images": ["a.png", "b.png"],
           "choices": ["[IMAGE1]", "red"], "answer": ["B"], "answer_type": "mcq"}
    t = Template(Path("t.txt"), "{{images}}{{question}}\n{{choices}}\nPlease answer this question.")
    comp = render_spec(rec, t, tmp_path, "composite", derived=tmp_path / "derived")[0]["content"]
    assert [p["type"] for p in comp] == ["image_ref", "text"]
    assert comp[1]["text"] == "Compare  with .\nA. \nB. red\nPlease answer this question."
    assert Path(comp[0]["path"]).parent == tmp_path / "derived" / "composite"
    assert Image.open(comp[0]["path"]).size[0] >= 30
    io = render_spec(rec, t, tmp_path, "io", derived=tmp_path / "derived")[0]["content"]
    assert [p["type"] for p in io] == ["image_ref", "text"] and io[1]["text"] == "Please answer this question."
    # deterministic: the same derived file, so the request key does not change between runs
    assert render_spec(rec, t, tmp_path, "io", derived=tmp_path / "derived")[0]["content"][0]["sha"] == io[0]["sha"]


def test_a_run_writes_its_derived_images_under_its_own_results(tmp_path, scripted_server):
    srv = scripted_server()
    cfg = cfg_for(tmp_path, srv.base_url, modalities=["text", "image"])
    Image.new("RGB", (30, 20), (255, 0, 0)).save(tmp_path / "a.png")
    Image.new("RGB", (30, 20), (0, 0, 255)).save(tmp_path / "b.png")
    data = tmp_path / "d.jsonl"
    write_jsonl_atomic(data, [{**records(1)[0], "question": "Compare [IMAGE0] with [IMAGE1].", "images": ["a.png", "b.png"]}])
    run("omibench", data, cfg, "cot_boxed+composite", tmp_path / "elsewhere")
    assert len(list((derived_dir(tmp_path / "elsewhere") / "composite").glob("*.png"))) == 1


def test_reasoning_model_token_field_and_unsupported_params(tmp_path, scripted_server):
    srv = scripted_server()
    cfg = cfg_for(tmp_path, srv.base_url, token_limit_field="max_completion_tokens", unsupported_params=["temperature"])
    data = tmp_path / "d.jsonl"
    write_jsonl_atomic(data, records(1))
    run("omibench", data, cfg, "cot_boxed+temp0.7", tmp_path / "results")
    body = srv.requests[0]
    assert body["max_completion_tokens"] == 64 and "max_tokens" not in body and "temperature" not in body
    line = json.loads(raw_path(tmp_path / "results", "omibench", "m", "cot_boxed+temp0.7").read_text())
    assert line["params"] == {"max_tokens": 64}


def test_enormous_images_are_scaled_down_by_the_documented_policy(tmp_path, scripted_server):
    import base64
    import io
    Image.new("RGB", (3000, 2000), (0, 128, 0)).save(tmp_path / "big.png")
    Image.new("RGB", (30, 20)).save(tmp_path / "small.png")
    srv = scripted_server()
    cfg = cfg_for(tmp_path, srv.base_url, max_image_pixels=1_000_000)
    data = tmp_path / "d.jsonl"
    write_jsonl_atomic(data, [{**records(1)[0], "images": ["big.png", "small.png"]}])
    run("omibench", data, cfg, "cot_boxed", tmp_path / "results")
    urls = [p["image_url"]["url"] for p in srv.requests[0]["messages"][0]["content"] if p["type"] == "image_url"]
    big = Image.open(io.BytesIO(base64.b64decode(urls[0].split(",", 1)[1])))
    assert big.width * big.height <= 1_000_000 and abs(big.width / big.height - 1.5) < 0.01
    assert base64.b64decode(urls[1].split(",", 1)[1]) == (tmp_path / "small.png").read_bytes()
    manifest = json.loads(manifest_of(raw_path(tmp_path / "results", "omibench", "m", "cot_boxed")).read_text())
    assert manifest["image_policy"]["max_pixels"] == 1_000_000
