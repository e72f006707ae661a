"""MIRA's published judge (judge/mira_acc.py) scores as the authors' acc.py does with --use-llm-judge: the first
answer tag, wrong without one, an exact match (stripped, lower-cased) right without asking, the LLM judge for the
rest; a response missing or empty gets no verdict but no_response."""
from __future__ import annotations

import pytest

from infer.templates import PROMPTS
from judge.judges import JUDGES
from judge.mira_acc import tagged_answer
from judge.run import judge_identity, run
from judge.types import Item
from tests.scripted_server import Reply, scripted_server  # noqa: F401  (fixture)
from tests.test_judge_run import judge_config, setup, verdicts

REC = {"id": "x", "benchmark": "mira", "task": "Convex Hull", "question": "Which points?", "images": [],
       "choices": [], "answer": ["A, C, E"], "answer_type": "text"}


def first_step(response: str, rec: dict = REC):
    """(the verdict given without asking, None) or (None, the asks of its first stage)."""
    steps = JUDGES["mira_judge"].steps(Item(rec, response))
    try:
        return None, next(steps)
    except StopIteration as done:
        return done.value, None


@pytest.mark.parametrize("response, correct, stage", [
    ("A, C, E", False, "no_answer_tag"),                           # the answer is not in the tag acc.py reads
    ("\\boxed{A, C, E}", False, "no_answer_tag"),
    ("<answer>A, C, E</answer>", True, "exact_match"),
    ("so <answer>  a, c, e \n</answer>", True, "exact_match"),       # stripped, lower-cased
    ("<ANSWER>A, C, E</ANSWER>", False, "no_answer_tag"),            # acc.py's pattern is case-sensitive
])
def test_settled_without_asking(response, correct, stage):
    verdict, asks = first_step(response)
    assert asks is None and verdict["correct"] is correct and verdict["stage"] == stage


@pytest.mark.parametrize("response", [
    "<answer>A,C,E</answer>",                   # not the same text: the LLM judge decides, not a looser rule here
    "<answer>The hull is A, C and E</answer>",
    "<answer>B</answer> on reflection <answer>A, C, E</answer>",  # acc.py reads the first tag
])
def test_the_rest_goes_to_the_paper_judge_without_the_image(response):
    verdict, asks = first_step(response)
    assert verdict is None and len(asks) == 1
    (ask,) = asks
    assert ask.prompt == "mira_judge" and ask.mode == "text" and ask.values["response"] == response  # as acc.py


def test_tagged_answer_is_the_first_tag():
    assert tagged_answer("<answer> x </answer><answer>y</answer>") == "x"
    assert tagged_answer("<answer>x") is None


def test_judge_run_asks_only_what_the_rule_leaves_and_keeps_failures_apart(tmp_path, scripted_server):
    srv = scripted_server(script=lambda body, attempt: Reply.ok("Correct"))
    records = [{**REC, "id": i} for i in "abcd"]
    raws = [{"id": "a", "sample_idx": 0, "request_key": "1", "response": "<answer>A, C, E</answer>", "error": None},
            {"id": "b", "sample_idx": 0, "request_key": "2", "response": "<answer>A; C; E</answer>", "error": None},
            {"id": "c", "sample_idx": 0, "request_key": "3", "response": "A, C, E", "error": None},
            {"id": "d", "sample_idx": 0, "request_key": "4", "response": "", "error": None}]
    data, _ = setup(tmp_path, "mira", raws, records)
    s = run("mira", data, "m", "s", "mira_judge", tmp_path / "results", judge_config(tmp_path, srv.base_url))
    v = {x["id"]: x for x in verdicts(tmp_path, "mira_judge", "mira")}
    assert srv.count == 1 and s["judge_calls"] == 1                 # b alone reached the judge model
    assert (v["a"]["stage"], v["b"]["stage"], v["c"]["stage"]) == ("exact_match", "llm_judge", "no_answer_tag")
    assert [v[i]["correct"] for i in "abc"] == [True, True, False]
    assert v["d"]["status"] == "no_response"                        # acc.py gives it no verdict


def test_the_verdicts_key_names_the_published_protocol(tmp_path):
    """Verdicts of the earlier judge, which asked the LLM about every response, are not taken for acc.py's."""
    identity = judge_identity(JUDGES["mira_judge"], judge_config(tmp_path, "http://127.0.0.1:9"), PROMPTS)
    assert identity["prompt_sha"].endswith("+acc.py")
