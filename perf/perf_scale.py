"""Section scale: a fresh run (peak memory, first send), a resume of a large run, a judge run over a large judge log
(100,000 each by default; `--scale N`)."""
from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from perf.perf_common import Figure, Mode, median
from perf.perf_data import judge_cache_lines, make_records, raw_result, write_data, write_lines

ROOT = Path(__file__).resolve().parent.parent
SETTING = "cot_boxed"
RESUME_NEW = 10


def model_config(path: Path, base_url: str) -> Path:
    """A model config for the local server: fast (10 ms) answers of 100 characters."""
    path.write_text(json.dumps({"name": "bench", "model": "bench", "base_urls": [base_url], "modalities": ["text"],
                                "concurrency": 64, "max_retries": 0, "read_timeout": 60,
                                "extra_body": {"bench_latency": 0.01, "bench_chars": 100}}))  # JSON is YAML
    return path


# The scripts below run in a fresh interpreter in a tree (this one, or the base commit's: `--base`), after their
# imports; each prints one JSON line with its figures and its own peak RSS (VmHWM: exec resets it, unlike ru_maxrss).
HWM = "int([x for x in open('/proc/self/status') if x.startswith('VmHWM')][0].split()[1]) / 1024"
FIRST_SEND = """
from infer.client import ChatClient
first_send, _complete = [], ChatClient.complete
async def _first(self, *args, **kwargs):
    first_send or first_send.append(time.perf_counter())
    return await _complete(self, *args, **kwargs)
ChatClient.complete = _first
"""

RESUME_RUN = """
import json, sys, time
from pathlib import Path
import infer.run as R
from infer.config import load_model_config
""" + FIRST_SEND + """
spent = []
def _timed(f):
    def timed(*args, **kwargs):
        t = time.perf_counter()
        try:
            return f(*args, **kwargs)
        finally:
            spent.append(time.perf_counter() - t)
    return timed
R.Finished = _timed(R.Finished)
if hasattr(R, "resume_state"):  # a tree with resume states (infer/resume_state.py): their reading counts too
    R.resume_state.load = _timed(R.resume_state.load)
start = time.perf_counter()
counts = R.run("omibench", Path(sys.argv[2]), load_model_config(sys.argv[1]), "cot_boxed", Path(sys.argv[3]))
print(json.dumps({"to_first_send": first_send[0] - start, "Finished": sum(spent), "total": time.perf_counter() - start,
                  "sent": counts["sent"], "ok": counts["ok"], "hwm_mb": """ + HWM + """}))
"""


def in_tree(tree: Path, script: str, *args: Any, env: dict[str, str] | None = None) -> dict[str, Any]:
    """Run a script in a fresh interpreter in `tree`; the JSON of its last line (and its stderr's size)."""
    out = subprocess.run([sys.executable, "-c", script, *map(str, args)], cwd=tree, capture_output=True, text=True,
                         timeout=7200, env=env)
    if out.returncode != 0:
        raise RuntimeError(f"{tree}: script failed:\n{out.stderr[-3000:]}")
    return {**json.loads(out.stdout.strip().splitlines()[-1]), "stderr_bytes": len(out.stderr)}


def compared(figure: Figure, base: list[float] | None, base_name: str | None) -> Figure:
    """The figure with the base tree's median, measured in the same rounds, and the ratio, in its note."""
    if base:
        ratio = figure.measured / median(base) if median(base) else float("nan")
        figure.note = f"base {base_name}: {median(base):.3g} {figure.unit} (this ÷ base {ratio:.2f}); " + figure.note
        figure.base = base
    return figure


def resume_runs(n: int, trees: dict[str, Path], runs: int, work: Path) -> dict[str, list[dict[str, Any]]]:
    """infer.run.run, in each tree, rounds interleaved, on the raw file of that tree's fresh run of n requests
    (memory_run: finished as that code writes them, with their inputs, and what that run left beside it) and a data
    file of the same n records and 10 more."""
    from infer.layout import raw_path

    cfg = work / "bench-mem.yaml"  # the memory run's model: its requests' keys
    data = write_data(work / "resume.jsonl", n + RESUME_NEW)  # make_records: the same first n records
    got: dict[str, list[dict[str, Any]]] = {name: [] for name in trees}
    for i in range(runs):
        for name, tree in (trees.items() if i % 2 == 0 else reversed(trees.items())):
            results = work / f"results-resume-{name}{i}"
            # the raw file and what the fresh run left beside it (its manifest, a resume state where the code has one)
            made = raw_path(work / f"results-mem-{name}", "omibench", "bench", SETTING).parent
            shutil.copytree(made, raw_path(results, "omibench", "bench", SETTING).parent)
            r = in_tree(tree, RESUME_RUN, cfg, data, results)
            if (r["sent"], r["ok"]) != (RESUME_NEW, RESUME_NEW):
                raise RuntimeError(f"{name}: resume sent {r['sent']} ({r['ok']} ok), expected {RESUME_NEW}")
            got[name].append(r)
            shutil.rmtree(results)
    return got


