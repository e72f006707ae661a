"""Think360 ToT-Eval (§4.1, Appendix G): a response's reasoning as a tree, its nodes judged, and the
tree scored by ToT-Depth (Eq. S1) and ToT-Width under both readings of Appendix G.

    python -m judge.tot score FILE.jsonl     # lines {"id", "nodes": [{"id", "parent", "correct"}]}

prints one JSON line per tree: `id`, `tot_depth`, `tot_width`, `tot_width_with_roots` (fractions in [0, 1];
null where undefined). The tables use the same functions.

Appendix G defines ToT-Width twice, and the two differ. Eq. S2 averages over G, "the set of all parent nodes
that have at least one child": the roots have no parent, so they form no sibling group and their own
correctness counts only in ToT-Depth; a tree in which no node has a child (an answer-only response is one
root) has no ToT-Width — null, left out of the mean and counted. That is `tot_width`, the headline. The
prose averages "across sibling groups at each depth level", and the extraction prompt says "Depth 1 nodes
must have parent = None (root nodes), and nodes at the same depth are siblings": read that way the roots are
one more sibling group, and every tree has a width (an answer-only tree: its root's correctness). That is
`tot_width_with_roots`. Where the paper is silent we choose, and the README says so: a path of S1 starts at
whichever root its deepest leaf descends from (several roots are allowed).
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

import json_repair


class TreeError(ValueError):
    """A reply that is not a tree even after repair: a recorded failure, never a silent skip."""


@dataclass(frozen=True)
class Node:
    id: str
    parent: str | None
    text: str = ""
    type: str = ""


def _nodes_of(obj: Any) -> list[dict[str, Any]]:
    if isinstance(obj, dict):
        for key in ("nodes", "tree", "reasoning_tree", "steps"):
            if isinstance(obj.get(key), list):
                return obj[key]
        return [obj] if "id" in obj else []
    return obj if isinstance(obj, list) else []


def _parent(value: Any) -> str | None:
    if value is None or (isinstance(value, str) and value.strip().lower() in ("", "none", "null", "root")):
        return None
    return str(value).strip()


# LaTeX commands that begin like a JSON escape (\b \f \n \r \t \u): written with one backslash by a
# judge model, "\frac" would be read as a form feed and "rac".
_LATEX = set("""frac forall flat frown neq nabla nu ne neg not ni nmid nleq ngeq newline times theta tau tan text
    textbf textit tfrac to top triangle tilde rho right rightarrow rangle rfloor rceil beta binom boxed bar bot
    bigcup bigcap backslash bmod underline uparrow upsilon""".split())
_ESCAPE = re.compile(r"\\(\\|[A-Za-z]+|.)", re.S)


def _escape(m: re.Match) -> str:
    after = m.group(1)
    if after == "\\" or after in ('"', "/"):
        return m.group(0)            # an escaped backslash or quote: JSON as written
    if after[0].isalpha() and after[0] in "bfnrtu" and after not in _LATEX:
        return m.group(0)            # \n, \t, \u00e9 …: a JSON escape, then text
    return "\\\\" + after          # \frac, \alpha, \{ …: LaTeX, kept as a backslash


def read_json(reply: str) -> Any:
    """The JSON a judge wrote: code fences dropped, single backslashes of LaTeX kept as backslashes, then
    read strictly, else repaired (json-repair) for a trailing comma or a raw new line in a string."""
    text = re.sub(r"^\s*```(?:json)?\s*|\s*```\s*$", "", reply.strip())
    text = _ESCAPE.sub(_escape, text)
    try:
        return json.loads(text)
    except ValueError:
        return json_repair.loads(text)


def parse_tree(reply: str) -> list[Node]:
    """The nodes a reply gives, read leniently (so text with `]`, new lines or LaTeX survives), then
    checked and repaired: ids are renumbered `{depth}.{sequence}` from the parents, so a wrong depth in
    an id does not matter; a missing parent, a cycle or a duplicate id is a TreeError."""
    try:
        raw = _nodes_of(read_json(reply))
    except Exception as e:  # json_repair raises on hopeless input
        raise TreeError(f"no JSON tree in the reply ({type(e).__name__})") from e
    nodes = []
    for i, n in enumerate(raw):
        if not isinstance(n, dict) or n.get("id") in (None, ""):
            raise TreeError(f"node {i + 1} has no id")
        text = n.get("content", n.get("text", n.get("step", "")))
        nodes.append(Node(str(n["id"]).strip(), _parent(n.get("parent", n.get("parent_id"))), str(text or ""),
                          str(n.get("type", n.get("step_type", "")) or "")))
    if not nodes:
        raise TreeError("the reply holds no nodes")
    return renumber(nodes)


def renumber(nodes: list[Node]) -> list[Node]:
    """Ids `{depth}.{sequence}` computed from the parents (depth 1 = a root), in the given order."""
    ids = [n.id for n in nodes]
    if len(set(ids)) != len(ids):
        raise TreeError(f"duplicate node ids: {sorted({i for i in ids if ids.count(i) > 1})}")
    by_id = {n.id: n for n in nodes}
    depth: dict[str, int] = {}

    def depth_of(node_id: str, seen: tuple[str, ...] = ()) -> int:
        if node_id in depth:
            return depth[node_id]
        if node_id in seen:
            raise TreeError(f"the parents form a cycle through {node_id}")
        parent = by_id[node_id].parent
        if parent is not None and parent not in by_id:
            raise TreeError(f"node {node_id}: parent {parent} is not a node")
        depth[node_id] = 1 if parent is None else depth_of(parent, seen + (node_id,)) + 1
        return depth[node_id]

    seq: dict[int, int] = defaultdict(int)
    new_id = {}
    for n in nodes:
        d = depth_of(n.id)
        seq[d] += 1
        new_id[n.id] = f"{d}.{seq[d]}"
    return [Node(new_id[n.id], None if n.parent is None else new_id[n.parent], n.text, n.type) for n in nodes]


def depth(node_id: str) -> int:
    return int(re.match(r"\d+", node_id).group())


def ancestors(nodes: list[Node], node: Node) -> list[Node]:
    """The chain from the root down to the node's parent."""
    by_id = {n.id: n for n in nodes}
    chain, parent = [], node.parent
    while parent is not None:
        chain.append(by_id[parent])
        parent = by_id[parent].parent
    return chain[::-1]


