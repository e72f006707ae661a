"""Judge raw outputs: results/raw/<bench>/<model>/<setting>.jsonl → results/judged/…/<setting>.<judge>.jsonl

    python -m judge.run --bench omibench --data data/omibench/test.jsonl --model qwen3-vl-8b-instruct \
        --setting cot_boxed --judge rules
    python -m judge.run ... --judge omibench_gptscore --judge-model configs/models/paper/gpt-4o-mini.yaml

A judge that asks no model (`rules`, `omibench_c1`) takes no --judge-model.

Verdict files are append-only; a verdict is about one raw outcome, judged against one version of the record by
one judge (name, judge model, prompt hash), and counts only while all three are current (judge/current.py). A
rerun judges every current outcome without a current verdict, and only those: going back to an earlier prompt,
judge prompt, judge model or gold finds the verdicts made then. A request that failed, or a reply with no text,
is recorded as `no_response`, an unreadable judge reply as `judge_error`: neither is a verdict on the answer
(never recorded as `correct: false`), and the tables count both apart and as not correct in the accuracy the
papers report, which divides by every item.
"""
from __future__ import annotations

import argparse
import json
import logging
import re
import sys
from pathlib import Path
from typing import Any, Iterable

from data.jsonl import DataError, write_json_atomic
from data.benchmarks import BENCHMARKS
from infer.ask import Cost, drive
from infer.client import GaveUp
from infer.config import ConfigError, ModelConfig, load_model_config
from infer.interrupt import exits_cleanly
from infer.layout import RESULTS, judged_path, manifest_of, printed, raw_path, recorded, stands_for
from infer.manifest import base_manifest, sha256_file, write_manifest
from infer.preflight import EndpointDown
from infer.request import answered, describe_causes
from data.dataset import missing_data, read_records
from infer.store import AppendLog, LockedError, load_latest
from infer.templates import PROMPTS, TemplateError
from judge import current, injection, parallel
from judge.current import outcome_sha
from judge.extract import truncated
from judge.judges import JUDGES, RULES, asks_model, default_judges
from judge.llm import answer, judge_template
from judge.status import UNDECIDED
from judge.types import Item

log = logging.getLogger(__name__)
Judge = Any  # a judge of judge/judges.py: `name`, `prompts`, `steps(item)` (and `version` for rules)


def verdict(raw: dict[str, Any], judge: dict[str, Any], record: str, rec: dict[str, Any] | None = None,
            **fields: Any) -> dict[str, Any]:
    """A verdict line: the raw outcome judged, the record's line digest it was judged against (`record`), the
    judge. A response flagged as addressing the judge gains nothing: an LLM judge's `correct` is the rule judge's
    verdict on the record `rec`, the LLM's kept beside it, and the careful rule judge's own verdict reads the
    response only before its first flagged span (judge/injection.py). A published rule (omibench_c1) reads it as
    published."""
    found = injection.flags(raw.get("response"))
    if found and judge.get("model") and rec is not None:
        fields = injection.distrusted(fields, rec, raw["response"])
    elif found and judge.get("name") == RULES and rec is not None and fields.get("status", "ok") != "no_response":
        fields = {**fields, **injection.rule_verdict(rec, raw["response"])}
    return {"id": raw["id"], "sample_idx": raw["sample_idx"], "request_key": raw.get("request_key"),
            "outcome": outcome_sha(raw), "record": record, "judge": judge, "extracted": None, "correct": None,
            "status": "ok", "flags": found, **fields}


def no_raw(raw_file: Path) -> str:
    return f"{raw_file}: no raw outputs of this model and setting yet (run python -m infer.run first)"


def declared_reasoning(raw_manifest: dict[str, Any] | None) -> str | None:
    """Whether the evaluated model's endpoint returned its reasoning in the run, as its config declares
    (infer/config.py REASONING) for the run's thinking switch, recorded in the run's manifest; None for a run
    recorded before configs declared it."""
    manifest = raw_manifest or {}
    declared = manifest.get("reasoning") or (manifest.get("model") or {}).get("reasoning")
    return declared if isinstance(declared, str) else None


