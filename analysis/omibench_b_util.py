"""Helpers shared by the OMIBench part-B tables (F5a–c, F6a, F6bc/T10, T5, T7–T9, F16, sig).

Not a table itself (no IDS): loading records, per-subject accuracy, evaluator-split verdicts, runs by the
setting the paper names, the external-inputs folder, and figure paths.
"""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import pandas as pd
import yaml

from analysis.inputs import Run, find_runs, pick_setting
from analysis.stats import accuracy_table
from analysis.table import MissingInputs, ROOT, Context
from data.jsonl import iter_jsonl

BENCH = "omibench"
SUBJECTS = ["Biology", "Chemistry", "Mathematics", "Physics"]
PAPER_SIZES = {"Biology": 251, "Chemistry": 217, "Mathematics": 430, "Physics": 424}  # Figure 2
METRICS = {"ACC": "rules", "GPTScore": "omibench_gptscore"}      # the paper's ACC and (GPT)Score
EXTERNAL = ROOT / "data" / "external" / "omibench"


def data_file() -> tuple[Path, str]:
    """The unified OMIBench file: the paper profile's (experiment `data`, else data/omibench/test.jsonl),
    falling back to the demo build. Returns the path and a sentence for the table notes."""
    exp = yaml.safe_load((ROOT / "configs" / "experiments" / "omibench_T2.yaml").read_text(encoding="utf-8"))
    paper = ROOT / (exp.get("data") or "data/omibench/test.jsonl")
    if paper.exists():
        return paper, f"records from {paper.relative_to(ROOT)} (paper profile)"
    demo = ROOT / "data" / "demo" / "build" / f"{BENCH}.jsonl"
    if not demo.exists():
        raise MissingInputs(f"no OMIBench data: neither {paper.relative_to(ROOT)} (python -m data.convert omibench) "
                            f"nor {demo.relative_to(ROOT)} (python -m data.demo)")
    return demo, f"records from {demo.relative_to(ROOT)} (demo build; {paper.relative_to(ROOT)} does not exist)"


@lru_cache(maxsize=16)
def records(path: Path) -> dict[str, dict]:
    """Full unified records by id (rule scoring and vote keys need answers and choices)."""
    return {str(rec["id"]): rec for _, rec in iter_jsonl(path)}


def run_records(run: Run) -> dict[str, dict]:
    """The records a run was judged against (its manifest's data file), else the default data file."""
    data = run.manifest.get("data")
    return records(Path(data) if data and Path(data).exists() else data_file()[0])


def raw_manifest(run: Run) -> dict:
    """The inference manifest of a run (holds `excluded_ids` of ICL runs)."""
    p = run.raw.with_suffix(".manifest.json")
    return json.loads(p.read_text()) if p.exists() else {}


def base_setting(setting: str) -> str:
    """The paper's setting name of a run setting (the demo's text-only models add "+caption")."""
    return setting[: -len("+caption")] if setting.endswith("+caption") else setting


def runs_named(ctx: Context, judge: str, pattern) -> dict[tuple[str, str], Run]:
    """(model, paper setting) → run, for every run of `judge` whose paper setting matches the regex."""
    found = find_runs(ctx.results, BENCH, judge)
    out: dict[tuple[str, str], Run] = {}
    for r in found:
        wanted = base_setting(r.setting)
        if pattern.fullmatch(wanted):
            mine = [x for x in found if x.model == r.model]
            got = pick_setting(mine, wanted)  # prefers the exact setting over its caption variant
            out[(r.model, wanted)] = next(x for x in mine if x.setting == got)
    return out


def per_subject(df: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """Accuracy per group and subject plus "Total" over all items (a micro-average by construction, every
    judged item weighing the same)."""
    sub = accuracy_table(df, [*by, "subject"]) if "subject" in df else pd.DataFrame()
    total = accuracy_table(df, by).assign(subject="Total")
    return pd.concat([sub, total], ignore_index=True)


def wide(long: pd.DataFrame, index: list[str]) -> pd.DataFrame:
    """One row per `index`, columns "<metric> <subject>" in the paper's order (subjects, then Total)."""
    # unstack, not pivot_table(dropna=False): that would add every combination of the index levels
    t = long.drop_duplicates([*index, "metric", "subject"]).set_index([*index, "metric", "subject"])["acc"]
    t = t.unstack(["metric", "subject"])
    order = [s for s in [*SUBJECTS, "Total"] if s in set(long["subject"])]
    order += sorted(set(long["subject"]) - set(order))
    cols = [(m, s) for s in order for m in ("ACC", "GPTScore") if (m, s) in t.columns]
    t = t[cols]
    t.columns = [f"{m} {s}" for m, s in cols]
    return t.reset_index()


def evaluator_verdicts(run: Run) -> pd.DataFrame:
    """A verdict file's current lines per evaluator: one file holds every judge model that judged it,
    so (judge.model, id, sample_idx) is the key; the rule judge's evaluator is "rules"."""
    latest: dict[tuple, dict] = {}
    if run.path.exists():
        for line in run.path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                v = json.loads(line)
                ev = (v.get("judge") or {}).get("model") or (v.get("judge") or {}).get("name") or run.judge
                latest[(ev, v["id"], v["sample_idx"])] = v
    rows = [{"evaluator": ev, "id": i, "sample_idx": s, "status": v.get("status", "ok"),
             "correct": v.get("correct"), "extracted": v.get("extracted")} for (ev, i, s), v in latest.items()]
    df = pd.DataFrame(rows, columns=["evaluator", "id", "sample_idx", "status", "correct", "extracted"])
    recs = run_records(run)
    df["subject"] = [recs.get(i, {}).get("subject") for i in df["id"]]
    df.insert(0, "model", run.model)
    return df


def rel(path: Path) -> str:
    """A path for notes: relative to the checkout when inside it."""
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def model_params(model: str, run: Run | None = None) -> tuple[float | None, float | None]:
    """(total, activated) parameters in billions: configs/models/paper/<model>.yaml, else the config
    recorded in the run's raw manifest (the demo's models are not paper configs)."""
    cfg_path = ROOT / "configs" / "models" / "paper" / f"{model}.yaml"
    cfg = yaml.safe_load(cfg_path.read_text(encoding="utf-8")) if cfg_path.exists() else None
    if cfg is None and run is not None:
        cfg = raw_manifest(run).get("model")
    cfg = cfg or {}
    total = cfg.get("params_total_b")
    return total, cfg.get("params_active_b", total)
