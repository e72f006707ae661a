"""How a model's reasoning reaches us is declared in its config: the markers the client splits the text by
(Kimi-VL writes ◁think▷ … ◁/think▷), and whether the endpoint returns the reasoning at all (returned / hidden /
none), which decides whether a process judge may score a trajectory. A response cut at its token limit with no
final answer is counted as truncated."""
from __future__ import annotations

import json

import pandas as pd
import pytest

from infer.client import split_reasoning
from infer.config import ConfigError
from infer.layout import manifest_of, raw_path
from judge.extract import states_answer, truncated
from judge.run import describe, run as judge
from judge.types import Item
from tests.scripted_server import Reply, scripted_server  # noqa: F401  (fixture)
from tests.test_client import data_file, go, lines, model_config
from tests.test_judge_run import judge_config, setup, verdicts
from tests.test_tot import script, tot_raws, tot_records

KIMI = ["◁think▷", "◁/think▷"]


def test_the_config_declares_reasoning_and_its_markers(tmp_path):
    cfg = model_config(tmp_path, ["http://127.0.0.1:9"])
    assert cfg.reasoning == "none" and cfg.reasoning_markers == ("<think>", "</think>")
    cfg = model_config(tmp_path, ["http://127.0.0.1:9"], reasoning="returned", reasoning_markers=KIMI,
                       decoding_source="the model card")
    assert cfg.reasoning_markers == tuple(KIMI) and cfg.public_dict()["reasoning"] == "returned"
    assert cfg.public_dict()["decoding_source"] == "the model card"


def test_a_model_with_thinking_switches_declares_each(tmp_path):
    """Claude through Anthropic's OpenAI-compatible endpoint: no reasoning when thinking is off, hidden when on."""
    cfg = model_config(tmp_path, ["http://127.0.0.1:9"], reasoning={"default": "none", "on": "hidden"},
                       thinking={"on": {"thinking": {"type": "enabled"}}, "off": {}})
    assert [cfg.reasoning_of(t) for t in (None, "off", "on", "highest")] == ["none", "none", "hidden", "hidden"]


def test_the_run_records_the_declaration_of_its_switch(tmp_path, scripted_server):
    srv = scripted_server()
    cfg = model_config(tmp_path, [srv.base_url], reasoning={"default": "none", "on": "hidden"},
                       thinking={"on": {"reasoning_effort": "high"}, "off": {}})
    for setting in ("cot_boxed", "cot_boxed+think"):
        go(tmp_path, cfg, data_file(tmp_path, n=1), setting=setting)
    read = lambda s: json.loads(manifest_of(raw_path(tmp_path / "results", "omibench", cfg.name, s)).read_text())
    assert read("cot_boxed")["reasoning"] == "none" and read("cot_boxed+think")["reasoning"] == "hidden"
    from infer.generation import apply
    assert apply(cfg, {}, "highest").reasoning == "hidden" and apply(cfg, {}, None).reasoning_of() == "none"


@pytest.mark.parametrize("extra, why", [
    ({"reasoning": {"on": "hidden"}}, "reasoning: expected"),          # no default
    ({"reasoning": {"default": "none", "maybe": "hidden"}}, "reasoning: expected"),
    ({"reasoning": {"default": "none", "on": "secret"}}, "reasoning: expected"),
    ({"reasoning": "shown"}, "reasoning: expected one of returned, hidden, none"),
    ({"reasoning_markers": ["<think>"]}, r"reasoning_markers: expected \[opening tag, closing tag\]"),
    ({"reasoning_markers": ["<t>", "<t>"]}, "reasoning_markers"),
    ({"reasoning_markers": ["<t>", ""]}, "reasoning_markers"),
    ({"decoding_source": 3}, "decoding_source"),
])
def test_a_wrong_declaration_is_one_clear_error(tmp_path, extra, why):
    with pytest.raises(ConfigError, match=why):
        model_config(tmp_path, ["http://127.0.0.1:9"], **extra)


@pytest.mark.parametrize("content, markers, want", [
    ("◁think▷ count the faces ◁/think▷ The answer is 4.", KIMI, ("The answer is 4.", "count the faces")),
    ("count the faces ◁/think▷ The answer is 4.", KIMI, ("The answer is 4.", "count the faces")),
    ("◁think▷ still thinking when cut", KIMI, ("", "still thinking when cut")),
    ("<think>x</think> The answer is 4.", KIMI, ("<think>x</think> The answer is 4.", None)),  # not its tags
    ("◁think▷ x ◁/think▷ 4", ["<think>", "</think>"], ("◁think▷ x ◁/think▷ 4", None)),
    ("<think>x</think> 4", ["<think>", "</think>"], ("4", "x")),
])
def test_the_text_is_split_by_the_model_s_own_markers(content, markers, want):
    assert split_reasoning({"content": content}, tuple(markers)) == want