def judge_identity(judge: Judge, cfg: ModelConfig | None, prompts: Path) -> dict[str, Any]:
    """Name, judge model and prompt hash: what a verdict is keyed by, so a changed prompt, or a changed reading of
    the injection flags (judge/injection.py VERSION), is judged anew; a judge model's replies stay in its log."""
    if not judge.prompts:  # the flags' reading is part of every verdict (its `flags`, a flagged answer's reading)
        return {"name": judge.name, "model": None, "prompt_sha": f"{judge.version}+{injection.VERSION}"}
    sha = "+".join(judge_template(p, prompts).sha for p in judge.prompts)
    version = getattr(judge, "version", None)  # a judge whose steps changed meaning (judge/mira_acc.py)
    constrained = bool(cfg and cfg.constrain_judge_replies)  # decoding held to each reply's grammar
    return {"name": judge.name, "model": cfg.name if cfg else None,
            "prompt_sha": f"{sha}+{injection.VERSION}" + (f"+{version}" if version else "")
                          + ("+grammar" if constrained else ""),
            "constrained": constrained}


def judge_all(judge: Judge, items: list[Item], cfg: ModelConfig | None, base: Path, results: Path,
              prompts: Path) -> list[dict[str, Any]]:
    """Every item's verdict fields. Judges that ask a model are driven stage by stage: all items' requests
    of a stage go out together, and each item's replies go back to its judge. A judge that asks none
    (the rule judge) gives its verdicts at once, using every core for a long run (judge/parallel.py)."""
    if not judge.prompts:
        return parallel.map_ordered(judge.steps, items)
    done = drive([judge.steps(item) for item in items],
                 lambda pending: answer([(items[i], ask) for i, ask in pending], cfg, base, results, prompts))
    return [fields if cost is None else {**fields, **judge_cost(cost)} for fields, cost in done]


def judge_cost(cost: Cost) -> dict[str, Any]:
    """What a verdict cost, for the tables: judge calls and tokens, and what each failed call went through."""
    failed = {"failed_calls": cost.failed} if cost.failed else {}
    return {"judge_calls": cost.calls, "judge_tokens": cost.tokens, **failed}


def summarize(lines: list[dict[str, Any]], scores: tuple[str, ...] = (), unjudged: int = 0,
              truncated: int = 0) -> dict[str, Any]:
    """Counts of the current verdicts of a raw file's current outcomes (`unjudged`: those without one; `truncated`:
    those cut at the token limit with no final answer). accuracy: the papers' (correct over every item; a failure
    or an unjudged outcome is not correct), accuracy_scored beside it; an answer the careful rule judge left
    `undecided` is neither (judge/status.py): accuracy counts it not correct, accuracy_hi correct. A process judge
    (`scores`: the fields of its verdicts' score) gives the means of its scores over the answers it scored instead."""
    ok = [v for v in lines if v["status"] == "ok"]
    correct = sum(1 for v in ok if v["correct"])
    undecided = sum(1 for v in lines if v["status"] == UNDECIDED)
    items = len(lines) + unjudged
    values = {f: [v["score"][f] for v in ok if isinstance((v.get("score") or {}).get(f), (int, float))] for f in scores}
    labelled = any(v.get("labels") is not None for v in ok)  # a labelling judge (error taxonomies)
    labels = [label for v in ok for label in v.get("labels") or []]
    return {"items": items, "scored": len(ok), "correct": correct,
            "label_counts": {x: labels.count(x) for x in sorted(set(labels))} if labelled else None,
            "accuracy": correct / items if items and not scores and not labelled else None,
            "accuracy_scored": correct / len(ok) if ok and not scores and not labelled else None,
            "undecided": undecided,
            "accuracy_hi": (correct + undecided) / items if items and not scores and not labelled else None,
            "score_means": {f: sum(x) / len(x) if x else None for f, x in values.items()} if scores else None,
            "no_response": sum(1 for v in lines if v["status"] == "no_response"),
            "judge_error": sum(1 for v in lines if v["status"] == "judge_error"),
            "judge_error_causes": _causes(v.get("error") for v in lines if v["status"] == "judge_error"),
            "unjudged": unjudged,
            "flagged": sum(1 for v in lines if v.get("flags")), "truncated": truncated,
            "judge_calls": sum(v.get("judge_calls") or 0 for v in lines),
            "judge_tokens": sum(v.get("judge_tokens") or 0 for v in lines)}


