"""Time the demo by stage: what a newcomer waits for between `bash run_all.sh` and the first report.

    .venv/bin/python perf/demo_stages.py            # a fresh clone of HEAD in a temporary folder
    .venv/bin/python perf/demo_stages.py --keep     # keep that folder (printed first)
    .venv/bin/python perf/demo_stages.py --commit fec13c0   # an earlier version, for a comparison in one window

The clone runs the same commands as run_all.sh's demo profile, one stage at a time, then once more (the rerun,
which sends nothing), and the script prints one table: seconds per stage for both, with the requests and judge
calls the demo sent, and the machine (cores, the CPU flags the embedded model's build depends on). pip's and the
llama.cpp wheel's caches are the machine's own (warm after the first setup here): the setup stage says which.
Nothing outside the temporary folder is written.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PY = ".venv/bin/python"
# run_all.sh's demo profile, stage by stage (MORPHO-G's generation as run_all.sh makes it when its file is absent)
STAGES: list[tuple[str, list[str]]] = [
    ("setup (venv, requirements, llama.cpp wheel)", ["bash", "setup.sh"]),
    ("demo sets (data.demo)", [PY, "-m", "data.demo", "--out", "data/demo/build"]),
    *[(f"MORPHO-G circuits, level {n}", [PY, "-m", "data.generate", "circuits", "--n", "1", "--level", str(n), "--seed",
                                          "0", "--distractors", "same_count", "--out",
                                          "data/demo/build/official/morpho_g", "--quiet"]) for n in (1, 2, 3)],
    ("MORPHO-G spot-the-difference", [PY, "-m", "data.generate", "spot_diff", "--n", "1", "--rows", "6", "--cols", "11",
                                      "--seed", "0", "--out", "data/demo/build/official/morpho_g", "--quiet"]),
    ("MORPHO-G converted", [PY, "-m", "data.convert", "morphobench", "--src", "data/demo/build/official/morpho_g",
                            "--out", "data/demo/build/morpho_g.jsonl"]),
    ("model runs, judges, adaptation (pipeline.demo)", [PY, "-m", "pipeline.demo", "--results", "results"]),
    ("tables, figures, report (analysis.run)", [PY, "-m", "analysis.run", "--all", "--report", "--results", "results"]),
]
RERUN = ["bash", "run_all.sh"]


def machine() -> str:
    """Cores and the CPU flags the embedded model's build depends on (setup.sh: AMX turns it off)."""
    flags = set(Path("/proc/cpuinfo").read_text().split()) if Path("/proc/cpuinfo").exists() else set()
    wanted = [f for f in ("avx2", "avx512f", "avx512_vnni", "amx_tile") if f in flags]
    return f"{os.cpu_count()} cores; CPU flags: {', '.join(wanted) or 'none of avx2, avx512f, amx_tile'}"


def timed(cmd: list[str], cwd: Path, env: dict[str, str] | None = None) -> tuple[float, str]:
    """Seconds the command took and its output; a failing stage stops the measurement with its output."""
    start = time.perf_counter()
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=env)
    seconds = time.perf_counter() - start
    if p.returncode:
        sys.exit(f"{' '.join(cmd)} exited with {p.returncode}:\n{p.stdout[-2000:]}\n{p.stderr[-2000:]}")
    return seconds, p.stdout + p.stderr


def sent(output: str) -> str:
    """The demo's own summary of what it sent (pipeline.demo's last lines)."""
    found = re.search(r"== the demo, in all ==\n(.+)", output)
    return found.group(1).strip() if found else "(no summary found)"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--keep", action="store_true", help="keep the temporary clone")
    ap.add_argument("--commit", default="HEAD", help="the version to time (default: HEAD)")
    ap.add_argument("--cold", action="store_true", help="empty pip and llama.cpp caches (in the temporary folder): "
                    "setup downloads every wheel and compiles llama.cpp, as on a new machine")
    args = ap.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="demo-stages-"))
    clone = work / "checkout"
    print(f"{machine()}; clone of {ROOT.name} at {args.commit} in {clone}")
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
    subprocess.run(["git", "checkout", "-q", args.commit], cwd=clone, check=True)
    env = {**os.environ, "XDG_CACHE_HOME": str(work / "cache"), "PIP_CACHE_DIR": str(work / "pip")} if args.cold \
        else None
    rows, demo_output = [], ""
    for name, cmd in STAGES:
        seconds, output = timed(cmd, clone, env)
        rows.append((name, seconds))
        demo_output = output if "pipeline.demo" in name else demo_output
    total = sum(s for _, s in rows)
    rerun, _ = timed(RERUN, clone, env)
    width = max(len(n) for n, _ in rows)
    print(f"\n{'stage':<{width}}  seconds")
    print("\n".join(f"{n:<{width}}  {s:7.1f}" for n, s in rows))
    print(f"{'first run, in all':<{width}}  {total:7.1f}\n{'rerun (bash run_all.sh)':<{width}}  {rerun:7.1f}")
    print(f"\nthe demo sent: {sent(demo_output)}")
    if args.keep:
        print(f"kept: {work}")
    else:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
