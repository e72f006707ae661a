"""The authors' released evaluator, as perf/omibench_rules.py writes it again, reads the release's own gold
list: a multi-select gold the release writes "CD" is one answer, C and D together, as omi_bench.py compares it."""
from __future__ import annotations

import importlib.util
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GOLDS = ROOT / "tests" / "data" / "omibench_release_golds.jsonl"


def benchmark():
    spec = importlib.util.spec_from_file_location("omibench_rules", ROOT / "perf" / "omibench_rules.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def release() -> dict[str, dict]:
    return {r["id"]: {**r, "benchmark": "omibench", "question": "", "images": []}
            for r in map(json.loads, GOLDS.read_text(encoding="utf-8").splitlines())}


def test_the_release_gold_list_is_kept_where_the_converter_changed_it():
    changed = {i: r["release_answer"] for i, r in release().items() if "release_answer" in r}
    assert changed == {"biology-150": ["CD"], "biology-173": ["CD"]}
    assert all(release()[i]["answer"] == ["C", "D"] for i in changed)


def test_a_two_letter_gold_stays_one_answer_for_the_released_rule():
    rules, rec = benchmark(), release()["biology-173"]
    assert rules.release_golds(rec) == ["CD"]
    assert rules.released(rec, "C, D") is True and rules.released(rec, "CD") is True
    assert rules.released(rec, "C") is False          # one of the two letters is not the gold
    assert rules.released(rec, "The correct options are (C) and (D).") is False  # it reads the last "(D)" only
    split = {k: v for k, v in rec.items() if k != "release_answer"}
    assert rules.released(split, "C") is True         # what reading the converter's letters would have given


def test_the_rules_compared_on_the_two_records_follow_the_release():
    rules, recs = benchmark(), release()
    rows = rules.judge_all(rules.release_cases([recs["biology-150"], recs["biology-173"]]))
    exact = [r for r in rows if r["kind"] == "exact"]  # "\boxed{C, D}": its content is the gold "CD"
    assert len(exact) == 2 and all(r["released-answer"] for r in exact)
    assert not any(r["released"] for r in rows if r["kind"] == "reformatted")  # the last "(D)" alone
