"""Think360 ToT-Eval: trees read from hand-written judge replies (and repaired), ToT-Depth (Eq. S1) and
ToT-Width under both readings of Appendix G (Eq. S2; the prose, with the roots as a sibling group) on
hand-computed trees, the `judge.tot score` command, and the judge end to end
against a scripted judge model, where a failure is a judge error and never a score."""
from __future__ import annotations

import json

import pytest

from infer.layout import judged_dir
from judge.parse import reasoning_tree, true_false
from judge.run import run
from judge.tot import TreeError, main, parse_tree, score_tree, tot_depth, tot_width, tot_width_with_roots
from tests.scripted_judge import quoted
from tests.scripted_server import Reply, scripted_server  # noqa: F401  (fixture)
from tests.test_judge_run import judge_config, setup, verdicts


# --------------------------------------------------------------------------------------------------
# Reading a tree from the extraction reply
# --------------------------------------------------------------------------------------------------
def test_a_json_list_of_nodes():
    reply = json.dumps([
        {"id": "1.1", "parent": None, "type": "deduction", "content": "Colour the board like a chessboard."},
        {"id": "2.1", "parent": "1.1", "type": "calculation", "content": "b - w = 4 - 2 = 2"},
        {"id": "2.2", "parent": "1.1", "type": "calculation", "content": "Try the other case: w > b"},
        {"id": "3.1", "parent": "2.1", "type": "conclusion", "content": "So it cannot be tiled."},
    ])
    nodes = parse_tree(reply)
    assert [(n.id, n.parent, n.type) for n in nodes] == [
        ("1.1", None, "deduction"), ("2.1", "1.1", "calculation"), ("2.2", "1.1", "calculation"),
        ("3.1", "2.1", "conclusion")]
    assert nodes[1].text == "b - w = 4 - 2 = 2"


def test_text_with_brackets_new_lines_and_latex_survives():
    # a code fence, brackets and a new line inside the text, LaTeX with the single backslashes models write
    reply = ('```json\n{"nodes": [\n {"id": "1.1", "parent": "None", "content": "Let $A = [0, 1]$ and\\n'
             '$\\frac{1}{2} \\in A$, \\theta \\neq 0", "type": "setup"},\n {"id": "2.1", "parent": "1.1", '
             '"content": "Hence $x \\in ]0, 1[$", "type": "deduction"}\n]}\n```')
    nodes = parse_tree(reply)
    assert [n.id for n in nodes] == ["1.1", "2.1"]
    assert nodes[0].text == "Let $A = [0, 1]$ and\n$\\frac{1}{2} \\in A$, \\theta \\neq 0"
    assert nodes[1].text == "Hence $x \\in ]0, 1[$"


def test_a_trailing_comma_and_a_raw_new_line_are_repaired():
    reply = '[{"id": "1.1", "parent": null, "content": "first line\nsecond line"},]'
    assert [n.text for n in parse_tree(reply)] == ["first line\nsecond line"]


def test_ids_are_renumbered_from_the_parents():
    """A wrong depth in an id (3.1 under a depth-1 node) is repaired; ids follow {depth}.{sequence}."""
    reply = json.dumps([{"id": "a", "parent": None, "content": "x"}, {"id": "b", "parent": None, "content": "y"},
                        {"id": "3.1", "parent": "b", "content": "z"}, {"id": "c", "parent": "3.1", "content": "w"}])
    assert [(n.id, n.parent) for n in parse_tree(reply)] == [("1.1", None), ("1.2", None), ("2.1", "1.2"),
                                                            ("3.1", "2.1")]


def test_an_answer_only_response_is_one_root():
    nodes = parse_tree('[{"id": "1.1", "parent": null, "type": "answer", "content": "D"}]')
    assert [(n.id, n.parent, n.text) for n in nodes] == [("1.1", None, "D")]


@pytest.mark.parametrize("reply, why", [
    ('[{"id": "1.1", "parent": null}, {"id": "2.1", "parent": "1.7"}]', "not a node"),
    ('[{"id": "1.1", "parent": "2.1"}, {"id": "2.1", "parent": "1.1"}]', "cycle"),
    ('[{"id": "1.1", "parent": null}, {"id": "1.1", "parent": null}]', "duplicate"),
    ('[{"parent": null, "content": "x"}]', "no id"),
    ("I could not build a tree.", "no nodes"),
    ("", "no"),
])
def test_a_reply_that_is_no_tree_is_an_error_naming_why(reply, why):
    with pytest.raises(TreeError, match=why):
        parse_tree(reply)
    assert reasoning_tree(reply) is None


@pytest.mark.parametrize("reply, want", [("True", True), ("False", False), ("**False**", False), ("true.", True),
                                         ("True or False", None), ("The step is correct", None), ("", None)])