def _causes(errors: Iterable[Any]) -> dict[str, int]:
    """Judge errors by cause, counted: a failed call's status or reason without its exception's name and the
    reply's excerpt ("FatalError: HTTP 404: {…}" is "HTTP 404")."""
    counts: dict[str, int] = {}
    for error in errors:
        cause = re.sub(r"^\w+(?:Error|Gave\w*): ", "", str(error)).split(": ")[0][:80]
        counts[cause] = counts.get(cause, 0) + 1
    return counts


def none_succeeded(s: dict[str, Any]) -> bool:
    """Whether a judge run judged items now and could give none of them a verdict: every verdict is a judge error
    (its command then exits non-zero, as infer.run does when none of its requests succeeded)."""
    return s["judged_now"] > 0 and s["judge_error"] > 0 and s["scored"] == 0 and not s["undecided"]


def describe(s: dict[str, Any]) -> str:
    """A summary in words: the paper-comparable accuracy, then the accuracy over scored items and the failures."""
    def pct(x: float | None) -> str:
        return "n/a" if x is None else f"{x:.2%}"

    failures = (f"{s['no_response']} no response, {s['judge_error']} judge error(s), "
                + (f"{s['unjudged']} unjudged, " if s.get("unjudged") else "")
                + f"{s['flagged']} flagged as addressing the judge"
                + (f", {s['truncated']} truncated (cut at max_tokens, no final answer)" if s.get("truncated") else ""))
    if s.get("score_means") is not None:
        means = ", ".join(f"{k} {'n/a' if v is None else f'{v:.3g}'}" for k, v in s["score_means"].items())
        return f"scored {s['scored']}/{s['items']}, mean {means}; {failures}; {s['judge_calls']} judge calls"
    if s.get("label_counts") is not None:
        counts = ", ".join(f"{k} {n}" for k, n in s["label_counts"].items()) or "no error found"
        return f"labelled {s['scored']}/{s['items']} ({counts}); {failures}; {s['judge_calls']} judge calls"
    undecided = s.get("undecided") or 0
    upper = f" to {pct(s.get('accuracy_hi'))} with the undecided right" if undecided else ""
    return (f"accuracy {pct(s['accuracy'])}{upper} ({s['correct']}/{s['items']}, a failure counts as not correct); "
            f"over scored {pct(s['accuracy_scored'])} ({s['correct']}/{s['scored']}); "
            + (f"{undecided} undecided (only a reader can tell); " if undecided else "") + failures)


# The fields of earlier verdicts a run needs: those its summary counts, and those that tell a judge error apart.
KEPT = ("status", "correct", "score", "labels", "flags", "judge_calls", "judge_tokens", "error", "raw_judge_reply")


def needs_verdict(raw: dict[Any, dict[str, Any]], existing: dict[Any, dict[str, Any]],
                  wanted: dict[Any, Any]) -> list[dict[str, Any]]:
    """The current raw lines without a current verdict. Judge errors are tried again on every run (the reply
    cache decides whether that costs a call)."""
    return [r for k, r in raw.items() if existing.get(wanted[k], {}).get("status") in (None, "judge_error")]


