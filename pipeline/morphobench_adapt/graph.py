"""The proof graph of a reasoning trace (MorphoBench §3.2.1, §3.3, Appendix A.3), and the tiers of hints
drawn from it.

"Given a step sequence S = (s_0, …, s_{n−1}), we convert it into a directed acyclic graph using
lightweight heuristics together with an LLM-based parser. Each node corresponds to an intermediate
statement, such as a given condition, a construction, an observation, a lemma, or the final goal. Each
directed edge indicates that one statement supports or leads to another. Each node is linked back to
the indices of the steps that gave rise to it" (A.3). The trace is cut into steps here (`split_steps`);
the LLM parser's reply is read leniently and validated strictly (`parse_graph`); when no reply can be
used, `heuristic_graph` builds one node per step, and the item records which of the two it got.

Tiers (`select_tiers`): "Early tiers mainly indicate what objects to focus on and what basic setup or
auxiliary construction to introduce, while later tiers gradually disclose key intermediate
relationships or important conclusions" — so tier 1 takes given conditions and observations, tier 2
constructions, tier 3 lemmas; the goal is never a hint. Within a tier the most salient statements are
taken: those on a path to the goal first, then those supporting most others.
"""
from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Any, Callable

from pipeline.morphobench_adapt.asking import read_json


TYPES = ("given", "construction", "observation", "lemma", "goal")
# Names a parser may use for the paper's node kinds; anything else is an error, never a guess.
_ALIASES = {"condition": "given", "premise": "given", "given condition": "given", "assumption": "given",
            "auxiliary construction": "construction", "setup": "construction",
            "intermediate": "lemma", "intermediate conclusion": "lemma", "deduction": "lemma",
            "final goal": "goal", "conclusion": "goal", "answer": "goal", "final answer": "goal"}
TIERS = {1: ("given", "observation"), 2: ("construction",), 3: ("lemma",)}
TIER_ROLE = {1: "what objects to focus on", 2: "what basic setup or auxiliary construction to introduce",
             3: "a key intermediate relationship or conclusion"}
PER_TIER = 2  # statements made into hints per tier: "each tier H_t contains several short hint statements"


class GraphError(ValueError):
    """A parser reply that is not a usable proof graph; the reason is recorded with the item."""


@dataclass(frozen=True)
class Node:
    id: str
    type: str
    text: str
    steps: tuple[int, ...]  # indices into the trace's steps, s_0 … s_{n−1}


@dataclass(frozen=True)
class Graph:
    nodes: tuple[Node, ...]
    edges: tuple[tuple[str, str], ...]  # (supporting statement, supported statement)

    def node(self, node_id: str) -> Node:
        return next(n for n in self.nodes if n.id == node_id)

    def to_json(self) -> dict[str, Any]:
        return {"nodes": [{**asdict(n), "steps": list(n.steps)} for n in self.nodes],
                "edges": [{"from": a, "to": b} for a, b in self.edges]}


# ------------------------------------------------------------------------------------------ steps