MEMORY_RUN = """
import json, sys, time
from pathlib import Path
from infer.config import load_model_config
from infer.run import run
imported = [line for line in open("/proc/self/status") if line.startswith("VmRSS")][0].split()[1]
""" + FIRST_SEND + """
start = time.perf_counter()
counts = run("omibench", Path(sys.argv[2]), load_model_config(sys.argv[1]), "cot_boxed", Path(sys.argv[3]))
print(json.dumps({"hwm_mb": """ + HWM + """, "imports_mb": int(imported) / 1024, "seconds": time.perf_counter() - start,
                  "first_send_s": first_send[0] - start, "counts": counts}))
"""


def memory_run(n: int, work: Path, base_url: str, trees: dict[str, Path], details: dict) -> list[Figure]:
    """A fresh n-request run in a subprocess, in each tree: its peak RSS (VmHWM) and the time from infer.run.run to
    its first request (ChatClient.complete); one run each (its figures are themselves over the whole run)."""
    cfg = model_config(work / "bench-mem.yaml", base_url)
    data = write_data(work / "memory.jsonl", n)
    env = {k: v for k, v in os.environ.items() if k != "TQDM_DISABLE"}  # the runner as users run it
    got = {}
    for name, tree in trees.items():
        got[name] = in_tree(tree, MEMORY_RUN, cfg, data, work / f"results-mem-{name}", env=env)
        if got[name]["counts"]["ok"] != n:
            raise RuntimeError(f"memory run ({name}): {got[name]['counts']}")
    details["memory_run"] = got
    this, base = got["this"], got.get("base")
    big = n >= 1_000_000
    base_name = trees.get("base", Path()).name
    return [compared(Figure("scale", f"peak RSS of a fresh {n:,}-request run (subprocess)", [this["hwm_mb"]], "MB",
                            (500.0 if big else 300.0) if n >= 100_000 else None, "<=",
                            note=f"{this['imports_mb']:.0f} MB after imports; {n / this['seconds']:.0f} req/s end to end "
                                 f"(10 ms server, c=64); progress output {this['stderr_bytes'] / 1e3:.0f} kB"
                                 + (f" (base {base['stderr_bytes'] / 1e3:.0f} kB)" if base else "")
                                 + ("" if n >= 100_000 else "; quick mode: full mode runs 100,000")),
                     [base["hwm_mb"]] if base else None, base_name),
            compared(Figure("scale", f"fresh {n:,}-request run: time to the first send", [this["first_send_s"]], "s",
                            5.0 if big else None, "<=", note="infer.run.run to the first ChatClient request, same run"),
                     [base["first_send_s"]] if base else None, base_name)]


JUDGE_RUN = """
import json, sys, time
from pathlib import Path
start = time.perf_counter()
from infer.config import load_model_config
from judge.run import run
imported = time.perf_counter()
s = run("omibench", Path(sys.argv[1]), sys.argv[2], "cot_boxed", "omibench_gptscore", Path(sys.argv[3]),
        load_model_config(sys.argv[4]))
print(json.dumps({"seconds": time.perf_counter() - imported, "imports_s": imported - start, "judged_now": s["judged_now"],
                  "hwm_mb": """ + HWM + """}))
"""

INDEX_BUILD = """
import json, sys, time
from pathlib import Path
from infer.ask import read_log
start = time.perf_counter()
read_log(Path(sys.argv[1]), ["none"])
print(json.dumps({"seconds": time.perf_counter() - start, "hwm_mb": """ + HWM + """}))
"""