def to_judge(bench: str, data: Path, model: str, setting: str, judge: str, results: Path = RESULTS,
             judge_cfg: ModelConfig | None = None, *, prompts: Path = PROMPTS
             ) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """The answered raw lines `run` would judge now, each with its record, read without writing anything (a
    cost estimate); none while the raw file does not exist."""
    raw_file = raw_path(results, bench, model, setting)
    if not raw_file.exists():
        return []
    read = read_records(data, bench)
    records = {rec["id"]: rec for rec in read.records}
    digests = {rec["id"]: d for rec, d in zip(read.records, read.digests)}
    judge_id = judge_identity(JUDGES[judge], judge_cfg, prompts)
    raw = {k: r for k, r in load_latest(raw_file, key=lambda r: (r["id"], r["sample_idx"])).items()
           if r["id"] in digests}
    out_path = judged_path(results, bench, model, setting, judge)
    existing = load_latest(out_path, key=current.verdict_key, keep=KEPT) if out_path.exists() else {}
    wanted = {k: current.wanted_key(r, digests[r["id"]], judge_id) for k, r in raw.items()}
    return [(records[r["id"]], r) for r in needs_verdict(raw, existing, wanted) if answered(r)]


def run(bench: str, data: Path, model: str, setting: str, judge: str, results: Path = RESULTS,
        judge_cfg: ModelConfig | None = None, *, prompts: Path = PROMPTS) -> dict[str, Any]:
    """Judge every current outcome of the raw file that has no current verdict (judge/current.py); return the
    summary of the file's current verdicts."""
    if judge not in JUDGES:
        raise ConfigError(f"--judge: unknown judge {judge!r} (known: {', '.join(JUDGES)})")
    spec = JUDGES[judge]
    if spec.prompts and judge_cfg is None:
        raise ConfigError(f"--judge {judge} is an LLM judge: give --judge-model configs/models/<m>.yaml")
    if bench not in BENCHMARKS:
        raise ConfigError(f"--bench: unknown benchmark {bench!r} (known: {', '.join(BENCHMARKS)})")
    read = read_records(data, bench)  # checked as inference checks it, with each record's line digest
    records = {rec["id"]: rec for rec in read.records}
    digests = {rec["id"]: d for rec, d in zip(read.records, read.digests)}
    raw_file = raw_path(results, bench, model, setting)
    if not raw_file.exists():
        raise ConfigError(no_raw(raw_file))
    judge_id = judge_identity(spec, judge_cfg, prompts)
    raw = load_latest(raw_file, key=lambda r: (r["id"], r["sample_idx"]))
    unknown = sorted({k[0] for k in raw} - records.keys())
    if unknown:
        raise DataError([f"{raw_file}: id: {len(unknown)} raw output(s) for items not in {data}, e.g. {unknown[0]!r}"])
    out_path = judged_path(results, bench, model, setting, judge)
    raw_manifest_path = manifest_of(raw_file)
    raw_manifest = json.loads(raw_manifest_path.read_text()) if raw_manifest_path.exists() else None

    with AppendLog(out_path) as out:
        existing = load_latest(out_path, key=current.verdict_key, keep=KEPT)
        wanted = {k: current.wanted_key(r, digests[r["id"]], judge_id) for k, r in raw.items()}
        todo = needs_verdict(raw, existing, wanted)
        new: list[dict[str, Any]] = []
        to_judge = []
        for r in todo:
            if answered(r):
                to_judge.append(r)
            else:
                new.append(verdict(r, judge_id, digests[r["id"]], status="no_response", error=current.no_response(r)))
        declared = declared_reasoning(raw_manifest)
        items = [Item(records[r["id"]], r["response"], r.get("reasoning"),
                      (r.get("usage") or {}).get("reasoning_tokens"), declared) for r in to_judge]
        fields = judge_all(spec, items, judge_cfg, data.parent, results, prompts)
        new += [verdict(r, judge_id, digests[r["id"]], records[r["id"]], **f) for r, f in zip(to_judge, fields)]
        for v in new:
            key = current.verdict_key(v)
            before = existing.get(key)
            if before and all(before.get(k) == v.get(k) for k in ("status", "error", "raw_judge_reply")):
                continue  # the same judge error again: nothing new to record
            out.write(v)
            existing[key] = {k: v.get(k) for k in KEPT}
    now = [existing[w] for w in wanted.values() if w in existing]
    cut = sum(truncated(r.get("finish_reason"), r.get("response")) for r in raw.values())
    summary = {**summarize(now, getattr(spec, "scores", ()), unjudged=len(wanted) - len(now), truncated=cut),
               "judged_now": len(todo)}
    _record(manifest_of(out_path), not todo, judge_id, base_manifest(
        benchmark=bench, model=model, setting=setting, stands_for=stands_for(setting, raw_manifest), judge=judge_id,
        raw=recorded(raw_file), data={"path": recorded(data), "sha256": sha256_file(data)},
        judge_model=judge_cfg.public_dict() if judge_cfg else None, summary=summary))
    return summary


