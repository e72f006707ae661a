"""Generate MORPHO-G items in MorphoBench's official format (a split folder of parquet files that
``python -m data.convert morphobench --src OUT`` reads).

    python -m data.generate circuits  --n N --level L --seed S --out DIR [--distractors same_count|fig7]
    python -m data.generate spot_diff --n N --rows R --cols C --seed S --out DIR
                                      [--similarity high|medium|low] [--script latin|cjk] [--font PATH]
    python -m data.generate circuit_heuristics --n N --seed S [--out CSV]

The same arguments write byte-identical files. Item i of a run does not depend on N.
"""
from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from data.generate import circuits, heuristics, measure_heuristics, spot_diff
from data.generate.circuit_items import GenerationError
from data.generate.distractors import DEFAULT_DESIGN, DESIGNS
from data.generate.glyphs import SCRIPTS, TIERS, FontError
from data.generate.spice import SimulationError



def _count(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m data.generate", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="task", required=True)
    c = sub.add_parser("circuits", help="circuit black-box items (Fig. 7), simulated with ngspice")
    c.add_argument("--level", type=int, required=True, choices=range(1, 11), metavar="1-10",
                   help="difficulty level = number of input terminals")
    c.add_argument("--distractors", choices=DESIGNS, default=DEFAULT_DESIGN,
                   help="same_count (default): every listed netlist joins the level's terminals, so only the "
                        "waveform tells them apart; fig7: five different terminal counts, as Fig. 7's options "
                        "(the count alone then names the answer)")
    s = sub.add_parser("spot_diff", help='"spot the different one" grids (Fig. 8)')
    s.add_argument("--rows", type=_count, required=True)
    s.add_argument("--cols", type=_count, required=True)
    s.add_argument("--similarity", choices=list(TIERS), default="high",
                   help="similarity tier of the character pair (default: high)")
    s.add_argument("--script", choices=SCRIPTS, default="latin", help="Latin letters or Chinese characters")
    s.add_argument("--font", type=Path, help="font file to draw with (cjk: default, a system CJK font)")
    for p in (c, s):
        p.add_argument("--n", type=_count, required=True, help="number of items")
        p.add_argument("--seed", type=int, default=0)
        p.add_argument("--out", type=Path, required=True, help="folder of the release (the split folder goes inside)")
        p.add_argument("--quiet", action="store_true", help="no progress bar")
    h = sub.add_parser("circuit_heuristics", help="how often text-only guesses answer circuit items, per design and "
                                                  "level 1-10 (the CSV morphobench.T5 reads)")
    h.add_argument("--n", type=_count, required=True, help="items per design and level")
    h.add_argument("--seed", type=int, default=0)
    h.add_argument("--out", type=Path, default=heuristics.DEFAULT_OUT,
                   help="CSV to write (default: the committed data/generate/circuit_heuristics.csv)")
    return ap


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    args = parser().parse_args(argv)
    try:
        if args.task == "circuit_heuristics":
            path = measure_heuristics.write(measure_heuristics.measure(args.n, args.seed), args.out)
        elif args.task == "circuits":
            path = circuits.generate(args.out, args.n, args.level, args.seed, progress=not args.quiet,
                                     design=args.distractors)
        else:
            path = spot_diff.generate(args.out, args.n, args.rows, args.cols, args.seed, args.similarity,
                                      args.script, args.font, progress=not args.quiet)
    except (ValueError, FontError, SimulationError, GenerationError) as e:
        print(f"data.generate {args.task}: {e}", file=sys.stderr)
        return 1
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
