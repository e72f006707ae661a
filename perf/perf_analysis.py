"""Section analysis: `python -m analysis.run --all` on 100,000 judged lines, and where its time goes."""
from __future__ import annotations

import contextlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from perf.perf_common import Figure, Mode, median, profile
from perf.perf_data import analysis_tree, make_records, write_data

ROOT = Path(__file__).resolve().parent.parent


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
# imports, reading every run on every core (as the command does first, analysis/read_ahead.py), then the tables
# with those runs already read.
ANALYSIS_PHASES = """
import contextlib, io, json, sys, time
from pathlib import Path
start = time.perf_counter()
from analysis import inputs, run
from analysis.read_ahead import read_ahead
from data.benchmarks import BENCHMARKS
modules = run.registry()
imported = time.perf_counter()
results = Path(sys.argv[1])
read_ahead([r for bench in BENCHMARKS for r in inputs.find_runs(results, bench)])
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


def tables_one_by_one(results: Path, figs: str) -> tuple[float, dict[str, list]]:
    """Every table built one by one in one process, failures caught: the seconds taken and each table's state."""
    start = time.perf_counter()
    drv = subprocess.run([sys.executable, "-c", ANALYSIS_DRIVER, str(results), figs], cwd=ROOT, capture_output=True,
                         text=True)
    seconds = time.perf_counter() - start
    if drv.returncode != 0:
        raise RuntimeError(f"analysis driver failed:\n{drv.stderr[-3000:]}")
    return seconds, json.loads(drv.stdout.strip().splitlines()[-1])


def analysis(mode: Mode, work: Path) -> list[Figure]:
    """`python -m analysis.run --all` on a results tree of omibench cot_boxed rules verdicts, 5 models.

    If the command crashes (a table raising instead of reporting missing inputs), the figure is the time
    of every table built one by one in one process with failures caught, and the crash is noted.
    """
    models = [f"model-{k}" for k in range(5)]
    per_model = (mode.scale or mode.analysis_lines) // len(models)
    data = write_data(work / "analysis-data.jsonl", per_model)
    results, figs = work / "analysis-results", str(work / "analysis-figures")
    lines = analysis_tree(results, data, make_records(per_model), models)
    os.sync()  # the files just written (and the earlier sections') are flushed before, not during, the timing
    times, peaks, crash, tables = [], [], "", {}
    base: dict[str, list[float]] = {"s": [], "MB": []}
    command = [sys.executable, "-m", "analysis.run", "--all", "--results", str(results), "--figures", figs]
    first: dict[str, list[float]] = {"s": [], "MB": []}  # runs with no frame kept (analysis/frame_cache.py)
    os.environ["XDG_CACHE_HOME"] = str(work / "cache")  # the frames kept for these runs, apart from the user's
    frames = work / "cache" / "mmr-harness" / "frames"
    for i in range(mode.analysis_runs):
        if mode.base_tree and i % 2 == 0:  # the base commit on the same files, same rounds, order alternating
            base_run(command, work, mode.base_tree, base)
        shutil.rmtree(frames, ignore_errors=True)  # the first run of the round reads every file
        base_run(command, work, ROOT, first)
        start = time.perf_counter()
        out, peak = run_measured(command, work)
        elapsed = time.perf_counter() - start
        if mode.base_tree and i % 2 == 1:
            base_run(command, work, mode.base_tree, base)
        if out.returncode == 0:
            times.append(elapsed)
            peaks.append(peak)
            per_table = {m[1]: [m[2], float(m[3])] for m in re.finditer(r"^(\S+): (\w+): .*\(([\d.]+)s\)$",
                                                                          out.stdout, re.M)}
            tables = {k: v[0] for k, v in per_table.items()}
            mode.details["analysis_tables"] = per_table
            continue
        last = out.stderr.strip().splitlines()
        crash = f"analysis.run --all exited {out.returncode} after {elapsed:.1f} s: {last[-1] if last else '?'}"
        seconds, per_table = tables_one_by_one(results, figs)
        times.append(seconds)
        tables = {k: v[0] for k, v in per_table.items()}
        mode.details["analysis_tables"] = per_table
        crash += "; crashed: " + ", ".join(f"{k} ({v[2]})" for k, v in per_table.items() if v[0] == "crashed")
    states = {s: sum(1 for v in tables.values() if v == s) for s in sorted(set(tables.values()))}
    name = "python -m analysis.run --all" if not crash else "analysis tables one by one (--all crashed)"
    slowest = sorted(mode.details.get("analysis_tables", {}).items(), key=lambda kv: -kv[1][1])[:3]
    big = lines >= 1_000_000
    fig = Figure("analysis", f"{name}, {lines:,} judged lines", times, "s",
                 10.0 if big else 5.0 if lines >= 100_000 else None, "<=",
                 note=f"the runs' frames kept by the round's first run (analysis/frame_cache.py); that first run, "
                      f"every file read: {median(first['s']):.1f} s, {median(first['MB']):.0f} MB (runs "
                      + ", ".join(f"{x:.1f}" for x in first["s"]) + f" s); tables: {states}; slowest: "
                      + ", ".join(f"{k} {v[1]:.1f} s" for k, v in slowest)
                      + "; includes interpreter start" + (f". {crash}" if crash else ""))
    if fig.met is False and not crash:
        mode.details["analysis_profile"] = analysis_breakdown(results, figs)
    return [fig, *first_run_figures(lines, first, peaks, base, mode, fig)]


