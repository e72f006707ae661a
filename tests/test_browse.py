"""The item browser: one static page per run with its items' records, prompts, responses and verdicts, filters
counted by the run's main judge, images copied relatively, data escaped, and pages kept when nothing changed."""
from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from PIL import Image

from analysis import browse
from analysis.browse import RunPage, write_browsers
from infer.layout import (browse_chunk, browse_chunks, browse_media_dir, browse_page, browse_stamp, judged_path,
                          manifest_of, raw_path)
from judge.current import outcome_sha

BENCH, MODEL, SETTING = "omibench", "m1", "cot_boxed"
SCRIPT_ID = "a3</script>"  # an id that would end the page's script if it were not escaped
HOSTILE = "</script><b>x</b> \u2028 & $$\\frac{1}{2}$$"


def _jsonl(path: Path, lines: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a", encoding="utf-8") as f:
        f.writelines(json.dumps(line) + "\n" for line in lines)


def _verdict(results: Path, rid: str, judge: str, status: str = "ok", correct: bool | None = None, **more) -> dict:
    """A verdict of the current outcome of `rid` in the run's raw file."""
    raw = [json.loads(x) for x in raw_path(results, BENCH, MODEL, SETTING).read_text().splitlines()]
    now = [x for x in raw if x["id"] == rid][-1]
    return {"id": rid, "sample_idx": 0, "outcome": outcome_sha(now),
            "judge": {"name": judge, "model": None if judge == "rules" else "jm", "prompt_sha": "x"},
            "extracted": more.pop("extracted", None), "correct": correct, "status": status,
            "flags": more.pop("flags", []), **more}


@pytest.fixture
def results(tmp_path: Path) -> Path:
    """Five items: one with an image (larger than the media limit), one whose response is HTML, one failed
    request, one whose image is missing (its prompt cannot be rendered); two judges that disagree on a2."""
    data = tmp_path / "data" / "set.jsonl"
    (data.parent / "img").mkdir(parents=True)
    Image.new("RGB", (1500, 400), "red").save(data.parent / "img" / "pic.png")
    base = {"benchmark": BENCH, "choices": [], "answer_type": "numeric", "images": []}
    _jsonl(data, [{**base, "id": "a1", "question": "Count the dots in [IMAGE0].", "images": ["img/pic.png"],
                   "answer": ["3"]},
                  {**base, "id": "a2", "question": "What is 2+2?", "choices": ["3", "4"], "answer": ["B"],
                   "answer_type": "mcq"},
                  {**base, "id": SCRIPT_ID, "question": "Say <hi>", "answer": ["hi"]},
                  {**base, "id": "a4", "question": "Anything", "answer": ["1"]},
                  {**base, "id": "a5", "question": "See [IMAGE0]", "images": ["img/missing.png"], "answer": ["2"]}])
    results = tmp_path / "results"
    raw = raw_path(results, BENCH, MODEL, SETTING)
    ok = {"sample_idx": 0, "error": None, "finish_reason": "stop", "usage": {"completion_tokens": 7}, "latency_s": 1.5}
    _jsonl(raw, [{**ok, "id": "a2", "response": None, "error": "HTTP 500"},  # superseded by the next a2 line
                 {**ok, "id": "a1", "response": "\\boxed{3}", "reasoning": "three dots"},
                 {**ok, "id": "a2", "response": "\\boxed{B}"},
                 {**ok, "id": SCRIPT_ID, "response": HOSTILE},
                 {**ok, "id": "a4", "response": None, "error": "HTTP 503: overloaded"},
                 {**ok, "id": "a5", "response": "\\boxed{7}"}])
    manifest_of(raw).write_text(json.dumps(
        {"data": {"path": str(data)}, "stands_for": SETTING, "params": {"temperature": 0}, "n": 1}))
    _jsonl(judged_path(results, BENCH, MODEL, SETTING, "rules"), [
        _verdict(results, "a1", "rules", correct=True, extracted="3"),
        _verdict(results, "a2", "rules", correct=False, extracted="A"),
        _verdict(results, SCRIPT_ID, "rules", correct=False, flags=["judge_directed"]),
        _verdict(results, "a4", "rules", "no_response", error="HTTP 503: overloaded"),
        _verdict(results, "a5", "rules", correct=False)])
    _jsonl(judged_path(results, BENCH, MODEL, SETTING, "omibench_gptscore"), [
        _verdict(results, "a1", "omibench_gptscore", correct=True, raw_judge_reply="ANSWER: consistent"),
        _verdict(results, "a2", "omibench_gptscore", correct=True),
        _verdict(results, SCRIPT_ID, "omibench_gptscore", "judge_error", error="judge reply could not be parsed",
                 raw_judge_reply="<i>no idea</i></script>", flags=["judge_directed"]),
        _verdict(results, "a4", "omibench_gptscore", "no_response"),
        _verdict(results, "a5", "omibench_gptscore", correct=False)])
    return results


def _page(results: Path) -> Path:
    return browse_page(results, BENCH, MODEL, SETTING)


def _index(page: Path) -> dict:
    text = page.read_text(encoding="utf-8")
    return json.loads(re.search(r"window\.BROWSE_INDEX = (.*?);</script>", text).group(1))


def _items(page: Path) -> list[dict]:
    items = []
    for _, chunk in sorted(browse_chunks(page).items()):
        text = chunk.read_text(encoding="utf-8")
        k, body = re.fullmatch(r"browseChunk\((\d+),(.*)\);\n", text, re.S).groups()
        items += json.loads(body)
    return items


def test_counts_per_filter_follow_the_main_judge(results):
    [page] = write_browsers(results)
    assert page == RunPage(BENCH, MODEL, SETTING, _page(results), items=5, correct=2, wrong=1, failed=2,
                           flagged=1, disagree=1, unjudged=0)
    index = _index(page.path)
    assert index["ids"] == ["a1", "a2", SCRIPT_ID, "a4", "a5"]  # data order
    bits = dict(zip(index["ids"], index["f"]))
    assert bits["a1"] == browse.BITS["correct"]
    assert bits["a2"] == browse.BITS["correct"] | browse.BITS["disagree"]  # the LLM judge decides, rules differ
    assert bits[SCRIPT_ID] == browse.BITS["failed"] | browse.BITS["flagged"]  # judge_error: neither correct nor wrong
    assert bits["a4"] == browse.BITS["failed"]
    assert bits["a5"] == browse.BITS["wrong"]
    html = page.path.read_text(encoding="utf-8")
    assert "<b>omibench_gptscore</b>" in html  # the page says which judge decides correct / wrong
    for name, n in {"all": 5, "correct": 2, "wrong": 1, "failed": 2, "flagged": 1, "disagree": 1}.items():
        assert re.search(rf"data-filter='{name}'>[^<]*<span class='n'>{n}</span>", html), name
    assert "id='count'>5<" in html and "id='search'" in html


def test_rules_decide_when_the_llm_judge_gave_no_verdict(results):
    judged = judged_path(results, BENCH, MODEL, SETTING, "omibench_gptscore")
    judged.write_text("".join(json.dumps(_verdict(results, rid, "omibench_gptscore", "judge_error")) + "\n"
                              for rid in ("a1", "a2", SCRIPT_ID, "a4", "a5")))
    [page] = write_browsers(results)
    assert (page.correct, page.wrong, page.failed, page.disagree) == (1, 3, 5, 0)
    assert "<b>rules</b>" in page.path.read_text(encoding="utf-8")


def test_a_prompt_changed_since_the_run_is_said(results):
    [page] = write_browsers(results)
    assert "prompt template changed" not in page.path.read_text(encoding="utf-8")
    manifest = manifest_of(raw_path(results, BENCH, MODEL, SETTING))
    template = browse.PROMPTS / BENCH / "cot_boxed.txt"
    manifest.write_text(json.dumps({**json.loads(manifest.read_text()), "templates": {str(template): "0" * 16}}))
    [page] = write_browsers(results)
    assert "prompt template changed" in page.path.read_text(encoding="utf-8")


def test_items_show_record_prompt_response_and_verdicts(results):
    [page] = write_browsers(results)
    items = {i["id"]: i for i in _items(page.path)}
    a1, a2 = items["a1"], items["a2"]
    assert a1["question"][0] == "Count the dots in " and a1["question"][1]["img"].startswith("../../media/")
    assert a1["reasoning"] == "three dots" and a1["answer"] == ["3"]
    prompt = a1["prompt"][0]
    assert prompt["role"] == "user"
    assert "Count the dots in" in "".join(p for p in prompt["content"] if isinstance(p, str))
    assert any(isinstance(p, dict) and p["img"] == a1["question"][1]["img"] for p in prompt["content"])
    assert a2["response"] == "\\boxed{B}" and a2["error"] is None  # the latest line of a key counts
    assert [c for c in a2["choices"]] == [["3"], ["4"]]
    assert [v["judge"] for v in a2["verdicts"]] == ["omibench_gptscore", "rules"]  # the main judge first
    assert a2["verdicts"][0]["main"] and a2["verdicts"][1]["extracted"] == "A"
    assert items["a4"]["error"] == "HTTP 503: overloaded"
    assert items["a5"]["prompt"] is None and "missing.png" in items["a5"]["prompt_error"]  # shown, not fatal
    assert "missing" in items["a5"]["question"][1]
    reply = items[SCRIPT_ID]["verdicts"][0]
    assert reply["status"] == "judge_error" and reply["reply"] == "<i>no idea</i></script>"


def test_media_copied_downscaled_and_linked_relatively(results):
    [page] = write_browsers(results)
    media = list(browse_media_dir(results).iterdir())
    assert len(media) == 1 and re.fullmatch(r"[0-9a-f]{16}\.png", media[0].name)
    with Image.open(media[0]) as im:
        assert max(im.size) == browse.MEDIA_PX
    src = _items(page.path)[0]["question"][1]["img"]
    assert src == f"../../media/{media[0].name}" and (page.path.parent / src).resolve() == media[0].resolve()
    moved = results.parent / "moved"
    results.rename(moved)  # links are relative: the folder can move
    assert (browse_page(moved, BENCH, MODEL, SETTING).parent / src).resolve().exists()


def test_html_special_text_is_escaped_in_the_emitted_scripts(results):
    [page] = write_browsers(results)
    html = page.path.read_text(encoding="utf-8")
    assert html.count("</script>") == 2  # the index's and the code's own: none from the data
    assert SCRIPT_ID not in html and "a3\\u003c/script\\u003e" in html
    chunk = browse_chunk(page.path, 0).read_text(encoding="utf-8")
    for raw in ("</script>", "<b>", "<i>", "&", "\u2028"):
        assert raw not in chunk
    items = {i["id"]: i for i in _items(page.path)}
    assert items[SCRIPT_ID]["response"] == HOSTILE  # escaped, not altered
    assert items[SCRIPT_ID]["question"] == ["Say <hi>"]


def test_page_is_kept_when_inputs_are_unchanged_and_rewritten_when_a_verdict_changes(results):
    [page] = write_browsers(results)
    outputs = [page.path, browse_chunk(page.path, 0), browse_stamp(page.path)]
    for path in outputs:
        os.utime(path, ns=(1_000_000_000_000_000_000, 1_000_000_000_000_000_000))
    assert write_browsers(results) == [page]
    assert all(p.stat().st_mtime_ns == 1_000_000_000_000_000_000 for p in outputs)

    _jsonl(judged_path(results, BENCH, MODEL, SETTING, "omibench_gptscore"),
           [_verdict(results, "a5", "omibench_gptscore", correct=True)])
    [again] = write_browsers(results)
    assert all(p.stat().st_mtime_ns != 1_000_000_000_000_000_000 for p in outputs)
    assert (again.correct, again.wrong) == (3, 0)


def test_items_are_chunked_and_stale_chunks_removed(results, monkeypatch):
    monkeypatch.setattr(browse, "CHUNK", 2)
    [page] = write_browsers(results)
    assert sorted(page.path.parent.glob("*.js")) == [browse_chunk(page.path, k) for k in range(3)]
    assert _index(page.path)["chunk"] == 2 and [i["id"] for i in _items(page.path)][-1] == "a5"
    monkeypatch.setattr(browse, "CHUNK", 200)
    _jsonl(raw_path(results, BENCH, MODEL, SETTING), [{"id": "a4", "sample_idx": 0, "response": "1"}])
    write_browsers(results)
    assert list(page.path.parent.glob("*.js")) == [browse_chunk(page.path, 0)]


def test_page_has_the_hooks_a_browser_test_uses(results):
    [page] = write_browsers(results)
    html = page.path.read_text(encoding="utf-8")
    assert all(f"data-filter='{f}'" in html for f in ("all", "correct", "wrong", "failed", "flagged", "disagree"))
    hooks = ("id='count'", "id='prev'", "id='next'", 'el("div", "item")', "dataset.id = it.id")
    assert all(hook in html for hook in hooks)
    assert "fetch(" not in html and "http" not in html.split("<script>")[-1]  # nothing fetched, nothing remote


def test_cli_writes_every_run(results, capsys):
    assert browse.main(["--results", str(results)]) == 0
    assert "5 items (2 correct, 1 wrong, 2 failed)" in capsys.readouterr().out
    assert _page(results).exists()


def test_the_main_judge_is_the_llm_judge_then_the_careful_rule_then_a_published_rule():
    main_judge = browse.main_judge
    ok, failed = {"status": "ok", "correct": True}, {"status": "judge_error", "correct": None}
    assert main_judge({"omibench_c1": {1: ok}, "omibench_gptscore": {1: ok}, "rules": {1: ok}}) == "omibench_gptscore"
    assert main_judge({"omibench_c1": {1: ok}, "omibench_gptscore": {1: failed}, "rules": {1: ok}}) == "rules"
    assert main_judge({"omibench_c1": {1: ok}}) == "omibench_c1"
    assert main_judge({"omibench_error": {1: {"status": "ok", "labels": ["Other"]}}}) is None   # labels only
