"""The proof graph: a trace cut into steps, a parser reply read leniently and validated strictly (every
failure names why), the heuristic graph used when no reply can be, and the tiers drawn from a graph —
coarse kinds first, the goal never, salient statements first."""
from __future__ import annotations

import json

import pytest

from pipeline.morphobench_adapt.graph import Graph, GraphError, Node, heuristic_graph, parse_graph, select_tiers, split_steps


def test_steps_are_paragraphs_else_lines_else_sentences():
    assert split_steps("First.\n\nSecond line\nstill second.\n\nThird.") == ["First.", "Second line\nstill second.",
                                                                          "Third."]
    assert split_steps("a = 1\nb = 2") == ["a = 1", "b = 2"]
    assert split_steps("Speed is distance over time. So it is 40 km/h.") == ["Speed is distance over time.",
                                                                           "So it is 40 km/h."]
    assert split_steps("  ") == []


def test_a_reply_in_prose_with_a_fence_latex_and_aliases_is_read():
    reply = ('Here is the graph:\n```json\n{"nodes": [\n'
             ' {"id": "a", "type": "Given condition", "statement": "Let $x = \\frac{1}{2}$", "steps": ["s0", 1]},\n'
             ' {"id": "b", "type": "conclusion", "statement": "So \\theta = 0", "steps": [2]}],\n'
             ' "edges": [{"from": "a", "to": "b"}]}\n```\nHope this helps.')
    graph = parse_graph(reply, 3)
    assert [(n.id, n.type, n.steps) for n in graph.nodes] == [("a", "given", (0, 1)), ("b", "goal", (2,))]
    assert graph.nodes[0].text == "Let $x = \\frac{1}{2}$" and graph.nodes[1].text == "So \\theta = 0"
    assert graph.edges == (("a", "b"),)


def reply(nodes, edges=()):
    return json.dumps({"nodes": nodes, "edges": [{"from": a, "to": b} for a, b in edges]})


GOAL = {"id": "g", "type": "goal", "statement": "done", "steps": [1]}


@pytest.mark.parametrize("text, why", [
    ("I cannot do that.", "no JSON"),
    (json.dumps({"nodes": []}), "no list of nodes"),
    (reply([{"id": "a", "type": "hunch", "statement": "x", "steps": [0]}, GOAL]), "unknown node type"),
    (reply([{"id": "a", "type": "given", "statement": "x", "steps": [5]}, GOAL]), "step 5 does not exist"),
    (reply([{"id": "a", "type": "given", "statement": "x", "steps": []}, GOAL]), "not linked to any step"),
    (reply([{"id": "a", "type": "given", "statement": "", "steps": [0]}, GOAL]), "states nothing"),
    (reply([{"id": "a", "type": "given", "statement": "x", "steps": [0]}, {**GOAL, "id": "a"}]), "repeated"),
    (reply([{"id": "a", "type": "given", "statement": "x", "steps": [0]}, GOAL], [("a", "z")]), "unknown node"),
    (reply([{"id": "a", "type": "lemma", "statement": "x", "steps": [0]}, GOAL], [("a", "g"), ("g", "a")]), "cycle"),
    (reply([{"id": "a", "type": "lemma", "statement": "x", "steps": [0]}]), "no goal"),
])
def test_a_reply_that_is_no_proof_graph_says_why(text, why):
    with pytest.raises(GraphError, match=why):
        parse_graph(text, 2)


def test_the_heuristic_graph_has_one_node_per_step_in_a_chain():
    steps = ["The figure shows four bars with their heights.", "Let S be the sum of the heights.",
             "Therefore S = 8 + 9 + 4 + 3.", "The bars differ in colour.", "The answer is 24."]
    graph = heuristic_graph(steps)
    assert [(n.id, n.type, n.steps) for n in graph.nodes] == [
        ("s0", "given", (0,)), ("s1", "construction", (1,)), ("s2", "lemma", (2,)), ("s3", "observation", (3,)),
        ("s4", "goal", (4,))]
    assert graph.edges == (("s0", "s1"), ("s1", "s2"), ("s2", "s3"), ("s3", "s4"))


def node(i: str, kind: str, step: int) -> Node:
    return Node(i, kind, f"statement {i}", (step,))


def test_tiers_go_from_focus_to_setup_to_lemmas_and_never_hint_the_goal():
    graph = Graph((node("g1", "given", 0), node("c1", "construction", 1), node("l1", "lemma", 2),
                   node("o1", "observation", 3), node("goal", "goal", 4)),
                  (("g1", "c1"), ("c1", "l1"), ("l1", "goal"), ("o1", "goal")))
    tiers = select_tiers(graph)
    assert {t: [n.id for n in ns] for t, ns in tiers.items()} == {1: ["g1", "o1"], 2: ["c1"], 3: ["l1"]}


def test_salient_statements_are_chosen_first_and_excluded_ones_never():
    # three lemmas, at most two per tier: the dead end (no path to the goal) is left out
    graph = Graph((node("a", "lemma", 0), node("b", "lemma", 1), node("dead", "lemma", 2), node("g", "goal", 3)),
                  (("a", "b"), ("b", "g"), ("a", "dead")))
    assert [n.id for n in select_tiers(graph)[3]] == ["a", "b"]
    assert [n.id for n in select_tiers(graph, excluded=lambda n: n.id == "a")[3]] == ["b", "dead"]