_NUMBERED = re.compile(r"^\s*(?:step\s*\d+\s*[:.)]|\d+[.)]|[-*•])\s+", re.I)
_SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s+(?=[A-Z0-9\\$(\"“])")


def split_steps(trace: str) -> list[str]:
    """The trace as its steps: paragraphs, else lines, else sentences (a one-paragraph answer)."""
    text = (trace or "").strip()
    if not text:
        return []
    for pattern in (r"\n\s*\n", r"\n"):
        pieces = [p.strip() for p in re.split(pattern, text) if p.strip()]
        if len(pieces) > 1:
            return pieces
    return [p.strip() for p in _SENTENCE_END.split(text) if p.strip()]


# ------------------------------------------------------------------------------------------ parsing

def _type(value: Any) -> str:
    t = re.sub(r"\s+", " ", str(value or "")).strip().lower()
    t = _ALIASES.get(t, t)
    if t not in TYPES:
        raise GraphError(f"unknown node type {value!r} (one of {', '.join(TYPES)})")
    return t


def _steps(value: Any, n_steps: int, node_id: str) -> tuple[int, ...]:
    items = value if isinstance(value, list) else [value]
    out = []
    for v in items:
        m = re.fullmatch(r"\s*s?_?(\d+)\s*", str(v), re.I)
        if not m or isinstance(v, bool):
            raise GraphError(f"node {node_id}: step {v!r} is not a step number")
        k = int(m.group(1))
        if k >= n_steps:
            raise GraphError(f"node {node_id}: step {k} does not exist (the trace has steps 0–{n_steps - 1})")
        out.append(k)
    if not out:
        raise GraphError(f"node {node_id}: not linked to any step")
    return tuple(sorted(set(out)))


def _cycle(ids: list[str], edges: list[tuple[str, str]]) -> bool:
    children = {i: [b for a, b in edges if a == i] for i in ids}
    state: dict[str, int] = {}

    def visit(i: str) -> bool:  # True when a cycle is reachable from i
        state[i] = 1
        for c in children[i]:
            if state.get(c) == 1 or (c not in state and visit(c)):
                return True
        state[i] = 2
        return False

    return any(i not in state and visit(i) for i in ids)


def parse_graph(reply: str, n_steps: int) -> Graph:
    """The proof graph in a parser reply: nodes of the paper's five kinds, each linked to existing steps,
    edges between known nodes, no cycle, at least one goal. Anything else is a GraphError naming why."""
    try:
        obj = read_json(reply)
    except ValueError as e:
        raise GraphError(str(e)) from e
    if not isinstance(obj, dict) or not isinstance(obj.get("nodes"), list) or not obj["nodes"]:
        raise GraphError("the reply has no list of nodes")
    nodes, seen = [], set()
    for k, raw in enumerate(obj["nodes"], start=1):
        if not isinstance(raw, dict) or str(raw.get("id") or "").strip() == "":
            raise GraphError(f"node {k} has no id")
        node_id = str(raw["id"]).strip()
        if node_id in seen:
            raise GraphError(f"node id {node_id} is repeated")
        seen.add(node_id)
        text = str(raw.get("statement", raw.get("text", raw.get("content", ""))) or "").strip()
        if not text:
            raise GraphError(f"node {node_id} states nothing")
        nodes.append(Node(node_id, _type(raw.get("type")), text,
                          _steps(raw.get("steps", raw.get("step_indices")), n_steps, node_id)))
    edges = []
    for raw in obj.get("edges") or []:
        if not isinstance(raw, dict):
            raise GraphError(f"edge {raw!r} is not an object")
        a, b = (str(raw.get(k, raw.get(alt, ""))).strip() for k, alt in (("from", "source"), ("to", "target")))
        if a not in seen or b not in seen:
            raise GraphError(f"edge {a} → {b} names an unknown node")
        if a == b:
            raise GraphError(f"edge {a} → {b} is a loop")
        edges.append((a, b))
    if _cycle([n.id for n in nodes], edges):
        raise GraphError("the edges form a cycle: a proof graph is acyclic")
    if not any(n.type == "goal" for n in nodes):
        raise GraphError("no goal node")
    return Graph(tuple(nodes), tuple(dict.fromkeys(edges)))


# ------------------------------------------------------------------------------------------ heuristics

_GOAL = re.compile(r"\\boxed|\b(?:final answer|the answer is|answer\s*:)", re.I)
_CONSTRUCTION = re.compile(r"^(?:let|suppose|assume|draw|construct|define|denote|consider|set|introduce|take)\b", re.I)
_GIVEN = re.compile(r"\b(?:given|we are told|we know|the problem (?:states|says)|according to|"
                    r"(?:the|from the) (?:figure|image|diagram|picture|question) (?:shows|gives)|shows)\b", re.I)
_LEMMA = re.compile(r"\b(?:therefore|thus|hence|so|it follows|we get|we obtain|which gives|implies|"
                    r"so that|consequently)\b|=", re.I)


def heuristic_graph(steps: list[str]) -> Graph:
    """One node per step, each supported by the step before it; kinds from the wording: the last step
    (or one stating the answer) is the goal, "let / consider / draw …" a construction, "given / the
    figure shows …" a given condition, "therefore / thus / = …" a lemma, anything else an observation."""
    nodes = []
    for i, step in enumerate(steps):
        body = _NUMBERED.sub("", step)
        if i == len(steps) - 1 or _GOAL.search(body):
            kind = "goal"
        elif _CONSTRUCTION.search(body):
            kind = "construction"
        elif _GIVEN.search(body):
            kind = "given"
        elif _LEMMA.search(body):
            kind = "lemma"
        else:
            kind = "observation"
        nodes.append(Node(f"s{i}", kind, body, (i,)))
    edges = tuple((f"s{i - 1}", f"s{i}") for i in range(1, len(steps)))
    return Graph(tuple(nodes), edges)


# ------------------------------------------------------------------------------------------ tiers

def _ancestors_of_goal(graph: Graph) -> set[str]:
    parents: dict[str, list[str]] = {}
    for a, b in graph.edges:
        parents.setdefault(b, []).append(a)
    found: set[str] = set()
    todo = [n.id for n in graph.nodes if n.type == "goal"]
    while todo:
        for p in parents.get(todo.pop(), []):
            if p not in found:
                found.add(p)
                todo.append(p)
    return found


def select_tiers(graph: Graph, excluded: Callable[[Node], bool] = lambda n: False) -> dict[int, list[Node]]:
    """The statements each tier rewrites into hints (at most PER_TIER each, in trace order). `excluded`
    leaves out statements that may not become hints at all (one that states the answer)."""
    on_path = _ancestors_of_goal(graph)
    out_degree = {n.id: sum(a == n.id for a, _ in graph.edges) for n in graph.nodes}
    tiers = {}
    for tier, kinds in TIERS.items():
        pool = [n for n in graph.nodes if n.type in kinds and not excluded(n)]
        pool.sort(key=lambda n: (n.id not in on_path, -out_degree[n.id], n.steps[0]))
        tiers[tier] = sorted(pool[:PER_TIER], key=lambda n: n.steps[0])
    return tiers
