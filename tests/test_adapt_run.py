"""The adaptation end to end against a scripted model: two Lite and two Complex items per source item
with hints coarse to specific and linked to their evidence steps, the heuristic graph when the parser's
replies cannot be used, leaking hints asked again and then dropped with counts, one perturbed question
per source item with its leakage and consistency checks, the source ids kept, the written splits read by
the converter, and a rerun that repeats no call."""
from __future__ import annotations

import json

import pytest

from data.convert import convert
from data.jsonl import read_jsonl
from infer.layout import adaptation_log_path
from pipeline.morphobench_adapt.__main__ import main
from pipeline.morphobench_adapt.run import reasoning, recognition
from tests.adapt_fixtures import (BAR_TRACE, CUES, GRAPH, HINTS, MISLEADING, PERTURB, demo_data, good_model,
                                  hints_reply, model_config, prompt_of, raw_file)
from tests.scripted_server import Reply, scripted_server  # noqa: F401  (fixture)

BAR = "Morpho_R_v0-1"


@pytest.fixture
def data(tmp_path):
    return demo_data(tmp_path)


def rows(out, split):
    path = out / split / "data.jsonl"
    return read_jsonl(path) if path.exists() else []


def run_reasoning(tmp_path, data, srv, **kw):
    cfg, _ = model_config(tmp_path, srv.base_url)
    raw = raw_file(tmp_path, {BAR: BAR_TRACE})
    return reasoning(data, cfg, tmp_path / "out", source=f"responses:{raw}", limit=2, results=tmp_path / "results", **kw)


def test_two_lite_and_two_complex_items_per_source_item(tmp_path, data, scripted_server):
    srv = scripted_server(script=good_model)
    report = run_reasoning(tmp_path, data, srv)
    out = tmp_path / "out"
    lite, complex_ = rows(out, "Morpho_R_Lite"), rows(out, "Morpho_R_Complex")
    assert [r["index"] for r in lite] == ["1_1", "1_2"] and [r["index"] for r in complex_] == ["1_1", "1_2"]
    for r in lite + complex_:
        assert r["source_id"] == BAR and r["source_index"] == 1 and r["answer"] == "24"
        assert r["graph_source"] == "llm" and r["trace_correct"] is True
        assert r["hint_tiers"] == sorted(r["hint_tiers"])  # coarse to specific
    low, high = lite
    assert low["hint"] == "- Focus on the four bars and their labels.\n- Start by reading the label above each bar."
    assert (low["hint_tiers"], high["hint_tiers"]) == ([1, 2], [1, 2, 3])
    # each hint is linked to the statement it rewrites and through it to the trace's steps
    assert high["hint_nodes"] == [["n2"], ["n1"], ["n3"]] and high["hint_evidence"] == [[1], [0], [2]]
    assert all("tallest bar" in h for h in complex_[1]["hint"].split("\n"))
    assert report["written"] == {"Morpho_R_Lite": 2, "Morpho_R_Complex": 2}
    # the first item has no trace in the raw file: dropped from both splits, and said so
    assert report["dropped"]["Morpho_R_Lite"] == {"no reference trace: no response for it in the raw file": 2}
    assert report["graph_source"] == {"llm": 1} and report["calls_per_item"]["max"] == 3

    # the converter reads the written release: the source items beside the derived ones
    recs = {r["id"]: r for r in convert("morphobench", out, tmp_path / "conv" / "adapted.jsonl")}
    assert sorted(recs) == ["Morpho_R_Complex-1_1", "Morpho_R_Complex-1_2", "Morpho_R_Lite-1_1", "Morpho_R_Lite-1_2",
                            "Morpho_R_v0-0", "Morpho_R_v0-1"]
    source = {r["id"]: r for r in read_jsonl(data)}[BAR]
    for rid in ("Morpho_R_v0-1", "Morpho_R_Lite-1_2"):
        for field in ("question", "answer", "answer_type", "captions", "discipline"):
            assert recs[rid][field] == source[field]
    assert recs["Morpho_R_Lite-1_2"]["hints"][2] == "Group the bars into pairs before adding."
    assert recs["Morpho_R_Complex-1_1"]["extra"]["source_id"] == BAR


def test_a_rerun_repeats_no_call(tmp_path, data, scripted_server):
    srv = scripted_server(script=good_model)
    run_reasoning(tmp_path, data, srv)
    cfg, _ = model_config(tmp_path, srv.base_url)
    recognition(data, cfg, tmp_path / "out", limit=2, results=tmp_path / "results")
    sent = srv.count
    before = {p: p.read_bytes() for p in (tmp_path / "out").rglob("data.jsonl")}
    run_reasoning(tmp_path, data, srv)
    recognition(data, cfg, tmp_path / "out", limit=2, results=tmp_path / "results")
    assert srv.count == sent
    assert {p: p.read_bytes() for p in (tmp_path / "out").rglob("data.jsonl")} == before
    log = adaptation_log_path(tmp_path / "results", "morphobench", "adapter", "reasoning")
    assert len(log.read_text().splitlines()) == 3  # graph, helpful and misleading hints of the bar item


