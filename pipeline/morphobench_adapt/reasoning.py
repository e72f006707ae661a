"""Agent-reasoning adaptation (MorphoBench §3.3, §4.1, Appendix A.3): R(Lite) and R(Complex) from R(v0).

Per source item, in stages (each a call through pipeline/morphobench_adapt/asking.py):
1. proof graph: the reference trace, cut into numbered steps, is parsed by the model into a graph
   (`adapt_graph`); a reply that is not a valid graph is asked again with the reason, and after the
   last attempt the heuristic graph is used — recorded as `graph_source: heuristic` with the reasons;
2. tiers: the graph's statements are assigned to tiers in code (graph.select_tiers); a statement that
   itself states the answer is never made into a hint;
3. hints: the model rewrites each selected statement into a helpful hint (`adapt_hints`) and into a
   plausible but misleading one (`adapt_misleading`), both asked in the same round. Every hint is
   checked here — length, a single statement, and the spoiler check (checks.spoiler: the rule judge's
   matcher finds no mention of the gold) — and the rejected ones are asked again, with the reasons,
   up to `attempts` times in all.

Derived items, two per split as §4.1 says ("two derived instances for MORPHO-R(Lite) and two for
MORPHO-R(Complex)"), differ in disclosure (A.3: "difficulty is primarily adjusted by controlling the
disclosure level"): variant 1 takes tiers 1–2 (orientation and setup), variant 2 tiers 1–3 (also the
key intermediate relations). Lite gives the helpful hints, Complex their misleading rewrites (§4.1:
"rewriting lemma hints"; A.3: "plausible but misleading hints that steer the solver toward an
incorrect path … without changing the original question or answer"). A variant with a hint that never
passed its checks, or with nothing to disclose, is dropped and its reason counted.
"""
from __future__ import annotations

import re
from typing import Any

from infer.ask import Ask, Reply, Steps
from judge.match import normalize_text
from pipeline.morphobench_adapt.asking import read_json
from pipeline.morphobench_adapt.checks import spoiler
from pipeline.morphobench_adapt.graph import (TIER_ROLE, GraphError, Node, heuristic_graph, parse_graph, select_tiers,
                                  split_steps)
from pipeline.morphobench_adapt.official_rows import official_answer, view
from pipeline.morphobench_adapt.traces import Trace

LITE, COMPLEX = "Morpho_R_Lite", "Morpho_R_Complex"
KIND_OF = {LITE: "helpful", COMPLEX: "misleading"}
TEMPLATE = {"helpful": "adapt_hints", "misleading": "adapt_misleading"}
VARIANTS = ((1, (1, 2)), (2, (1, 2, 3)))  # (variant, tiers it discloses)
MAX_WORDS = 40  # A.3's "length control for conciseness"; the bound is ours


def numbered(steps: list[str]) -> str:
    return "\n".join(f"[{i}] {s}" for i, s in enumerate(steps))


def _statements(nodes: list[tuple[int, Node]], steps: list[str]) -> str:
    out = []
    for tier, node in nodes:
        evidence = "\n".join(f"    [{k}] {steps[k]}" for k in node.steps)
        out.append(f"{node.id} (tier {tier}: {TIER_ROLE[tier]}; {node.type})\n  statement: {node.text}\n"
                   f"  from steps:\n{evidence}")
    return "\n".join(out)


def read_hints(reply: str) -> dict[str, str]:
    """node id → hint text from a writer's reply ({"hints": [{"node", "hint"}]}); raises ValueError."""
    obj = read_json(reply)
    items = obj.get("hints") if isinstance(obj, dict) else obj
    if not isinstance(items, list):
        raise ValueError("the reply has no list of hints")
    out = {}
    for item in items:
        if isinstance(item, dict) and item.get("node") is not None and isinstance(item.get("hint"), str):
            out[str(item["node"]).strip()] = item["hint"]
    if not out:
        raise ValueError("the reply gives no hint for any statement")
    return out


def clean_hint(text: str) -> str:
    """One line, no bullet of its own: each hint becomes one `- ` line of the official `hint` field."""
    return re.sub(r"^(?:[-*•]|\d+[.)])\s+", "", re.sub(r"\s+", " ", text).strip())


def hint_problem(rec: dict[str, Any], text: str, node: Node, kind: str) -> str | None:
    """Why a hint cannot be used, or None."""
    if not text:
        return "empty"
    words = len(text.split())
    if words > MAX_WORDS:
        return f"too long ({words} words; at most {MAX_WORDS})"
    leak = spoiler(rec, text)
    if leak:
        return leak
    if kind == "misleading" and normalize_text(text) == normalize_text(node.text):
        return "repeats the statement it should mislead from"
    return None


def _graph_stage(rec: dict[str, Any], steps: list[str], attempts: int):
    """Yields the parser requests; returns (graph, source, failures)."""
    failures: list[str] = []
    for _ in range(attempts):
        feedback = "\n".join(f"- attempt {k}: {f}" for k, f in enumerate(failures, start=1))
        (reply,) = yield [Ask("adapt_graph", {"steps": numbered(steps), "feedback": feedback}, mode=view(rec))]
        if reply.error:
            failures.append(f"request failed: {reply.error}")
            break  # the client has retried it already; asking again now would fail the same way
        try:
            return parse_graph(reply.text or "", len(steps)), "llm", failures
        except GraphError as e:
            failures.append(str(e))
    return heuristic_graph(steps), "heuristic", failures


