"""MIRA (a Benchmark for Visual Chain-of-Thought): its release, judges and the facts its stages share."""
from __future__ import annotations

from data.benchmarks import Benchmark, Source

DOMAINS = {"EG": "Euclidean Geometry", "PBR": "Physics-Based Reasoning",
           "ASLP": "Abstract Spatial & Logical Puzzles", "CT": "Causal Transformations"}

# The 20 tasks: names as in Tables 4-10, domains as in the Sec. 7 prompt headings (the tables agree),
# folder names as in the official release.
TASKS: list[tuple[str, str, str]] = [
    ("Convex Hull", "EG", "convex_hull"),
    ("Overlap", "EG", "overlap"),
    ("Localizer", "EG", "localizer"),
    ("Mirror Pattern", "EG", "mirror_pattern"),
    ("Cubes Count", "EG", "cubes_count"),
    ("Cubes Missing", "EG", "cubes_missing"),
    ("Billiards", "PBR", "billiards"),
    ("Electric Charge", "PBR", "electric_charge"),
    ("Mirror Clock", "PBR", "mirror_clock"),
    ("Unfolded Cube", "ASLP", "unfolded_cube"),
    ("Defuse A Bomb", "ASLP", "defuse_a_bomb"),
    ("Multi-piece Puzzle", "ASLP", "multi_piece_puzzle"),
    ("Puzzle", "ASLP", "puzzle"),
    ("Trailer Cubes Count", "ASLP", "trailer_cubes_count"),
    ("Trailer Cubes Missing", "ASLP", "trailer_cubes_missing"),
    ("Paper Airplane", "CT", "paper_airplane"),
    ("Gear Rotation", "CT", "gear_rotation"),
    ("Rolling Dice: Top", "CT", "rolling_dice_top"),
    ("Rolling Dice: Two", "CT", "rolling_dice_two"),
    ("Rolling Dice: Sum", "CT", "rolling_dice_sum"),
]

# Rolling Dice: Two has a two-part gold instead of `answer`, as the authors' acc.py reads it: `answer1`,
# which path (red / black / same), and `answer2`, an integer (the total); an item is right only when both
# parts are. The record's `answer` holds the two in that order, answer_type multi-part.
TWO_PART_TASK = "Rolling Dice: Two"
TWO_PART_LABELS = ("red", "black", "same")

# MIRA's official download_data.py (aiming-lab/MIRA) fetches one task at a time, files up to three folders deep,
# and waits 60 s between tasks to stay under the Hub's rate limits.
_PARTS = tuple((f"{t}/*", f"{t}/*/*", f"{t}/*/*/*") for t in sorted(folder for _, _, folder in TASKS))

BENCHMARK = Benchmark(
    name="mira", paper="MIRA",
    source=Source("YiyangAiLab/MIRA", "https://huggingface.co/datasets/YiyangAiLab/MIRA", parts=_PARTS, pause_s=60.0),
    default_judges=("rules", "mira_judge"),
    adjudicator="mira_judge", paper_data="mira_levels", answer_tag=True)
