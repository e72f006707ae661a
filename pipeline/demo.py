"""The demo profile's model work, in one process so that the embedded model's servers start once.

    python -m pipeline.demo [--results results]

1. every experiment of the demo profile (python -m pipeline.experiments --profile demo);
2. MorphoBench's adaptation families (§3.3) by the embedded model: R(Lite) and R(Complex) from its own
   answers to two R(v0) items, P(Perturbed) from two P(v0) items (python -m pipeline.morphobench_adapt). It is too
   small for their model stages, so the reports (adapt_*.md) show the heuristic graphs and the items
   dropped, and why;
3. the adapted splits converted like the release (python -m data.convert morphobench) and answered
   (morphobench.T2-adapted).

Each step is the command named, called in this process; the first that fails stops the run with its exit
code. Every call is logged, so a rerun asks nothing.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from data import convert
from data.checkout import DEMO_BUILD, ROOT
from infer import layout, server
from infer.config import load_model_config
from infer.experiment_spec import DEMO_MODEL
from infer.interrupt import exits_cleanly
from pipeline import experiments, sweep_totals
from pipeline.morphobench_adapt import __main__ as adapt

BUILD = DEMO_BUILD.relative_to(ROOT)  # paths from the repository's root, where run_all.sh runs
ADAPTED = BUILD / "official" / "morphobench_adapted"
MODEL = DEMO_MODEL.relative_to(ROOT)
SOURCE_ITEMS = 2  # per family: enough for every adapted split to have items
ADAPT_LOGS = layout.ADAPTATION_LOGS  # every adaptation call, one line each (pipeline/morphobench_adapt/asking.py)


def steps(results: Path) -> list[tuple[str, list[str]]]:
    """(command, its arguments) of each step, in order."""
    cfg = load_model_config(MODEL)
    setting, _ = experiments.demo_setting("with_hints", cfg)  # the text-only model's with_hints+caption
    raw = layout.raw_path(results, "morphobench", cfg.name, setting)  # its answers in morphobench.T1-T2
    adapt_args = ["--data", str(BUILD / "morphobench.jsonl"), "--model", str(MODEL), "--out", str(ADAPTED),
                  "--limit", str(SOURCE_ITEMS), "--results", str(results), "--max-tokens", "256"]
    return [
        ("pipeline.experiments", ["--profile", "demo", "--results", str(results)]),
        ("pipeline.morphobench_adapt", ["reasoning", *adapt_args, "--source", f"responses:{raw}"]),
        ("pipeline.morphobench_adapt", ["recognition", *adapt_args]),
        ("data.convert", ["morphobench", "--src", str(ADAPTED), "--out", str(BUILD / "morphobench_adapted.jsonl")]),
        ("pipeline.experiments", ["--profile", "demo", "--only", "morphobench.T2-adapted", "--results", str(results)]),
    ]


MAINS = {"pipeline.experiments": experiments.main, "pipeline.morphobench_adapt": adapt.main, "data.convert": convert.main}


@exits_cleanly
def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m pipeline.demo", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--results", type=Path, default=layout.RESULTS)
    args = ap.parse_args(argv)
    done = sweep_totals.Totals()  # both sweeps' runs and judge calls
    adapt_logs = sweep_totals.log_sizes(args.results, ADAPT_LOGS)
    with server.kept():  # one start of the embedded model's servers for every step
        for command, step_args in steps(args.results):
            run = MAINS[command]
            status = run(step_args, totals=done) if run is experiments.main else run(step_args)
            if status:
                print(f"error: python -m {command} {' '.join(step_args)} exited with {status}", file=sys.stderr)
                return status
    calls, failed = sweep_totals.calls_since(args.results, ADAPT_LOGS, adapt_logs)
    print(f"\nAdapted splits: {ADAPTED} (reports adapt_reasoning.md, adapt_recognition.md)")
    print("\n== the demo, in all ==")
    lines = done.lines(args.results)
    print("\n".join([f"{lines[0]}; {calls} adaptation call(s) sent, {failed} failed", *lines[1:]]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
