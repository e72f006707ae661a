"""Judged result files made by hand, for table tests: raw + verdict + manifest, as the pipeline writes them."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from data.jsonl import write_jsonl_atomic


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
    reasoning_tokens=None, response="…", and for process judges score={…}, judge_calls, judge_tokens, for labelling
    judges labels=[…], subtypes=[…], and outcome (the raw outcome judged; default o-<id>-<sample_idx>)}; writes
    results/raw and results/judged files. The manifest says
    which setting the run stands for as the demo runner does: X+caption (a text-only model's run) stands for X."""
    raw = results / "raw" / bench / model / f"{setting}.jsonl"
    judged = results / "judged" / bench / model / f"{setting}.{judge}.jsonl"
    raw.parent.mkdir(parents=True, exist_ok=True)
    judged.parent.mkdir(parents=True, exist_ok=True)
    with open(raw, "a") as r, open(judged, "a") as j:
        for row in rows:
            idx = row.get("sample_idx", 0)
            status = row.get("status", "ok")
            r.write(json.dumps({"id": row["id"], "sample_idx": idx, "request_key": f"k-{row['id']}-{idx}",
                                "response": row.get("response", "answer"), "error": "HTTP 503" if status == "no_response" else None,
                                "latency_s": row.get("latency_s", 1.0), "finish_reason": "stop",
                                "usage": {"prompt_tokens": 5, "completion_tokens": row.get("completion_tokens", 10),
                                          "reasoning_tokens": row.get("reasoning_tokens")}}) + "\n")
            j.write(json.dumps({"id": row["id"], "sample_idx": idx, "request_key": f"k-{row['id']}-{idx}",
                                "outcome": row.get("outcome", f"o-{row['id']}-{idx}"),
                                "judge": {"name": judge, "model": None, "prompt_sha": "x"},
                                "extracted": row.get("extracted"), "status": status,
                                "correct": row.get("correct") if status == "ok" else None,
                                **{k: row[k] for k in ("score", "judge_calls", "judge_tokens", "labels", "subtypes")
                                   if k in row}}) + "\n")
    stands_for = setting.removesuffix("+caption")
    judged.with_suffix(".manifest.json").write_text(json.dumps({"data": str(data), "judge": {"name": judge},
                                                                "stands_for": stands_for}))
    return judged