def _hint_stage(rec: dict[str, Any], steps: list[str], selected: list[tuple[int, Node]], attempts: int):
    """Yields the writers' requests; returns (accepted[kind][node id] → hint, history[kind][node id])."""
    accepted: dict[str, dict[str, str]] = {k: {} for k in TEMPLATE}
    history: dict[str, dict[str, list[dict[str, Any]]]] = {k: {n.id: [] for _, n in selected} for k in TEMPLATE}
    open_ = {k: list(selected) for k in TEMPLATE}
    for _ in range(attempts):
        kinds = [k for k in TEMPLATE if open_[k]]
        if not kinds:
            break
        asks = []
        for kind in kinds:
            # every earlier rejection, so that each new request differs from the last (a deterministic
            # model asked the same prompt would only give the same reply)
            feedback = "\n".join(f"- {n.id}, attempt {k}: your hint {h['hint']!r} was rejected: {h['why']}"
                                 if h["hint"] else f"- {n.id}, attempt {k}: {h['why']}"
                                 for _, n in open_[kind] for k, h in enumerate(history[kind][n.id], start=1))
            asks.append(Ask(TEMPLATE[kind], {"statements": _statements(open_[kind], steps), "gold": official_answer(rec),
                                             "max_words": str(MAX_WORDS), "feedback": feedback}, mode=view(rec)))
        replies: list[Reply] = yield asks
        for kind, reply in zip(kinds, replies):
            if reply.error:
                for _, n in open_[kind]:
                    history[kind][n.id].append({"hint": None, "why": f"request failed: {reply.error}"})
                open_[kind] = []  # final for this run: the client has retried it
                continue
            try:
                hints = read_hints(reply.text or "")
            except ValueError as e:
                for _, n in open_[kind]:
                    history[kind][n.id].append({"hint": None, "why": f"reply unreadable: {e}"})
                continue
            still = []
            for tier, node in open_[kind]:
                text = clean_hint(hints.get(node.id, ""))
                why = "no hint given for this statement" if node.id not in hints else hint_problem(rec, text, node, kind)
                history[kind][node.id].append({"hint": text or None, "why": why})
                if why:
                    still.append((tier, node))
                else:
                    accepted[kind][node.id] = text
            open_[kind] = still
    return accepted, history


def _derived(selected: list[tuple[int, Node]], accepted: dict[str, dict[str, str]],
             history: dict[str, dict[str, list[dict[str, Any]]]]) -> tuple[list[dict], list[dict]]:
    made, dropped = [], []
    for split, kind in KIND_OF.items():
        for variant, tiers in VARIANTS:
            nodes = [(t, n) for t, n in selected if t in tiers]
            why = None
            if not nodes:
                why = "no statement to hint from in tiers 1–2"
            elif variant == 2 and not any(t == 3 for t, _ in nodes):
                why = "no lemma to disclose (tier 3 is empty): variant 2 would repeat variant 1"
            else:
                failed = [n for _, n in nodes if n.id not in accepted[kind]]
                if failed:
                    last = history[kind][failed[0].id][-1]["why"] if history[kind][failed[0].id] else "never asked"
                    why = f"{kind} hint for {failed[0].id} rejected after {len(history[kind][failed[0].id])} attempt(s): {last}"
            if why:
                dropped.append({"split": split, "variant": variant, "reason": why})
                continue
            made.append({"split": split, "variant": variant, "kind": kind, "hints": [
                {"text": accepted[kind][n.id], "tier": t, "nodes": [n.id], "evidence": list(n.steps)} for t, n in nodes]})
    return made, dropped


def _all_dropped(reason: str) -> list[dict[str, Any]]:
    return [{"split": s, "variant": v, "reason": reason} for s in KIND_OF for v, _ in VARIANTS]


def adapt(rec: dict[str, Any], trace: Trace | str, attempts: int) -> Steps | dict[str, Any]:
    """The item's steps (a generator), or its outcome at once when it has no trace."""
    if isinstance(trace, str):
        return {"source_id": rec["id"], "derived": [], "dropped": _all_dropped(f"no reference trace: {trace}")}
    steps = split_steps(trace.text)
    if not steps:
        return {"source_id": rec["id"], "derived": [], "dropped": _all_dropped("no reference trace: it is empty")}
    return _adapt(rec, trace, steps, attempts)


def _adapt(rec: dict[str, Any], trace: Trace, steps: list[str], attempts: int) -> Steps:
    graph, source, failures = yield from _graph_stage(rec, steps, attempts)
    excluded = [n.id for n in graph.nodes if n.type != "goal" and spoiler(rec, n.text)]
    tiers = select_tiers(graph, excluded=lambda n: n.id in excluded)
    selected = [(t, n) for t in sorted(tiers) for n in tiers[t]]
    outcome = {"source_id": rec["id"], "trace": {"source": trace.source, "sample_idx": trace.sample_idx,
                                                "correct": trace.correct, "steps": steps},
               "graph": graph.to_json(), "graph_source": source, "graph_failures": failures,
               "tiers": {str(t): [n.id for n in ns] for t, ns in tiers.items()}, "spoiler_statements": excluded}
    if not selected:
        return {**outcome, "derived": [], "hint_attempts": {},
                "dropped": _all_dropped("the proof graph has no statement to hint from (only the goal, or "
                                        "statements that state the answer)")}
    accepted, history = yield from _hint_stage(rec, steps, selected, attempts)
    made, dropped = _derived(selected, accepted, history)
    return {**outcome, "hint_attempts": history, "derived": made, "dropped": dropped}