def test_the_heuristic_graph_when_no_parser_reply_can_be_used(tmp_path, data, scripted_server):
    def model(body, attempt):
        prompt = prompt_of(body)
        if GRAPH in prompt:
            return Reply.ok('{"nodes": [{"id": "n1", "type": "hunch", "statement": "x", "steps": [0]}]}')
        return hints_reply(prompt, lambda n: "Look closely at the labels of the chart.")

    srv = scripted_server(script=model)
    report = run_reasoning(tmp_path, data, srv)
    (outcome,) = [o for o in read_jsonl(tmp_path / "out" / ".adapt" / "reasoning.items.jsonl") if o["source_id"] == BAR]
    assert outcome["graph_source"] == "heuristic" and len(outcome["graph_failures"]) == 3
    assert all("unknown node type" in f for f in outcome["graph_failures"])
    assert [n["id"] for n in outcome["graph"]["nodes"]] == ["s0", "s1", "s2", "s3"]
    graph_prompts = [prompt_of(b) for b in srv.requests if GRAPH in prompt_of(b)]
    assert len(graph_prompts) == 3 and "attempt 2: unknown node type" in graph_prompts[2]
    assert report["graph_source"] == {"heuristic": 1}
    assert {r["graph_source"] for r in rows(tmp_path / "out", "Morpho_R_Lite")} == {"heuristic"}
    assert "heuristic: 1" in (tmp_path / "out" / "adapt_reasoning.md").read_text()


def test_leaking_hints_are_asked_again_then_dropped_and_counted(tmp_path, data, scripted_server):
    def model(body, attempt):
        prompt = prompt_of(body)
        if GRAPH in prompt:
            return good_model(body, attempt)
        if MISLEADING in prompt:  # always the answer, in another form each time
            return hints_reply(prompt, lambda n: "The bars come to 24 in all." if "attempt 1" not in prompt
                               else "Twelve doubled, 24, is what you need.")
        fixed = "n3, attempt 1" in prompt  # the writer was told why its hint for n3 was rejected
        return hints_reply(prompt, lambda n: {"n1": "Start by reading the label above each bar.",
                                              "n2": "Focus on the four bars and their labels.",
                                              "n3": "Group the bars into pairs before adding." if fixed
                                              else "Pairs give 17 and 7, so 24 in total."}[n])

    srv = scripted_server(script=model)
    report = run_reasoning(tmp_path, data, srv)
    assert report["written"] == {"Morpho_R_Lite": 2}
    assert report["dropped"]["Morpho_R_Complex"]["no reference trace: no response for it in the raw file"] == 2
    causes = {k: v for k, v in report["dropped"]["Morpho_R_Complex"].items() if "rejected" in k}
    assert list(causes.values()) == [2]
    assert list(causes)[0].startswith("misleading hint rejected after N attempt(s): states the answer")
    misleading = report["checks"]["misleading hints"]
    assert (misleading["accepted"], misleading["rejected"]) == (0, 9)  # three statements, three attempts each
    assert all(k.startswith("states the answer") for k in misleading["rejections"])
    assert report["checks"]["helpful hints"]["rejected"] == 1
    (outcome,) = [o for o in read_jsonl(tmp_path / "out" / ".adapt" / "reasoning.items.jsonl") if o["source_id"] == BAR]
    first, second = outcome["hint_attempts"]["helpful"]["n3"]
    assert first["why"].startswith("states the answer") and second == {"hint": "Group the bars into pairs before adding.",
                                                                     "why": None}
    # only the rejected statement is asked again; the misleading writer three times in all
    helpful = [prompt_of(b) for b in srv.requests if HINTS in prompt_of(b)]
    assert len(helpful) == 2 and "n1 (tier" not in helpful[1] and "n3 (tier" in helpful[1]
    assert sum(MISLEADING in prompt_of(b) for b in srv.requests) == 3
    assert "| Morpho_R_Complex | 0 | 4 | 4 |" in (tmp_path / "out" / "adapt_reasoning.md").read_text()