def test_node_judgements_are_read_strictly(reply, want):
    got = true_false(reply)
    assert (got is None) if want is None else got["correct"] is want


# --------------------------------------------------------------------------------------------------
# ToT-Depth (S1) and ToT-Width (S2)
# --------------------------------------------------------------------------------------------------
def node(i, parent, correct):
    return {"id": i, "parent": parent, "correct": correct}


TREE = [node("1.1", None, True),
        node("2.1", "1.1", True), node("2.2", "1.1", False), node("2.3", "1.1", True),
        node("3.1", "2.1", True), node("3.2", "2.1", False), node("3.3", "2.3", False)]


def test_depth_averages_the_paths_to_the_deepest_leaves():
    # deepest leaves 3.1, 3.2, 3.3: paths 1.1-2.1-3.1 (3/3), 1.1-2.1-3.2 (2/3), 1.1-2.3-3.3 (2/3)
    assert tot_depth(TREE) == pytest.approx((1 + 2 / 3 + 2 / 3) / 3)


def test_width_averages_the_children_of_every_parent_that_has_children():
    # G = the parents with at least one child: 1.1 (children 2.1 T, 2.2 F, 2.3 T: 2/3), 2.1 (3.1 T, 3.2 F: 1/2),
    # 2.3 (3.3 F: 0/1). The root 1.1 is nobody's child, so its own correctness is in no group.
    assert tot_width(TREE) == pytest.approx((2 / 3 + 1 / 2 + 0) / 3)


def test_width_with_roots_adds_the_roots_as_one_more_group():
    # the prose reading: the same three groups and the roots {1.1 T}: 1/1 -- 13/24 against Eq. S2's 7/18
    assert tot_width_with_roots(TREE) == pytest.approx((1 + 2 / 3 + 1 / 2 + 0) / 4)


def test_a_chain_has_one_group_per_parent():
    # T -> T -> T -> F: the parents 1.1, 2.1, 3.1 each have one child, right, right and wrong: 2/3
    chain = [node("1.1", None, True), node("2.1", "1.1", True), node("3.1", "2.1", True), node("4.1", "3.1", False)]
    assert tot_width(chain) == pytest.approx(2 / 3)
    assert tot_width_with_roots(chain) == pytest.approx(3 / 4)  # the root's group {1.1 T} too: (1 + 1 + 1 + 0) / 4
    assert tot_depth(chain) == pytest.approx(3 / 4)


def test_a_wrong_root_does_not_lower_the_width_of_its_right_child():
    tree = [node("1.1", None, False), node("2.1", "1.1", True)]
    assert tot_width(tree) == 1.0                # one group, the children of 1.1: 1/1
    assert tot_width_with_roots(tree) == 0.5     # ... but it does under the prose reading: (0/1 + 1/1) / 2
    assert tot_depth(tree) == pytest.approx(1 / 2)


def test_several_roots_form_no_group_in_eq_s2_and_one_group_in_the_prose():
    roots = [node("1.1", None, True), node("1.2", None, False), node("2.1", "1.2", True)]
    assert tot_depth(roots) == pytest.approx(1 / 2)  # one deepest path: 1.2 (wrong) - 2.1 (right)
    assert tot_width(roots) == 1.0                   # one parent with children, 1.2: 1/1
    assert tot_width_with_roots(roots) == pytest.approx(3 / 4)  # the roots {T, F}: 1/2, and 1.2's {T}: 1/1


def test_a_tree_without_parents_has_no_width_in_eq_s2_and_its_roots_share_in_the_prose():
    # an answer-only response is one root; several roots and no child are no better: G is empty. Under the
    # prose reading the roots are a sibling group: the share of them that is right.
    assert score_tree([node("1.1", None, False)]) == {"tot_depth": 0.0, "tot_width": None, "tot_width_with_roots": 0.0}
    assert score_tree([node("1.1", None, True)]) == {"tot_depth": 1.0, "tot_width": None, "tot_width_with_roots": 1.0}
    assert score_tree([node("1.1", None, True), node("1.2", None, False)]) == \
        {"tot_depth": 0.5, "tot_width": None, "tot_width_with_roots": 0.5}
    assert score_tree([]) == {"tot_depth": None, "tot_width": None, "tot_width_with_roots": None}


def test_score_tree_renumbers_before_grouping():
    # ids as a judge might write them (not {depth}.{sequence}); the parents alone make the groups
    tree = [node("a", None, True), node("b", "a", False), node("c", "a", True), node("d", None, False)]
    assert score_tree(tree) == {"tot_depth": pytest.approx((1 / 2 + 1) / 2), "tot_width": 0.5,
                                "tot_width_with_roots": pytest.approx((1 / 2 + 1 / 2) / 2)}


