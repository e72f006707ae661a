"""What MORPHO-G's circuit black boxes give away to a reader of the options' text alone
(data/generate/heuristics.py), for Table 5: how often the count heuristic ("the first option with the n
terminals the question states, else None of the above"), the closest-netlist guess and a uniform random
guess would answer them, per distractor design and level.

For the items a table reads, the guesses are computed on those items (their `distractor_design`, level,
listed netlists and answer). Beside them, for both designs, stand the numbers of the measurement that
``python -m data.generate circuit_heuristics`` writes on many generated items (data/generate/
circuit_heuristics.csv, which names its seed, items per level and commit), and the notes say so.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable

import pandas as pd

from analysis.run_files import shown
from data.generate.distractors import DESIGNS
from data.generate.heuristics import COMMAND, DEFAULT_OUT, GUESSES, RANDOM_EXPECTED_PCT, percent_right

NOT_RECORDED = "not recorded"   # items converted before the design was recorded
PCT = [*(f"{name}_pct" for name in GUESSES), "random_pct"]
COLUMNS = ["design", "level", "items", *PCT, "random_expected_pct", "source"]


def on_items(records: Iterable[dict[str, Any]]) -> pd.DataFrame:
    """COLUMNS per (design, level) of the circuit records that list their netlists (`extra.netlists`)."""
    groups: dict[tuple[str, int], list[tuple[int, list[str], str]]] = {}
    for rec in sorted(records, key=lambda r: str(r["id"])):
        netlists = (rec.get("extra") or {}).get("netlists")
        if not netlists or rec.get("level") is None:
            continue
        key = (rec.get("distractor_design") or NOT_RECORDED, int(rec["level"]))
        groups.setdefault(key, []).append((int(rec["level"]), list(netlists), rec["answer"][0]))
    rows = [{"design": design, "level": level, "items": len(items),
             **{f"{k}_pct": v for k, v in percent_right(items, f"items/{design}/L{level}").items()},
             "random_expected_pct": RANDOM_EXPECTED_PCT, "source": "the items read"}
            for (design, level), items in sorted(groups.items())]
    return pd.DataFrame(rows, columns=COLUMNS)


def measured(designs: list[str], path: Path = DEFAULT_OUT) -> tuple[pd.DataFrame, list[str]]:
    """COLUMNS of the committed measurement for `designs`, and a note naming where it came from (or why
    there is none)."""
    if not designs:
        return pd.DataFrame(columns=COLUMNS), []
    if not path.exists():
        return pd.DataFrame(columns=COLUMNS), [f"No measurement of the {', '.join(designs)} design: {shown(path)} "
                                               f"is missing (make it with {COMMAND} --n 60 --seed 0)."]
    df = pd.read_csv(path)
    df = df[df["design"].isin(designs)]
    runs = df[["seed", "items", "commit", "dirty"]].drop_duplicates()
    origin = "; ".join(f"seed {r.seed}, {r.items} items per level, commit {str(r.commit)[:10]}"
                       + (" with uncommitted changes" if r.dirty else "") for r in runs.itertuples())
    source = f"{shown(path)} ({COMMAND}: {origin})"
    return df.assign(source=source)[COLUMNS], [f"The measured numbers of {', '.join(designs)} are read from "
                                               f"{source}."]


def table(records: Iterable[dict[str, Any]], path: Path = DEFAULT_OUT) -> tuple[pd.DataFrame, list[str]]:
    """The guesses' % right per design and level: on the items read, and as measured for every design on many
    generated items (the few items of a demo say little); with the notes that state them."""
    items = on_items(records)
    other, where = measured(list(DESIGNS), path)
    both = pd.concat([f for f in (items, other) if not f.empty] or [items], ignore_index=True)
    groups = both.groupby(["design", "source"], sort=False)
    return both, [_definition()] + [_summary(design, g) for (design, _), g in groups] + where


def _definition() -> str:
    return ("Text-only guesses, without the waveform (data/generate/heuristics.py), % right: count = the first option "
            "whose netlist joins the n terminals the question states, else None of the above (F); closest = the option "
            "sharing the most component lines with the other four; random = a seeded uniform guess over six letters "
            f"({RANDOM_EXPECTED_PCT:.1f} expected). Under fig7 (Fig. 7's options: five different terminal counts) the "
            "count names the answer; under same_count (the default) every option joins n terminals.")


def _cells(g: pd.DataFrame, column: str) -> str:
    return ", ".join(f"L{level} {value:.1f}" for level, value in zip(g["level"], g[column]))


def _summary(design: str, g: pd.DataFrame) -> str:
    g = g.sort_values("level")
    read = (g["source"] == "the items read").all()
    where = f"on the {int(g['items'].sum())} items read" if read else \
        f"measured on {int(g['items'].sum())} generated items"
    return (f"{design} ({where}), % right per level: count {_cells(g, 'count_pct')}; closest {_cells(g, 'closest_pct')}; "
            f"random {_cells(g, 'random_pct')}.")