def test_the_client_splits_by_the_config_s_markers(tmp_path, scripted_server):
    srv = scripted_server(script=[Reply.ok("◁think▷ 2 + 2 ◁/think▷ The answer is \\boxed{4}.")])
    go(tmp_path, model_config(tmp_path, [srv.base_url], reasoning="returned", reasoning_markers=KIMI),
       data_file(tmp_path, n=1))
    (line,) = lines(tmp_path)
    assert (line["response"], line["reasoning"]) == ("The answer is \\boxed{4}.", "2 + 2")


def test_offline_engine_results_are_split_by_the_same_markers():
    from infer.engines import _result

    out = {"text": "◁think▷ a ◁/think▷ b", "finish_reason": "stop", "prompt_tokens": 1, "completion_tokens": 2}
    assert (_result(out, None, 0.1, tuple(KIMI))["response"], _result(out, None, 0.1, tuple(KIMI))["reasoning"]) \
        == ("b", "a")


# --- the declaration decides whether a trajectory is scored --------------------------------------------------

def declare(raw_file, reasoning):
    manifest_of(raw_file).write_text(json.dumps({"model": {"name": "m", "reasoning": reasoning}}))


@pytest.mark.parametrize("declared, scored", [("hidden", False), ("returned", True), ("none", True)])
def test_tot_scores_a_trajectory_only_where_the_config_says_it_is_shown(tmp_path, scripted_server, declared, scored):
    """A hidden model's text is a summary, never scored, whatever its usage says (this one reports no reasoning
    tokens); a model declared to return its reasoning, or to have none apart, is scored on what it shows."""
    srv = scripted_server(script=script)
    raw = {**tot_raws()[1], "usage": {"prompt_tokens": 10, "completion_tokens": 5, "reasoning_tokens": None}}
    data, raw_file = setup(tmp_path, "think360", [raw], tot_records()[1:2])
    declare(raw_file, declared)
    judge("think360", data, "m", "s", "think360_tot", tmp_path / "results", judge_config(tmp_path, srv.base_url))
    (v,) = verdicts(tmp_path, "think360_tot", "think360")
    assert (v["stage"] != "no_trajectory") is scored and (srv.count > 0) is scored


def test_a_declaration_wins_over_the_usage():
    rec = {"id": "a"}
    assert not Item(rec, "text", None, reasoning_tokens=500, declared="none").trajectory_hidden
    assert Item(rec, "text", None, reasoning_tokens=None, declared="hidden").trajectory_hidden
    assert Item(rec, "text", None, reasoning_tokens=500).trajectory_hidden  # a run recorded before declarations


# --- truncated: cut at the token limit with no final answer -------------------------------------------------

@pytest.mark.parametrize("finish, text, cut", [
    ("length", "Let x be the side. Then 2x + 3 = 11, so x", True),
    ("length", "", True),                                    # every token spent on reasoning
    ("length", None, True),
    ("length", "Hence \\boxed{4}. Let me double-check the", False),   # an answer was stated before the cut
    ("length", "<answer>B</answer> because", False),
    ("length", "The answer is 4, since", False),
    ("length", "最终答案：4，因为", False),
    ("length", "<think>The answer is 4</think>", True),       # inside the reasoning: not a final answer
    ("stop", "Let x be the side", False),                    # stopped on its own: not cut
    (None, None, False),                                     # a failed request
])
def test_truncated_is_cut_at_the_limit_without_a_final_answer(finish, text, cut):
    assert truncated(finish, text) is cut


def test_a_last_line_is_not_a_stated_answer():
    assert not states_answer("so the sum is\n4") and states_answer("Answer: 4")


def test_truncated_responses_are_counted_beside_the_accuracy(tmp_path):
    from analysis.inputs import find_runs, load_run
    from analysis.stats import BESIDE, accuracy_table

    raws = [{"id": "a", "sample_idx": 0, "request_key": "1", "response": "so x = \\boxed{5}", "error": None,
             "finish_reason": "length"},
            {"id": "b", "sample_idx": 0, "request_key": "2", "response": "First, compare the", "error": None,
             "finish_reason": "length"},
            {"id": "c", "sample_idx": 0, "request_key": "3", "response": "", "error": None, "finish_reason": "length"}]
    data, raw_file = setup(tmp_path, "omibench", raws)
    summary = judge("omibench", data, "m", "s", "rules", tmp_path / "results")
    assert summary["truncated"] == 2 and "2 truncated (cut at max_tokens" in describe(summary)
    (run,) = find_runs(tmp_path / "results", "omibench", "rules")
    df = load_run(run)
    assert list(df.sort_values("id")["truncated"]) == [False, True, True]
    row = accuracy_table(df, ["model"]).iloc[0]
    assert "truncated" in BESIDE and (row["truncated"], row["no_response"], row["judged"]) == (2, 1, 3)
    assert pd.api.types.is_integer(row["truncated"])