def test_one_checked_perturbation_per_source_item(tmp_path, data, scripted_server):
    def model(body, attempt):
        prompt = prompt_of(body)
        if CUES in prompt:
            if "bar chart" in prompt:
                return good_model(body, attempt)
            if "grid" in prompt:
                return Reply.ok(json.dumps({"cues": [{"element": "the odd letter", "phrase": "the odd letter Q"}]}))
            return Reply.ok(json.dumps({"cues": [{"element": "outline", "phrase": "shape"}]}))
        if PERTURB in prompt:
            if "bar chart" in prompt and "attempt 1" not in prompt:  # first a rewrite that states the answer
                return Reply.ok(json.dumps({"question": "The bar chart shows four bars labelled A to D. "
                                                        "What is the combined s_ze (24) of all bars?"}))
            if "bar chart" in prompt:
                return good_model(body, attempt)
            return Reply.ok(json.dumps({"question": "Which outline is drawn in the image?"}))  # options lost
        return Reply.ok("?")

    srv = scripted_server(script=model)
    cfg, _ = model_config(tmp_path, srv.base_url)
    out = tmp_path / "out"
    report = recognition(data, cfg, out, results=tmp_path / "results")
    (row,) = rows(out, "Morpho_P_Perturbed")
    assert row["question"] == ("The bar chart shows four bars labelled A to D. What is the combined s_ze of the "
                               "columns of all bars?")
    assert row["source_id"] == "Morpho_P_v0-1" and row["obfuscated"] == ["sum of the heights"]
    assert row["cues"] == [{"element": "bar heights", "phrase": "sum of the heights"}] and row["answer"] == "24"
    assert len(rows(out, "Morpho_P_v0")) == 3
    # a text-only model names the cues from the caption
    assert any("[Image 1: A bar chart with bars" in prompt_of(b) for b in srv.requests if CUES in prompt_of(b))
    dropped = report["dropped"]["Morpho_P_Perturbed"]
    assert sum(dropped.values()) == 2 and report["written"] == {"Morpho_P_Perturbed": 1}
    assert any(k.startswith("no usable cue after N attempt(s)") and "not in the question" in k for k in dropped)
    assert any(k.startswith("perturbation rejected after N attempt(s)") and "would read differently" in k
               for k in dropped)
    assert report["checks"]["perturbations"]["rejections"]["states the answer: … (part)"] == 1
    recs = {r["id"]: r for r in convert("morphobench", out, tmp_path / "conv" / "p.jsonl")}
    assert recs["Morpho_P_Perturbed-1_p"]["extra"]["source_id"] == "Morpho_P_v0-1"
    assert recs["Morpho_P_Perturbed-1_p"]["answer"] == recs["Morpho_P_v0-1"]["answer"] == ["24"]


def test_the_command_line(tmp_path, data, scripted_server, capsys):
    srv = scripted_server(script=good_model)
    cfg, _ = model_config(tmp_path, srv.base_url)
    raw = raw_file(tmp_path, {BAR: BAR_TRACE})
    args = ["--data", str(data), "--model", str(cfg), "--out", str(tmp_path / "out"), "--limit", "2",
            "--results", str(tmp_path / "results")]
    assert main(["reasoning", *args, "--source", f"responses:{raw}"]) == 0
    printed = capsys.readouterr().out
    assert "Morpho_R_Lite: 2 of 4 written, 2 dropped" in printed and "proof graphs: llm 1" in printed
    assert main(["recognition", *args]) == 0
    assert "Morpho_P_Perturbed: 1 of 2 written, 1 dropped" in capsys.readouterr().out
    assert main(["reasoning", *args, "--source", "answers.jsonl"]) == 1
    assert "--source" in capsys.readouterr().err


def test_a_failed_request_falls_back_now_and_is_asked_again_on_the_next_run(tmp_path, data, scripted_server):
    down = {"graph": True}

    def model(body, attempt):
        if GRAPH in prompt_of(body) and down["graph"]:
            return Reply.error(500)
        return good_model(body, attempt)

    srv = scripted_server(script=model)
    report = run_reasoning(tmp_path, data, srv)
    assert report["graph_source"] == {"heuristic": 1}
    (failure,) = report["graph_failures"]  # one request, final for this run: the client retried it
    assert failure.startswith("request failed") and "N" in failure
    assert sum(GRAPH in prompt_of(b) for b in srv.requests) == 2  # the client's own retry (max_retries 1)
    down["graph"] = False
    report = run_reasoning(tmp_path, data, srv)
    assert report["graph_source"] == {"llm": 1} and report["written"] == {"Morpho_R_Lite": 2, "Morpho_R_Complex": 2}


def test_the_records_own_solution_as_the_trace(tmp_path, data, scripted_server):
    records = read_jsonl(data)
    for r in records:
        if r["id"] == BAR:
            r["solution"] = BAR_TRACE
    with_solution = data.with_name("with_solution.jsonl")
    with_solution.write_text("".join(json.dumps(r) + "\n" for r in records))
    srv = scripted_server(script=good_model)
    cfg, _ = model_config(tmp_path, srv.base_url)
    report = reasoning(with_solution, cfg, tmp_path / "out", source="solution", limit=2, results=tmp_path / "results")
    assert report["written"] == {"Morpho_R_Lite": 2, "Morpho_R_Complex": 2}
    assert {(r["trace_source"], r["trace_correct"]) for r in rows(tmp_path / "out", "Morpho_R_Lite")} == {("solution", None)}
    assert report["dropped"]["Morpho_R_Lite"] == {"no reference trace: the record has no solution or steps": 2}
