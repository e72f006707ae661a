"""Section scale: resume of a run with 100,000 finished requests, peak memory of a 100,000-request run."""
from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from benchmarks.perf_common import Figure, Mode, median, profile
from benchmarks.perf_data import raw_result, write_data, write_lines

ROOT = Path(__file__).resolve().parent.parent
SETTING = "cot_boxed"
RESUME_DONE, RESUME_NEW = 100_000, 10


def model_config(path: Path, base_url: str) -> Path:
    """A model config for the local server: fast (10 ms) answers of 100 characters."""
    path.write_text(json.dumps({"name": "bench", "model": "bench", "base_urls": [base_url], "modalities": ["text"],
                                "concurrency": 64, "max_retries": 0, "read_timeout": 60,
                                "extra_body": {"bench_latency": 0.01, "bench_chars": 100}}))  # JSON is YAML
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
    from infer.layout import raw_path

    raw = raw_path(results, "omibench", cfg.name, SETTING)
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
