"""Run one adaptation family over a unified MorphoBench file and write its splits and report."""
from __future__ import annotations

import logging
import statistics
from collections import Counter
from pathlib import Path
from typing import Any

from data.jsonl import DataError, problem, read_jsonl
from infer.layout import RESULTS
from infer.config import load_model_config
from infer.templates import PROMPTS
from pipeline.morphobench_adapt import reasoning as r_family
from pipeline.morphobench_adapt import recognition as p_family
from pipeline.morphobench_adapt.asking import Caller, drive
from pipeline.morphobench_adapt.official_rows import official_index, official_row
from pipeline.morphobench_adapt.release import cause, count_drops, write_release, write_report
from pipeline.morphobench_adapt.traces import load_traces

log = logging.getLogger(__name__)
ATTEMPTS = 3  # per stage: the first request and two regenerations
SOURCE_SPLIT = {"reasoning": "Morpho_R_v0", "recognition": "Morpho_P_v0"}


def sources(data: Path, family: str, limit: int | None) -> list[dict[str, Any]]:
    """The v0 items a family derives from: records of its v0 split (or of no known split)."""
    records = read_jsonl(data)
    want = SOURCE_SPLIT[family]
    found = [r for r in records if r.get("benchmark") == "morphobench" and r.get("split") in (want, "v0", None)]
    if not found:
        raise DataError([problem(data, None, "split", f"no MorphoBench {want} items (the {family} adaptation "
                                                      f"derives from them)")])
    return found[:limit] if limit else found


def _summary(family: str, data: Path, cfg_name: str, out: Path, attempts: int, items: list[dict[str, Any]],
             outcomes: list[dict[str, Any]], expected: dict[str, int], caller: Caller) -> dict[str, Any]:
    written = Counter(d["split"] for o in outcomes for d in o["derived"])
    calls = [o["calls"] for o in outcomes]
    return {"family": family, "data": str(data), "model": cfg_name, "out": str(out), "attempts": attempts,
            "sources": len(items), "expected": expected, "written": dict(written), "dropped": count_drops(outcomes),
            "dropped_items": [{"source_id": o["source_id"], **d} for o in outcomes for d in o["dropped"]],
            "calls": {t: dict(c) for t, c in caller.counts.items()},
            "calls_per_item": {"mean": statistics.fmean(calls) if calls else 0.0, "max": max(calls, default=0)}}


def _rejections(attempts: list[dict[str, Any]]) -> tuple[int, Counter]:
    rejected = Counter()
    for a in attempts:
        whys = a["why"] if isinstance(a["why"], list) else [a["why"]] if a["why"] else []
        rejected.update(cause(w) for w in whys)
    return sum(rejected.values()), rejected


