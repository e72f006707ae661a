"""Sections 3-5: scale (resume of 100k finished requests, peak memory of a 100k run), rule judging, analysis."""
from __future__ import annotations

import contextlib
import io
import json
import os
import random
import re
import shutil
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from benchmarks.perf_common import Figure, Mode, median, profile
from benchmarks.perf_data import analysis_tree, judging_set, make_records, raw_result, write_lines

ROOT = Path(__file__).resolve().parent.parent
SETTING = "cot_boxed"
RESUME_DONE, RESUME_NEW = 100_000, 10


def model_config(path: Path, base_url: str) -> Path:
    """A model config for the local server: fast (10 ms) answers of 100 characters."""
    path.write_text(json.dumps({"name": "bench", "model": "bench", "base_urls": [base_url], "modalities": ["text"],
                                "concurrency": 64, "max_retries": 0, "read_timeout": 60,
                                "extra_body": {"bench_latency": 0.01, "bench_chars": 100}}))  # JSON is YAML
    return path


def write_data(path: Path, n: int) -> Path:
    write_lines(path, iter(make_records(n)))
    return path


def prepare_resume(work: Path, base_url: str) -> tuple[Any, Path, Path]:
    """Data of 100,010 records and a raw file in which the first 100,000 requests are finished, written as
    infer.run writes them (with their inputs)."""
    import infer.run as R
    from infer.config import load_model_config
    from infer.prompting import Prompter
    from infer.resume import Finished, context_digest
    from infer.settings import parse_setting

    cfg = load_model_config(model_config(work / "bench.yaml", base_url))
    data = write_data(work / "resume.jsonl", RESUME_DONE + RESUME_NEW)
    spec = parse_setting(SETTING)
    records = R.read_records(data, "omibench", None)
    params = cfg.generation_params(spec.thinking, **spec.overrides)
    prompter = Prompter("omibench", spec, records.records)
    nothing_done = Finished(work / "no-raw-file.jsonl", context_digest("omibench", prompter, cfg, params, data.parent), 1)
    requests, _, _ = R.plan(records, data.parent, prompter, cfg, params, 1, nothing_done)
    by_id = {r["id"]: r for r in records.records}
    rng = random.Random(3)
    pristine = work / "resume-raw.jsonl"
    write_lines(pristine, (R.raw_line(q.id, q.sample_idx, q.key, cfg, SETTING, params, raw_result(rng, by_id[q.id]),
                                      q.inputs) for q in requests[:RESUME_DONE]))
    return cfg, data, pristine


PHASES = ("read_records", "plan", "Finished")  # what infer.run does before sending, by the names it calls


def timed_resume(cfg: Any, data: Path, pristine: Path, results: Path) -> dict[str, float]:
    """infer.run.run on the prepared files, with its phases timed by wrapping infer.run's own functions."""
    import infer.run as R

    raw = R.raw_path(results, "omibench", cfg.name, SETTING)
    raw.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(pristine, raw)
    marks: dict[str, float] = defaultdict(float)
    originals = {name: getattr(R, name) for name in (*PHASES, "send")}

    def timed(name: str):
        def wrapper(*args, **kwargs):
            start = time.perf_counter()
            marks.setdefault("first_" + name, start)
            try:
                return originals[name](*args, **kwargs)
            finally:
                marks[name] += time.perf_counter() - start
        return wrapper

    def send(*args, **kwargs):
        marks["first_send"] = time.perf_counter()
        try:
            return originals["send"](*args, **kwargs)
        finally:
            marks["send"] = time.perf_counter() - marks["first_send"]

    for name in PHASES:
        setattr(R, name, timed(name))
    R.send = send
    try:
        start = time.perf_counter()
        counts = R.run("omibench", data, cfg, SETTING, results)
        total = time.perf_counter() - start
    finally:
        for name, fn in originals.items():
            setattr(R, name, fn)
    if (counts["sent"], counts["ok"]) != (RESUME_NEW, RESUME_NEW):
        raise RuntimeError(f"resume sent {counts['sent']} ({counts['ok']} ok), expected {RESUME_NEW}")
    return {"to_first_send": marks["first_send"] - start, "total_minus_send": total - marks["send"],
            "send": marks["send"], **{name: marks[name] for name in PHASES}}