def test_score_command(tmp_path, capsys):
    f = tmp_path / "trees.jsonl"
    f.write_text(json.dumps({"id": "q1", "nodes": TREE}) + "\n" + json.dumps({"id": "q2", "nodes": [node("1.1", None, True)]})
                 + "\n")
    assert main(["score", str(f)]) == 0
    out = capsys.readouterr().out.splitlines()
    lines = [json.loads(x) for x in out]
    assert lines[0]["id"] == "q1" and lines[0]["tot_depth"] == pytest.approx(7 / 9)
    assert lines[0]["tot_width"] == pytest.approx(7 / 18)
    assert lines[0]["tot_width_with_roots"] == pytest.approx(13 / 24)
    assert lines[1] == {"id": "q2", "tot_depth": 1.0, "tot_width": None, "tot_width_with_roots": 1.0}
    assert '"tot_width": null' in out[1]  # a tree with no parent node: no width, never 1.0


# --------------------------------------------------------------------------------------------------
# The judge end to end
# --------------------------------------------------------------------------------------------------
def tot_records():
    return [{"id": i, "benchmark": "think360", "question": f"Can board {i} be tiled?", "images": [], "choices": [],
             "answer": ["No"], "answer_type": "text"} for i in "abc"]


def tot_raws():
    return [{"id": "a", "sample_idx": 0, "request_key": "1", "error": None,
             "response": "Colour it. Black minus white is 2, so no tiling. Answer: No"},
            {"id": "b", "sample_idx": 0, "request_key": "2", "error": None, "response": "No"},
            {"id": "c", "sample_idx": 0, "request_key": "3", "error": None, "response": "I am not sure."}]


def script(body, attempt):
    prompt = body["messages"][0]["content"]
    if "decomposing mathematical reasoning" in prompt:
        (solution,) = quoted(prompt)
        if "Colour it" in solution:
            return Reply.ok(json.dumps([{"id": "1.1", "parent": None, "type": "setup", "content": "Colour it."},
                                        {"id": "2.1", "parent": "1.1", "type": "calculation",
                                         "content": "Black minus white is 2"},
                                        {"id": "3.1", "parent": "2.1", "type": "conclusion", "content": "so no tiling"}]))
        if "I am not sure" in solution:
            return Reply.ok("There is no reasoning to extract.")
        return Reply.ok('[{"id": "1.1", "parent": null, "type": "answer", "content": "No"}]')
    step = quoted(prompt, "ANSWER")[-1]
    return Reply.ok("False" if "Black minus white" in step else "True")


def test_tot_judge_scores_trees_and_records_failures(tmp_path, scripted_server):
    srv = scripted_server(script=script)
    data, _ = setup(tmp_path, "think360", tot_raws(), tot_records())
    s = run("think360", data, "m", "s", "think360_tot", tmp_path / "results", judge_config(tmp_path, srv.base_url))
    v = {x["id"]: x for x in verdicts(tmp_path, "think360_tot", "think360")}
    a = v["a"]
    assert a["status"] == "ok" and [n["correct"] for n in a["tree"]] == [True, False, True]
    # the chain 1.1 (right) → 2.1 (wrong) → 3.1 (right): depth 2/3; the parents 1.1 and 2.1 have one child
    # each, wrong and right: width 1/2
    # with the root's group {1.1 right} too: (1 + 0 + 1) / 3
    assert a["score"] == {"tot_depth": pytest.approx(2 / 3), "tot_width": 0.5, "tot_width_with_roots": pytest.approx(2 / 3)}
    # answer only: one root node, no parent; the prose reading's one group is that root
    assert v["b"]["score"] == {"tot_depth": 1.0, "tot_width": None, "tot_width_with_roots": 1.0}
    assert v["c"]["status"] == "judge_error" and "tree extraction" in v["c"]["error"] and "score" not in v["c"]
    # every node was judged with its ancestors, the question and the reference answer
    node_prompts = [r["messages"][0]["content"] for r in srv.requests if "ToT" not in r["messages"][0]["content"]
                    and "evaluating mathematical" in r["messages"][0]["content"]]
    last = next(p for p in node_prompts if "so no tiling" in quoted(p, "ANSWER")[-1])
    assert "1.1 (setup): Colour it." in last and "2.1 (calculation): Black minus white is 2" in last
    assert "Can board a be tiled?" in last and "[Reference Answer]\nNo" in last
    assert s["judge_error"] == 1
    # a rerun repeats no call
    calls = srv.count
    judged_dir(tmp_path / "results").rename(tmp_path / "old")
    run("think360", data, "m", "s", "think360_tot", tmp_path / "results", judge_config(tmp_path, srv.base_url))
    assert srv.count == calls