def first_run_figures(lines: int, first: dict[str, list[float]], peaks: list[float], base: dict[str, list[float]],
                      mode: Mode, fig: Figure) -> list[Figure]:
    """The first run of each round (no frame kept): its time and peak memory, each against the base's."""
    big = lines >= 1_000_000
    memory = [Figure("analysis", f"analysis.run --all, {lines:,} judged lines: peak RSS (first run)", first["MB"], "MB",
                     1000.0 if big else None, "<=", note="the largest of the command and the workers it waited for "
                     "(figures, runs read ahead), every file read; a rerun with the frames kept: "
                     f"{median(peaks):.0f} MB")] if peaks and first["MB"] else []
    cold = [Figure("analysis", f"analysis.run --all, {lines:,} judged lines, no frame kept", first["s"], "s",
                   10.0 if big else None, "<=", note="the round's first run: every raw and verdict file read (and the "
                   f"frames kept); peak RSS {median(first['MB']):.0f} MB")] if first["s"] else []
    if mode.base_tree:
        from perf.perf_scale import compared
        for f in (fig, *cold):
            compared(f, base["s"], mode.base_tree.name)
        for m in memory:
            compared(m, base["MB"], mode.base_tree.name)
    return [*cold, *memory]


def base_run(command: list[str], work: Path, tree: Path, into: dict[str, list[float]]) -> None:
    start = time.perf_counter()
    out, peak = run_measured(command, work, tree)
    if out.returncode == 0:
        into["s"].append(time.perf_counter() - start)
        into["MB"].append(peak)


# Linux hands a process's peak RSS on to a child it forks (and across exec), so a command started from this process,
# which holds the generated trees, would report at least this process's size. It is started from a small launcher
# instead, which reports the peak of its child: the command itself, or the largest figure worker it waited for.
LAUNCHER = """
import os, subprocess, sys
proc = subprocess.Popen(sys.argv[2:])
_, status, usage = os.wait4(proc.pid, 0)
open(sys.argv[1], "w").write(str(usage.ru_maxrss))
sys.exit(os.waitstatus_to_exitcode(status))
"""


def run_measured(command: list[str], work: Path, tree: Path = ROOT) -> tuple[subprocess.CompletedProcess, float]:
    """Run a command in a tree; its result and the peak RSS (MB) of its largest process (itself, or a child it
    waited for), measured from a launcher (above)."""
    peak = work / "cmd.peak"
    with open(work / "cmd.out", "w+") as out, open(work / "cmd.err", "w+") as err:
        proc = subprocess.run([sys.executable, "-c", LAUNCHER, str(peak), *command], cwd=tree, stdout=out,
                              stderr=err, text=True)
        out.seek(0), err.seek(0)
        return (subprocess.CompletedProcess(command, proc.returncode, out.read(), err.read()),
                int(peak.read_text()) / 1024)