MEMORY_RUN = """
import json, resource, sys, time
from pathlib import Path
from infer.config import load_model_config
from infer.run import run
imported = [line for line in open("/proc/self/status") if line.startswith("VmRSS")][0].split()[1]
start = time.perf_counter()
counts = run("omibench", Path(sys.argv[2]), load_model_config(sys.argv[1]), "cot_boxed", Path(sys.argv[3]))
hwm = [line for line in open("/proc/self/status") if line.startswith("VmHWM")][0].split()[1]
print(json.dumps({"maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, "vmhwm_mb": int(hwm) / 1024,
                  "imports_mb": int(imported) / 1024, "seconds": time.perf_counter() - start, "counts": counts}))
"""


def memory_run(n: int, work: Path, base_url: str, details: dict) -> Figure:
    """A fresh n-request run in a subprocess; its peak RSS from getrusage (and /proc VmHWM as a check).

    Linux carries ru_maxrss across fork and exec, so a child reports at least its parent's peak at the
    time it was started: this runs before the benchmark process loads anything big, and the note gives
    the parent's peak so the reader can see it was below the figure.
    """
    import resource

    cfg = model_config(work / "bench-mem.yaml", base_url)
    data = write_data(work / "memory.jsonl", n)
    parent_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    env = {k: v for k, v in os.environ.items() if k != "TQDM_DISABLE"}  # the runner as users run it
    out = subprocess.run([sys.executable, "-c", MEMORY_RUN, str(cfg), str(data), str(work / "results-mem")],
                         cwd=ROOT, capture_output=True, text=True, timeout=3600, env=env)
    if out.returncode != 0:
        raise RuntimeError(f"memory run failed:\n{out.stderr[-3000:]}")
    got = json.loads(out.stdout.strip().splitlines()[-1])
    if got["counts"]["ok"] != n:
        raise RuntimeError(f"memory run: {got['counts']}")
    details["memory_run"] = got
    return Figure("scale", f"peak RSS of a {n:,}-request run (subprocess)", [got["maxrss_mb"]], "MB",
                  300.0 if n >= 100_000 else None, "<=",
                  note=f"VmHWM {got['vmhwm_mb']:.0f} MB; {got['imports_mb']:.0f} MB after imports; parent's peak at "
                       f"start {parent_mb:.0f} MB; {n / got['seconds']:.0f} req/s end to end (10 ms server, c=64)"
                       + ("" if n >= 100_000 else "; quick mode: full mode runs 100,000"))


def scale(srv: Any, mode: Mode, work: Path) -> list[Figure]:
    figures = [memory_run(mode.memory_requests, work, srv.base_url, mode.details)]
    cfg, data, pristine = prepare_resume(work, srv.base_url)
    runs = [timed_resume(cfg, data, pristine, work / f"results-resume{i}") for i in range(mode.runs)]
    pick = lambda key: [r[key] for r in runs]  # noqa: E731
    fig = Figure("scale", f"resume: {RESUME_DONE:,} done + {RESUME_NEW} new, time to first send", pick("to_first_send"),
                 "s", 1.0, "<=", note=f"reading the data file {median(pick('read_records')):.2f} s, the raw file "
                 f"{median(pick('Finished')):.2f} s, plan {median(pick('plan')):.2f} s; whole run minus sending "
                 f"{median(pick('total_minus_send')):.2f} s (adds the manifest's data sha256)")
    if not fig.met:  # where the time goes, on the first 20,000 lines (the shares do not depend on size)
        import infer.run as R
        from infer.prompting import Prompter
        from infer.resume import Finished, context_digest
        from infer.settings import parse_setting

        for src in (data, pristine):
            with open(src, "rb") as f, open(work / f"profile-{src.name}", "wb") as out:
                out.writelines(line for _, line in zip(range(20_000), f))

        def before_send() -> None:
            spec = parse_setting(SETTING)
            params = cfg.generation_params(spec.thinking, **spec.overrides)
            prompter = Prompter("omibench", spec)
            finished = Finished(work / f"profile-{pristine.name}", context_digest("omibench", prompter, cfg, params, data.parent), 1)
            records = R.read_records(work / f"profile-{data.name}", "omibench", None, finished.known)
            R.plan(records, data.parent, prompter, cfg, params, 1, finished)
        mode.details["resume_profile"] = profile(before_send)
    return figures + [fig]


def clear_judge_caches() -> None:
    """Forget every verdict and reading the rule judge has cached, so a measurement starts cold."""
    from judge import extract, formula, match, mathverify, parts, text

    for cached in (mathverify.read, match.math_equal, match.canonical, match.parse_number, formula.read, extract.clean,
                   extract._extract_answer, extract.strip_decoration, match.normalize_text, match._squash,
                   match.is_textual, parts.labelled_parts, text.words):
        cached.cache_clear()


