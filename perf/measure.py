"""Performance figures of the harness: scheduling, client overhead, scale, rule judging, analysis.

    .venv/bin/python perf/measure.py --quick            # about a minute and a half
    .venv/bin/python perf/measure.py                    # full: about eight minutes
    .venv/bin/python perf/measure.py --overhead --judging   # only these sections

Prints one table (figure, median of N runs, target, met?) and writes perf/last_run.json.
See perf/README.md for what each figure means and how to read it on a shared machine.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import os
import platform
import sys
import tempfile
import time
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
os.environ.setdefault("TQDM_DISABLE", "1")  # the resume runs' progress bars would garble the output

from perf.perf_common import FULL, QUICK, Figure, Mode  # noqa: E402

SECTIONS = ("scheduling", "overhead", "scale", "judging", "analysis")


def fmt(value: float, unit: str) -> str:
    if unit == "x":
        return f"{value:.3f}x"
    if unit in ("ms", "s"):
        return f"{value:.3f} {unit}" if value < 10 else f"{value:.1f} {unit}"
    return f"{value:,.0f} {unit}"


def print_table(figures: list[Figure]) -> None:
    rows = [("section", "figure", "measured (median)", "N", "target", "met?")]
    for f in figures:
        target = f"{f.op} {fmt(f.target, f.unit)}" if f.target is not None else "-"
        met = {True: "yes", False: f"NO ({f.shortfall})", None: "-"}[f.met]
        rows.append((f.section, f.name, fmt(f.measured, f.unit), str(len(f.values)), target, met))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    line = lambda r: "  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip()  # noqa: E731
    print("\n" + line(rows[0]) + "\n" + "  ".join("-" * w for w in widths))
    for f, r in zip(figures, rows[1:]):
        print(line(r))
        if f.note:
            print(" " * (widths[0] + 2) + "  " + f.note)


def print_profile(title: str, prof: dict) -> None:
    print(f"\n{title}: {prof['total_s']:.2f} s under cProfile")
    print("  own time by package: " + ", ".join(f"{k} {v:.0%}" for k, v in prof["by_package"].items()))
    for row in prof["top_own_time"][:8]:
        print(f"  {row['share']:6.1%} own {row['cum_share']:6.1%} cum  {row['calls']:>8}  {row['function']}")
    if prof.get("cumulative"):
        print("  cumulative: " + ", ".join(f"{k.split('|')[1]} {v:.0%}" for k, v in prof["cumulative"].items()))


def run_sections(wanted: list[str], mode: Mode, work: Path) -> list[Figure]:
    from perf import perf_client as client
    from perf import perf_analysis, perf_judging, perf_scale

    figures: list[Figure] = []
    needs_server = {"scheduling", "overhead", "scale"} & set(wanted)
    server = None
    if needs_server:
        from perf.perf_server import Server
        server = Server().__enter__()
    try:
        if {"scheduling", "overhead"} & set(wanted):
            figures += step("server capacity", lambda: client.server_capacity(server, mode))
        if "scheduling" in wanted:
            figures += step("scheduling", lambda: client.scheduling(server, mode))
        if "overhead" in wanted:
            got = step("overhead", lambda: client.overhead(server, mode))
            figures += got
            if any(f.met is False for f in got):
                mode.details["chatclient_profile"] = client.profile_chatclient(server)
                mode.details["raw_profile"] = client.profile_raw(server)
        if "scale" in wanted:
            figures += step("scale", lambda: perf_scale.scale(server, mode, work))
    finally:
        if server is not None:
            server.__exit__(None, None, None)
    if "judging" in wanted:
        figures += step("judging", lambda: perf_judging.judging(mode))
    if "analysis" in wanted:
        figures += step("analysis", lambda: perf_analysis.analysis(mode, work))
    return figures


def step(name: str, fn) -> list[Figure]:
    start = time.perf_counter()
    print(f"[{time.strftime('%H:%M:%S')}] {name} ...", flush=True)
    out = fn()
    for f in out:
        print(f"    {f.name}: {fmt(f.measured, f.unit)}", flush=True)
    print(f"    ({time.perf_counter() - start:.0f} s)", flush=True)
    return out


def export_tree(commit: str, work: Path) -> Path:
    """The commit's files, exported with `git archive` into the work folder (no worktree is added)."""
    sha = subprocess.run(["git", "rev-parse", "--short", commit], cwd=ROOT, check=True, capture_output=True,
                         text=True).stdout.strip()
    tree = work / f"base-{sha}"
    tree.mkdir()
    archive = subprocess.run(["git", "archive", sha], cwd=ROOT, check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
    return tree


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="smaller runs: about a minute and a half")
    for s in SECTIONS:
        if s == "scale":  # --scale alone: the default sizes; --scale N: runs of N (and an analysis tree of N lines)
            ap.add_argument("--scale", nargs="?", type=int, const=0, default=None, metavar="N",
                            help="run the scale section (default: every section); N: its size, e.g. 1000000")
        else:
            ap.add_argument(f"--{s}", action="store_true", help=f"run the {s} section (default: every section)")
    ap.add_argument("--size", type=int, metavar="N", help="the size of the scale section's runs and of the analysis "
                    "tree, without choosing sections (--scale N is --scale --size N)")
    ap.add_argument("--base", metavar="COMMIT", help="measure the scale and analysis figures of that commit too, in "
                    "the same rounds (its tree exported with git archive), and give each figure's ratio to it")
    ap.add_argument("--json", type=Path, default=ROOT / "perf" / "last_run.json")
    ap.add_argument("--keep", action="store_true", help="keep the generated files (their folder is printed)")
    args = ap.parse_args(argv)
    wanted = [s for s in SECTIONS if (args.scale is not None if s == "scale" else getattr(args, s))] or list(SECTIONS)
    mode = dataclasses.replace(QUICK if args.quick else FULL, scale=args.scale or args.size or None)
    work = Path(tempfile.mkdtemp(prefix="perf-"))
    started, load0 = time.time(), os.getloadavg()
    print(f"perf/measure.py: {mode.name} mode, sections {', '.join(wanted)}; {os.cpu_count()} cores, "
          f"load average {load0[0]:.2f}; files in {work}", flush=True)
    if args.base:  # a commit, or a folder already holding its tree
        mode.base_tree = Path(args.base) if Path(args.base).is_dir() else export_tree(args.base, work)
    try:
        figures = run_sections(wanted, mode, work)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    elapsed = time.time() - started
    print_table(figures)
    for key, title in (("chatclient_profile", "ChatClient at latency 0, c=64 (overhead target missed)"),
                       ("raw_profile", "raw aiohttp generator, same load"),
                       ("judging_profile", "rule judge (target missed)")):
        if key in mode.details:
            print_profile(title, mode.details[key])
    if "analysis_profile" in mode.details:  # target missed: where the time goes
        phases = mode.details["analysis_profile"]["phases"]
        print("\nanalysis.run --all, phase by phase (a fresh interpreter): "
              + ", ".join(f"{k} {v:.2f} s" for k, v in phases.items()))
        print_profile("analysis.run --all in this process (figures drawn here too when another thread runs in it)",
                      mode.details["analysis_profile"]["profile"])
    load1 = os.getloadavg()
    print(f"\n{mode.name} mode: {elapsed:.0f} s; load average {load0[0]:.2f} at start, {load1[0]:.2f} at end "
          f"({os.cpu_count()} cores, shared: other processes' load shows in the CPU-bound figures)")
    args.json.write_text(json.dumps({
        "mode": mode.name, "sections": wanted, "started": time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(started)),
        "seconds": round(elapsed, 1), "machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                                                 "loadavg_start": load0, "loadavg_end": load1},
        "figures": [f.as_dict() for f in figures], "details": mode.details}, indent=2) + "\n")
    print(f"wrote {args.json.relative_to(ROOT) if args.json.is_relative_to(ROOT) else args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
