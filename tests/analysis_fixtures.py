"""Judged result files made by hand, for table tests: raw + verdict + manifest, as the pipeline writes them."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from data.dataset import line_digest
from data.jsonl import write_jsonl_atomic
from infer.layout import judged_path, manifest_of, raw_path
from judge.current import outcome_sha


def write_data(path: Path, records: list[dict[str, Any]]) -> Path:
    """Unified records (defaults filled in) for the tables to group by."""
    full = [{"question": "q", "images": [], "choices": [], "answer": ["1"], "answer_type": "numeric", **r}
            for r in records]
    write_jsonl_atomic(path, full)
    return path


def omibench_physics(path: Path) -> Path:
    """Four OMIBench Physics items of two images each (q0-q3)."""
    items = [{"id": f"q{i}", "benchmark": "omibench", "subject": "Physics", "images": ["a.png", "b.png"]}
             for i in range(4)]
    return write_data(path, items)


def make_run(results: Path, bench: str, model: str, setting: str, judge: str, data: Path,
             rows: list[dict[str, Any]]) -> Path:
    """rows: {id, sample_idx=0, correct, status="ok", latency_s=1.0, completion_tokens=10, extracted=None,
    reasoning_tokens=None, response="…", reasoning=None (the reasoning text returned apart), and for process judges score={…}, tree=[…] (ToT-Eval), judge_calls, judge_tokens, for labelling
    judges labels=[…], subtypes=[…], outcome (the raw outcome judged; default: the raw line's, as judge.run writes
    it) and record (the digest of the record's data line judged against; default: its line in `data`)}; writes
    results/raw and results/judged files. A raw file is shared by every judge of the run: an answer it already
    holds is judged as it is (its outcome stays current). The manifest names the judge the verdicts were made by,
    and says which setting the run stands for as the demo runner does: X+caption (a text-only model's run) stands
    for X."""
    digests = {json.loads(line)["id"]: line_digest(line) for line in data.read_bytes().splitlines() if line.strip()}
    judge_id = {"name": judge, "model": None, "prompt_sha": "x"}
    raw = raw_path(results, bench, model, setting)
    judged = judged_path(results, bench, model, setting, judge)
    raw.parent.mkdir(parents=True, exist_ok=True)
    judged.parent.mkdir(parents=True, exist_ok=True)
    held = {(x["id"], x["sample_idx"]): x for x in map(json.loads, raw.read_text().splitlines())} if raw.exists() \
        else {}
    with open(raw, "a") as r, open(judged, "a") as j:
        for row in rows:
            idx = row.get("sample_idx", 0)
            status = row.get("status", "ok")
            line = {"id": row["id"], "sample_idx": idx, "request_key": f"k-{row['id']}-{idx}",
                    "response": row.get("response", "answer"), "reasoning": row.get("reasoning"),
                    "error": "HTTP 503" if status == "no_response" else None,
                    "latency_s": row.get("latency_s", 1.0), "finish_reason": "stop",
                    "usage": {"prompt_tokens": 5, "completion_tokens": row.get("completion_tokens", 10),
                              "reasoning_tokens": row.get("reasoning_tokens")}}
            if (row["id"], idx) in held:
                line = held[(row["id"], idx)]
            else:
                r.write(json.dumps(line) + "\n")
                held[(row["id"], idx)] = line
            j.write(json.dumps({"id": row["id"], "sample_idx": idx, "request_key": f"k-{row['id']}-{idx}",
                                "outcome": row.get("outcome", outcome_sha(line)),
                                "record": row.get("record", digests.get(row["id"])), "judge": judge_id,
                                "extracted": row.get("extracted"), "status": status,
                                "correct": row.get("correct") if status == "ok" else None,
                                **{k: row[k] for k in ("score", "tree", "judge_calls", "judge_tokens", "labels", "subtypes")
                                   if k in row}}) + "\n")
    stands_for = setting.removesuffix("+caption")
    manifest_of(judged).write_text(json.dumps({"data": str(data), "judge": judge_id, "stands_for": stands_for}))
    return judged


def judged_as(results: Path, bench: str, model: str, setting: str, data: Path) -> dict[tuple[str, int], dict[str, Any]]:
    """(id, sample_idx) → the `outcome` and `record` a verdict of the current raw line of the run names, as
    judge.run writes them: for verdict lines written by hand."""
    raw = raw_path(results, bench, model, setting)
    digests = {json.loads(line)["id"]: line_digest(line) for line in data.read_bytes().splitlines() if line.strip()}
    lines = {(x["id"], x["sample_idx"]): x for x in map(json.loads, raw.read_text().splitlines())}
    return {key: {"outcome": outcome_sha(x), "record": digests.get(key[0])} for key, x in lines.items()}