def test_an_unreadable_node_judgement_is_a_judge_error_not_a_partial_score(tmp_path, scripted_server):
    def unsure(body, attempt):
        reply = script(body, attempt)
        if "evaluating mathematical" in body["messages"][0]["content"] and "Colour it." in \
                quoted(body["messages"][0]["content"], "ANSWER")[-1]:
            return Reply.ok("It depends.")
        return reply

    srv = scripted_server(script=unsure)
    data, _ = setup(tmp_path, "think360", tot_raws()[:1], tot_records()[:1])
    run("think360", data, "m", "s", "think360_tot", tmp_path / "results", judge_config(tmp_path, srv.base_url))
    (v,) = verdicts(tmp_path, "think360_tot", "think360")
    assert v["status"] == "judge_error" and "1 of 3 node judgements failed" in v["error"] and "score" not in v


def test_the_summary_of_a_process_judge_gives_its_score_means_not_an_accuracy(tmp_path, scripted_server):
    srv = scripted_server(script=script)
    data, _ = setup(tmp_path, "think360", tot_raws(), tot_records())
    s = run("think360", data, "m", "s", "think360_tot", tmp_path / "results", judge_config(tmp_path, srv.base_url))
    assert s["accuracy"] is None and s["score_means"]["tot_depth"] == pytest.approx((2 / 3 + 1) / 2)
    assert s["score_means"]["tot_width"] == 0.5  # b's tree has no width: the mean is over a alone
    assert s["judge_calls"] == srv.count == 3 + 3 + 1  # three extractions, three nodes of a, one of b


def test_the_tree_is_built_from_the_whole_trajectory(tmp_path, scripted_server):
    """A thinking model returns its reasoning apart: the tree is extracted from that reasoning followed by the
    final response (Think360 §4.1, "the complete reasoning trajectory"), never from the final text alone."""
    srv = scripted_server(script=script)
    raw = {"id": "a", "sample_idx": 0, "request_key": "1", "error": None, "response": "Answer: No",
           "reasoning": "Colour it. Black minus white is 2, so no tiling.",
           "usage": {"prompt_tokens": 10, "completion_tokens": 40, "reasoning_tokens": 30}}
    data, _ = setup(tmp_path, "think360", [raw], tot_records()[:1])
    run("think360", data, "m", "s", "think360_tot", tmp_path / "results", judge_config(tmp_path, srv.base_url))
    extraction = next(r["messages"][0]["content"] for r in srv.requests
                      if "decomposing mathematical reasoning" in r["messages"][0]["content"])
    (solution,) = quoted(extraction)
    assert solution == "Colour it. Black minus white is 2, so no tiling.\n\nAnswer: No"
    (v,) = verdicts(tmp_path, "think360_tot", "think360")
    assert v["status"] == "ok" and v["score"]["tot_depth"] == pytest.approx(2 / 3)


def test_a_hidden_trajectory_is_not_scored_on_its_summary(tmp_path, scripted_server):
    """A model that reports reasoning tokens but returns only its final text (o3, Gemini-2.5-Pro) shows a
    summary: it gets no ToT score and costs no call, and is counted apart (§4.2 leaves such models out)."""
    srv = scripted_server(script=script)
    hidden = {"id": "a", "sample_idx": 0, "request_key": "1", "error": None,
              "response": "Colour it. Black minus white is 2, so no tiling. Answer: No", "reasoning": None,
              "usage": {"prompt_tokens": 10, "completion_tokens": 900, "reasoning_tokens": 880}}
    shown = {**tot_raws()[1], "usage": {"prompt_tokens": 10, "completion_tokens": 1, "reasoning_tokens": 0}}
    data, _ = setup(tmp_path, "think360", [hidden, shown], tot_records()[:2])
    s = run("think360", data, "m", "s", "think360_tot", tmp_path / "results", judge_config(tmp_path, srv.base_url))
    v = {x["id"]: x for x in verdicts(tmp_path, "think360_tot", "think360")}
    assert v["a"]["stage"] == "no_trajectory" and v["a"]["score"] is None and v["a"]["status"] == "ok"
    assert v["b"]["score"] == {"tot_depth": 1.0, "tot_width": None, "tot_width_with_roots": 1.0}
    assert srv.count == 2 and s["judge_calls"] == 2  # b's extraction and its one node; nothing for a


def test_a_verdict_judged_one_reasoning_is_not_the_verdict_of_another():
    """Process judges review the reasoning: an outcome with the same key and reply but other reasoning is
    another outcome, judged anew."""
    from judge.current import outcome_sha

    raw = {"id": "a", "sample_idx": 0, "request_key": "k", "error": None, "response": "No", "reasoning": "x = 2"}
    assert outcome_sha(raw) != outcome_sha({**raw, "reasoning": "x = 3"})
    assert outcome_sha(raw) != outcome_sha({**raw, "response": "Yes"})