def _record(path: Path, idle: bool, judge_id: dict[str, Any], manifest: dict[str, Any]) -> None:
    """The verdict file's manifest, with every judge identity that has written to it (`judges`)."""
    try:
        before = json.loads(path.read_text()) if path.exists() else {}
    except ValueError:  # unreadable: it is written again whole
        before = {}
    earlier = before.get("judges") or ([before["judge"]] if before.get("judge") else [])
    write_manifest(path, idle=idle, volatile=("written", "summary"),
                   manifest={**manifest, "judges": current.asked_with(earlier, judge_id)})


def judge_model_ready(judges: list[str], path: Path | None) -> ModelConfig | None:
    """The judge model's config when a judge asks one, checked before any judge runs: every judge known, the config
    readable, its key set (README, Keys: said before any file is made). A ConfigError says what is wrong, and
    nothing has been written. Without --judge-model there is none: the rule judges still run, and each LLM judge
    says it needs one."""
    unknown = [j for j in judges if j not in JUDGES]
    if unknown:
        raise ConfigError(f"--judge: unknown judge {unknown[0]!r} (known: {', '.join(JUDGES)})")
    if path is None or not any(asks_model(j) for j in judges):
        return None
    cfg = load_model_config(path)
    cfg.api_key()  # an unset key is found here, not after the rule judges have written their verdicts
    return cfg


@exits_cleanly
def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    ap = argparse.ArgumentParser(prog="python -m judge.run", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bench", required=True, choices=BENCHMARKS)
    ap.add_argument("--data", required=True, type=Path)
    ap.add_argument("--model", required=True, help="the evaluated model's name (results/raw/<bench>/<model>/)")
    ap.add_argument("--setting", required=True)
    ap.add_argument("--judge", required=True, nargs="+",
                    help=f"one or more of: {', '.join(JUDGES)}; or 'default' for the paper's own judges")
    ap.add_argument("--judge-model", type=Path, help="model config of the LLM judge")
    ap.add_argument("--results", type=Path, default=RESULTS)
    args = ap.parse_args(argv)
    judges = default_judges(args.bench) if args.judge == ["default"] else args.judge
    raw_file = raw_path(args.results, args.bench, args.model, args.setting)
    for missing, why in ((args.data, missing_data(args.data, args.bench)), (raw_file, no_raw(raw_file))):
        if not missing.is_file():  # every judge needs it: said once
            print(f"error: {why}", file=sys.stderr)
            return 1
    try:
        cfg = judge_model_ready(judges, args.judge_model)
    except ConfigError as e:  # before any judge runs: nothing is written
        print(f"error: {e}", file=sys.stderr)
        return 1
    status, down = 0, False
    for judge in judges:
        if down and asks_model(judge):  # its judge model does not answer: said once
            continue
        try:
            s = run(args.bench, args.data, args.model, args.setting, judge, args.results,
                    cfg if asks_model(judge) else None)
        except EndpointDown as e:
            print(f"error: {e}", file=sys.stderr)
            status, down = 1, True
            continue
        except (DataError, ConfigError, TemplateError, LockedError, ValueError, GaveUp) as e:
            print(f"error: {e}", file=sys.stderr)
            status, down = 1, down or isinstance(e, GaveUp)
            continue
        print(f"{printed(judged_path(args.results, args.bench, args.model, args.setting, judge))}: {describe(s)}; "
              f"{s['judged_now']} judged now")
        if none_succeeded(s):
            print(f"error: {judge}: none of the {s['judged_now']} items judged now got a verdict: "
                  f"{describe_causes(s['judge_error_causes'])}", file=sys.stderr)
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