def judge_types(pairs: list[tuple[dict, str]]) -> dict[str, float]:
    """Responses/s per answer type, one process (one pass, caches cleared first)."""
    from judge.rules import score

    clear_judge_caches()
    spent: dict[str, list[float]] = defaultdict(lambda: [0, 0.0])
    for rec, response in pairs:
        start = time.perf_counter()
        score(rec, response)
        spent[rec["answer_type"]][0] += 1
        spent[rec["answer_type"]][1] += time.perf_counter() - start
    return {k: round(n / s) for k, (n, s) in sorted(spent.items())}


def judging(mode: Mode) -> list[Figure]:
    """The rule judge over realistic responses, chunk by chunk as separate judge runs: through
    judge.run.judge_all (every core for a long run), and `judge.rules.score` in one process."""
    from judge import parallel
    from judge.judges import Item, RuleJudge
    from judge.rules import score
    from judge.run import judge_all

    pairs = judging_set(mode.judge_responses)
    os.sync()  # the earlier sections' files are flushed before, not during, the timing
    score(*pairs[0])  # imports and compiled patterns, not part of the figures
    chunks = max(mode.runs, mode.judge_responses // 20_000)
    size = len(pairs) // chunks
    parts = [pairs[k * size:(k + 1) * size] for k in range(chunks)]
    run_rates, one_rates, idle, correct = [], [], [], 0
    for k, part in enumerate(parts):
        items = [Item(rec, response) for rec, response in part]
        for pooled in ((True, False) if k % 2 == 0 else (False, True)):  # alternate which goes first
            clear_judge_caches()
            if pooled:
                idle.append(parallel.idle_cores())  # what judge_all will find; not timed
            start = time.perf_counter()
            if pooled:
                verdicts = judge_all(RuleJudge(), items, None, Path("."), Path("."), Path("."))
                run_rates.append(len(part) / (time.perf_counter() - start))
                correct += sum(bool(v["correct"]) for v in verdicts)
            else:
                [score(rec, response) for rec, response in part]
                one_rates.append(len(part) / (time.perf_counter() - start))
    total = chunks * size
    sample = pairs[:min(3000, len(pairs) // 3)]
    by_type = judge_types(sample)
    mode.details["judging_by_type"] = by_type
    run_fig = Figure("judging", f"rule judge run, judge_all ({total:,} responses)", run_rates, "resp/s", 10_000.0,
                     note=f"{chunks} runs of {size:,}, caches cold; a process per idle core from "
                          f"{parallel.POOL_MIN:,} answers (judge/parallel.py), idle cores before each run: "
                          + ", ".join(f"{x:.1f}" for x in idle) + f"; {correct / total:.0%} correct")
    one_fig = Figure("judging", "rule judge, judge.rules.score in one process", one_rates, "resp/s",
                     note="the same runs; per type (one process): " + ", ".join(f"{k} {v}" for k, v in by_type.items()))
    if not run_fig.met:
        clear_judge_caches()
        run = lambda: [score(rec, response) for rec, response in sample]  # noqa: E731
        mode.details["judging_profile"] = profile(run, cumulative=[
            "judge/match.py|match_one", "judge/match.py|math_equal", "judge/mathverify.py|verdict",
            "judge/formula.py|math_verdict", "judge/mathverify.py|prose_cannot_equal", "math_verify/grader.py|verify",
            "math_verify/parser.py|parse", "judge/match.py|parse_number", "judge/extract.py|extract_answer",
            "judge/rules.py|mcq_prediction"])
    return [run_fig, one_fig]


ANALYSIS_DRIVER = """
import json, sys, time
from pathlib import Path
from analysis.run import build_one, registry
from analysis.table import Context
ctx, modules, tables = Context(Path(sys.argv[1]), Path(sys.argv[2])), registry(), {}
for table_id in modules:
    start = time.perf_counter()
    try:
        o = build_one(table_id, ctx, modules)
        state, msg = o.state, o.message
    except Exception as e:
        state, msg = "crashed", f"{type(e).__name__}: {e}"
    tables[table_id] = [state, round(time.perf_counter() - start, 2), msg[:200]]
print(json.dumps(tables))
"""


# Where the time of `analysis.run --all` goes, phase by phase, in a fresh interpreter like the timed runs:
# imports, reading every run (as the first tables do), then the tables with those runs already read.
ANALYSIS_PHASES = """
import contextlib, io, json, sys, time
from pathlib import Path
start = time.perf_counter()
from analysis import inputs, run
from data.records import BENCHMARKS
modules = run.registry()
imported = time.perf_counter()
results = Path(sys.argv[1])
for bench in BENCHMARKS:
    for r in inputs.find_runs(results, bench):
        inputs.load_run(r)
read = time.perf_counter()
with contextlib.redirect_stdout(io.StringIO()):
    run.main(["--all", "--results", sys.argv[1], "--figures", sys.argv[2]])
done = time.perf_counter()
print(json.dumps({"starting Python, imports": imported - start, "reading the runs": read - imported,
                  "tables, figures, writing": done - read}))
"""


def analysis_breakdown(results: Path, figs: str) -> dict[str, Any]:
    """The phases of a run (a subprocess), and a cProfile of the tables built in this process."""
    out = subprocess.run([sys.executable, "-c", ANALYSIS_PHASES, str(results), figs], cwd=ROOT, capture_output=True,
                         text=True, check=True)
    from analysis import run as analysis_run

    def tables() -> None:
        with contextlib.redirect_stdout(io.StringIO()):
            analysis_run.main(["--all", "--results", str(results), "--figures", figs])

    return {"phases": json.loads(out.stdout.strip().splitlines()[-1]), "profile": profile(tables)}


def analysis(mode: Mode, work: Path) -> list[Figure]:
    """`python -m analysis.run --all` on a results tree of omibench cot_boxed rules verdicts, 5 models.

    If the command crashes (a table raising instead of reporting missing inputs), the figure is the time
    of every table built one by one in one process with failures caught, and the crash is noted.
    """
    models = [f"model-{k}" for k in range(5)]
    per_model = mode.analysis_lines // len(models)
    data = write_data(work / "analysis-data.jsonl", per_model)
    results, figs = work / "analysis-results", str(work / "analysis-figures")
    lines = analysis_tree(results, data, make_records(per_model), models)
    os.sync()  # the files just written (and the earlier sections') are flushed before, not during, the timing
    times, crash, tables = [], "", {}
    for _ in range(mode.analysis_runs):
        start = time.perf_counter()
        out = subprocess.run([sys.executable, "-m", "analysis.run", "--all", "--results", str(results), "--figures", figs],
                             cwd=ROOT, capture_output=True, text=True)
        elapsed = time.perf_counter() - start
        if out.returncode == 0:
            times.append(elapsed)
            per_table = {m[1]: [m[2], float(m[3])] for m in re.finditer(r"^(\S+): (\w+): .*\(([\d.]+)s\)$",
                                                                          out.stdout, re.M)}
            tables = {k: v[0] for k, v in per_table.items()}
            mode.details["analysis_tables"] = per_table
            continue
        last = out.stderr.strip().splitlines()
        crash = f"analysis.run --all exited {out.returncode} after {elapsed:.1f} s: {last[-1] if last else '?'}"
        start = time.perf_counter()
        drv = subprocess.run([sys.executable, "-c", ANALYSIS_DRIVER, str(results), figs], cwd=ROOT, capture_output=True,
                             text=True)
        times.append(time.perf_counter() - start)
        if drv.returncode != 0:
            raise RuntimeError(f"analysis driver failed:\n{drv.stderr[-3000:]}")
        per_table = json.loads(drv.stdout.strip().splitlines()[-1])
        tables = {k: v[0] for k, v in per_table.items()}
        mode.details["analysis_tables"] = per_table
        crash += "; crashed: " + ", ".join(f"{k} ({v[2]})" for k, v in per_table.items() if v[0] == "crashed")
    states = {s: sum(1 for v in tables.values() if v == s) for s in sorted(set(tables.values()))}
    name = "python -m analysis.run --all" if not crash else "analysis tables one by one (--all crashed)"
    slowest = sorted(mode.details.get("analysis_tables", {}).items(), key=lambda kv: -kv[1][1])[:3]
    fig = Figure("analysis", f"{name}, {lines:,} judged lines", times, "s", 5.0 if lines >= 100_000 else None, "<=",
                 note=f"tables: {states}; slowest: " + ", ".join(f"{k} {v[1]:.1f} s" for k, v in slowest)
                      + "; includes interpreter start" + (f". {crash}" if crash else ""))
    if fig.met is False and not crash:
        mode.details["analysis_profile"] = analysis_breakdown(results, figs)
    return [fig]