def judge_runs(n: int, runs: int, work: Path, base_url: str, trees: dict[str, Path]) -> list[Figure]:
    """judge.run with an LLM judge on 10 answers over a judge log of n calls, in each tree, rounds interleaved: once
    with 10 new calls, once with none (the verdict file removed, every reply from the log); each in a fresh process,
    its imports left out."""
    from infer.layout import judge_cache_path, judged_path, raw_path

    results = work / "results-judge"
    cache = judge_cache_path(results, "bench-judge")
    write_lines(cache, judge_cache_lines(n))
    cfg = work / "bench-judge.yaml"
    cfg.write_text(json.dumps({"name": "bench-judge", "model": "bench", "base_urls": [base_url], "modalities": ["text"],
                               "temperature": 0, "max_retries": 0, "extra_body": {"bench_latency": 0.01, "bench_chars": 100}}))
    data = write_data(work / "judge-data.jsonl", RESUME_NEW)
    by_id = {r["id"]: r for r in make_records(RESUME_NEW)}
    os.sync()
    index = in_tree(ROOT, INDEX_BUILD, cache)  # as the judge runs that wrote the log would have: read whole, once
    new: dict[str, list[dict[str, Any]]] = {name: [] for name in trees}
    cached: dict[str, list[dict[str, Any]]] = {name: [] for name in trees}
    for i in range(runs):
        for name, tree in (trees.items() if i % 2 == 0 else reversed(trees.items())):
            model = f"m{i}-{name}"  # other answers each time: 10 calls the log has not seen
            rng = random.Random(f"{i}{name}")
            write_lines(raw_path(results, "omibench", model, SETTING),
                        ({"id": rid, "sample_idx": 0, "request_key": f"r{i}-{rid}", **raw_result(rng, rec)}
                         for rid, rec in by_id.items()))
            new[name].append(in_tree(tree, JUDGE_RUN, data, model, results, cfg))
            judged_path(results, "omibench", model, SETTING, "omibench_gptscore").unlink()
            cached[name].append(in_tree(tree, JUDGE_RUN, data, model, results, cfg))
    shutil.rmtree(results)
    note = (f"a fresh process each, imports ({median([r['imports_s'] for r in new['this']]):.2f} s) left out; the log "
            f"({cache_bytes(n) / 1e9:.2f} GB) read whole once before, to index it: {index['seconds']:.1f} s, "
            f"{index['hwm_mb']:.0f} MB")
    big = n >= 1_000_000
    base = "base" in trees
    base_name = trees.get("base", Path()).name
    seconds = lambda runs: [r["seconds"] for r in runs]  # noqa: E731
    return [compared(Figure("scale", f"judge run, 10 new calls over a judge log of {n:,}", seconds(new["this"]), "s",
                            1.0 if big else None, "<=", note=note), seconds(new["base"]) if base else None, base_name),
            compared(Figure("scale", f"judge run, 0 new calls over a judge log of {n:,}", seconds(cached["this"]), "s",
                            1.0 if big else None, "<=", note="the same answers judged again from the log alone"),
                     seconds(cached["base"]) if base else None, base_name),
            compared(Figure("scale", f"judge run over a judge log of {n:,}: peak RSS",
                            [r["hwm_mb"] for r in new["this"] + cached["this"]], "MB", 300.0 if big else None, "<=",
                            note="imports included"),
                     [r["hwm_mb"] for r in new["base"] + cached["base"]] if base else None, base_name)]


def cache_bytes(n: int) -> int:
    return n * 1085  # about 1 KB a line (perf_data.judge_cache_lines)


def scale(srv: Any, mode: Mode, work: Path) -> list[Figure]:
    n = done = mode.scale or mode.memory_requests
    trees = {"this": ROOT, **({"base": mode.base_tree} if mode.base_tree else {})}
    base_name = mode.base_tree.name if mode.base_tree else None
    figures = memory_run(n, work, srv.base_url, trees, mode.details)
    got = resume_runs(n, trees, mode.runs, work)
    pick = lambda key, name="this": [r[key] for r in got[name]]  # noqa: E731
    figures.append(compared(Figure(
        "scale", f"resume: {done:,} done + {RESUME_NEW} new, time to first send", pick("to_first_send"), "s",
        2.0 if done >= 1_000_000 else 1.0 if done >= 100_000 else None, "<=",
        note=f"reading the raw file (and the resume state) {median(pick('Finished')):.2f} s, the rest the data file "
             f"read and planned up to the first new record; whole run {median(pick('total')):.2f} s (adds the manifest's data sha256); "
             f"peak RSS {median(pick('hwm_mb')):.0f} MB"),
        pick("to_first_send", "base") if "base" in trees else None, base_name))
    figures += judge_runs(n, mode.runs, work, srv.base_url, trees)
    return figures