def reasoning(data: Path, model: Path, out: Path, source: str = "solution", limit: int | None = None,
              results: Path = RESULTS, attempts: int = ATTEMPTS, max_tokens: int | None = None,
              correct_only: bool = False, prompts: Path = PROMPTS) -> dict[str, Any]:
    """R(Lite) and R(Complex) beside R(v0) under `out`; returns the report."""
    cfg = load_model_config(model)
    items = sources(data, "reasoning", limit)
    traces = load_traces(source, items)
    if correct_only:
        traces = {k: "its final answer is wrong (--correct-only)" if not isinstance(t, str) and t.correct is False
                  else t for k, t in traces.items()}
    caller = Caller(cfg, "reasoning", data.parent, results, prompts, max_tokens)
    outcomes = drive([(rec, r_family.adapt(rec, traces[rec["id"]], attempts)) for rec in items], caller,
                     "adapt reasoning")
    rows: dict[str, list[dict[str, Any]]] = {"Morpho_R_v0": [], r_family.LITE: [], r_family.COMPLEX: []}
    for rec, o in zip(items, outcomes):
        index = official_index(rec)
        rows["Morpho_R_v0"].append(official_row(rec, data.parent, "Morpho_R_v0", index, hints=[]))
        for d in o["derived"]:
            rows[d["split"]].append(official_row(
                rec, data.parent, d["split"], f"{index}_{d['variant']}", hints=[h["text"] for h in d["hints"]],
                source_id=rec["id"], source_index=index, variant=d["variant"], hint_kind=d["kind"],
                hint_tiers=[h["tier"] for h in d["hints"]], hint_nodes=[h["nodes"] for h in d["hints"]],
                hint_evidence=[h["evidence"] for h in d["hints"]], graph_source=o["graph_source"],
                trace_source=o["trace"]["source"], trace_correct=o["trace"]["correct"]))
    write_release(out, rows)
    n = len(items)
    report = _summary("reasoning", data, cfg.name, out, attempts, items, outcomes,
                      {r_family.LITE: 2 * n, r_family.COMPLEX: 2 * n}, caller)
    report["source"] = source
    traced = [o for o in outcomes if "graph_source" in o]
    report["graph_source"] = dict(Counter(o["graph_source"] for o in traced))
    report["graph_failures"] = dict(Counter(cause(f) for o in traced for f in o["graph_failures"]))
    report["spoiler_statements"] = sum(len(o["spoiler_statements"]) for o in traced)
    report["trace_correct"] = {str(k).lower(): v for k, v in Counter(o["trace"]["correct"] for o in traced).items()}
    report["checks"] = {}
    for kind in r_family.TEMPLATE:
        history = [a for o in outcomes for node in (o.get("hint_attempts") or {}).get(kind, {}).values() for a in node]
        rejected, why = _rejections(history)
        report["checks"][f"{kind} hints"] = {"accepted": len(history) - rejected, "rejected": rejected,
                                             "rejections": dict(why)}
    md = write_report(out, "reasoning", report, outcomes)
    log.info("reasoning adaptation written under %s (report %s)", out, md)
    return report


def recognition(data: Path, model: Path, out: Path, limit: int | None = None, results: Path = RESULTS,
                attempts: int = ATTEMPTS, max_tokens: int | None = None, prompts: Path = PROMPTS) -> dict[str, Any]:
    """P(Perturbed) beside P(v0) under `out`; returns the report."""
    cfg = load_model_config(model)
    items = sources(data, "recognition", limit)
    mode = "image" if cfg.accepts_images else "caption"  # a text-only model reads the captions
    caller = Caller(cfg, "recognition", data.parent, results, prompts, max_tokens)
    outcomes = drive([(rec, p_family.adapt(rec, mode, attempts)) for rec in items], caller, "adapt recognition")
    rows: dict[str, list[dict[str, Any]]] = {"Morpho_P_v0": [], p_family.PERTURBED: []}
    for rec, o in zip(items, outcomes):
        index = official_index(rec)
        rows["Morpho_P_v0"].append(official_row(rec, data.parent, "Morpho_P_v0", index, hints=[]))
        for d in o["derived"]:
            rows[d["split"]].append(official_row(
                rec, data.parent, d["split"], f"{index}_p", question=d["question"], hints=[], source_id=rec["id"],
                source_index=index, obfuscated=d["obfuscated"],
                cues=[{"element": c["element"], "phrase": c["phrase"]} for c in o["cues"]]))
    write_release(out, rows)
    report = _summary("recognition", data, cfg.name, out, attempts, items, outcomes,
                      {p_family.PERTURBED: len(items)}, caller)
    report["checks"] = {}
    for stage, field in (("cues", "cue_attempts"), ("perturbations", "perturb_attempts")):
        history = [a for o in outcomes for a in o.get(field) or []]
        rejected, why = _rejections(history)
        accepted = (sum(not c["rejected"] for a in history for c in a["cues"] or []) if stage == "cues"
                    else sum(not a["why"] for a in history))
        report["checks"][stage] = {"accepted": accepted, "rejected": rejected, "rejections": dict(why)}
    md = write_report(out, "recognition", report, outcomes)
    log.info("recognition adaptation written under %s (report %s)", out, md)
    return report
