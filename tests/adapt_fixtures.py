"""Shared inputs of the adaptation tests: the MorphoBench demo set converted to unified records, raw
responses to serve as reference traces, a model config for a scripted server, and a scripted model that
answers each adaptation prompt by what it asks."""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Callable

from data.convert import convert
from data.demo import morphobench as demo
from infer.config import ModelConfig, load_model_config
from tests.scripted_server import Reply, message_text

GRAPH, HINTS, MISLEADING = "into a proof graph", "You write hints", "You write misleading hints"
CUES, PERTURB = "Which visual elements", "Rewrite the question below"

# A three-step trace for the bar-chart item (gold 24): read the bars, add them, state the result.
BAR_TRACE = ("Let the heights be read from the labels above the bars.\n\n"
             "The chart shows the bars A, B, C and D with their heights written above them.\n\n"
             "Therefore adding the four heights in pairs gives the two partial sums.\n\n"
             "The answer is 24.")


def demo_data(tmp_path: Path) -> Path:
    """The demo release converted to one unified file (all five splits, images and captions)."""
    src = demo.generate(tmp_path / "official")
    out = tmp_path / "data" / "morphobench.jsonl"
    convert("morphobench", src, out)
    return out


def raw_file(tmp_path: Path, traces: dict[str, str]) -> Path:
    path = tmp_path / "raw.jsonl"
    path.write_text("".join(json.dumps({"id": i, "sample_idx": 0, "request_key": f"k{i}", "response": t,
                                        "reasoning": None, "error": None}) + "\n" for i, t in traces.items()))
    return path


def model_config(tmp_path: Path, url: str, modalities: str = "[text]") -> tuple[Path, ModelConfig]:
    p = tmp_path / "adapter.yaml"
    p.write_text(f"name: adapter\nmodel: scripted\nbase_urls: [{url}]\nmodalities: {modalities}\n"
                 "max_retries: 1\nbackoff_base: 0.01\n")
    return p, load_model_config(p)


def prompt_of(body: dict) -> str:
    return message_text(body["messages"][0]["content"])


def statement_ids(prompt: str) -> list[str]:
    """The statement ids a hint writer is asked about (lines `<id> (tier …`)."""
    return re.findall(r"^(\S+) \(tier \d", prompt, re.M)


GOOD_GRAPH = {"nodes": [
    {"id": "n1", "type": "construction", "statement": "Read each height from its label.", "steps": [0]},
    {"id": "n2", "type": "given", "statement": "Four bars A to D with labelled heights.", "steps": [1]},
    {"id": "n3", "type": "lemma", "statement": "Adding the heights in pairs gives two partial sums.", "steps": [2]},
    {"id": "n4", "type": "goal", "statement": "The total is 24.", "steps": [3]}],
    "edges": [{"from": "n2", "to": "n1"}, {"from": "n1", "to": "n3"}, {"from": "n3", "to": "n4"}]}


def hints_reply(prompt: str, text: Callable[[str], str]) -> Reply:
    return Reply.ok(json.dumps({"hints": [{"node": n, "hint": text(n)} for n in statement_ids(prompt)]}))


def good_model(body: dict, attempt: int) -> Reply:
    """A model that follows every adaptation prompt."""
    prompt = prompt_of(body)
    if GRAPH in prompt:
        return Reply.ok("```json\n" + json.dumps(GOOD_GRAPH) + "\n```")
    if MISLEADING in prompt:
        return hints_reply(prompt, lambda n: f"Count the tallest bar twice at step {n[1:]}.")
    if HINTS in prompt:
        return hints_reply(prompt, lambda n: {"n1": "Start by reading the label above each bar.",
                                              "n2": "Focus on the four bars and their labels.",
                                              "n3": "Group the bars into pairs before adding."}[n])
    if CUES in prompt:
        return Reply.ok(json.dumps({"cues": [{"element": "bar heights", "phrase": "sum of the heights"}]}))
    if PERTURB in prompt:
        question = prompt.split("<<<QUESTION_START>>>")[1].split("<<<QUESTION_END>>>")[0].strip()
        return Reply.ok(json.dumps({"question": question.replace("sum of the heights", "combined s_ze of the columns")}))
    return Reply.ok("?")