def tot_depth(nodes: list[dict[str, Any]]) -> float | None:
    """Eq. S1: the mean, over the paths from a root to each leaf at the maximum depth, of the share of
    correct nodes on the path. Nodes: {"id", "parent", "correct"} with ids renumbered by depth."""
    if not nodes:
        return None
    by_id = {n["id"]: n for n in nodes}
    d_max = max(depth(n["id"]) for n in nodes)
    scores = []
    for leaf in (n for n in nodes if depth(n["id"]) == d_max):
        path, node = [], leaf
        while node is not None:
            path.append(bool(node["correct"]))
            node = by_id.get(node["parent"]) if node["parent"] is not None else None
        scores.append(sum(path) / len(path))
    return sum(scores) / len(scores)


def _sibling_groups(nodes: list[dict[str, Any]], roots: bool) -> list[list[bool]]:
    """The correctness of the children of each parent, in a list per parent; `roots`: the roots (parent None)
    as one more group."""
    groups: dict[str | None, list[bool]] = defaultdict(list)
    for n in nodes:
        if n["parent"] is not None or roots:
            groups[n["parent"]].append(bool(n["correct"]))
    return list(groups.values())


def _mean_of_groups(groups: list[list[bool]]) -> float | None:
    return sum(sum(g) / len(g) for g in groups) / len(groups) if groups else None


def tot_width(nodes: list[dict[str, Any]]) -> float | None:
    """Eq. S2: the mean, over G (the parent nodes with at least one child), of the share of correct
    children of each; None when G is empty (no node has a child). A root is nobody's child: it belongs to
    no group C_p."""
    return _mean_of_groups(_sibling_groups(nodes, roots=False))


def tot_width_with_roots(nodes: list[dict[str, Any]]) -> float | None:
    """Appendix G's prose ("averaging the accuracy across sibling groups at each depth level"; the roots
    are siblings, as the extraction prompt says): Eq. S2's groups and the roots as one more; None only for a
    tree of no nodes. "At each depth level" says where siblings sit (one parent, one depth), not a mean per
    depth: like Eq. S2, every group weighs the same."""
    return _mean_of_groups(_sibling_groups(nodes, roots=True))


def score_tree(nodes: list[dict[str, Any]]) -> dict[str, float | None]:
    """A judged tree's scores: ToT-Depth (S1), ToT-Width (S2, the headline) and ToT-Width with the roots as a
    sibling group (the appendix prose), its ids renumbered from the parents first (a judge's ids may be wrong)."""
    nodes = [{"id": n.id, "parent": n.parent, "correct": c["correct"]}
             for n, c in zip(renumber([Node(str(c["id"]), _parent(c.get("parent"))) for c in nodes]), nodes)]
    return {"tot_depth": tot_depth(nodes), "tot_width": tot_width(nodes),
            "tot_width_with_roots": tot_width_with_roots(nodes)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m judge.tot", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    sc = sub.add_parser("score", help="ToT-Depth and ToT-Width (both readings) of judged trees")
    sc.add_argument("file")
    args = ap.parse_args(argv)
    status = 0
    with open(args.file, encoding="utf-8") as f:
        for lineno, line in enumerate(f, start=1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
                print(json.dumps({"id": obj["id"], **score_tree(obj["nodes"])}))
            except (ValueError, KeyError, TypeError) as e:
                print(f"{args.file}:{lineno}: {type(e).__name__}: {e}", file=sys.stderr)
                status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
